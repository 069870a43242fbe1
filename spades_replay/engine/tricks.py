"""Play legality and trick-taking: the card-play rules of docs/rules.md, "Both variants".

Everything here is a pure function over bitmask holdings (see :mod:`.cards`). Where the rules
let a spade be led at any time (``spades_must_be_broken`` false), callers pass
``spades_broken=True`` from the first trick on (:func:`spades_open`). Three levels, as
for every action: :func:`play_violation` says which rule a play breaks (or ``None``),
:func:`is_legal_play` answers yes or no, :func:`check_play` raises an :class:`IllegalActionError`
that explains why and what was legal; :func:`play_out` replays a whole hand's card play.

>>> from spades_replay.engine.cards import mask_of, parse_card as c
>>> holding = mask_of([c("3C"), c("KC"), c("7H"), c("2S")])
>>> is_legal_play(holding, c("7H"), led=0, spades_broken=False)
False
>>> names_of(legal_plays(holding, led=0, spades_broken=False))
'3C KC'
>>> trick_winner([c("KH"), c("AH"), c("2S"), c("3H")], leader=0, seat_count=4)
2
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from spades_replay.engine.cards import (
    CARD_NAMES,
    NON_SPADES_MASK,
    SPADES,
    SUIT_MASKS,
    Card,
    Suit,
    names_of,
    suit_name,
)
from spades_replay.engine.rules import TWO_OF_CLUBS, Rules
from spades_replay.engine.seats import Seat, Variant
from spades_replay.errors import Code

FIRST_SPADE: Card = 13 * SPADES
"""The lowest spade (2S); every card at or above it is a spade."""
CLUB_TWO: Card = 0
"""The two of clubs (2C), the lowest card."""

RULE_HOLD = "a player can only play a card she holds"
RULE_FOLLOW = "a player who holds the led suit must follow it"
RULE_BREAK = "spades may not be led until broken, unless the leader holds only spades"
RULE_FIRST_LEAD = (
    "with first_lead two_of_clubs, the player holding the two of clubs leads it to the first trick"
)


def spades_open(rules: Rules, spades_broken: bool) -> bool:
    """Whether a spade may be led now as far as breaking goes: spades are broken, or the rules
    let them be led at any time (``spades_must_be_broken`` false)."""
    return spades_broken or not rules.spades_must_be_broken


def two_of_clubs_leads(variant: Variant, rules: Rules) -> bool:
    """Whether the holder of 2C leads it to the first trick (``first_lead: two_of_clubs``,
    four-player only: the option has no effect in two-player)."""
    # (the option first: it is the cheaper test, and false in most games)
    return rules.first_lead == TWO_OF_CLUBS and variant.seat_count == 4


def opening_card(variant: Variant, rules: Rules) -> Card | None:
    """The card the first trick of a hand must be led with, or ``None`` when any legal card
    may lead it: 2C under ``first_lead: two_of_clubs`` (four-player; its holder leads, see
    :func:`opening_leader`)."""
    return CLUB_TWO if two_of_clubs_leads(variant, rules) else None


def opening_leader(variant: Variant, rules: Rules, dealer: Seat, holdings: Sequence[int]) -> Seat:
    """Who leads the first trick, from the holdings as play begins (after any exchange): the
    holder of 2C under ``first_lead: two_of_clubs`` (four-player), else the second player
    (two-player) or the dealer's left-hand opponent."""
    if two_of_clubs_leads(variant, rules):
        return next(seat for seat, held in enumerate(holdings) if held & 1 << CLUB_TWO)
    return (dealer + 1) % variant.seat_count


def check_first_lead(
    variant: Variant, rules: Rules, seat: Seat, card: Card, *, at: tuple[str | int, ...]
) -> None:
    """Raise :class:`IllegalActionError` when the first card of a hand is not 2C where
    ``first_lead: two_of_clubs`` asks for it (``seat`` is the leader, who holds it)."""
    if card == CLUB_TWO or not two_of_clubs_leads(variant, rules):
        return
    # the actions' module only here, where a rule is broken: the fast path never is
    from spades_replay.engine.actions import IllegalActionError

    raise IllegalActionError(
        Code.PLAY_FIRST_LEAD,
        f"led {CARD_NAMES[card]}, but she holds 2C and must lead it to the first trick "
        "(first_lead is two_of_clubs)",
        RULE_FIRST_LEAD,
        at=at,
        seat=seat,
        legal=(CARD_NAMES[CLUB_TWO],),
        trick=1,
        position=1,
    )


def legal_plays(holding: int, led: Suit | None, spades_broken: bool) -> int:
    """The bitmask of the cards in ``holding`` that may be played.

    ``led`` is the suit led to the current trick, or ``None`` when the player leads.
    """
    if led is None:
        if spades_broken or not holding & NON_SPADES_MASK:
            return holding
        return holding & NON_SPADES_MASK
    following = holding & SUIT_MASKS[led]
    return following or holding


def strict_legal_plays(holding: int, led: Suit | None) -> int:
    """The cards of ``holding`` that may be played where spades never count as broken (the
    rule of OpenSpiel's ``spades``): a spade may be led only by a player who holds nothing but
    spades; following is as always."""
    return legal_plays(holding, led, spades_broken=False)


def play_violation(holding: int, card: Card, led: Suit | None, spades_broken: bool) -> Code | None:
    """The rule that playing ``card`` breaks, or ``None`` when the play is legal."""
    if not holding >> card & 1:
        return Code.PLAY_NOT_HELD
    if led is None:
        if card >= FIRST_SPADE and not spades_broken and holding & NON_SPADES_MASK:
            return Code.PLAY_SPADES_NOT_BROKEN
    elif card // 13 != led and holding & SUIT_MASKS[led]:
        return Code.PLAY_REVOKE
    return None


def is_legal_play(holding: int, card: Card, led: Suit | None, spades_broken: bool) -> bool:
    """Whether ``card`` may be played from ``holding``."""
    return play_violation(holding, card, led, spades_broken) is None


def check_play(
    holding: int,
    card: Card,
    led: Suit | None,
    spades_broken: bool,
    *,
    seat: Seat,
    at: tuple[str | int, ...],
    trick: int | None = None,
    position: int | None = None,
) -> None:
    """Raise :class:`IllegalActionError` when ``card`` may not be played, saying why."""
    code = play_violation(holding, card, led, spades_broken)
    if code is None:
        return
    name = CARD_NAMES[card]
    legal = legal_plays(holding, led, spades_broken)
    if code is Code.PLAY_NOT_HELD:
        message = f"played {name} but does not hold it (holds {names_of(holding) or 'nothing'})"
        rule = RULE_HOLD
    elif code is Code.PLAY_REVOKE:
        assert led is not None
        message = (
            f"played {name} but must follow {suit_name(led)} "
            f"(holds {names_of(holding & SUIT_MASKS[led]).replace(' ', ', ')})"
        )
        rule = RULE_FOLLOW
    else:
        message = f"led {name} but spades are not broken and she holds other suits"
        rule = RULE_BREAK
    # the actions' module only here, where a rule is broken: the fast path never is
    from spades_replay.engine.actions import IllegalActionError

    raise IllegalActionError(
        code,
        message,
        rule,
        at=at,
        seat=seat,
        legal=tuple(names_of(legal).split()),
        trick=trick,
        position=position,
    )


def beats(card: Card, best: Card) -> bool:
    """Whether ``card`` beats ``best``, the card winning the trick so far.

    Spades are the highest numbers, so a spade beats any other suit; otherwise only a higher
    card of the same suit wins (``best`` is always of the led suit or a spade).
    """
    return card > best and (card >= FIRST_SPADE or card // 13 == best // 13)


def trick_winner(cards: Sequence[Card], leader: Seat, seat_count: int) -> Seat:
    """The seat that wins a trick; ``cards`` are in play order, beginning with ``leader``'s."""
    best = cards[0]
    offset = 0
    for i in range(1, len(cards)):
        if beats(cards[i], best):
            best = cards[i]
            offset = i
    return (leader + offset) % seat_count


class Trick(NamedTuple):
    """One trick: who led, the cards in play order, who won (``None`` while unfinished)."""

    number: int
    leader: Seat
    cards: tuple[Card, ...]
    winner: Seat | None
    seat_count: int

    def seat_of(self, position: int) -> Seat:
        """The seat that played the card at ``position`` (0-based) of this trick."""
        return (self.leader + position) % self.seat_count

    @property
    def plays(self) -> tuple[tuple[Seat, Card], ...]:
        """The trick as (seat, card) pairs, in play order."""
        return tuple((self.seat_of(i), card) for i, card in enumerate(self.cards))


class PlayOutcome(NamedTuple):
    """The card play of one hand, replayed: who won each trick, each seat's count, what is
    left in every hand, whether spades were broken. :attr:`tricks` spells the tricks out."""

    plays: tuple[Card, ...]
    leader: Seat
    winners: tuple[Seat, ...]
    tricks_won: tuple[int, ...]
    holdings: tuple[int, ...]
    spades_broken: bool

    @property
    def complete(self) -> bool:
        """Whether all 13 tricks were played."""
        return len(self.winners) == 13

    @property
    def tricks(self) -> tuple[Trick, ...]:
        """Every trick, the last one unfinished (winner ``None``) if play stopped mid-trick."""
        count = len(self.holdings)
        tricks = []
        leader = self.leader
        for number in range(1, (len(self.plays) + count - 1) // count + 1):
            cards = self.plays[(number - 1) * count : number * count]
            winner = self.winners[number - 1] if number <= len(self.winners) else None
            tricks.append(Trick(number, leader, cards, winner, count))
            if winner is not None:
                leader = winner
        return tuple(tricks)


def play_out(
    holdings: Sequence[int],
    leader: Seat,
    plays: Sequence[Card],
    *,
    spades_free: bool = False,
) -> PlayOutcome:
    """Replay a hand's card play from its start, checking every card.

    ``holdings`` are the seats' cards when play begins, ``leader`` leads the first trick, and
    ``plays`` are the cards in order (at most 13 per seat); ``spades_free`` lets a spade be
    led before spades are broken (``spades_must_be_broken`` false). Raises
    :class:`IllegalActionError` (addressed ``("plays", i)``) at the first illegal card (the
    one :func:`play_violation` refuses), from :func:`check_play`, which says why and what was
    legal.

    This is the engine's plain statement of the play rules: every card goes through
    :func:`check_play` and every trick through :func:`trick_winner`. Speed is the fast
    verifier's job (:mod:`spades_replay.replayer.verify`); a differential test holds the two equal.
    """
    count = len(holdings)
    held = list(holdings)
    won = [0] * count
    winners: list[Seat] = []
    broken = False
    trick: list[Card] = []
    trick_leader = leader
    seat = leader
    for index, card in enumerate(plays):
        led = trick[0] // 13 if trick else None
        if play_violation(held[seat], card, led, broken or spades_free) is not None:
            check_play(
                held[seat],
                card,
                led,
                broken or spades_free,
                seat=seat,
                at=("plays", index),
                trick=len(winners) + 1,
                position=len(trick) + 1,
            )
        held[seat] &= ~(1 << card)
        broken = broken or card >= FIRST_SPADE
        trick.append(card)
        if len(trick) == count:
            winner = trick_winner(trick, trick_leader, count)
            winners.append(winner)
            won[winner] += 1
            seat = trick_leader = winner
            trick = []
        else:
            seat = (seat + 1) % count
    return PlayOutcome(tuple(plays), leader, tuple(winners), tuple(won), tuple(held), broken)

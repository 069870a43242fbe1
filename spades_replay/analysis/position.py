"""Positions of card play for the solver, and groups of equivalent cards.

A :class:`Position` is any moment of a hand's card play: what each seat still holds, the trick
in progress and who led it, whether spades are broken, and the tricks won so far. Cards of one
hand that are adjacent among the cards still in play are *equivalent*: playing any of them
leads to the same result, so the search tries one card per group (:func:`representatives`).

>>> from spades_replay.engine.cards import mask_of, names_of, parse_card as c
>>> from spades_replay.engine.seats import Variant
>>> position = Position(
...     Variant.TWO_PLAYER,
...     holdings=(mask_of([c("AH"), c("KH")]), mask_of([c("2H"), c("3C")])),
...     leader=0,
... )
>>> names_of(equivalent_cards(position, c("KH")))
'KH AH'
"""

from __future__ import annotations

from dataclasses import dataclass, field

from spades_replay.engine.cards import (
    CARD_NAMES,
    FULL_DECK_MASK,
    SUIT_MASKS,
    Card,
    Suit,
    names_of,
)
from spades_replay.engine.rules import STANDARD, Rules
from spades_replay.engine.seats import Seat, Variant
from spades_replay.engine.tricks import (
    FIRST_SPADE,
    is_legal_play,
    legal_plays,
    opening_card,
    spades_open,
    trick_winner,
)

__all__ = ["Position", "equivalent_cards", "opening"]

SUIT_OF = tuple(card // 13 for card in range(52))
"""Each card's suit."""
RANK_OF = tuple(card % 13 for card in range(52))
"""Each card's rank within its suit (0 for a two, 12 for an ace)."""
SUIT_STARTS = 1 | 1 << 13 | 1 << 26 | 1 << 39
"""The lowest card of each suit."""


@dataclass(frozen=True, slots=True)
class Position:
    """A moment of card play, for the solver.

    ``holdings`` are the cards each seat still holds (bitmasks); ``trick`` the cards already
    played to the trick in progress, in play order, beginning with ``leader``'s (empty when
    ``leader`` is about to lead); ``tricks_won`` the tricks each seat has won so far (all
    zero by default). ``forced`` is a card the player to move must play: the card the
    engine's rules make open the hand, such as 2C under ``first_lead: two_of_clubs`` (see
    :func:`opening`). Rules where spades need not be broken are positions with
    ``spades_broken`` set from the start. Raises :class:`ValueError` for an impossible
    position.
    """

    variant: Variant
    holdings: tuple[int, ...]
    leader: Seat
    trick: tuple[Card, ...] = ()
    spades_broken: bool = False
    tricks_won: tuple[int, ...] = field(default=())
    forced: Card | None = None

    def __post_init__(self) -> None:
        n = self.variant.seat_count
        if len(self.holdings) != n:
            raise ValueError(f"a {self.variant.value} position needs {n} holdings")
        if not self.tricks_won:
            object.__setattr__(self, "tricks_won", (0,) * n)
        if len(self.tricks_won) != n or min(self.tricks_won) < 0:
            raise ValueError(f"tricks_won needs {n} counts of 0 or more")
        if not 0 <= self.leader < n:
            raise ValueError(f"no seat {self.leader} in {self.variant.value}")
        if len(self.trick) >= n:
            raise ValueError(f"a trick in progress has at most {n - 1} cards")
        seen = 0
        for index, mask in enumerate(self.holdings):
            if mask < 0 or mask & ~FULL_DECK_MASK:
                raise ValueError(f"holding {index} is not a set of cards")
            if seen & mask:
                raise ValueError(f"{names_of(seen & mask)} held by two seats")
            seen |= mask
        for card in self.trick:
            if not 0 <= card < 52 or seen >> card & 1:
                raise ValueError(f"trick card {card!r} is not a free card")
            seen |= 1 << card
        if any(card >= FIRST_SPADE for card in self.trick) and not self.spades_broken:
            raise ValueError("a spade is in the trick, so spades are broken")
        counts = [mask.bit_count() for mask in self.holdings]
        left = counts[self.leader]
        for offset in range(n):
            seat = (self.leader + offset) % n
            expected = left + 1 if self.trick and offset >= len(self.trick) else left
            if counts[seat] != expected:
                raise ValueError(
                    f"seat {seat} holds {counts[seat]} card(s) but should hold {expected} "
                    f"(the leader holds {left}, {len(self.trick)} card(s) in the trick)"
                )
        if sum(self.tricks_won) + self.tricks_left > 13:
            raise ValueError("more than 13 tricks between those won and those left")
        if self.forced is not None and not (
            0 <= self.forced < 52
            and self.holdings[self.to_move] >> self.forced & 1
            and is_legal_play(self.holdings[self.to_move], self.forced, self.led, True)
        ):
            raise ValueError(f"seat {self.to_move} cannot be made to play card {self.forced!r}")

    @property
    def to_move(self) -> Seat:
        """The seat that plays next."""
        return (self.leader + len(self.trick)) % self.variant.seat_count

    @property
    def led(self) -> Suit | None:
        """The suit led to the trick in progress, or ``None`` when a lead is due."""
        return SUIT_OF[self.trick[0]] if self.trick else None

    @property
    def tricks_left(self) -> int:
        """Tricks still to be won, the one in progress included."""
        return self.holdings[self.to_move].bit_count()

    @property
    def side_tricks(self) -> tuple[int, int]:
        """Tricks won so far by each side."""
        won = [0, 0]
        for seat, count in enumerate(self.tricks_won):
            won[self.variant.side_of(seat)] += count
        return won[0], won[1]

    def legal_plays(self) -> int:
        """The bitmask of the cards the player to move may play."""
        if self.forced is not None:
            return 1 << self.forced
        return legal_plays(self.holdings[self.to_move], self.led, self.spades_broken)

    def play(self, card: Card) -> Position:
        """The position after the player to move plays ``card``; :class:`ValueError` if she
        may not."""
        seat = self.to_move
        holding = self.holdings[seat]
        if (
            not 0 <= card < 52
            or not is_legal_play(holding, card, self.led, self.spades_broken)
            or (self.forced is not None and card != self.forced)
        ):
            name = CARD_NAMES[card] if 0 <= card < 52 else repr(card)
            raise ValueError(
                f"seat {seat} may not play {name} (legal: {names_of(self.legal_plays())})"
            )
        n = self.variant.seat_count
        holdings = list(self.holdings)
        holdings[seat] = holding & ~(1 << card)
        broken = self.spades_broken or card >= FIRST_SPADE
        trick = (*self.trick, card)
        if len(trick) < n:
            return Position(
                self.variant, tuple(holdings), self.leader, trick, broken, self.tricks_won
            )
        winner = trick_winner(trick, self.leader, n)
        won = list(self.tricks_won)
        won[winner] += 1
        return Position(self.variant, tuple(holdings), winner, (), broken, tuple(won))


def opening(
    variant: Variant, holdings: tuple[int, ...], leader: Seat, rules: Rules = STANDARD
) -> Position:
    """The position at the start of a hand's card play under the play options of ``rules``,
    as the engine states them: spades count as broken from the start where the rules let a
    spade be led at any time (:func:`~spades_replay.engine.tricks.spades_open`), and the
    leader must lead the card the rules make open the hand, if any
    (:func:`~spades_replay.engine.tricks.opening_card`; :class:`ValueError` if she does not
    hold it)."""
    return Position(
        variant,
        holdings,
        leader,
        spades_broken=spades_open(rules, spades_broken=False),
        forced=opening_card(variant, rules),
    )


def equivalent_cards(position: Position, card: Card) -> int:
    """The cards of the player to move that are equivalent to ``card``: same suit, with no
    card between them still in play (held by someone else or on the table). Playing any of
    them leads to the same result."""
    seat = position.to_move
    hand = position.holdings[seat]
    if not 0 <= card < 52 or not hand >> card & 1:
        raise ValueError(f"seat {seat} does not hold card {card!r}")
    in_play = 0
    for other, mask in enumerate(position.holdings):
        if other != seat:
            in_play |= mask
    for played in position.trick:
        in_play |= 1 << played
    suit = SUIT_OF[card]
    group = 1 << card
    for step in (-1, 1):
        neighbour = card + step
        while 0 <= neighbour < 52 and SUIT_OF[neighbour] == suit and not in_play >> neighbour & 1:
            group |= hand & (1 << neighbour)
            neighbour += step
    return group


def representatives(legal: int, gone: int) -> list[Card]:
    """The legal cards worth trying, one per group of equivalent cards: the lowest card of
    each run of legal cards that only gone cards (played in earlier tricks) separate.

    ``legal`` is always whole suits of one hand, so a run is broken by another seat's card,
    a card on the table or the end of a suit. Gone cards at the bottom of a run are skipped
    by a carry: adding a run's lowest bit to the gone cards carries to its first legal card.
    """
    runs = legal | gone
    starts = runs & ~((runs << 1) & ~SUIT_STARTS)
    chosen = (starts & legal) | ((gone + (starts & gone)) & legal)
    moves = []
    while chosen:
        low = chosen & -chosen
        moves.append(low.bit_length() - 1)
        chosen ^= low
    return moves


def whole_groups(depended: int, moves: list[Card], legal: int, gone: int) -> int:
    """``depended`` (the cards a result depended on, as each suit's lowest such card) with
    no group of equivalent cards cut in two.

    Only one card of each group was searched; the result stands for the others because they
    are equivalent. That must stay true wherever the result is reused: if the top cards it
    depends on reached into a group but not down to its searched (lowest) card, a position
    matching on those top cards could split the group, so the searched card is added.
    """
    runs = legal | gone
    for card in sorted(moves, reverse=True):
        suit = SUIT_MASKS[SUIT_OF[card]]
        pinned = depended & suit
        lowest = pinned & -pinned
        if not pinned or lowest <= 1 << card:
            continue
        above = runs >> card
        length = ((above + 1) & ~above).bit_length() - 1
        if legal & (((1 << length) - 1) << card) & suit >= lowest:
            depended |= 1 << card
    return depended

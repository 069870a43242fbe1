"""A whole game, hand after hand: rotation, setup, play, scoring and the end of the game.

:func:`iter_hands` is the engine's replay of a game from its actions. It yields one
:class:`HandOutcome` per hand and raises :class:`IllegalActionError` (tagged with the hand's index)
at the first rule broken, so a caller keeps every hand replayed before the problem.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import NamedTuple

from spades_replay.engine.actions import IllegalActionError
from spades_replay.engine.cards import Card
from spades_replay.engine.rules import Rules
from spades_replay.engine.scoring import BLIND_NIL, Bid, SideScore, end_reason, score_hand
from spades_replay.engine.seats import Seat, Side, Variant
from spades_replay.engine.setup import (
    Exchange,
    check_deal,
    check_deck,
    draft_hands,
    exchange_four_player,
    exchange_two_player,
)
from spades_replay.engine.tricks import PlayOutcome, play_out
from spades_replay.errors import Code

RULE_GAME_OVER = "no hand is played after the game has been won"
RULE_UNFINISHED = "only the last hand of a record may stop before its 13th trick"


class HandActions(NamedTuple):
    """Everything recorded about one hand, as engine values.

    Two-player hands have ``deck`` and ``draft``; four-player hands have ``deal``.
    """

    bids: tuple[Bid, ...]
    plays: tuple[Card, ...]
    exchanges: tuple[Exchange, ...] = ()
    deck: tuple[Card, ...] | None = None
    draft: str | None = None
    deal: tuple[tuple[Card, ...], ...] | None = None


class HandOutcome(NamedTuple):
    """One hand, replayed.

    ``dealer`` is the first player (two-player) or the dealer (four-player); ``leader`` leads
    the first trick. ``dealt`` are the holdings as drafted or dealt, ``holdings`` as play began
    (after any exchange); ``discard`` is the two-player discard pile after the exchanges (0 in
    four-player). ``scores`` is ``None`` for an unfinished hand; ``winner`` and ``end`` say
    whether the game was decided by this hand.
    """

    hand_index: int
    dealer: Seat
    leader: Seat
    dealt: tuple[int, ...]
    discard: int
    holdings: tuple[int, ...]
    bids: tuple[Bid, ...]
    exchanges: tuple[Exchange, ...]
    play: PlayOutcome
    scores: tuple[SideScore, SideScore] | None
    winner: Side | None
    end: str | None

    @property
    def complete(self) -> bool:
        """Whether all 13 tricks were played."""
        return self.scores is not None


def dealer_of(variant: Variant, first_dealer: Seat, index: int) -> Seat:
    """The first player (two-player) or dealer (four-player) of hand ``index`` (0-based)."""
    return (first_dealer + index) % variant.seat_count


def opening_leader(variant: Variant, dealer: Seat) -> Seat:
    """Who leads the first trick: the second player, or the dealer's left-hand opponent."""
    return variant.next_seat(dealer)


def setup_hand(
    variant: Variant, rules: Rules, dealer: Seat, actions: HandActions
) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
    """Draft or check the deal, then apply the exchanges: (dealt, discard pile, holdings)."""
    if variant.seat_count == 2:  # (an attribute: enum member lookups are slow)
        assert actions.deck is not None
        assert actions.draft is not None
        check_deck(actions.deck)
        drafted = draft_hands(actions.deck, actions.draft, dealer)
        if not actions.exchanges:
            return drafted.holdings, drafted.discard, drafted.holdings
        blind = tuple(bid == BLIND_NIL for bid in actions.bids)
        after = exchange_two_player(
            drafted, actions.exchanges, blind, dealer, rules.blind_nil_exchange
        )
        return drafted.holdings, after.discard, after.holdings
    assert actions.deal is not None
    dealt = check_deal(actions.deal)
    if not actions.exchanges:
        return dealt, 0, dealt
    blind = tuple(bid == BLIND_NIL for bid in actions.bids)
    holdings = exchange_four_player(dealt, actions.exchanges, blind, rules.blind_nil_exchange)
    return dealt, 0, holdings


class HandError(IllegalActionError):
    """An :class:`IllegalActionError` in hand ``hand_index`` (0-based) of a game."""

    def __init__(self, hand_index: int, error: IllegalActionError) -> None:
        super().__init__(
            error.code,
            error.message,
            error.rule,
            at=error.at,
            seat=error.seat,
            legal=error.legal,
            trick=error.trick,
            position=error.position,
        )
        self.hand_index = hand_index


def iter_hands(
    variant: Variant,
    rules: Rules,
    first_dealer: Seat,
    hands: Iterable[HandActions],
) -> Iterator[HandOutcome]:
    """Replay a game's hands in order, yielding each as it is done.

    Raises :class:`HandError` at the first broken rule: an illegal setup, exchange or card, a
    hand after the game was won, or an unfinished hand that is not the last.
    """
    scores = (0, 0)
    bags = (0, 0)
    decided = False
    unfinished_at: int | None = None
    unfinished_plays = 0
    for index, actions in enumerate(hands):
        if decided:
            raise HandError(
                index,
                IllegalActionError(
                    Code.GAME_OVER,
                    f"this hand is played after the game was won in hand {index}",
                    RULE_GAME_OVER,
                    at=(),
                ),
            )
        if unfinished_at is not None:
            raise HandError(
                unfinished_at,
                IllegalActionError(
                    Code.HAND_UNFINISHED,
                    f"hand {unfinished_at + 1} stops after {unfinished_plays} of "
                    f"{variant.cards_per_hand} cards, but hand {index + 1} follows it",
                    RULE_UNFINISHED,
                    at=("plays",),
                ),
            )
        dealer = dealer_of(variant, first_dealer, index)
        leader = opening_leader(variant, dealer)
        try:
            dealt, discard, holdings = setup_hand(variant, rules, dealer, actions)
            play = play_out(holdings, leader, actions.plays)
        except IllegalActionError as error:
            raise HandError(index, error) from None
        side_scores: tuple[SideScore, SideScore] | None = None
        winner: Side | None = None
        end: str | None = None
        if len(actions.plays) == variant.cards_per_hand:
            side_scores = score_hand(variant, rules, actions.bids, play.tricks_won, scores, bags)
            scores = (side_scores[0].score, side_scores[1].score)
            bags = (side_scores[0].bags, side_scores[1].bags)
            end = end_reason(rules, scores)
            if end is not None:
                winner = 0 if scores[0] > scores[1] else 1
                decided = True
        else:
            unfinished_at = index
            unfinished_plays = len(actions.plays)
        yield HandOutcome(
            index,
            dealer,
            leader,
            dealt,
            discard,
            holdings,
            actions.bids,
            actions.exchanges,
            play,
            side_scores,
            winner,
            end,
        )

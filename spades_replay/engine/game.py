"""A whole game, hand after hand: rotation, setup, play, scoring and the end of the game.

:func:`iter_hands` is the engine's replay of a game from its actions. It yields one
:class:`HandOutcome` per hand and raises :class:`IllegalActionError` (tagged with the hand's index)
at the first rule broken, so a caller keeps every hand replayed before the problem.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

from spades_replay.engine.actions import Exchange, IllegalActionError
from spades_replay.engine.bidding import bidding_order, check_bid, rules_are_free
from spades_replay.engine.cards import Card
from spades_replay.engine.rules import Rules
from spades_replay.engine.scoring import (
    BLIND_NIL,
    Bid,
    SideScore,
    end_reason,
    score_hand,
    winner,
)
from spades_replay.engine.seats import Seat, Side, Variant
from spades_replay.engine.setup import (
    check_deal,
    check_deck,
    draft_hands,
    exchange_four_player,
    exchange_two_player,
)
from spades_replay.engine.tricks import (
    PlayOutcome,
    check_first_lead,
    opening_leader,
    play_out,
)
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
    whether the game was decided by this hand; ``scores_before`` are the running scores the
    hand began at.
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
    scores_before: tuple[int, int] = (0, 0)

    @property
    def complete(self) -> bool:
        """Whether all 13 tricks were played."""
        return self.scores is not None


def dealer_of(variant: Variant, first_dealer: Seat, index: int) -> Seat:
    """The first player (two-player) or dealer (four-player) of hand ``index`` (0-based)."""
    return (first_dealer + index) % variant.seat_count


class Progress(NamedTuple):
    """Where a game stands between hands: the one progression of a game, hand after hand.

    The replay of a record (:func:`iter_hands`) and a game recorded live
    (:class:`spades_replay.play.recorder.Recorder`) both move through a game with it: the dealer
    of the next hand, the running scores and bags it starts from, and, once a hand is scored
    (:meth:`after_hand`), the winner and why the game ended.
    """

    variant: Variant
    rules: Rules
    first_dealer: Seat = 0
    hands_scored: int = 0
    scores: tuple[int, int] = (0, 0)
    bags: tuple[int, int] = (0, 0)
    winner: Side | None = None
    end: str | None = None

    @property
    def over(self) -> bool:
        """Whether a side has won."""
        return self.winner is not None

    def dealer(self, index: int | None = None) -> Seat:
        """The first player or dealer of hand ``index`` (default: the next hand to score)."""
        hand = self.hands_scored if index is None else index
        return dealer_of(self.variant, self.first_dealer, hand)

    def after_hand(
        self, bids: Sequence[Bid], tricks_won: Sequence[int]
    ) -> tuple[Progress, tuple[SideScore, SideScore]]:
        """Score a complete hand: the game after it, and each side's score for it."""
        rules = self.rules
        sides = score_hand(self.variant, rules, bids, tricks_won, self.scores, self.bags)
        scores = (sides[0].score, sides[1].score)
        end = end_reason(rules, scores)
        after = Progress(
            self.variant,
            rules,
            self.first_dealer,
            self.hands_scored + 1,
            scores,
            (sides[0].bags, sides[1].bags),
            None if end is None else winner(rules, scores),
            end,
        )
        return after, sides


def check_bids_in_order(
    variant: Variant,
    rules: Rules,
    seats: Iterable[Seat],
    bids: Sequence[Bid],
    before: Sequence[Bid | None],
    scores: Sequence[int],
) -> tuple[Bid | None, ...]:
    """Check the bids of ``seats``, in that order, after the bids ``before``; the bids made
    once they are all in."""
    made = list(before)
    for seat in seats:
        check_bid(variant, rules, seat, bids[seat], made, scores, at=("bids", seat))
        made[seat] = bids[seat]
    return tuple(made)


def setup_hand(
    variant: Variant,
    rules: Rules,
    dealer: Seat,
    actions: HandActions,
    scores: Sequence[int] = (0, 0),
) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
    """Set a hand up in the order it is played, checking each step: (dealt, discard pile,
    holdings as play begins).

    Two-player: the deck, any Blind Nil declarations, the draft, the exchanges, then the other
    bids. Four-player: the deal, the bids, then the exchanges.
    """
    bids = actions.bids
    blind = tuple(bid == BLIND_NIL for bid in bids)
    check = not rules_are_free(rules)
    order = bidding_order(variant, dealer) if check else ()
    if variant.seat_count == 2:  # (an attribute: enum member lookups are slow)
        assert actions.deck is not None
        assert actions.draft is not None
        check_deck(actions.deck)
        declared: tuple[Bid | None, ...] = (None, None)
        if check:
            declared = check_bids_in_order(
                variant,
                rules,
                (s for s in (dealer, 1 - dealer) if blind[s]),
                bids,
                (None, None),
                scores,
            )
        drafted = draft_hands(actions.deck, actions.draft, dealer)
        dealt: tuple[int, ...] = drafted.holdings
        holdings: tuple[int, ...] = dealt
        discard = drafted.discard
        if actions.exchanges:
            after = exchange_two_player(
                drafted, actions.exchanges, blind, dealer, rules.blind_nil_exchange
            )
            discard, holdings = after.discard, after.holdings
        if check:
            check_bids_in_order(
                variant, rules, (s for s in order if not blind[s]), bids, declared, scores
            )
        return dealt, discard, holdings
    assert actions.deal is not None
    dealt = check_deal(actions.deal)
    if check:
        check_bids_in_order(variant, rules, order, bids, (None,) * 4, scores)
    if not actions.exchanges:
        return dealt, 0, dealt
    return dealt, 0, exchange_four_player(dealt, actions.exchanges, blind, rules.blind_nil_exchange)


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
    progress = Progress(variant, rules, first_dealer)
    unfinished_at: int | None = None
    unfinished_plays = 0
    spades_free = not rules.spades_must_be_broken
    for index, actions in enumerate(hands):
        if progress.over:
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
        dealer = progress.dealer()
        scores_before = progress.scores
        try:
            dealt, discard, holdings = setup_hand(variant, rules, dealer, actions, progress.scores)
            leader = opening_leader(variant, rules, dealer, holdings)
            if actions.plays:
                check_first_lead(variant, rules, leader, actions.plays[0], at=("plays", 0))
            play = play_out(holdings, leader, actions.plays, spades_free=spades_free)
        except IllegalActionError as error:
            raise HandError(index, error) from None
        side_scores: tuple[SideScore, SideScore] | None = None
        if len(actions.plays) == variant.cards_per_hand:
            progress, side_scores = progress.after_hand(actions.bids, play.tricks_won)
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
            progress.winner if side_scores is not None else None,
            progress.end if side_scores is not None else None,
            scores_before,
        )

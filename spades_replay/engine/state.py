"""A hand as a sequence of immutable states, one action at a time.

:func:`apply` takes a :class:`HandState` and one action and returns the next state, or raises
:class:`IllegalActionError` and changes nothing. This is what a recorder drives while a game is
played, and what a viewer scrubs through (:func:`drive_hand` applies a recorded hand);
:func:`spades_replay.engine.game.iter_hands` is the same rules applied to a whole recorded hand
at once, for speed (the test suite checks that both give the same verdicts).

The actions are those of :mod:`spades_replay.engine.actions`. What the seat to act may do now:
:func:`legal_bids`, :func:`can_declare_blind_nil`, :func:`exchange_sources` and
:func:`exchange_limit`, :func:`legal_plays` (and :func:`strict_legal_plays`, OpenSpiel's
stricter lead).

>>> from spades_replay.engine.cards import DECK, names_of
>>> state = start_two_player(Rules(), dealer=0, deck=DECK)
>>> state.phase, state.turn
(<Phase.DRAFT: 'draft'>, 0)
>>> state = apply(state, Draw(0, keep=True))
>>> names_of(state.holdings[0]), state.turn
('2C', 1)
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from spades_replay.engine.actions import (
    Action,
    DeclareBlindNil,
    Draw,
    Exchange,
    IllegalActionError,
    PlaceBid,
    PlayCard,
)
from spades_replay.engine.bidding import (
    NUMBERS,
    blind_nil_open,
    check_bid,
    legal_bids_of,
)
from spades_replay.engine.bidding import bidding_order as seats_bidding_order
from spades_replay.engine.cards import Card, Suit, cards_of, suit_of
from spades_replay.engine.game import HandActions
from spades_replay.engine.rules import Rules
from spades_replay.engine.scoring import BLIND_NIL, Bid
from spades_replay.engine.seats import Seat, Variant
from spades_replay.engine.setup import (
    DraftOutcome,
    check_swap,
    exchange_four_player,
    exchange_order,
    exchange_two_player,
    turn_seat,
)
from spades_replay.engine.tricks import (
    FIRST_SPADE,
    PlayOutcome,
    Trick,
    check_first_lead,
    check_play,
    opening_card,
    opening_leader,
    play_out,
    play_violation,
    spades_open,
    trick_winner,
)
from spades_replay.engine.tricks import (
    legal_plays as playable,
)
from spades_replay.engine.tricks import (
    strict_legal_plays as strict_plays,
)
from spades_replay.errors import Code

RULE_TURN = "each action is taken by the seat whose turn it is"
RULE_PHASE = "a hand goes: draft (two-player), exchanges, bidding, play"
RULE_BID = "a bid is a whole number from 0 to 13; Blind Nil is declared before seeing one's cards"


class Phase(enum.StrEnum):
    """Where a hand stands."""

    DRAFT = "draft"
    EXCHANGE = "exchange"
    BIDDING = "bidding"
    PLAY = "play"
    DONE = "done"


@dataclass(frozen=True, slots=True)
class HandState:
    """Everything known about a hand in progress.

    ``dealer`` is the first player (two-player) or the dealer (four-player); ``turn`` is the
    seat expected to act next (``None`` once the hand is done). ``deck`` and ``draft`` (the
    letters so far) and ``discard`` (the pile) are two-player only. ``bids`` holds ``None``
    for a seat that has not bid. ``trick`` holds the cards of the trick in progress, led by
    ``trick_leader``; ``tricks`` the completed ones. ``scores`` are the sides' running
    scores before the hand (Blind Nil may depend on them).
    """

    variant: Variant
    rules: Rules
    dealer: Seat
    phase: Phase
    turn: Seat | None
    holdings: tuple[int, ...]
    bids: tuple[Bid | None, ...]
    trick_leader: Seat
    tricks_won: tuple[int, ...]
    deck: tuple[Card, ...] = ()
    draft: str = ""
    discard: int = 0
    exchanges: tuple[Exchange, ...] = ()
    trick: tuple[Card, ...] = ()
    tricks: tuple[Trick, ...] = ()
    spades_broken: bool = False
    scores: tuple[int, int] = (0, 0)

    @property
    def blind(self) -> tuple[bool, ...]:
        """Which seats bid (or declared) Blind Nil."""
        return tuple(bid == BLIND_NIL for bid in self.bids)

    @property
    def led_suit(self) -> Suit | None:
        """The suit led to the trick in progress, or ``None`` if no card is down."""
        return suit_of(self.trick[0]) if self.trick else None

    @property
    def last_trick(self) -> Trick | None:
        """The most recent completed trick."""
        return self.tricks[-1] if self.tricks else None

    @property
    def cards_played(self) -> int:
        """How many cards have been played in this hand."""
        return len(self.tricks) * self.variant.seat_count + len(self.trick)


def start_two_player(
    rules: Rules, dealer: Seat, deck: Sequence[Card], scores: tuple[int, int] = (0, 0)
) -> HandState:
    """A two-player hand before the draft; ``dealer`` is the first player, ``deck`` top first,
    ``scores`` the running scores before the hand."""
    return HandState(
        Variant.TWO_PLAYER,
        rules,
        dealer,
        Phase.DRAFT,
        dealer,
        (0, 0),
        (None, None),
        1 - dealer,
        (0, 0),
        deck=tuple(deck),
        scores=scores,
    )


def start_four_player(
    rules: Rules, dealer: Seat, deal: Sequence[int], scores: tuple[int, int] = (0, 0)
) -> HandState:
    """A four-player hand as dealt (``deal``: each seat's holding bitmask), before bidding;
    ``scores`` are the running scores before the hand."""
    return HandState(
        Variant.FOUR_PLAYER,
        rules,
        dealer,
        Phase.BIDDING,
        (dealer + 1) % 4,
        tuple(deal),
        (None, None, None, None),
        (dealer + 1) % 4,
        (0, 0, 0, 0),
        scores=scores,
    )


def bidding_order(state: HandState) -> tuple[Seat, ...]:
    """The seats in the order they bid (two-player: the second player first)."""
    return seats_bidding_order(state.variant, state.dealer)


def exchange_queue(state: HandState) -> tuple[Seat, ...]:
    """The Blind Nil bidders still to exchange, in the order they do it."""
    done = {exchange.seat for exchange in state.exchanges}
    order = exchange_order(state.variant, state.dealer, state.blind)
    return tuple(seat for seat in order if seat not in done)


def legal_bids(state: HandState) -> tuple[Bid, ...]:
    """The bids the seat to act may make now (empty outside the bidding)."""
    if state.phase is not Phase.BIDDING or state.turn is None:
        return ()
    return legal_bids_of(
        state.variant,
        state.rules,
        state.turn,
        state.bids,
        state.scores,
        blind=state.variant is Variant.FOUR_PLAYER,
    )


def can_declare_blind_nil(state: HandState, seat: Seat) -> bool:
    """Two-player: whether ``seat`` may still declare Blind Nil (before her first draft turn,
    where the rules let her)."""
    return _declaration_in_time(state, seat) and blind_nil_open(
        state.variant, state.rules, seat, state.scores
    )


def _declaration_in_time(state: HandState, seat: Seat) -> bool:
    if state.variant is not Variant.TWO_PLAYER or state.phase is not Phase.DRAFT:
        return False
    first_turn = 0 if seat == state.dealer else 1
    return len(state.draft) <= first_turn and state.bids[seat] is None


def legal_plays(state: HandState) -> int:
    """The bitmask of the cards the seat to act may play (0 outside the play)."""
    if state.phase is not Phase.PLAY or state.turn is None:
        return 0
    if not state.tricks and not state.trick:
        opening = opening_card(state.variant, state.rules)
        if opening is not None:
            return 1 << opening
    return playable(
        state.holdings[state.turn],
        state.led_suit,
        spades_open(state.rules, state.spades_broken),
    )


def strict_legal_plays(state: HandState) -> int:
    """The cards of :func:`legal_plays` that remain where spades never count as broken (the
    rule of OpenSpiel's ``spades``, :func:`~spades_replay.engine.tricks.strict_legal_plays`):
    a leader who holds any other suit may not lead a spade."""
    legal = legal_plays(state)
    if state.turn is None:
        return legal
    return legal & strict_plays(state.holdings[state.turn], state.led_suit)


def exchange_sources(state: HandState) -> tuple[int, int]:
    """For the seat to exchange: the cards she may put away, and those she may take in."""
    if state.phase is not Phase.EXCHANGE or state.turn is None:
        return 0, 0
    seat = state.turn
    partner = state.variant.partner(seat)
    pool = state.discard if partner is None else state.holdings[partner]
    return state.holdings[seat], pool


def exchange_limit(state: HandState) -> int:
    """The most cards the seat to exchange may put away, taking in as many: the rules'
    ``blind_nil_exchange``, and no more than she holds or the pool she takes from holds (0
    outside an exchange)."""
    give, take = exchange_sources(state)
    return min(state.rules.blind_nil_exchange, give.bit_count(), take.bit_count())


def _refuse(code: Code, message: str, rule: str, seat: Seat | None) -> IllegalActionError:
    return IllegalActionError(code, message, rule, at=(), seat=seat)


def _expect(state: HandState, phase: Phase, seat: Seat, what: str) -> None:
    if state.phase is not phase:
        when = (
            ", but the hand is over"
            if state.phase is Phase.DONE
            else f" during the {state.phase.value}"
        )
        raise _refuse(
            Code.ACTION_WRONG_PHASE,
            f"seat {seat} tries to {what}{when}",
            RULE_PHASE,
            seat,
        )
    if state.turn != seat:
        raise _refuse(
            Code.ACTION_OUT_OF_TURN,
            f"seat {seat} tries to {what} but it is seat {state.turn}'s turn",
            RULE_TURN,
            seat,
        )


def _moved(
    state: HandState, phase: Phase, turn: Seat, trick_leader: Seat | None = None
) -> HandState:
    """``state`` in another phase and turn (built whole: ``dataclasses.replace`` is several
    times slower, and every hand moves through its setup this way)."""
    return HandState(
        state.variant,
        state.rules,
        state.dealer,
        phase,
        turn,
        state.holdings,
        state.bids,
        state.trick_leader if trick_leader is None else trick_leader,
        state.tricks_won,
        state.deck,
        state.draft,
        state.discard,
        state.exchanges,
        state.trick,
        state.tricks,
        state.spades_broken,
        state.scores,
    )


def _after_setup(state: HandState) -> HandState:
    """Move on from the draft, an exchange or the bidding to whatever comes next."""
    if state.variant is Variant.TWO_PLAYER:
        queue = exchange_queue(state)
        if queue:
            return _moved(state, Phase.EXCHANGE, queue[0])
        waiting = [seat for seat in bidding_order(state) if state.bids[seat] is None]
        if waiting:
            return _moved(state, Phase.BIDDING, waiting[0])
    elif None in state.bids:
        waiting = [seat for seat in bidding_order(state) if state.bids[seat] is None]
        return _moved(state, Phase.BIDDING, waiting[0])
    else:
        queue = exchange_queue(state)
        if queue:
            return _moved(state, Phase.EXCHANGE, queue[0])
    leader = opening_leader(state.variant, state.rules, state.dealer, state.holdings)
    return _moved(state, Phase.PLAY, leader, leader)


def _declare(state: HandState, action: DeclareBlindNil) -> HandState:
    if state.variant is Variant.FOUR_PLAYER:
        raise _refuse(
            Code.ACTION_WRONG_PHASE,
            "in four-player, Blind Nil is a bid made in turn (PlaceBid with BLIND_NIL)",
            RULE_PHASE,
            action.seat,
        )
    if not _declaration_in_time(state, action.seat):
        raise _refuse(
            Code.ACTION_BAD_BID,
            f"seat {action.seat} can no longer declare Blind Nil (she has seen cards or "
            "already declared)",
            RULE_BID,
            action.seat,
        )
    check_bid(
        state.variant,
        state.rules,
        action.seat,
        BLIND_NIL,
        state.bids,
        state.scores,
        at=("bids", action.seat),
    )
    bids = list(state.bids)
    bids[action.seat] = BLIND_NIL
    return replace(state, bids=tuple(bids))


def _draw(state: HandState, action: Draw) -> HandState:
    _expect(state, Phase.DRAFT, action.seat, "take a draft turn")
    turn = len(state.draft)
    top, other = state.deck[2 * turn], state.deck[2 * turn + 1]
    if not action.keep:
        top, other = other, top
    holdings = list(state.holdings)
    holdings[action.seat] |= 1 << top
    last = turn + 1 == 26
    # built whole rather than by dataclasses.replace: a draft takes 26 of these per hand
    state = HandState(
        state.variant,
        state.rules,
        state.dealer,
        state.phase,
        state.turn if last else turn_seat(turn + 1, state.dealer),
        tuple(holdings),
        state.bids,
        state.trick_leader,
        state.tricks_won,
        state.deck,
        state.draft + ("K" if action.keep else "D"),
        state.discard | 1 << other,
        state.exchanges,
        state.trick,
        state.tricks,
        state.spades_broken,
        state.scores,
    )
    return _after_setup(state) if last else state


def _exchange(state: HandState, action: Exchange) -> HandState:
    _expect(state, Phase.EXCHANGE, action.seat, "exchange cards")
    index = len(state.exchanges)
    seat = action.seat
    partner = state.variant.partner(seat)
    source = state.discard if partner is None else state.holdings[partner]
    out, taken = check_swap(
        action,
        index,
        state.rules.blind_nil_exchange,
        state.holdings[seat],
        source,
        partner=partner,
    )
    holdings = list(state.holdings)
    holdings[seat] = holdings[seat] & ~out | taken
    discard = state.discard
    if partner is None:
        discard = discard & ~taken | out
    else:
        holdings[partner] = holdings[partner] & ~taken | out
    state = replace(
        state,
        holdings=tuple(holdings),
        discard=discard,
        exchanges=(*state.exchanges, action),
    )
    return _after_setup(state)


def _bid(state: HandState, action: PlaceBid) -> HandState:
    _expect(state, Phase.BIDDING, action.seat, "bid")
    four = state.variant is Variant.FOUR_PLAYER
    if action.bid not in NUMBERS and not (four and action.bid == BLIND_NIL):
        late = (
            " (in two-player, Blind Nil is declared before the draft)"
            if (action.bid == BLIND_NIL)
            else ""
        )
        raise _refuse(
            Code.ACTION_BAD_BID,
            f"seat {action.seat} bids {action.bid}, which is not a bid{late}",
            RULE_BID,
            action.seat,
        )
    check_bid(
        state.variant,
        state.rules,
        action.seat,
        action.bid,
        state.bids,
        state.scores,
        at=("bids", action.seat),
    )
    bids = list(state.bids)
    bids[action.seat] = action.bid
    return _after_setup(
        HandState(
            state.variant,
            state.rules,
            state.dealer,
            state.phase,
            state.turn,
            state.holdings,
            tuple(bids),
            state.trick_leader,
            state.tricks_won,
            state.deck,
            state.draft,
            state.discard,
            state.exchanges,
            state.trick,
            state.tricks,
            state.spades_broken,
            state.scores,
        )
    )


def _play(state: HandState, action: PlayCard) -> HandState:
    _expect(state, Phase.PLAY, action.seat, "play a card")
    seat = action.seat
    if not state.tricks and not state.trick:
        check_first_lead(state.variant, state.rules, seat, action.card, at=("plays", 0))
    led = state.led_suit
    spades_may_lead = spades_open(state.rules, state.spades_broken)
    if play_violation(state.holdings[seat], action.card, led, spades_may_lead) is not None:
        # (the question first, as most plays are legal; the explanation only when one is not)
        check_play(
            state.holdings[seat],
            action.card,
            led,
            spades_may_lead,
            seat=seat,
            at=("plays", state.cards_played),
            trick=len(state.tricks) + 1,
            position=len(state.trick) + 1,
        )
    holdings = list(state.holdings)
    holdings[seat] &= ~(1 << action.card)
    trick = (*state.trick, action.card)
    broken = state.spades_broken or action.card >= FIRST_SPADE
    seat_count = state.variant.seat_count
    # the next state is built whole rather than by dataclasses.replace (several times
    # slower), as every card of every hand makes one
    if len(trick) < seat_count:
        return HandState(
            state.variant,
            state.rules,
            state.dealer,
            state.phase,
            (seat + 1) % seat_count,
            tuple(holdings),
            state.bids,
            state.trick_leader,
            state.tricks_won,
            state.deck,
            state.draft,
            state.discard,
            state.exchanges,
            trick,
            state.tricks,
            broken,
            state.scores,
        )
    winner = trick_winner(trick, state.trick_leader, seat_count)
    done = Trick(len(state.tricks) + 1, state.trick_leader, trick, winner, seat_count)
    won = list(state.tricks_won)
    won[winner] += 1
    finished = len(state.tricks) + 1 == 13
    return HandState(
        state.variant,
        state.rules,
        state.dealer,
        Phase.DONE if finished else Phase.PLAY,
        None if finished else winner,
        tuple(holdings),
        state.bids,
        winner,
        tuple(won),
        state.deck,
        state.draft,
        state.discard,
        state.exchanges,
        (),
        (*state.tricks, done),
        broken,
        state.scores,
    )


def apply(state: HandState, action: Action) -> HandState:
    """The state after ``action``; raises :class:`IllegalActionError` (and changes nothing) if the
    rules do not allow it now."""
    if isinstance(action, PlayCard):
        return _play(state, action)
    if isinstance(action, PlaceBid):
        return _bid(state, action)
    if isinstance(action, Draw):
        return _draw(state, action)
    if isinstance(action, Exchange):
        return _exchange(state, action)
    return _declare(state, action)


def apply_draws(state: HandState, keeps: Sequence[bool]) -> HandState:
    """Two-player: the state after the next draft turns at once, one per entry of ``keeps``
    (``True`` keeps the top card): what applying ``Draw(state.turn, keep)`` for each in turn
    gives, errors included, without a state per turn (a self-play hand drafts 26 turns)."""
    start = len(state.draft)
    room = 26 - start
    if state.phase is not Phase.DRAFT or not keeps or state.turn is None:
        for keep in keeps:
            state = apply(state, Draw(state.turn if state.turn is not None else 0, keep))
        return state
    if len(keeps) > room:
        state = apply_draws(state, keeps[:room])
        return apply_draws(state, keeps[room:])
    deck, first = state.deck, state.dealer
    holdings = list(state.holdings)
    discard = state.discard
    for turn, keep in enumerate(keeps, start):
        top, other = deck[2 * turn], deck[2 * turn + 1]
        if not keep:
            top, other = other, top
        holdings[turn_seat(turn, first)] |= 1 << top
        discard |= 1 << other
    end = start + len(keeps)
    last = end == 26
    state = HandState(
        state.variant,
        state.rules,
        state.dealer,
        state.phase,
        turn_seat(end - 1, first) if last else turn_seat(end, first),
        tuple(holdings),
        state.bids,
        state.trick_leader,
        state.tricks_won,
        state.deck,
        state.draft + "".join(["K" if keep else "D" for keep in keeps]),
        discard,
        state.exchanges,
        state.trick,
        state.tricks,
        state.spades_broken,
        state.scores,
    )
    return _after_setup(state) if last else state


def apply_plays(state: HandState, cards: Sequence[Card]) -> HandState:
    """The state after ``cards`` are played in turn: what applying ``PlayCard(state.turn,
    card)`` for each gives, errors included. From the first card of a hand's play it runs
    the engine's whole-hand statement of the play rules
    (:func:`~spades_replay.engine.tricks.play_out`) instead of making a state per card (a
    self-play hand plays 26 or 52); elsewhere it applies the cards one at a time."""
    count = state.variant.seat_count
    leader = state.turn
    if (
        state.phase is not Phase.PLAY
        or leader is None
        or state.tricks
        or state.trick
        or state.spades_broken
        or not cards
    ):
        for card in cards:
            state = apply(state, PlayCard(state.turn if state.turn is not None else 0, card))
        return state
    if len(cards) > 13 * count:
        state = apply_plays(state, cards[: 13 * count])
        return apply_plays(state, cards[13 * count :])
    check_first_lead(state.variant, state.rules, leader, cards[0], at=("plays", 0))
    outcome = play_out(
        state.holdings, leader, cards, spades_free=spades_open(state.rules, spades_broken=False)
    )
    return after_play(state, outcome)


def after_play(state: HandState, outcome: PlayOutcome) -> HandState:
    """The state after the card play ``outcome`` holds, from ``state`` at the first card of
    a hand's play: what :func:`apply_plays` gives once
    :func:`~spades_replay.engine.tricks.play_out` has checked the cards. The outcome is taken
    as it is, not checked again: it must come from the engine's rules, as ``play_out``'s
    does, or a loop that plays only what :func:`~spades_replay.engine.tricks.legal_plays`
    allows (the opening card first, where the rules name one) and gives each trick to the
    card that :func:`~spades_replay.engine.tricks.beats` the others, as self-play's does."""
    count = state.variant.seat_count
    tricks = outcome.tricks
    finished = len(outcome.winners)
    playing = len(outcome.plays) - finished * count
    if playing:
        current = tricks[-1]
        tricks, trick, trick_leader = tricks[:-1], current.cards, current.leader
        turn: Seat | None = (trick_leader + playing) % count
    else:
        trick, trick_leader = (), outcome.winners[-1]
        turn = None if finished == 13 else trick_leader
    return HandState(
        state.variant,
        state.rules,
        state.dealer,
        Phase.DONE if finished == 13 else Phase.PLAY,
        turn,
        outcome.holdings,
        state.bids,
        trick_leader,
        outcome.tricks_won,
        state.deck,
        state.draft,
        state.discard,
        state.exchanges,
        trick,
        tricks,
        outcome.spades_broken,
        state.scores,
    )


def drive_hand(state: HandState, actions: HandActions) -> Iterator[tuple[Action, HandState]]:
    """Apply a recorded hand to its starting ``state``, one action at a time: each action with
    the state after it, in the order the actions were taken.

    The recorded exchanges are checked where the replay of a record checks them (after the
    draft in two-player, after the bids in four-player), in the record's order
    (:func:`~spades_replay.engine.setup.exchange_two_player`,
    :func:`~spades_replay.engine.setup.exchange_four_player`), so that the first problem
    found is the one the replay reports; then taken in the order the rules give
    (:func:`~spades_replay.engine.setup.exchange_order`); a Blind Nil bidder who recorded none
    exchanges nothing. Whose turn each card is comes from the state. Raises
    :class:`IllegalActionError` at the first action the rules refuse, addressed as the record
    addresses it.
    """
    variant, dealer, bids = state.variant, state.dealer, actions.bids
    blind = tuple(bid == BLIND_NIL for bid in bids)
    recorded = {exchange.seat: exchange for exchange in actions.exchanges}
    order = bidding_order(state)
    before: list[Action]
    after: list[Action] = []
    if variant is Variant.TWO_PLAYER:
        before = [DeclareBlindNil(seat) for seat in (dealer, 1 - dealer) if blind[seat]]
        before += [
            Draw(turn_seat(turn, dealer), letter == "K")
            for turn, letter in enumerate(actions.draft or "")
        ]
        after = [PlaceBid(seat, bids[seat]) for seat in order if not blind[seat]]
    else:
        before = [PlaceBid(seat, bids[seat]) for seat in order]
    for action in before:
        state = apply(state, action)
        yield action, state
    if actions.exchanges:
        limit = state.rules.blind_nil_exchange
        if variant is Variant.TWO_PLAYER:
            drafted = DraftOutcome((state.holdings[0], state.holdings[1]), state.discard)
            exchange_two_player(drafted, actions.exchanges, blind, dealer, limit)
        else:
            exchange_four_player(state.holdings, actions.exchanges, blind, limit)
    swaps = [
        recorded.get(seat, Exchange(seat, (), ()))
        for seat in exchange_order(variant, dealer, blind)
    ]
    for action in (*swaps, *after):
        state = apply(state, action)
        yield action, state
    for card in actions.plays:
        assert state.turn is not None  # the format holds at most one card per seat per trick
        play = PlayCard(state.turn, card)
        state = apply(state, play)
        yield play, state


def drafted_cards(before: HandState, after: HandState) -> tuple[Card, Card]:
    """For a draft turn between two states: the card kept and the card discarded."""
    kept = cards_of(
        (after.holdings[0] | after.holdings[1]) & ~(before.holdings[0] | before.holdings[1])
    )
    thrown = cards_of(after.discard & ~before.discard)
    return kept[0], thrown[0]

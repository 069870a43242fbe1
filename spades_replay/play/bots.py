"""Seeded bot players: the same seed gives the same game, byte for byte.

A bot is asked for one action at a time by :func:`play_hand`; it sees the whole
:class:`~spades_replay.engine.state.HandState` but, being honest, looks only at its own cards
(and, when exchanging, at the cards it may take). Randomness comes only from the
:class:`random.Random` it is given.
"""

from __future__ import annotations

import random
from typing import Protocol

from spades_replay.engine.actions import Action, DeclareBlindNil, Draw, Exchange, PlaceBid, PlayCard
from spades_replay.engine.cards import (
    CLUBS,
    DIAMONDS,
    HEARTS,
    SPADES,
    cards_of,
    rank_of,
    suit_of,
)
from spades_replay.engine.scoring import BLIND_NIL, NIL
from spades_replay.engine.seats import Seat, Variant
from spades_replay.engine.state import (
    HandState,
    Phase,
    can_declare_blind_nil,
    exchange_limit,
    exchange_sources,
    legal_bids,
    legal_plays,
    strict_legal_plays,
)
from spades_replay.engine.tricks import beats, trick_winner


class Bot(Protocol):
    """Anything that picks an action for ``seat`` in ``state``."""

    name: str

    def act(self, state: HandState, seat: Seat, rng: random.Random) -> Action:
        """The action ``seat`` takes now."""
        ...  # pragma: no cover

    def wants_blind_nil(self, state: HandState, seat: Seat, rng: random.Random) -> bool:
        """Two-player: whether ``seat`` declares Blind Nil before her first draft turn."""
        ...  # pragma: no cover


class RandomBot:
    """A random legal player: every legal action is equally likely (Blind Nil rarely)."""

    name = "random"

    def __init__(self, blind_nil_rate: float = 0.03) -> None:
        self.blind_nil_rate = blind_nil_rate

    def wants_blind_nil(self, state: HandState, seat: Seat, rng: random.Random) -> bool:
        """Declare Blind Nil now and then."""
        return rng.random() < self.blind_nil_rate

    def act(self, state: HandState, seat: Seat, rng: random.Random) -> Action:
        """A uniformly random legal action."""
        if state.phase is Phase.DRAFT:
            return Draw(seat, rng.random() < 0.5)
        if state.phase is Phase.EXCHANGE:
            give, take = exchange_sources(state)
            size = rng.randint(0, exchange_limit(state))
            return Exchange(
                seat,
                tuple(sorted(rng.sample(cards_of(give), size))),
                tuple(sorted(rng.sample(cards_of(take), size))),
            )
        if state.phase is Phase.BIDDING:
            bids = legal_bids(state)
            if BLIND_NIL in bids and rng.random() >= self.blind_nil_rate:
                bids = tuple(bid for bid in bids if bid != BLIND_NIL)
            return PlaceBid(seat, rng.choice(bids))
        return PlayCard(seat, rng.choice(cards_of(legal_plays(state))))


def next_action(state: HandState, bots: list[Bot], rng: random.Random) -> Action:
    """The next action of a hand, asked of the bot whose turn it is (two-player Blind Nil
    declarations are offered just before each seat's first draft turn)."""
    seat = state.turn
    assert seat is not None
    if (
        state.variant is Variant.TWO_PLAYER
        and can_declare_blind_nil(state, seat)
        and bots[seat].wants_blind_nil(state, seat, rng)
    ):
        return DeclareBlindNil(seat)
    return bots[seat].act(state, seat, rng)


def closest_bid(options: tuple[int, ...], wanted: int) -> int:
    """The legal number of tricks nearest to ``wanted`` (the higher of two as near), so a bot
    keeps to house rules such as a team minimum: Nil and Blind Nil only when nothing else is
    legal."""
    numbers = [bid for bid in options if bid > 0] or list(options)
    return min(numbers, key=lambda bid: (abs(bid - wanted), -bid))


def _suit_cards(mask: int, suit: int) -> list[int]:
    return [card for card in cards_of(mask) if suit_of(card) == suit]


def estimate_tricks(holding: int) -> float:
    """A rough count of the tricks a holding should take: high cards, long and high spades,
    and short side suits that spades can ruff."""
    estimate = 0.0
    spades = _suit_cards(holding, SPADES)
    for suit in (CLUBS, DIAMONDS, HEARTS):
        cards = _suit_cards(holding, suit)
        ranks = {rank_of(card) for card in cards}
        if 12 in ranks:
            estimate += 1.0
        if 11 in ranks and len(cards) >= 2:
            estimate += 0.8 if 12 in ranks else 0.5
        if 10 in ranks and len(cards) >= 3 and 12 in ranks:
            estimate += 0.3
        if len(cards) <= 1 and len(spades) >= 3:
            estimate += 0.6 if not cards else 0.3
    for card in spades:
        if rank_of(card) >= 9:
            estimate += 0.9 if rank_of(card) >= 11 else 0.6
    estimate += max(0, len(spades) - 4) * 0.8
    return estimate


def _nil_safe(holding: int) -> bool:
    """Whether a holding looks safe enough to bid Nil: no high spades, few high cards."""
    spades = _suit_cards(holding, SPADES)
    if any(rank_of(card) >= 10 for card in spades) or len(spades) > 3:
        return False
    high = sum(1 for card in cards_of(holding) if rank_of(card) >= 10)
    return high <= 2


class OpenSpielBot:
    """A random four-player player that keeps to what OpenSpiel's ``spades`` can play, so
    that its games export whole (docs/interop.md): no Blind Nil, bids of at most 4 (two
    partners never pass 13 together) within what the rules allow, and no spade led while it
    holds another suit (OpenSpiel never counts spades as broken)."""

    name = "openspiel"

    def wants_blind_nil(self, state: HandState, seat: Seat, rng: random.Random) -> bool:
        """Never: OpenSpiel has no Blind Nil."""
        return False

    def act(self, state: HandState, seat: Seat, rng: random.Random) -> Action:
        """A random bid of at most 4, or a random legal card (a plain suit led if it can)."""
        if state.phase is Phase.BIDDING:
            bids = [bid for bid in legal_bids(state) if bid != BLIND_NIL]
            low = [bid for bid in bids if bid <= 4] or [min(bids)]
            return PlaceBid(seat, rng.choice(low))
        return PlayCard(seat, rng.choice(cards_of(strict_legal_plays(state))))


class HeuristicBot:
    """A sensible player: bids from its hand, bids Nil (and now and then Blind Nil) when its
    hand suits, keeps strong cards in the draft, ducks when Nil, wins cheaply when it needs
    tricks, avoids bags once its side has made its bid, and does not waste spades.

    ``boldness`` shifts its bids (positive: overbids, so more sets; negative: more bags).
    """

    name = "heuristic"

    def __init__(self, boldness: float = 0.0, nil_rate: float = 0.7, blind_nil_rate: float = 0.04):
        self.boldness = boldness
        self.nil_rate = nil_rate
        self.blind_nil_rate = blind_nil_rate
        self._nil_plan: tuple[int, Seat] | None = None

    # -- decisions before play --------------------------------------------------------

    def wants_blind_nil(self, state: HandState, seat: Seat, rng: random.Random) -> bool:
        """Two-player: declare Blind Nil now and then (more often than by chance alone)."""
        return rng.random() < self.blind_nil_rate

    def _planning_nil(self, state: HandState, seat: Seat) -> bool:
        return self._nil_plan == (id(state.deck), seat)

    def _draw(self, state: HandState, seat: Seat, rng: random.Random) -> Draw:
        if len(state.draft) < 2:
            # two-player: now and then a player drafts for Nil, keeping low cards; decided
            # afresh at her first turn of every hand
            plan = rng.random() < self.nil_rate * 0.12
            self._nil_plan = (id(state.deck), seat) if plan else None
        top = state.deck[2 * len(state.draft)]
        rank = rank_of(top)
        if state.bids[seat] == BLIND_NIL or self._planning_nil(state, seat):
            keep = suit_of(top) != SPADES and rank <= 6
        elif suit_of(top) == SPADES:
            keep = rank >= 5 or rng.random() < 0.4
        else:
            keep = rank >= 10 or (rank >= 7 and rng.random() < 0.3)
        return Draw(seat, keep)

    def _exchange(self, state: HandState, seat: Seat) -> Exchange:
        give, take = exchange_sources(state)
        size = exchange_limit(state)
        # give away the most dangerous cards: high spades first, then high cards
        danger = sorted(
            cards_of(give), key=lambda c: (suit_of(c) == SPADES, rank_of(c)), reverse=True
        )
        safe = sorted(cards_of(take), key=lambda c: (suit_of(c) == SPADES, rank_of(c)))
        return Exchange(seat, tuple(sorted(danger[:size])), tuple(sorted(safe[:size])))

    def _bid(self, state: HandState, seat: Seat, rng: random.Random) -> PlaceBid:
        holding = state.holdings[seat]
        options = legal_bids(state)
        partner = state.variant.partner(seat)
        partner_bid = state.bids[partner] if partner is not None else None
        partner_nil = partner_bid in (NIL, BLIND_NIL)
        # beside a Nil partner, a second Nil is a long shot: tried only now and then
        double_nil = not partner_nil or rng.random() < 0.15
        if BLIND_NIL in options and rng.random() < self.blind_nil_rate and double_nil:
            return PlaceBid(seat, BLIND_NIL)
        base = 1.9 if state.variant is Variant.TWO_PLAYER else 0.8
        estimate = base + estimate_tricks(holding) + self.boldness + rng.uniform(-0.8, 0.8)
        if partner_nil:
            estimate += 0.8
        planned = self._planning_nil(state, seat)
        if (
            NIL in options
            and (estimate < base + 1.8 or planned)
            and _nil_safe(holding)
            and double_nil
            and rng.random() < self.nil_rate
        ):
            return PlaceBid(seat, NIL)
        return PlaceBid(seat, closest_bid(options, max(1, min(13, round(estimate)))))

    # -- card play ----------------------------------------------------------------------

    def _side_need(self, state: HandState, seat: Seat) -> int:
        """Tricks the seat's side still needs toward its contract (0 when made or none)."""
        variant = state.variant
        side_seats = variant.side_seats(variant.side_of(seat))
        contract = sum(bid for s in side_seats if (bid := state.bids[s]) is not None and bid > 0)
        won = sum(state.tricks_won[s] for s in side_seats if (state.bids[s] or 0) > 0)
        return max(0, contract - won)

    def _play(self, state: HandState, seat: Seat) -> PlayCard:
        legal = cards_of(legal_plays(state))
        my_bid = state.bids[seat]
        nil = my_bid is not None and my_bid <= 0 and state.tricks_won[seat] == 0
        if not state.trick:
            return PlayCard(seat, self._lead(state, seat, legal, nil))
        count = state.variant.seat_count
        best_seat = trick_winner(state.trick, state.trick_leader, count)
        best = state.trick[(best_seat - state.trick_leader) % count]
        winners = [card for card in legal if beats(card, best)]
        losers = [card for card in legal if not beats(card, best)]
        partner = state.variant.partner(seat)
        last = len(state.trick) == count - 1
        if nil:
            if losers:
                return PlayCard(seat, max(losers, key=_PLAY_VALUE.__getitem__))
            return PlayCard(seat, max(legal, key=_PLAY_VALUE.__getitem__))
        partner_nil = partner is not None and (state.bids[partner] or 0) <= 0
        partner_winning = partner is not None and best_seat == partner
        if partner_nil and partner_winning and winners:
            return PlayCard(seat, min(winners, key=_PLAY_VALUE.__getitem__))
        need = self._side_need(state, seat)
        if need > 0 and winners and not (partner_winning and not partner_nil):
            cheapest = min(winners, key=_PLAY_VALUE.__getitem__)
            if last or rank_of(cheapest) >= 10 or suit_of(cheapest) == SPADES:
                return PlayCard(seat, cheapest)
            return PlayCard(seat, max(winners, key=_PLAY_VALUE.__getitem__))
        if losers:
            if need == 0:
                return PlayCard(seat, max(losers, key=_PLAY_VALUE.__getitem__))
            return PlayCard(seat, min(losers, key=_PLAY_VALUE.__getitem__))
        return PlayCard(seat, min(legal, key=_PLAY_VALUE.__getitem__))

    def _lead(self, state: HandState, seat: Seat, legal: tuple[int, ...], nil: bool) -> int:
        if nil:
            return min(legal, key=_PLAY_VALUE.__getitem__)
        need = self._side_need(state, seat)
        aces = [card for card in legal if rank_of(card) == 12 and suit_of(card) != SPADES]
        if need > 0 and aces:
            return aces[0]
        if need > 0 and any(suit_of(card) == SPADES for card in legal):
            spades = [card for card in legal if suit_of(card) == SPADES]
            if rank_of(max(spades)) >= 11:
                return max(spades)
        non_spades = [card for card in legal if suit_of(card) != SPADES] or list(legal)
        return min(non_spades, key=_PLAY_VALUE.__getitem__)

    def act(self, state: HandState, seat: Seat, rng: random.Random) -> Action:
        """The action ``seat`` takes now."""
        if state.phase is Phase.DRAFT:
            return self._draw(state, seat, rng)
        if state.phase is Phase.EXCHANGE:
            return self._exchange(state, seat)
        if state.phase is Phase.BIDDING:
            return self._bid(state, seat, rng)
        return self._play(state, seat)


def _play_value(card: int) -> int:
    """How costly a card is to give up: spades above everything, then by rank."""
    return (suit_of(card) == SPADES) * 13 + rank_of(card)


_PLAY_VALUE = tuple(map(_play_value, range(52)))
""":func:`_play_value` of every card, looked up (bots compare cards by it at every turn)."""

"""Seeded bot players: the same seed gives the same game, byte for byte.

A bot is asked for one action at a time by :func:`play_hand`; it sees the whole
:class:`~spades_replay.engine.state.HandState` but, being honest, looks only at its own cards
(and, when exchanging, at the cards it may take). Randomness comes only from the
:class:`random.Random` it is given.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from typing import NamedTuple, Protocol

from spades_replay.engine.actions import Action, DeclareBlindNil, Draw, Exchange, PlaceBid, PlayCard
from spades_replay.engine.cards import (
    CLUBS,
    DIAMONDS,
    HEARTS,
    NON_SPADES_MASK,
    SPADES,
    SPADES_MASK,
    Card,
    cards_of,
    rank_of,
    suit_of,
)
from spades_replay.engine.scoring import BLIND_NIL, NIL, Bid
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
from spades_replay.engine.tricks import FIRST_SPADE, beats, trick_winner


class Play(NamedTuple):
    """What a seat to play sees, as plain values: the ``legal`` cards (a mask, from the
    engine's :func:`~spades_replay.engine.state.legal_plays`), the ``trick`` so far, led by
    ``leader`` and won so far by ``winning`` (the engine's
    :func:`~spades_replay.engine.tricks.trick_winner`; the leader while no card is down), the
    ``bids`` and each seat's tricks ``won``. A self-play loop that keeps a hand as ints asks
    the bots with one of these rather than a state per card."""

    variant: Variant
    seat: Seat
    legal: int
    trick: Sequence[Card]
    leader: Seat
    winning: Seat
    bids: Sequence[Bid | None]
    won: Sequence[int]

    @classmethod
    def of(cls, state: HandState, seat: Seat) -> Play:
        """The play of ``seat`` in ``state``."""
        return cls(
            state.variant,
            seat,
            legal_plays(state),
            state.trick,
            state.trick_leader,
            trick_winner(state.trick, state.trick_leader, state.variant.seat_count)
            if state.trick
            else state.trick_leader,
            state.bids,
            state.tricks_won,
        )


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

    def keeps_top(
        self, deck: tuple[Card, ...], turn: int, seat: Seat, bid: Bid | None, rng: random.Random
    ) -> bool:
        """Two-player: whether ``seat`` keeps the top card at draft turn ``turn`` (a coin)."""
        return rng.random() < 0.5

    def choose_card(self, play: Play, rng: random.Random) -> Card:
        """A uniformly random card of ``play.legal``."""
        return rng.choice(cards_of(play.legal))

    def act(self, state: HandState, seat: Seat, rng: random.Random) -> Action:
        """A uniformly random legal action."""
        if state.phase is Phase.DRAFT:
            return Draw(seat, self.keeps_top(state.deck, len(state.draft), seat, None, rng))
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
        return PlayCard(seat, self.choose_card(Play.of(state, seat), rng))


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


@functools.lru_cache(maxsize=1024)
def closest_bid(options: tuple[int, ...], wanted: int) -> int:
    """The legal number of tricks nearest to ``wanted`` (the higher of two as near), so a bot
    keeps to house rules such as a team minimum: Nil and Blind Nil only when nothing else is
    legal. (Kept for each ``options`` and ``wanted``: a bot asks at every bid, and a rule set
    has few lists of legal bids.)"""
    numbers = [bid for bid in options if bid > 0] or list(options)
    return min(numbers, key=lambda bid: (abs(bid - wanted), -bid))


def estimate_tricks(holding: int) -> float:
    """A rough count of the tricks a holding should take: high cards, long and high spades,
    and short side suits that spades can ruff."""
    # (on the suits' 13-bit rank masks: bids are asked at every hand of every game; the
    # additions keep their order, so that the float, and so the bid, never changes)
    estimate = 0.0
    spades = holding >> _SPADES_SHIFT
    spade_count = spades.bit_count()
    for shift in _SIDE_SHIFTS:
        ranks = holding >> shift & _RANKS
        count = ranks.bit_count()
        ace = ranks >> 12 & 1
        if ace:
            estimate += 1.0
        if ranks >> 11 & 1 and count >= 2:
            estimate += 0.8 if ace else 0.5
        if ranks >> 10 & 1 and count >= 3 and ace:
            estimate += 0.3
        if count <= 1 and spade_count >= 3:
            estimate += 0.6 if not count else 0.3
    for rank in (9, 10, 11, 12):
        if spades >> rank & 1:
            estimate += 0.9 if rank >= 11 else 0.6
    estimate += max(0, spade_count - 4) * 0.8
    return estimate


def _nil_safe(holding: int) -> bool:
    """Whether a holding looks safe enough to bid Nil: no high spades, few high cards."""
    spades = holding >> _SPADES_SHIFT
    if spades & _HIGH_RANKS or spades.bit_count() > 3:
        return False
    high = (holding & _HIGH_CARDS).bit_count()
    return high <= 2


_SPADES_SHIFT = 13 * SPADES
_SIDE_SHIFTS = (13 * CLUBS, 13 * DIAMONDS, 13 * HEARTS)
_HIGH_RANKS = 0b111 << 10
"""The ranks of a suit from the queen up (rank 10 and above)."""
_HIGH_CARDS = sum(_HIGH_RANKS << 13 * suit for suit in range(4))


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
        keep = self.keeps_top(state.deck, len(state.draft), seat, state.bids[seat], rng)
        return Draw(seat, keep)

    def keeps_top(
        self, deck: tuple[Card, ...], turn: int, seat: Seat, bid: Bid | None, rng: random.Random
    ) -> bool:
        """Two-player: whether ``seat`` (who bid ``bid`` so far) keeps the top card at draft
        turn ``turn`` of the hand dealt ``deck``."""
        if turn < 2:
            # two-player: now and then a player drafts for Nil, keeping low cards; decided
            # afresh at her first turn of every hand
            plan = rng.random() < self.nil_rate * 0.12
            self._nil_plan = (id(deck), seat) if plan else None
        top = deck[2 * turn]
        rank = rank_of(top)
        if bid == BLIND_NIL or self._nil_plan == (id(deck), seat):
            return suit_of(top) != SPADES and rank <= 6
        if suit_of(top) == SPADES:
            return rank >= 5 or rng.random() < 0.4
        return rank >= 10 or (rank >= 7 and rng.random() < 0.3)

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

    @staticmethod
    def _side_need(play: Play) -> int:
        """Tricks the seat's side still needs toward its contract (0 when made or none)."""
        bids, won = play.bids, play.won
        contract = 0
        taken = 0
        variant = play.variant
        for seat in variant.sides_seats[play.seat % 2]:
            bid = bids[seat]
            if bid is not None and bid > 0:
                contract += bid
                taken += won[seat]
        return max(0, contract - taken)

    def choose_card(self, play: Play, rng: random.Random) -> Card:
        """The card to play: ducks when Nil, covers a Nil partner, wins cheaply while its side
        needs tricks, and otherwise sheds its most costly loser."""
        legal, seat, trick = play.legal, play.seat, play.trick
        my_bid = play.bids[seat]
        nil = my_bid is not None and my_bid <= 0 and play.won[seat] == 0
        if not trick:
            return self._lead(play, nil)
        count = play.variant.seat_count
        best_seat = play.winning
        best = trick[(best_seat - play.leader) % count]
        beating = _BEATERS[best]
        winners = legal & beating
        losers = legal & ~beating
        if nil:
            return _costliest(losers or legal)
        partner = play.variant.partner(seat)
        partner_nil = partner is not None and (play.bids[partner] or 0) <= 0
        partner_winning = partner is not None and best_seat == partner
        if partner_nil and partner_winning and winners:
            return _cheapest(winners)
        need = self._side_need(play)
        if need > 0 and winners and not (partner_winning and not partner_nil):
            cheapest = _cheapest(winners)
            if len(trick) == count - 1 or rank_of(cheapest) >= 10 or cheapest >= FIRST_SPADE:
                return cheapest
            return _costliest(winners)
        if losers:
            return _costliest(losers) if need == 0 else _cheapest(losers)
        return _cheapest(legal)

    def _lead(self, play: Play, nil: bool) -> Card:
        legal = play.legal
        if nil:
            return _cheapest(legal)
        need = self._side_need(play)
        if need > 0:
            aces = legal & _SIDE_ACES
            if aces:
                return _lowest(aces)
            top = legal.bit_length() - 1
            if top >= _SPADE_KING:
                return top
        return _cheapest(legal & NON_SPADES_MASK or legal)

    def _play(self, state: HandState, seat: Seat, rng: random.Random) -> PlayCard:
        return PlayCard(seat, self.choose_card(Play.of(state, seat), rng))

    def act(self, state: HandState, seat: Seat, rng: random.Random) -> Action:
        """The action ``seat`` takes now."""
        if state.phase is Phase.DRAFT:
            return self._draw(state, seat, rng)
        if state.phase is Phase.EXCHANGE:
            return self._exchange(state, seat)
        if state.phase is Phase.BIDDING:
            return self._bid(state, seat, rng)
        return self._play(state, seat, rng)


_RANKS = 0x1FFF
_BEATERS = tuple(sum(1 << card for card in range(52) if beats(card, best)) for best in range(52))
"""For each card winning a trick so far, the mask of the cards that would beat it."""
_SIDE_ACES = sum(1 << (13 * suit + 12) for suit in (CLUBS, DIAMONDS, HEARTS))
_SPADE_KING = 13 * SPADES + 11


def _lowest(mask: int) -> Card:
    return (mask & -mask).bit_length() - 1


def _cheapest(mask: int) -> Card:
    """The card of a (non-empty) mask that is least costly to give up: the lowest rank of a
    side suit (of two as low, the first suit: clubs, diamonds, hearts), else the lowest spade.
    What ``min`` over the cards in order, by their :func:`_play_value`, gives."""
    side = mask & NON_SPADES_MASK
    if not side:
        return _lowest(mask)
    rank = _lowest((side | side >> 13 | side >> 26) & _RANKS)
    card = rank
    while not side >> card & 1:
        card += 13
    return card


def _costliest(mask: int) -> Card:
    """The card of a (non-empty) mask that is most costly to give up: the highest spade, else
    the highest rank of a side suit (of two as high, the first suit). What ``max`` over the
    cards in order, by their :func:`_play_value`, gives."""
    if mask & SPADES_MASK:
        return mask.bit_length() - 1
    rank = ((mask | mask >> 13 | mask >> 26) & _RANKS).bit_length() - 1
    card = rank
    while not mask >> card & 1:
        card += 13
    return card


def _play_value(card: int) -> int:
    """How costly a card is to give up: spades above everything, then by rank."""
    return (suit_of(card) == SPADES) * 13 + rank_of(card)

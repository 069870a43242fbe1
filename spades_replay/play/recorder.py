"""Record a game while it is played: valid by construction.

A game server or bot harness starts a :class:`Recorder`, starts each hand with the shuffled
deck (two-player) or the deal (four-player), and reports every action as it happens. Every
action is checked against the rules first: an illegal one raises
:class:`~spades_replay.errors.RulesError` (with the rule and what was legal) and changes
nothing. At any point the recorder says whose turn it is and what is legal. When the game is
over (or whenever the producer stops), :meth:`Recorder.record` gives a format 1.1 record with
every claim filled in, and :meth:`Recorder.append_to` adds it to a ``.jsonl`` corpus.

>>> rec = Recorder("two-player", ["Megan", "Drew"], game_id="demo")
>>> state = rec.start_hand(deck=[c + s for s in "CDHS" for c in "23456789TJQKA"])
>>> rec.turn, rec.phase
(0, 'draft')
>>> rec.draw(0, keep=True)
>>> rec.draw(1, keep=False)
>>> rec.state.draft, rec.holding(0), rec.holding(1)
('KD', ('2C',), ('5C',))
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from spades_replay.engine.actions import (
    Action,
    DeclareBlindNil,
    Draw,
    Exchange,
    IllegalActionError,
    PlaceBid,
    PlayCard,
)
from spades_replay.engine.cards import CARD_BY_NAME, CARD_NAMES, Card, cards_of
from spades_replay.engine.game import Progress
from spades_replay.engine.rules import Rules
from spades_replay.engine.scoring import BLIND_NIL, NIL, SideScore
from spades_replay.engine.seats import Seat, Side, Variant
from spades_replay.engine.setup import check_deal, check_deck
from spades_replay.engine.state import (
    HandState,
    Phase,
    after_play,
    apply,
    apply_draws,
    apply_plays,
    can_declare_blind_nil,
    exchange_limit,
    exchange_sources,
    legal_bids,
    legal_plays,
    start_four_player,
    start_two_player,
)
from spades_replay.engine.tricks import PlayOutcome
from spades_replay.errors import RulesError, SpadesReplayError
from spades_replay.record import models
from spades_replay.record.io import dumps
from spades_replay.record.problems import problems_from_validation
from spades_replay.replayer.convert import bid_value, card_names, rules_model
from spades_replay.replayer.replay import PlayerInfo, problem_of

CardLike = str | int
BidLike = int | str


def _card(value: CardLike) -> Card:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 52:
        return value
    if isinstance(value, str) and value in CARD_BY_NAME:
        return CARD_BY_NAME[value]
    raise RecorderError(f"not a card: {value!r} (use notation like 'AS' or a card number 0-51)")


_NUMBERS = frozenset(range(52))


def _cards(values: Iterable[CardLike]) -> list[Card]:
    cards = list(values)
    if _NUMBERS.issuperset(cards) and {int}.issuperset(map(type, cards)):
        return cards  # type: ignore[return-value]
    return [_card(card) for card in cards]


def _bid(value: BidLike) -> int:
    if value in ("blind_nil", "blind nil"):
        return BLIND_NIL
    if value == "nil":
        return NIL
    # not a negative number: the engine's -1 is Blind Nil, which is said by name here
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise RecorderError(f"not a bid: {value!r} (0-13, 'nil' or 'blind_nil')")


def _keep(value: object) -> bool:
    """A draft choice: ``True`` (keep the top card) or ``False``, nothing that only reads as
    one (the record's letters ``"K"`` and ``"D"`` are both true)."""
    if isinstance(value, bool):
        return value
    raise RecorderError(f"not a draft choice: {value!r} (True keeps the top card, False not)")


class RecorderError(SpadesReplayError):
    """The recorder was used wrongly (no hand started, game already over, bad argument)."""


@dataclass
class _Hand:
    dealer: Seat
    state: HandState
    deck: tuple[Card, ...] = ()
    deal: tuple[tuple[Card, ...], ...] = ()
    scores: tuple[SideScore, SideScore] | None = None


class Recorder:
    """Drive a game action by action and get its record.

    ``players`` are names or ``{"name": ..., "id": ...}`` mappings; ``rules`` an engine
    :class:`~spades_replay.engine.rules.Rules`; ``first_dealer`` the first player of hand 1
    (two-player) or its dealer (four-player).
    """

    def __init__(
        self,
        variant: str | Variant,
        players: Sequence[str | Mapping[str, str]],
        *,
        rules: Rules | None = None,
        first_dealer: Seat = 0,
        game_id: str | None = None,
        meta: Mapping[str, str] | None = None,
    ) -> None:
        self.variant = Variant(variant)
        if len(players) != self.variant.seat_count:
            raise RecorderError(
                f"{self.variant.value} needs {self.variant.seat_count} players, got {len(players)}"
            )
        if not 0 <= first_dealer < self.variant.seat_count:
            raise RecorderError(f"first_dealer must be a seat, got {first_dealer}")
        self.players = [
            {"name": player} if isinstance(player, str) else dict(player) for player in players
        ]
        self.rules = rules or Rules()
        self.first_dealer = first_dealer
        self.game_id = game_id
        self.meta = dict(meta or {})
        self._hands: list[_Hand] = []
        self._progress = Progress(self.variant, self.rules, first_dealer)
        # the record of no hand yet: what the arguments put in it is checked now, by the
        # format's models, not after a game played
        try:
            self.record()
        except ValidationError as error:
            problems = "; ".join(map(str, problems_from_validation(error)))
            raise RecorderError(
                f"the record these arguments make is not valid: {problems}"
            ) from None

    # -- the game ---------------------------------------------------------------------

    @property
    def scores(self) -> tuple[int, int]:
        """Each side's running score after the last finished hand."""
        return self._progress.scores

    @property
    def bags(self) -> tuple[int, int]:
        """Each side's running bag count after the last finished hand."""
        return self._progress.bags

    @property
    def game_over(self) -> bool:
        """Whether a side has won."""
        return self._progress.over

    @property
    def winner(self) -> Side | None:
        """The side that won, once the game is over."""
        return self._progress.winner

    @property
    def hands_started(self) -> int:
        """How many hands have been started."""
        return len(self._hands)

    def start_hand(
        self,
        *,
        deck: Iterable[CardLike] | None = None,
        deal: Sequence[Iterable[CardLike]] | None = None,
    ) -> HandState:
        """Start the next hand: two-player with the shuffled ``deck`` (top card first),
        four-player with the ``deal`` (13 cards per seat)."""
        if self._progress.over:
            raise RecorderError("the game is over: no more hands")
        if self._hands and self._hands[-1].state.phase is not Phase.DONE:
            raise RecorderError("the current hand is not finished")
        dealer = self._progress.dealer()
        scores = self._progress.scores
        try:
            if self.variant is Variant.TWO_PLAYER:
                if deck is None or deal is not None:
                    raise RecorderError("a two-player hand starts from a deck (deck=...)")
                cards = tuple(_cards(deck))
                if len(cards) != 52:
                    raise RecorderError(f"a deck holds 52 cards, got {len(cards)}")
                check_deck(cards)
                hand = _Hand(
                    dealer, start_two_player(self.rules, dealer, cards, scores), deck=cards
                )
            else:
                if deal is None or deck is not None:
                    raise RecorderError("a four-player hand starts from a deal (deal=...)")
                seats = tuple(tuple(_cards(cards)) for cards in deal)
                if len(seats) != 4 or any(len(cards) != 13 for cards in seats):
                    raise RecorderError("a deal gives 13 cards to each of 4 seats")
                holdings = check_deal(seats)
                hand = _Hand(
                    dealer, start_four_player(self.rules, dealer, holdings, scores), deal=seats
                )
        except IllegalActionError as error:
            raise self._error(error) from None
        self._hands.append(hand)
        return hand.state

    # -- the hand in progress ------------------------------------------------------------

    def _current(self) -> _Hand:
        if not self._hands:
            raise RecorderError("no hand has been started (call start_hand)")
        return self._hands[-1]

    @property
    def state(self) -> HandState:
        """The state of the hand in progress."""
        return self._current().state

    @property
    def phase(self) -> str:
        """``draft``, ``exchange``, ``bidding``, ``play`` or ``done``."""
        return self.state.phase.value

    @property
    def turn(self) -> Seat | None:
        """The seat expected to act next (``None`` once the hand is done)."""
        return self.state.turn

    def legal_plays(self) -> tuple[str, ...]:
        """The cards the seat to play may play now (empty outside the play)."""
        return card_names(cards_of(legal_plays(self.state)))

    def legal_bids(self) -> tuple[int | str, ...]:
        """The bids the seat to bid may make now (empty outside the bidding)."""
        return tuple(bid_value(bid) for bid in legal_bids(self.state))

    def can_declare_blind_nil(self, seat: Seat) -> bool:
        """Two-player: whether ``seat`` may still declare Blind Nil."""
        return can_declare_blind_nil(self.state, seat)

    def exchange_options(self) -> tuple[tuple[str, ...], tuple[str, ...], int]:
        """For the seat to exchange: the cards she may give, those she may take in, and the
        most she may exchange."""
        give, take = exchange_sources(self.state)
        return (
            card_names(cards_of(give)),
            card_names(cards_of(take)),
            exchange_limit(self.state),
        )

    def holding(self, seat: Seat) -> tuple[str, ...]:
        """The cards ``seat`` holds now."""
        return card_names(cards_of(self.state.holdings[seat]))

    def _error(self, error: IllegalActionError) -> RulesError:
        """The engine's refusal located as the validator locates it in a record."""
        players = [PlayerInfo(player["name"], player.get("id")) for player in self.players]
        return RulesError((problem_of(error, (len(self._hands) or 1) - 1, players),))

    def act(self, action: Action) -> None:
        """Apply one engine action to the hand in progress (or raise, changing nothing)."""
        hand = self._current()
        if action.seat not in self.variant.seats:
            raise RecorderError(f"no seat {action.seat} in {self.variant.value}")
        try:
            state = apply(hand.state, action)
        except IllegalActionError as error:
            raise self._error(error) from None
        self._advance(hand, state)

    def _advance(self, hand: _Hand, state: HandState) -> None:
        hand.state = state
        if state.phase is Phase.DONE:
            self._finish(hand)

    def draw_turns(self, keeps: Sequence[bool]) -> None:
        """Two-player: the next draft turns at once, one per entry of ``keeps`` (``True``
        keeps the top card), each by the seat whose turn it is; as many calls of
        :meth:`draw`, checked by the same rules (an illegal one raises, and none is taken)."""
        hand = self._current()
        keeps = list(keeps)
        for keep in keeps:
            _keep(keep)
        try:
            state = apply_draws(hand.state, keeps)
        except IllegalActionError as error:
            raise self._error(error) from None
        self._advance(hand, state)

    def play_cards(self, cards: Iterable[CardLike]) -> None:
        """The next cards of the play at once, each by the seat whose turn it is; as many
        calls of :meth:`play`, checked by the same rules (an illegal one raises, and none
        is played)."""
        hand = self._current()
        try:
            state = apply_plays(hand.state, _cards(cards))
        except IllegalActionError as error:
            raise self._error(error) from None
        self._advance(hand, state)

    def _played(self, outcome: PlayOutcome) -> None:
        """The whole card play of the hand under way, as ``outcome`` holds it, taken without
        checking it again (:func:`~spades_replay.engine.state.after_play`): only for self-play's
        loop (:mod:`spades_replay.play.simulate`), which plays only the cards the engine's
        rules allow; a recorder's callers play through :meth:`play_cards`, which checks."""
        hand = self._current()
        self._advance(hand, after_play(hand.state, outcome))

    def _finish(self, hand: _Hand) -> None:
        bids = tuple(bid if bid is not None else 0 for bid in hand.state.bids)
        self._progress, hand.scores = self._progress.after_hand(bids, hand.state.tricks_won)

    def declare_blind_nil(self, seat: Seat) -> None:
        """Two-player: ``seat`` declares Blind Nil before her first draft turn."""
        self.act(DeclareBlindNil(seat))

    def draw(self, seat: Seat, keep: bool) -> None:
        """Two-player: ``seat`` keeps the top card (``keep``) or discards it for the next."""
        self.act(Draw(seat, _keep(keep)))

    def exchange(self, seat: Seat, out: Iterable[CardLike], in_: Iterable[CardLike]) -> None:
        """A Blind Nil bidder's exchange: the cards she gives, the cards she takes in."""
        self.act(Exchange(seat, tuple(_card(c) for c in out), tuple(_card(c) for c in in_)))

    def bid(self, seat: Seat, bid: BidLike) -> None:
        """``seat`` bids: 1-13, 0 or ``"nil"``, or (four-player) ``"blind_nil"``."""
        self.act(PlaceBid(seat, _bid(bid)))

    def play(self, seat: Seat, card: CardLike) -> None:
        """``seat`` plays ``card``."""
        self.act(PlayCard(seat, _card(card)))

    # -- the record ----------------------------------------------------------------------

    def _hand_data(self, hand: _Hand) -> dict[str, Any]:
        state = hand.state
        data: dict[str, Any] = {}
        if self.variant is Variant.TWO_PLAYER:
            data["deck"] = list(card_names(hand.deck))
            data["draft"] = state.draft
        else:
            data["deal"] = [list(card_names(cards)) for cards in hand.deal]
        data["bids"] = [bid_value(bid if bid is not None else 0) for bid in state.bids]
        exchanges = [
            {"seat": swap.seat, "out": list(card_names(swap.out)), "in": list(card_names(swap.in_))}
            for swap in state.exchanges
            if swap.out
        ]
        if exchanges:
            data["exchanges"] = exchanges
        data["plays"] = [
            *(CARD_NAMES[card] for trick in state.tricks for card in trick.cards),
            *map(CARD_NAMES.__getitem__, state.trick),
        ]
        if hand.scores is not None:
            first, second = hand.scores
            data["result"] = {
                "tricks": list(state.tricks_won),
                "points": [first.points, second.points],
                "scores": [first.score, second.score],
                "bags": [first.bags, second.bags],
            }
        return data

    def _recordable(self, hand: _Hand) -> bool:
        """A hand enters the record once its setup is complete (bids all made)."""
        state = hand.state
        drafted = self.variant is Variant.FOUR_PLAYER or len(state.draft) == 26
        return (
            drafted
            and all(bid is not None for bid in state.bids)
            and (state.phase in (Phase.PLAY, Phase.DONE))
        )

    def record(self) -> models.AnyRecord:
        """The game so far as a record of the current format (1.1), every option of its rules
        written out and claims filled in.

        A hand still in its draft, bidding or exchanges is left out (a record can only stop
        during card play); a hand in play is kept as the unfinished last hand.
        """
        hands = [self._hand_data(hand) for hand in self._hands if self._recordable(hand)]
        data: dict[str, Any] = {
            "format": models.FORMAT_NAME,
            "version": models.FORMAT_VERSION,
            "variant": self.variant.value,
            "rules": rules_model(self.rules).model_dump(),
            "players": self.players,
            "first_dealer": self.first_dealer,
            "hands": hands,
        }
        if self.game_id is not None:
            data["game_id"] = self.game_id
        if self.meta:
            data["meta"] = self.meta
        progress = self._progress
        if progress.winner is not None:
            data["result"] = {"winner": progress.winner, "scores": list(progress.scores)}
        return models.RECORD_ADAPTER.validate_python(data)

    def append_to(self, path: str | os.PathLike[str]) -> None:
        """Append the record as one line of a ``.jsonl`` corpus (created if missing).

        The line is written with a single ``write`` on a file opened for appending and then
        flushed to disk, so other records in the file are never touched; a crash mid-write
        can at worst leave this one line truncated, which ``validate`` reports.
        """
        line = dumps(self.record()) + b"\n"
        descriptor = os.open(Path(path), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            written = os.write(descriptor, line)
            while written < len(line):
                written += os.write(descriptor, line[written:])
            os.fsync(descriptor)
        finally:
            os.close(descriptor)

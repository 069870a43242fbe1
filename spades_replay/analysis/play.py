"""Play analysis of replayed hands: the par, the cost of every card, and the Nils.

For each hand, :func:`analyze_hand` solves every position of the card play, double dummy:

- the **par**: the tricks each side could make from the start of play, both sides playing
  perfectly (to take the most tricks);
- for **every card played**: the best final trick count its player's side could still reach
  before it, the count after it, so what it **cost** (0 for a best play), and every legal
  card that was best;
- for every **Nil or Blind Nil** bidder: whether the Nil was makeable from the start of play
  (she, helped by her partner in four-player, could avoid every trick against any defence)
  or doomed, and each play that turned it from one to the other.

Trick costs measure the trick-taking objective only. While a Nil is live (its bidder has not
yet won a trick) players may rightly give up tricks for its sake; :attr:`PlayAnalysis.nil_live`
says so, and the Nil swings are the measure there.

Results are plain frozen dataclasses with ``to_dict()`` for JSON. Each hand may be given a
time cap: the analysis then works backwards from the last card, so a capped hand still has
its later plays analysed, and says where it stopped (never silently).

>>> from spades_replay.play.bots import HeuristicBot
>>> from spades_replay.replayer.replay import replay
>>> from spades_replay.play.simulate import simulate_game
>>> game = replay(simulate_game("two-player", seed=3, bots=[HeuristicBot(), HeuristicBot()]))
>>> analysis = analyze_hand(game.hands[0])
>>> sum(analysis.par) == 13 and analysis.complete and not analysis.capped
True
>>> all(play.cost == 0 for play in analysis.plays if play.best == play.value)
True
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from spades_replay.analysis.dispatch import new_solver
from spades_replay.analysis.position import Position, equivalent_cards, opening
from spades_replay.analysis.solver import SearchTimeoutError, Solver
from spades_replay.engine.cards import CARD_NAMES, Card, cards_of
from spades_replay.engine.rules import Rules
from spades_replay.engine.scoring import BLIND_NIL, NIL, Bid
from spades_replay.engine.seats import Seat, Variant
from spades_replay.plumbing.parallel import Jobs, ProgressCallback, ordered_map, workers
from spades_replay.replayer.replay import HandReplay, Replay

__all__ = [
    "HandAnalysis",
    "NilAnalysis",
    "NilSwing",
    "PlayAnalysis",
    "analyze_hand",
    "analyze_hands",
    "analyze_replay",
    "position_before",
]


@dataclass(frozen=True, slots=True)
class NilSwing:
    """A play changed whether the Nil of ``seat`` could still be made against any defence:
    ``makeable`` is the verdict after the play."""

    seat: Seat
    makeable: bool

    def to_dict(self) -> dict[str, Any]:
        """The swing as JSON-ready data."""
        return {"seat": self.seat, "makeable": self.makeable}


@dataclass(frozen=True, slots=True)
class PlayAnalysis:
    """One card of the hand, judged double dummy.

    ``index`` is the card's place in the hand's plays (0-based), ``trick`` and ``position``
    its trick and place in the trick (1-based). ``best`` is the final trick count of the
    player's side with perfect play from before the card, ``value`` the same after it;
    ``best_cards`` are the legal cards that keep ``best`` (the played card among them when
    it cost nothing). All three are ``None``/empty when the time cap stopped the analysis
    before this card. ``nil_live``: some Nil bidder had not yet won a trick.
    """

    index: int
    trick: int
    position: int
    seat: Seat
    card: Card
    best: int | None
    value: int | None
    best_cards: tuple[Card, ...]
    nil_live: bool
    nil_swings: tuple[NilSwing, ...]

    @property
    def analysed(self) -> bool:
        """Whether the card was analysed (not cut off by the time cap)."""
        return self.best is not None and self.value is not None

    @property
    def cost(self) -> int | None:
        """Tricks the card cost its side (0 for a best play), ``None`` if not analysed."""
        if self.best is None or self.value is None:
            return None
        return self.best - self.value

    def to_dict(self) -> dict[str, Any]:
        """The play as JSON-ready data (cards in notation)."""
        return {
            "index": self.index,
            "trick": self.trick,
            "position": self.position,
            "seat": self.seat,
            "card": CARD_NAMES[self.card],
            "best": self.best,
            "value": self.value,
            "cost": self.cost,
            "best_cards": [CARD_NAMES[card] for card in self.best_cards],
            "nil_live": self.nil_live,
            "nil_swings": [swing.to_dict() for swing in self.nil_swings],
        }


@dataclass(frozen=True, slots=True)
class NilAnalysis:
    """A Nil or Blind Nil of the hand.

    ``makeable``: from the start of play, she (with her partner's help in four-player) could
    avoid every trick against any defence; ``False`` means the Nil was doomed; ``None`` when
    the time cap ran out first. ``tricks`` she won; ``made`` whether the Nil was made
    (``None`` while an unfinished hand leaves it open).
    """

    seat: Seat
    blind: bool
    makeable: bool | None
    tricks: int
    made: bool | None

    def to_dict(self) -> dict[str, Any]:
        """The Nil as JSON-ready data."""
        return {
            "seat": self.seat,
            "kind": "blind_nil" if self.blind else "nil",
            "makeable": self.makeable,
            "tricks": self.tricks,
            "made": self.made,
        }


@dataclass(frozen=True, slots=True)
class HandAnalysis:
    """The double-dummy analysis of one hand (``number`` is 1-based).

    ``par``: the tricks each side could make from the start of play with perfect play
    (``None`` if the time cap ran out first); ``made``: the tricks each side won (so far, in
    an unfinished hand). ``capped`` says the time cap stopped the analysis: only the plays
    from :attr:`analysed_from` on were analysed. ``seconds`` and ``nodes`` measure the work.
    """

    number: int
    variant: Variant
    bids: tuple[Bid, ...]
    par: tuple[int, int] | None
    made: tuple[int, int]
    complete: bool
    plays: tuple[PlayAnalysis, ...]
    nils: tuple[NilAnalysis, ...]
    capped: bool
    seconds: float
    nodes: int

    @property
    def analysed_from(self) -> int:
        """The index of the first analysed play (the number of plays if none was)."""
        for play in self.plays:
            if play.analysed:
                return play.index
        return len(self.plays)

    @property
    def tricks_lost(self) -> tuple[int, ...]:
        """Tricks each seat's analysed plays cost her side."""
        lost = [0] * self.variant.seat_count
        for play in self.plays:
            if play.cost:
                lost[play.seat] += play.cost
        return tuple(lost)

    def to_dict(self) -> dict[str, Any]:
        """The analysis as JSON-ready data, in a fixed key order (``seconds`` and ``nodes``
        are left out: they vary from run to run)."""
        return {
            "number": self.number,
            "variant": self.variant.value,
            "bids": ["blind_nil" if bid == BLIND_NIL else bid for bid in self.bids],
            "par": list(self.par) if self.par is not None else None,
            "made": list(self.made),
            "complete": self.complete,
            "capped": self.capped,
            "analysed_from": self.analysed_from,
            "tricks_lost": list(self.tricks_lost),
            "nils": [nil.to_dict() for nil in self.nils],
            "plays": [play.to_dict() for play in self.plays],
        }


@dataclass(frozen=True, slots=True)
class _Job:
    """What the analysis of one hand needs: light, so it travels cheaply to a worker."""

    number: int
    variant: Variant
    holdings: tuple[int, ...]
    leader: Seat
    plays: tuple[Card, ...]
    bids: tuple[Bid, ...]
    complete: bool
    rules: Rules

    def opening(self) -> Position:
        """The position before the first card, under the hand's play options."""
        return opening(self.variant, self.holdings, self.leader, self.rules)


def _job_of(hand: HandReplay) -> _Job:
    outcome = hand.outcome
    return _Job(
        hand.number,
        hand.variant,
        outcome.holdings,
        outcome.leader,
        hand.actions.plays,
        outcome.bids,
        hand.complete,
        hand.rules,
    )


def position_before(hand: HandReplay, index: int) -> Position:
    """The position of ``hand`` just before its card number ``index`` (0-based; the number
    of cards played gives the position after the last): for questions the analysis does not
    store, such as every card's value (:meth:`Solver.card_values`)."""
    plays = hand.actions.plays
    if not 0 <= index <= len(plays):
        raise ValueError(f"hand {hand.number} has {len(plays)} card(s); there is no card {index}")
    position = _job_of(hand).opening()
    for card in plays[:index]:
        position = position.play(card)
    return position


def analyze_hand(hand: HandReplay, *, time_cap: float | None = None) -> HandAnalysis:
    """Analyse one replayed hand, within ``time_cap`` seconds if given."""
    return _analyze(_job_of(hand), time_cap)


def analyze_hands(
    hands: Iterable[HandReplay],
    *,
    time_cap: float | None = None,
    jobs: Jobs = 1,
    progress: ProgressCallback | None = None,
) -> Generator[HandAnalysis, None, None]:
    """Analyse hands in order, on ``jobs`` worker processes (0: one per core); the results
    are the same whatever ``jobs`` is, but for the time each hand took."""
    work = [_job_of(hand) for hand in hands]
    results = ordered_map(
        _Analyze(time_cap),
        work,
        workers(jobs, len(work)),
        preload=["spades_replay.analysis.play"],
    )
    with contextlib.closing(results):
        yield from _counted(results, len(work), progress)


@dataclass(frozen=True, slots=True)
class _Analyze:
    """What a worker process runs for each hand (picklable)."""

    time_cap: float | None

    def __call__(self, job: _Job) -> HandAnalysis:
        return _analyze(job, self.time_cap)


def _counted(
    results: Iterable[HandAnalysis], total: int, progress: ProgressCallback | None
) -> Iterator[HandAnalysis]:
    if progress is not None:
        progress(0, total)
    for done, result in enumerate(results, start=1):
        if progress is not None:
            progress(done, total)
        yield result


def analyze_replay(
    replay: Replay,
    *,
    hand: int | None = None,
    time_cap: float | None = None,
    jobs: Jobs = 1,
    progress: ProgressCallback | None = None,
) -> tuple[HandAnalysis, ...]:
    """Analyse every hand of a replayed game, or only hand number ``hand`` (1-based;
    :class:`ValueError` if there is no such hand)."""
    hands: Sequence[HandReplay] = replay.hands
    if hand is not None:
        if not 1 <= hand <= len(hands):
            raise ValueError(f"the game has {len(hands)} hand(s); there is no hand {hand}")
        hands = (hands[hand - 1],)
    return tuple(analyze_hands(hands, time_cap=time_cap, jobs=jobs, progress=progress))


def _best_play(
    solver: Solver, position: Position, played: Card, played_value: int
) -> tuple[int, tuple[Card, ...]]:
    """The best final count the player to move could reach (for her side) and the legal
    cards that reach it, given the played card's value: each other group of equivalent
    cards is tested against the best so far, and climbed when it does better."""
    side = position.variant.side_of(position.to_move)
    best = played_value
    best_groups = [equivalent_cards(position, played)]
    remaining = position.legal_plays() & ~best_groups[0]
    while remaining:
        card = (remaining & -remaining).bit_length() - 1
        group = equivalent_cards(position, card) & remaining
        remaining &= ~group
        child = position.play(card)
        if not solver.at_least(child, side, best):
            continue
        if solver.at_least(child, side, best + 1):
            best += 1
            while solver.at_least(child, side, best + 1):
                best += 1
            best_groups = [group]
        else:
            best_groups.append(group)
    cards = 0
    for group in best_groups:
        cards |= group
    return best, cards_of(cards)


def _analyze(job: _Job, time_cap: float | None) -> HandAnalysis:
    """The analysis of one hand: every position from the last card backwards, so that the
    time cap, if it strikes, leaves the end of the hand solved (and later positions' results
    in the tables speed up the earlier ones)."""
    variant = job.variant
    solver = new_solver(variant)  # loads the compiled kernel, if any, before the clock starts
    started = time.monotonic()
    solver.deadline = None if time_cap is None else started + time_cap
    positions = [job.opening()]
    for card in job.plays:
        positions.append(positions[-1].play(card))
    count = len(job.plays)
    nil_seats = [seat for seat, bid in enumerate(job.bids) if bid in (NIL, BLIND_NIL)]
    values: list[int | None] = [None] * (count + 1)
    best_cards: list[tuple[Card, ...]] = [()] * count
    open_nil: list[dict[Seat, bool]] = [{} for _ in range(count + 1)]
    capped = False
    try:
        values[count] = solver.side0_tricks(positions[count])
        for index in range(count, -1, -1):
            position = positions[index]
            for seat in nil_seats:
                if position.tricks_won[seat] == 0 and position.tricks_left:
                    open_nil[index][seat] = not solver.nil_forced(position, seat)
            if index == count:
                continue
            side = variant.side_of(position.to_move)
            following = values[index + 1]
            assert following is not None
            best, best_cards[index] = _best_play(
                solver, position, job.plays[index], _side_value(position, side, following)
            )
            values[index] = _side_value(position, side, best)
    except SearchTimeoutError:
        capped = True
    plays = []
    for index, card in enumerate(job.plays):
        position = positions[index]
        seat = position.to_move
        side = variant.side_of(seat)
        before, after = values[index], values[index + 1]
        analysed = before is not None and after is not None
        plays.append(
            PlayAnalysis(
                index,
                (index // variant.seat_count) + 1,
                len(position.trick) + 1,
                seat,
                card,
                _side_value(position, side, before) if before is not None else None,
                _side_value(position, side, after) if analysed and after is not None else None,
                best_cards[index],
                any(position.tricks_won[nil] == 0 for nil in nil_seats),
                _swings(open_nil[index], open_nil[index + 1], positions[index + 1])
                if analysed
                else (),
            )
        )
    final = positions[-1]
    par = None
    if values[0] is not None:
        par = (values[0], _total(positions[0]) - values[0])
    nils = tuple(
        NilAnalysis(
            seat,
            job.bids[seat] == BLIND_NIL,
            open_nil[0].get(seat),
            final.tricks_won[seat],
            (final.tricks_won[seat] == 0) if job.complete or final.tricks_won[seat] else None,
        )
        for seat in nil_seats
    )
    return HandAnalysis(
        job.number,
        variant,
        job.bids,
        par,
        final.side_tricks,
        job.complete,
        tuple(plays),
        nils,
        capped,
        time.monotonic() - started,
        solver.nodes,
    )


def _total(position: Position) -> int:
    return sum(position.tricks_won) + position.tricks_left


def _side_value(position: Position, side: int, value: int) -> int:
    """A side-0 final count as ``side``'s final count, or back (the map is its own
    inverse)."""
    return value if side == 0 else _total(position) - value


def _swings(
    before: dict[Seat, bool], after: dict[Seat, bool], position: Position
) -> tuple[NilSwing, ...]:
    """The Nils whose verdict a play changed. ``after`` lacks a seat once she has won a
    trick (doomed) or the hand is over (made)."""
    swings = []
    for seat, makeable in before.items():
        now = after.get(seat, position.tricks_won[seat] == 0)
        if now != makeable:
            swings.append(NilSwing(seat, now))
    return tuple(swings)

"""Whole games between seeded bots, recorded: realistic corpora that validate by construction.

Every game is determined by its seed: the shuffles, the first dealer and every choice of the
bots. A corpus of ``games`` games from seed ``S`` plays game *i* from :func:`game_seed`
``(S, i)``, so a game does not depend on how many others were played, nor on ``jobs``.

>>> record = simulate_game("two-player", seed=7)
>>> record.variant, len(record.hands) > 0
('two-player', True)
>>> simulate_game("two-player", seed=7) == record
True
"""

from __future__ import annotations

import contextlib
import gzip
import importlib
import os
import random
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from spades_replay.engine.cards import DECK, Card
from spades_replay.engine.rules import STANDARD, Rules
from spades_replay.engine.seats import Seat, Variant
from spades_replay.engine.setup import turn_seat
from spades_replay.engine.state import HandState, Phase
from spades_replay.engine.tricks import (
    FIRST_SPADE,
    PlayOutcome,
    beats,
    legal_plays,
    opening_card,
    spades_open,
)
from spades_replay.play.bots import (
    Bot,
    HeuristicBot,
    OpenSpielBot,
    Play,
    RandomBot,
    next_action,
)
from spades_replay.play.recorder import Recorder
from spades_replay.plumbing.atomic import atomic_writer
from spades_replay.plumbing.parallel import Jobs, ordered_map, workers
from spades_replay.record import models
from spades_replay.record.io import dumps

MAX_HANDS = 60
"""A game not won after this many hands is recorded unfinished."""

BOT_KINDS = ("heuristic", "random", "openspiel")
CORPUS_NAMES = (".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz")
"""How the name of a corpus ends; :func:`write_corpus` writes any other name as a directory."""


def seat_kinds(variant: Variant, kind: str) -> tuple[str, ...]:
    """The bot of each seat that ``kind`` names: one of :data:`BOT_KINDS` for every seat, or
    one per seat in seat order, comma-separated (``heuristic,random,heuristic,random``).
    Raises :class:`ValueError`, saying why, for anything else.

    ``openspiel`` plays every seat or none (its games follow OpenSpiel's rules).

    >>> seat_kinds(Variant.TWO_PLAYER, "random")
    ('random', 'random')
    >>> seat_kinds(Variant.FOUR_PLAYER, "heuristic,random,heuristic,random")
    ('heuristic', 'random', 'heuristic', 'random')
    """
    kinds = tuple(part.strip() for part in kind.split(","))
    for name in kinds:
        if name not in BOT_KINDS:
            raise ValueError(f"unknown bot {name!r}: choose from {', '.join(BOT_KINDS)}")
    if "openspiel" in kinds and len(set(kinds)) > 1:
        raise ValueError("openspiel plays every seat or none: its games follow OpenSpiel's rules")
    if len(kinds) == 1:
        return kinds * variant.seat_count
    if len(kinds) != variant.seat_count:
        raise ValueError(
            f"{len(kinds)} bots for the {variant.seat_count} seats of {variant.value}: give "
            f"one bot for every seat, or one per seat in seat order"
        )
    return kinds


def _cast(variant: Variant, kind: str) -> list[tuple[str, Bot]]:
    """The named players of one kind of bot, one per seat."""
    if kind == "random":
        names = (
            ("Megan", "Drew")
            if variant is Variant.TWO_PLAYER
            else (
                "Alex",
                "Beth",
                "Charlie",
                "David",
            )
        )
        return [(name, RandomBot()) for name in names]
    if kind == "openspiel":
        if variant is not Variant.FOUR_PLAYER:
            raise ValueError("the openspiel bots play four-player games: OpenSpiel has no other")
        return [(name, OpenSpielBot()) for name in ("Alex", "Beth", "Charlie", "David")]
    if variant is Variant.TWO_PLAYER:
        return [
            ("Megan", HeuristicBot(boldness=0.5, nil_rate=0.5, blind_nil_rate=0.03)),
            ("Drew", HeuristicBot(boldness=-0.4, nil_rate=0.9, blind_nil_rate=0.06)),
        ]
    return [
        ("Alex", HeuristicBot(boldness=0.6, nil_rate=0.4, blind_nil_rate=0.02)),
        ("Beth", HeuristicBot(boldness=0.0, nil_rate=0.95, blind_nil_rate=0.08)),
        ("Charlie", HeuristicBot(boldness=-0.6, nil_rate=0.6, blind_nil_rate=0.03)),
        ("David", HeuristicBot(boldness=0.0, nil_rate=0.6, blind_nil_rate=0.04)),
    ]


def roster(variant: Variant, kind: str = "heuristic") -> list[tuple[str, Bot]]:
    """The named players of simulated games, one per seat; ``kind`` names the bots as
    :func:`seat_kinds` reads it (one kind for all seats, or one per seat). A player's id is
    her bot's kind and her name (``heuristic-megan``), so that mixed seats give distinct
    players.

    Heuristic players keep a style from game to game, so that per-player stats differ:
    Megan overbids, Drew is careful and fond of Nil; Alex overbids, Beth bids Nil and Blind
    Nil often, Charlie underbids, David plays it straight. The ``openspiel`` players
    (four-player only) play only what OpenSpiel's spades can play.
    """
    kinds = seat_kinds(variant, kind)
    return [_cast(variant, name)[seat] for seat, name in enumerate(kinds)]


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a corpus made from ``seed`` (0 or more: Python's
    generators take a seed's absolute value, so ``-S`` would give the games of ``S``)."""
    if seed < 0:
        raise ValueError(f"a corpus seed is 0 or more, got {seed}")
    return (seed << 32) | index


def deal_of(deck: Sequence[int], dealer: int) -> list[list[int]]:
    """Four-player: deal ``deck`` one card at a time, starting left of ``dealer``: card *i*
    goes to seat ``(dealer + 1 + i) % 4``, so each seat takes every fourth card."""
    return [list(deck[(seat - dealer - 1) % 4 :: 4]) for seat in range(4)]


def simulate_game(
    variant: str | Variant,
    *,
    seed: int,
    bots: Sequence[Bot] | None = None,
    rules: Rules | None = None,
    players: Sequence[str] | None = None,
    game_id: str | None = None,
    max_hands: int = MAX_HANDS,
) -> models.AnyRecord:
    """Play one game and return its record.

    ``bots`` (one per seat) default to the heuristic :func:`roster`; everything random comes
    from ``seed``.
    """
    kind = Variant(variant)
    rng = random.Random(seed)
    cast = roster(kind)
    seats = list(bots) if bots is not None else [bot for _, bot in cast]
    quick = _quick_bots(seats)
    names = list(players) if players is not None else [name for name, _ in cast]
    recorder = Recorder(
        kind,
        [
            {"name": name, "id": f"{bot.name}-{name.lower()}"}
            for name, bot in zip(names, seats, strict=True)
        ],
        rules=rules or Rules(),
        first_dealer=rng.randrange(kind.seat_count),
        game_id=game_id or f"{kind.value}-{seed}",
        meta={"source": "spades-replay simulate", "seed": str(seed)},
    )
    while not recorder.game_over and recorder.hands_started < max_hands:
        deck = list(DECK)
        rng.shuffle(deck)
        if kind is Variant.TWO_PLAYER:
            recorder.start_hand(deck=deck)
        else:
            dealer = (recorder.first_dealer + recorder.hands_started) % 4
            recorder.start_hand(deal=deal_of(deck, dealer))
        if quick is None:
            while recorder.state.phase is not Phase.DONE:
                recorder.act(next_action(recorder.state, seats, rng))
        else:
            _quick_hand(recorder, seats, quick, rng)
    return recorder.record()


QuickBot = HeuristicBot | RandomBot
"""The bots whose games :func:`simulate_game` plays without a state per draft turn or card."""


def _quick_bots(seats: Sequence[Bot]) -> list[QuickBot] | None:
    quick = [bot for bot in seats if type(bot) in (HeuristicBot, RandomBot)]
    return quick if len(quick) == len(seats) else None  # type: ignore[return-value]


def _quick_hand(
    recorder: Recorder, seats: list[Bot], bots: list[QuickBot], rng: random.Random
) -> None:
    """Play the hand just started as :func:`next_action` would, action by action, with the
    same draws from ``rng``: the draft past its first two turns (where Blind Nil may still be
    declared) and the card play are decided on plain values and handed to the recorder whole:
    the draft through :meth:`Recorder.draw_turns`, which checks it by the engine's rules, the
    card play as the engine's outcome of it (:data:`CARD_PLAY`: :func:`_card_play`, or the
    same on the compiled kernel), which the recorder takes as it is; everything else goes one
    action at a time."""
    state = recorder.state
    if state.phase is Phase.DRAFT:
        while len(state.draft) < 2:
            recorder.act(next_action(state, seats, rng))
            state = recorder.state
        deck, dealer, bids = state.deck, state.dealer, state.bids
        keeps = []
        for turn in range(len(state.draft), 26):
            seat = turn_seat(turn, dealer)
            keeps.append(bots[seat].keeps_top(deck, turn, seat, bids[seat], rng))
        recorder.draw_turns(keeps)
        state = recorder.state
    while state.phase is not Phase.PLAY:
        recorder.act(next_action(state, seats, rng))
        state = recorder.state
    recorder._played(CARD_PLAY(state, bots, rng))


def _card_play(state: HandState, bots: list[QuickBot], rng: random.Random) -> PlayOutcome:
    """The 13 tricks of a hand from the start of its play, each card the bot's choice among
    those the engine's :func:`~spades_replay.engine.tricks.legal_plays` allows, each trick
    won as the engine's :func:`~spades_replay.engine.tricks.beats` says: the outcome the
    engine's :func:`~spades_replay.engine.tricks.play_out` gives for these cards, which the
    recorder takes without playing them out again."""
    variant, rules, bids = state.variant, state.rules, state.bids
    count = variant.seat_count
    held = list(state.holdings)
    won = [0] * count
    first = leader = state.trick_leader
    spades_may_lead = spades_open(rules, spades_broken=False)
    broken = False
    opening = opening_card(variant, rules)
    choose = [bot.choose_card for bot in bots]
    plays: list[Card] = []
    winners: list[Seat] = []
    for _ in range(13):
        trick: list[Card] = []
        seat = winning = leader
        best = -1
        for _ in range(count):
            if opening is not None:
                legal = 1 << opening
                opening = None
            else:
                led = trick[0] // 13 if trick else None
                legal = legal_plays(held[seat], led, spades_may_lead)
            card = choose[seat](Play(variant, seat, legal, trick, leader, winning, bids, won), rng)
            held[seat] &= ~(1 << card)
            if card >= FIRST_SPADE:
                spades_may_lead = broken = True
            if best < 0 or beats(card, best):
                best, winning = card, seat
            trick.append(card)
            seat = (seat + 1) % count
        leader = winning
        won[leader] += 1
        winners.append(leader)
        plays += trick
    return PlayOutcome(tuple(plays), first, tuple(winners), tuple(won), tuple(held), broken)


def _compiled_play() -> Callable[..., tuple[Any, ...]] | None:
    """``play_hand`` of the compiled kernel (``_play_kernel.c``), where the install built it
    (it needs a C compiler)."""
    try:
        # by name: import-linter reads a static import of it as one of the whole package
        kernel = importlib.import_module("spades_replay.play._play_kernel")
    except ImportError:
        return None
    play_hand: Callable[..., tuple[Any, ...]] = kernel.play_hand
    return play_hand


COMPILED_PLAY = _compiled_play()
"""The compiled kernel's ``play_hand``, or ``None`` where it was not built."""


def _compiled_card_play(state: HandState, bots: list[QuickBot], rng: random.Random) -> PlayOutcome:
    """:func:`_card_play` on the compiled kernel: the same outcome, from the same draws of
    ``rng`` (the random bots' choices are ``rng.choice`` among the same cards, in the same
    order)."""
    assert COMPILED_PLAY is not None
    opening = opening_card(state.variant, state.rules)
    plays, winners, won, held, broken = COMPILED_PLAY(
        state.holdings,
        state.trick_leader,
        -1 if opening is None else opening,
        spades_open(state.rules, spades_broken=False),
        state.bids,
        sum(1 << seat for seat, bot in enumerate(bots) if type(bot) is RandomBot),
        rng.choice,
    )
    return PlayOutcome(plays, state.trick_leader, winners, won, held, broken)


PLAY_KERNEL_VARIABLE = "SPADES_PLAY_KERNEL"
"""Set to ``python`` to play self-play's cards with :func:`_card_play` even where the
compiled kernel is built."""
CARD_PLAY = (
    _card_play
    if COMPILED_PLAY is None or os.environ.get(PLAY_KERNEL_VARIABLE, "").strip().lower() == "python"
    else _compiled_card_play
)
"""How :func:`simulate_game` plays the cards of a hand between heuristic and random bots: on
the compiled kernel where it is built, unless :data:`PLAY_KERNEL_VARIABLE` says ``python``;
both give the same games, byte for byte."""


@dataclass(frozen=True, slots=True)
class CorpusSpec:
    """What a simulated corpus holds: ``games`` games of ``variant`` from ``seed``."""

    variant: Variant
    games: int
    seed: int
    rules: Rules = STANDARD
    bot: str = "heuristic"
    max_hands: int = MAX_HANDS

    def game_id(self, index: int) -> str:
        """The id of game ``index``: the variant, the corpus seed and the index."""
        return f"{self.variant.value}-s{self.seed}-{index:06d}"


def _game_bytes(job: tuple[CorpusSpec, int]) -> bytes:
    spec, index = job
    record = simulate_game(
        spec.variant,
        seed=game_seed(spec.seed, index),
        bots=[bot for _, bot in roster(spec.variant, spec.bot)],
        rules=spec.rules,
        game_id=spec.game_id(index),
        max_hands=spec.max_hands,
    )
    return dumps(record)


def simulate_corpus(spec: CorpusSpec, *, jobs: Jobs = 1) -> Generator[bytes, None, None]:
    """The games of a corpus as compact JSON, in order, on ``jobs`` processes (or a
    cluster)."""
    work = ((spec, index) for index in range(spec.games))
    yield from ordered_map(
        _game_bytes, work, workers(jobs), preload=["spades_replay.play.simulate"], chunksize=8
    )


@dataclass
class Tally:
    """What :func:`write_corpus` wrote: how many games, and how many of them are unfinished
    (not won within the spec's ``max_hands``)."""

    games: int = 0
    unfinished: int = 0

    def add(self, line: bytes) -> None:
        """Count one game's record."""
        self.games += 1
        if orjson.loads(line).get("result") is None:
            self.unfinished += 1


def write_corpus(
    spec: CorpusSpec,
    output: str | os.PathLike[str],
    *,
    jobs: Jobs = 1,
    progress: Callable[[int], None] | None = None,
    tally: Tally | None = None,
) -> int:
    """Write a simulated corpus: one ``.jsonl`` file (``.gz`` compresses it), or a directory
    with one ``.json`` record per game. Every file is written atomically. Returns the number
    of games written; ``tally``, when given, also counts the unfinished ones.

    An output that names a file (it has an extension other than those of a corpus) is
    refused with :class:`ValueError`: a directory named ``out.txt`` is never what was meant.
    """
    target = Path(output)
    written = 0
    name = target.name.lower()
    if not name.endswith(CORPUS_NAMES) and target.suffix and not target.is_dir():
        raise ValueError(
            f"{output} is neither a corpus (.jsonl, .jsonl.gz, .ndjson, .ndjson.gz) nor a "
            "directory: name a .jsonl file, or a directory (without an extension) for one "
            ".json per game"
        )
    # closing(): an interrupt stops the workers at once, not when the generator is collected
    games = simulate_corpus(spec, jobs=jobs)
    with contextlib.closing(games):
        if name.endswith(CORPUS_NAMES):
            with atomic_writer(target) as raw:
                stream = (
                    gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) if name.endswith(".gz") else raw
                )
                for line in games:
                    stream.write(line + b"\n")
                    written += 1
                    if tally is not None:
                        tally.add(line)
                    if progress is not None:
                        progress(written)
                if stream is not raw:
                    stream.close()
            return written
        target.mkdir(parents=True, exist_ok=True)
        for index, line in enumerate(games):
            with atomic_writer(target / f"{spec.game_id(index)}.json") as stream:
                stream.write(line + b"\n")
            written += 1
            if tally is not None:
                tally.add(line)
            if progress is not None:
                progress(written)
    return written

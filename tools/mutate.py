"""Mutation testing with mutmut: ``./dev mutate [MODULE ...] [--jobs N]``.

Each MODULE (default: every one of :data:`MODULES`) is mutated by mutmut, and each mutant is
run against that module's fast tests only (mutmut runs, of those, the tests that reach the
mutated function). The run happens in a copy of the checkout under ``build/mutate/MODULE``,
laid out as the installed package is (``dashboard/`` as ``spades_replay/dashboard``), so that
the tests import the mutated copy and not the editable install of the checkout.

The score printed is the share of mutants killed (by a failing test or a timeout), of all
mutants and of those not listed in :data:`EQUIVALENT`, the mutants that no test can kill
because they change nothing that can be observed; each has its reason there and in
docs/testing.md. Surviving mutants that are not listed are printed: each is a test to write,
or an equivalent mutant to list. Exit 0 when every module reaches :data:`TARGET`, 1 when one
does not, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRATCH = ROOT / "build" / "mutate"
TARGET = 0.90
"""The share of non-equivalent mutants each module's tests must kill."""


@dataclass(frozen=True)
class Module:
    """What to mutate (paths as laid out in the copy) and the tests that should notice;
    ``polars``: whether the tests use polars, whose thread pool does not survive a fork, so
    that each mutant's tests run in a process forked before anything is imported;
    ``deselect``: tests of those files left out, each because it checks the checkout's own
    layout, which the copy does not have; ``unforked``: tests that cannot run in the children
    mutmut forks from a process that ran them once (they use polars, whose thread pool does
    not survive the fork, and wait on it for ever): each mutant the forked tests leave alive
    is run against them afterwards, in a process of its own (:func:`second_pass`)."""

    mutate: tuple[str, ...]
    tests: tuple[str, ...]
    polars: bool = False
    deselect: tuple[str, ...] = ()
    unforked: tuple[str, ...] = ()


MODULES: dict[str, Module] = {
    "engine": Module(
        tuple(
            f"spades_replay/engine/{name}.py"
            for name in (
                "actions",
                "bidding",
                "cards",
                "game",
                "rules",
                "seats",
                "setup",
                "state",
                "tricks",
            )
        ),
        (
            "tests/test_cards.py",
            "tests/test_tricks.py",
            "tests/test_setup.py",
            "tests/test_house_rules.py",
            "tests/test_conformance.py",
            "tests/test_conformance_1_1.py",
            "tests/test_replay.py",
            "tests/test_fixtures.py",
            "tests/test_progression.py",
            "tests/test_selfplay.py",
            "tests/test_recorder.py",
            "tests/test_actions.py",
        ),
        unforked=("tests/test_options.py",),
    ),
    "scoring": Module(
        ("spades_replay/engine/scoring.py",),
        ("tests/test_scoring.py", "tests/test_rescore.py", "tests/test_conformance.py"),
    ),
    "stats": Module(
        ("spades_replay/stats/metrics.py",),
        ("tests/test_stats_oracle.py", "tests/test_stats_analysis.py"),
        polars=True,
    ),
    "store": Module(
        ("spades_replay/store/layout.py",),
        ("tests/test_store_layout.py", "tests/test_store_damage.py", "tests/test_crash.py"),
        polars=True,
    ),
    "dashboard": Module(
        ("spades_replay/dashboard/data.py",),
        (
            "tests/test_dashboard_data.py",
            "tests/test_dashboard_parts.py",
            "tests/test_dashboard_figures.py",
            "tests/test_dashboard_store.py",
        ),
        polars=True,
        deselect=(
            # the command serves dashboard/app.py of the checkout; the copy has it under
            # spades_replay/dashboard, as the installed package does
            "tests/test_dashboard_parts.py"
            "::test_the_command_serves_the_installed_entry_script_on_localhost",
        ),
    ),
}

_GROUP_ORDER = (
    "a group_by's maintain_order dropped: the groups come in another order, but the frame is"
    " sorted at the end and no aggregation within a group depends on that order"
)
_JOIN_ORDER = (
    "a left join's maintain_order dropped: the rows come in another order, but the frame is"
    " sorted by variant and rules at the end"
)
_SAME_LENGTH = (
    "zip's strict=True dropped or made false: the frames and the offsets zipped are built"
    " one for one, so they are always of the same length"
)
_TASK_INDEX = (
    "a Task's index changed: the index only orders the tasks of a parallel read, and a"
    " task read on its own never looks at it"
)
_PLACE_ONLY = (
    "the path or line given to check_bytes changed: they only name the place in the report,"
    " which _replayed drops; the replay of a valid record is the same"
)
_SAME_GAME = (
    "a cache key's origin or name made None: the digest of the bytes and the line name the"
    " game already, so the key still tells every game apart"
)
_DATA = "spades_replay.dashboard.data."
_METRICS = "spades_replay.stats.metrics."
_JOIN_ORDER_PLAYERS = (
    "a left join's maintain_order dropped: the frame is sorted by variant, rules and player"
    " at the end"
)
_LEFT_ORDER_KEPT = (
    "a left join's maintain_order dropped: the polars the project runs keeps the left"
    " frame's order anyway (checked on 300,000 shuffled rows), which no test can then tell;"
    " the code asks for it because polars does not promise it"
)
_COUNTS_ORDER = (
    "a group_by's maintain_order dropped in analysis_counts: its rows come in another order,"
    " and its one caller joins them to its frame by key, in the frame's order"
)
_ENGINE = "spades_replay.engine."
_REBUILT = (
    "the phase or turn of a state handed to _after_setup changed: it moves the hand on with a"
    " phase and turn of its own, and reads neither"
)
_ONE_AT_A_TIME = (
    "a batch sent down its path of one action at a time: for every state the engine reaches,"
    " that path gives the same states and errors (the batch's promise, which"
    " tests/test_selfplay.py holds); given no turns, the batch builds the same state again"
)
_FALSY = "None for False where the value is only tested for truth"
_CLUB_TWO = "1 >> CLUB_TWO for 1 << CLUB_TWO: 2C is card 0, and both are 1"
_CAST = "the type cast() names changed: cast() only speaks to the type checker"
_FAST_PATH = (
    "the fast path of a whole deck or deal never taken: the checking path finds no card twice"
    " in such a deck or deal, and gives the same holdings"
)
_DEALER_TWO_ONLY = (
    "the dealer given to a four-player exchange's check changed: only the two-player order reads it"
)
_NOT_READ = (
    "the bids or scores given to check a bid changed where they are never read: the bids only"
    " for a four-player partner's, the scores only for Blind Nil"
)

EQUIVALENT: dict[str, str] = {
    "spades_replay.stats.metrics.x_player_plan__mutmut_14": _GROUP_ORDER,
    "spades_replay.stats.metrics.x_player_plan__mutmut_22": _GROUP_ORDER,
    "spades_replay.stats.metrics.x_player_plan__mutmut_25": _GROUP_ORDER,
    "spades_replay.stats.metrics.x_player_plan__mutmut_38": _GROUP_ORDER,
    "spades_replay.stats.metrics.x_player_plan__mutmut_94": _GROUP_ORDER,
    "spades_replay.stats.metrics.x_player_plan__mutmut_95": _GROUP_ORDER,
    "spades_replay.stats.metrics.x_variant_plan__mutmut_13": _GROUP_ORDER,
    "spades_replay.stats.metrics.x_variant_plan__mutmut_18": _GROUP_ORDER,
    "spades_replay.stats.metrics.x_variant_plan__mutmut_65": _GROUP_ORDER,
    "spades_replay.stats.metrics.x_variant_plan__mutmut_70": _GROUP_ORDER,
    "spades_replay.stats.metrics.x_variant_plan__mutmut_114": _GROUP_ORDER,
    "spades_replay.stats.metrics.x_variant_plan__mutmut_119": _GROUP_ORDER,
    "spades_replay.stats.metrics.x_variant_plan__mutmut_124": _JOIN_ORDER,
    "spades_replay.stats.metrics.x_variant_plan__mutmut_128": _JOIN_ORDER,
    "spades_replay.stats.metrics.x_variant_plan__mutmut_132": _JOIN_ORDER,
    "spades_replay.stats.metrics.x_variant_plan__mutmut_136": _JOIN_ORDER,
    **{f"{_METRICS}x_player_plan__mutmut_{number}": _JOIN_ORDER_PLAYERS for number in (161, 165)},
    f"{_METRICS}x_player_plan__mutmut_164": (
        "the left join of the hands' figures to the games' made inner: both are grouped from"
        " the same seat_hands rows by the same keys, so every key of the left has its row"
    ),
    **{f"{_METRICS}x__with_analysis__mutmut_{number}": _LEFT_ORDER_KEPT for number in (16, 20)},
    **{
        f"{_METRICS}x_analysis_counts__mutmut_{number}": _COUNTS_ORDER
        for number in (13, 18, 45, 47)
    },
    **{
        f"{_METRICS}x_analysis_counts__mutmut_{number}": (
            "'hand' misspelt among the keys left out of the first() columns: no caller groups"
            " by 'hand' (the keys are the game, the variant and rules, or a player's)"
        )
        for number in (23, 24)
    },
    **{
        f"{_METRICS}x_{name}__mutmut_{number}": (
            "per_seat=None for per_seat=False: analysis_counts only asks whether it is true"
        )
        for name, number in (("game_metrics", 4), ("variant_metrics", 241))
    },
    **{
        f"{_DATA}x_combine__mutmut_{number}": _SAME_LENGTH
        for number in (41, 44, 45, 53, 56, 57, 65, 68, 69, 77, 80, 81)
    },
    f"{_DATA}x_combine__mutmut_15": (
        "the first offset made 1: it renumbers the empty load put first, which has no rows"
    ),
    f"{_DATA}x__renumbered__mutmut_2": "an offset of 0 added anyway: adding 0 changes nothing",
    f"{_DATA}x_expected_bytes__mutmut_28": (
        "read(None) for read(4) after seeking 4 bytes from the end: the same 4 bytes"
    ),
    f"{_DATA}x_expected_bytes__mutmut_29": (
        "read(5) for read(4) after seeking 4 bytes from the end: the same 4 bytes"
    ),
    f"{_DATA}x_read_files__mutmut_15": _TASK_INDEX,
    f"{_DATA}x_read_files__mutmut_21": _TASK_INDEX,
    f"{_DATA}x__sources_of__mutmut_16": _TASK_INDEX,
    f"{_DATA}x__sources_of__mutmut_22": _TASK_INDEX,
    **{f"{_DATA}x__replayed__mutmut_{number}": _PLACE_ONLY for number in (2, 3, 5, 6)},
    **{
        f"{_DATA}x_{name}__mutmut_{n}": _SAME_GAME
        for name in ("card_values", "hand_analysis")
        for n in (1, 2)
    },
    f"{_DATA}x_replay_of__mutmut_15": _SAME_GAME,
    f"{_DATA}x_card_values__mutmut_8": (
        "the guess made None: the guess only speeds the search up, the values are the same"
    ),
    f"{_DATA}x_load__mutmut_3": (
        "no files read anyway: reading no files gives an empty load, which adds nothing"
    ),
    **{
        f"{_DATA}x_replay_of__mutmut_{number}": (
            "the stamp made None: the stamp only spares taking the digest again; without it"
            " the digest is taken, and agrees"
        )
        for number in (6, 11)
    },
    f"{_DATA}xǁBackgroundǁask__mutmut_14": "popitem(last=None) is popitem(last=False)",
    f"{_DATA}x_replays_of__mutmut_31": (
        "the digest of a place not read again made None: the place in words never shows it"
    ),
    **{
        f"spades_replay.store.layout.x_part_name_problem__mutmut_{number}": (
            "a name starting with '/' no longer asked for, or asked with 'and': on POSIX"
            " os.path.isabs(name) is name.startswith('/'), so either alone decides the same"
        )
        for number in (4, 6)
    },
    "spades_replay.store.layout.x_clear_for_rebuild__mutmut_6": (
        "'' for None as the data of a manifest that is not JSON: neither is an object, and only"
        " an object's kind is looked at"
    ),
    "spades_replay.engine.scoring.x_winner__mutmut_10": (
        "> made >=: winner() is asked only once end_reason() has said the game is over, "
        "which it never says on a tie"
    ),
    **{f"{_ENGINE}state.x__bid__mutmut_{n}": _REBUILT for n in (57, 58)},
    f"{_ENGINE}state.x__draw__mutmut_67": _REBUILT,
    **{f"{_ENGINE}state.x_apply_draws__mutmut_{n}": _REBUILT for n in (102, 108, 109)},
    **{f"{_ENGINE}state.x_apply_draws__mutmut_{n}": _ONE_AT_A_TIME for n in (5, 8, 9)},
    f"{_ENGINE}tricks.x_strict_legal_plays__mutmut_3": _FALSY,
    f"{_ENGINE}state.x_legal_plays__mutmut_14": _CLUB_TWO,
    f"{_ENGINE}tricks.x_opening_leader__mutmut_8": _CLUB_TWO,
    **{f"{_ENGINE}rules.x__row__mutmut_{n}": _CAST for n in (4, 8, 9, 10)},
    f"{_ENGINE}setup.x_check_deal__mutmut_6": _FAST_PATH,
    f"{_ENGINE}setup.x_check_deck__mutmut_5": _FAST_PATH,
    **{f"{_ENGINE}setup.x_exchange_four_player__mutmut_{n}": _DEALER_TWO_ONLY for n in (13, 21)},
    f"{_ENGINE}state.x__declare__mutmut_32": _NOT_READ,
    f"{_ENGINE}game.x_setup_hand__mutmut_63": _NOT_READ,
    f"{_ENGINE}bidding.x__partner_bid__mutmut_3": (
        "a missing partner's bid looked up: asked only in four-player, where every seat has a"
        " partner"
    ),
    f"{_ENGINE}bidding.x__standing__mutmut_17": (
        ">= for > once a gap of 0 has been told apart: the same for every other gap"
    ),
    f"{_ENGINE}cards.x_cards_of__mutmut_4": (
        "every byte looked up, the empty ones too: an empty byte's entry holds no card"
    ),
    **{
        f"{_ENGINE}game.x_iter_hands__mutmut_{n}": (
            "the count of an unfinished hand's cards started at None or 1: it is read only once"
            " the hand that stops has set it"
        )
        for n in (9, 10)
    },
    **{
        f"{_ENGINE}game.x_iter_hands__mutmut_{n}": (
            "an unfinished hand given the game's winner and end so far: the hands before it did"
            " not end the game (else this hand is refused), so both are None"
        )
        for n in (130, 133)
    },
    f"{_ENGINE}game.x_setup_hand__mutmut_10": (
        "the bidding order worked out when the bids go unchecked: it is read only to check them"
    ),
    f"{_ENGINE}game.x_setup_hand__mutmut_20": (
        "the declarations begin as None: they are set again wherever they are read"
    ),
    f"{_ENGINE}game.x_setup_hand__mutmut_87": (
        "a fifth seat among the bids before the four-player bidding: the bids are read by seat,"
        " and the bids returned are dropped"
    ),
    f"{_ENGINE}game.xǁProgressǁafter_hand__mutmut_44": (
        "the winner asked for while the game goes on: winner() then answers None itself"
    ),
    **{
        f"{_ENGINE}rules.x_not_an_option__mutmut_{n}": (
            "more close matches asked for: only the closest is used, and it is the same"
        )
        for n in (9, 10)
    },
    f"{_ENGINE}seats.xǁVariantǁside_of__mutmut_1": (
        "a two-player seat taken modulo 2: seats 0 and 1 are their own sides"
    ),
    f"{_ENGINE}setup.x_draft_hands__mutmut_5": "the codec named 'ASCII': codec names ignore case",
    f"{_ENGINE}setup.x_exchange_two_player__mutmut_7": (
        "the variant given as None to a two-player exchange's check: it takes the two-player"
        " branch for any variant but four-player"
    ),
    f"{_ENGINE}state.x__declaration_in_time__mutmut_1": (
        "and for or: a four-player hand is never in the draft, and a two-player hand past it has"
        " drafted all 26 turns, which the test after refuses"
    ),
    f"{_ENGINE}state.x__draw__mutmut_73": (
        "turn - 1 for turn + 1: the seat of a draft turn depends only on the turn's parity"
    ),
    f"{_ENGINE}state.x__play__mutmut_37": (
        "the card's legality asked as if spades were closed: the answer only decides whether"
        " check_play, given the true value, looks at the card, and it passes a spade wrongly"
        " suspected"
    ),
    f"{_ENGINE}state.x_apply_draws__mutmut_16": (
        "keep None on the path of one turn at a time: it takes draws only outside the draft,"
        " where each is refused before its keep is read"
    ),
    f"{_ENGINE}state.x_exchange_limit__mutmut_8": (
        "the pool left out of the limit: the pool (the partner's 13 cards, or the pile's 26)"
        " never holds fewer cards than the 13 she gives from"
    ),
    f"{_ENGINE}tricks.x_trick_winner__mutmut_7": (
        "the first card compared with itself too: a card never beats itself"
    ),
}
"""Surviving mutants that change nothing observable, each with the reason (docs/testing.md).
mutmut numbers the mutants of a function in order: a change to the function renumbers them."""

COPIED = ("spades_replay", "tests", "fixtures", "schema", "docs", "conftest.py", "README.md")
"""What of the checkout the copy holds; ``dashboard/`` goes in as ``spades_replay/dashboard``."""


def _ignore(folder: str, names: list[str]) -> set[str]:
    return {name for name in names if name in ("__pycache__", ".hypothesis")}


def lay_out(name: str, module: Module) -> Path:
    """A fresh copy of the checkout for ``name``, with mutmut's settings in its pyproject.toml."""
    here = SCRATCH / name
    if here.exists():
        shutil.rmtree(here)
    here.mkdir(parents=True)
    for part in COPIED:
        source = ROOT / part
        if source.is_dir():
            shutil.copytree(source, here / part, ignore=_ignore)
        else:
            shutil.copy2(source, here / part)
    shutil.copytree(ROOT / "dashboard", here / "spades_replay" / "dashboard", ignore=_ignore)
    selection = [*module.tests, "-m", "not slow"]
    for test in module.deselect:
        selection += ["--deselect", test]
    settings = "\n".join(
        (
            "",
            "[tool.mutmut]",
            'source_paths = ["spades_replay"]',
            f"only_mutate = {json.dumps(list(module.mutate))}",
            f"also_copy = {json.dumps([part for part in COPIED if part != 'spades_replay'])}",
            f"pytest_add_cli_args_test_selection = {json.dumps(selection)}",
            'pytest_add_cli_args = ["-p", "no:cacheprovider", "-o", "addopts=--strict-markers"]',
            *(['process_isolation = "forkserver"'] if module.polars else []),
            "",
        )
    )
    (here / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text() + settings)
    return here


@dataclass(frozen=True)
class Score:
    """One module's outcome: every mutant's name by status."""

    status: dict[str, str]

    def count(self, *statuses: str) -> int:
        return sum(1 for value in self.status.values() if value in statuses)

    @property
    def survivors(self) -> list[str]:
        """The mutants no test failed on: survived, or reached by no test at all."""
        return sorted(name for name, value in self.status.items() if value in SURVIVED)

    @property
    def unexplained(self) -> list[str]:
        return [name for name in self.survivors if name not in EQUIVALENT]

    @property
    def score(self) -> float:
        killed = self.count(*KILLED)
        counted = killed + len(self.unexplained)
        return killed / counted if counted else 1.0


UNFORKED = "killed by the unforked tests"
"""A mutant the forked tests left alive, and :func:`second_pass` killed."""
KILLED = ("killed", "timeout", "segfault", UNFORKED)
"""A test failed, or the mutant ran out of its time or crashed: the tests noticed."""
SECOND_PASS_TIMEOUT_S = 600
"""A mutant whose unforked tests run longer is taken as killed (a loop made endless)."""
SURVIVED = ("survived", "no tests")


def run(name: str, module: Module, jobs: int) -> Score:
    """Mutate ``name`` and run its tests against every mutant."""
    here = lay_out(name, module)
    mutmut = str(Path(sys.executable).with_name("mutmut"))
    environment = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [mutmut, "run", "--max-children", str(jobs)],
        cwd=here,
        env=environment,
        stdout=subprocess.DEVNULL,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"mutate: mutmut failed on {name} (exit {done.returncode})")
    listing = subprocess.run(
        [mutmut, "results", "--all", "true"],
        cwd=here,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    status = {}
    for line in listing.splitlines():
        mutant, _, value = line.strip().rpartition(": ")
        if mutant:
            status[mutant] = value
    if module.unforked:
        for mutant in second_pass(here, module.unforked, Score(status).survivors, jobs):
            status[mutant] = UNFORKED
    return Score(status)


def second_pass(here: Path, tests: tuple[str, ...], survivors: list[str], jobs: int) -> list[str]:
    """The ``survivors`` that ``tests`` kill, each run in a new process in mutmut's copy with
    mutmut's switch (``MUTANT_UNDER_TEST``) set to it, ``jobs`` at once; the tests pass with
    none set first."""

    def fails(mutant: str) -> bool:
        command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider"]
        environment = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "MUTANT_UNDER_TEST": mutant}
        try:
            done = subprocess.run(
                [*command, "-m", "not slow", *tests],
                cwd=here / "mutants",
                env=environment,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=SECOND_PASS_TIMEOUT_S,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return True
        return done.returncode != 0

    if fails(""):
        raise SystemExit(f"mutate: {' '.join(tests)} fail with no mutant")
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        failed = list(pool.map(fails, survivors))
    return [mutant for mutant, killed in zip(survivors, failed, strict=True) if killed]


def report(name: str, score: Score) -> None:
    total = len(score.status)
    killed = score.count(*KILLED)
    equivalent = len(score.survivors) - len(score.unexplained)
    unforked = score.count(UNFORKED)
    print(
        f"{name}: {total} mutants, {killed} killed ({unforked} by the unforked tests), "
        f"{len(score.survivors)} survived "
        f"({equivalent} equivalent), score {score.score:.1%} of non-equivalent mutants"
    )
    others = sorted(
        f"{mutant}: {value}"
        for mutant, value in score.status.items()
        if value not in (*KILLED, *SURVIVED)
    )
    for line in others:
        print(f"  not run: {line}")
    for mutant in score.unexplained:
        print(f"  {score.status[mutant]}: {mutant}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="./dev mutate", description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", metavar="MODULE", help=", ".join(MODULES))
    parser.add_argument("--jobs", type=int, default=2, help="mutants run at once (default 2)")
    arguments = parser.parse_args(argv)
    unknown = [name for name in arguments.modules if name not in MODULES]
    if unknown:
        parser.error(f"no module {', '.join(unknown)}: choose among {', '.join(MODULES)}")
    names = arguments.modules or list(MODULES)
    reached = True
    for name in names:
        score = run(name, MODULES[name], max(1, arguments.jobs))
        report(name, score)
        reached = reached and score.score >= TARGET
    return 0 if reached else 1


if __name__ == "__main__":
    sys.exit(main())

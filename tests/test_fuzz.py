"""Fuzzing: any input gives a clean error with a stable code and a place, or a valid result;
never a traceback, from the library or the command line.

Valid records from the fixtures are mutated (fields dropped, duplicated, swapped, retyped;
cards swapped, dropped, duplicated; bad drafts and bids; truncation; random bytes; other
encodings; a BOM; huge numbers; NaN; deep nesting; long strings). Every input also goes through
the differential checks of the fast verifier (tests/test_verify.py) and of the shape check
(tests/test_shape.py). A short run is part of the
test suite; ``./dev fuzz`` runs 100,000 inputs (docs/reliability.md has the last result).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spades_replay
from spades_replay.cli import main
from spades_replay.errors import Code, FormatError, RulesError
from spades_replay.record.io import dumps, loads
from spades_replay.replayer.replay import figures_of
from spades_replay.replayer.validate import check_bytes, validate_bytes, verify_bytes
from spades_replay.replayer.verify import verify

from .conftest import ROOT, other_verifier_kernels
from .support.mutate import RAW, SOURCES, mutated
from .support.shape import assert_shape_agrees

EXAMPLES = int(os.environ.get("SPADES_FUZZ_EXAMPLES", "300"))
OTHER_KERNELS = other_verifier_kernels()
REACHED: Counter[str] = Counter()
"""How often each error code (or ``valid``) was the verdict on a fuzzed input."""


@pytest.fixture(scope="module", autouse=True)
def codes_reached(request: pytest.FixtureRequest) -> Iterator[None]:
    """After the fuzz tests, the distribution of the codes their inputs reached, and the
    codes of docs/errors.md that none reached: ``./dev fuzz`` shows it (a run that sets
    ``SPADES_FUZZ_EXAMPLES``)."""
    yield
    if not REACHED or "SPADES_FUZZ_EXAMPLES" not in os.environ:
        return
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    total = sum(REACHED.values())
    lines = [f"fuzz: the codes of {total} verdicts"]
    lines += [
        f"  {code:<32} {count:>8}  {count / total:6.1%}" for code, count in REACHED.most_common()
    ]
    missed = sorted(code.value for code in Code if code.value not in REACHED)
    lines.append(f"  not reached ({len(missed)} of {len(Code)}): {', '.join(missed) or 'none'}")
    with request.config.pluginmanager.getplugin("capturemanager").global_and_fixture_disabled():
        reporter.write_line("\n" + "\n".join(lines))


def outcome(function: Any, argument: Any) -> Any:
    """What ``function`` returns, or the error it raises if it is one of ours (anything
    else propagates and fails the test)."""
    try:
        return function(argument)
    except (FormatError, RulesError) as error:
        return error


def check_clean(data: bytes) -> None:
    """The invariant: a report, never an exception; every problem coded and placed; a valid
    record loads, replays and round-trips. And the differential check of the fast verifier:
    the fast path reports exactly what the engine alone reports, with the engine's figures;
    and that of the shape check, which accepts exactly what the models accept."""
    assert_shape_agrees(data)
    report, verified = verify_bytes(data)
    expected, by_engine = check_bytes(data)
    assert report == expected == validate_bytes(data)
    REACHED.update({problem.code.value for problem in report.problems} or {"valid"})
    assert (verified is None) == (by_engine is None)
    if verified is not None:
        assert by_engine is not None
        assert verified.figures == figures_of(by_engine)
    for problem in report.problems:
        assert isinstance(problem.code, Code)
        assert isinstance(problem.pointer, str)
        assert problem.pointer == "" or problem.pointer.startswith("/")
        assert problem.message
    loaded = outcome(loads, data)
    if isinstance(loaded, FormatError):
        assert not report.valid
        assert loaded.problems[0].code is report.problems[0].code
        return
    value = orjson.loads(dumps(loaded))
    figures = verify(value)
    for kernel in OTHER_KERNELS:
        assert verify(value, kernel) == figures, f"the {kernel.name} kernel disagrees"
    replayed = outcome(spades_replay.replay, loaded)
    if isinstance(replayed, RulesError):
        assert not report.valid
        assert replayed.problems == tuple(p.located(None, None) for p in report.problems)
        return
    record = loaded
    assert report.valid
    assert loads(dumps(record)) == record
    assert replayed.to_json() == spades_replay.replay(loads(dumps(record))).to_json()


FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.slow
@FUZZ
@given(mutated())
def test_mutated_records_give_clean_errors(data: bytes) -> None:
    check_clean(data)


@FUZZ
@given(st.binary(max_size=2000))
def test_random_bytes_give_clean_errors(data: bytes) -> None:
    check_clean(data)


@pytest.mark.parametrize("raw", RAW, ids=[path.name for path in SOURCES])
def test_the_unmutated_sources_are_valid(raw: bytes) -> None:
    assert validate_bytes(raw).valid


@settings(
    max_examples=max(10, EXAMPLES // 20),
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)
@given(data=mutated())
def test_the_command_line_never_crashes(
    data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "fuzzed.jsonl"
    target.write_bytes(data.replace(b"\n", b" ") + b"\n" + RAW[0].replace(b"\n", b"") + b"\n")
    code = main(["validate", "--format", "json", str(target)])
    out = capsys.readouterr().out
    assert code in (0, 1)
    summary = orjson.loads(out.splitlines()[-1])["summary"]
    assert summary["valid"] >= 1  # the good record after the bad line is still reported
    assert target.read_bytes().endswith(RAW[0].replace(b"\n", b"") + b"\n")


CODES = ROOT / "docs" / "reliability.md"
"""Where the long run's codes are listed, between the ``codes`` markers."""


def _rows(text: str, heading: str) -> dict[str, list[str]]:
    """The rows of the table under ``heading`` (a line of its own), by their first cell's code."""
    table = text.split(f"\n{heading}\n", 1)[1].strip().split("\n\n", 1)[0]
    rows = {}
    for line in table.splitlines()[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[cells[0].strip("`")] = cells[1:]
    return rows


def test_every_code_is_reached_by_the_fuzzer_or_said_how_it_is_reached() -> None:
    """docs/reliability.md lists every code of docs/errors.md once: with the count of the
    last long run's inputs that reached it, or among the codes no record's bytes can give,
    with the way it is reached instead and a test that reaches it that way."""
    text = CODES.read_text(encoding="utf-8").split("<!-- codes:start -->")[1]
    text = text.split("<!-- codes:end -->")[0]
    reached = _rows(text, "Reached:")
    elsewhere = _rows(text, "Not from a record's bytes:")
    assert not set(reached) & set(elsewhere)
    assert set(reached) | set(elsewhere) == {code.value for code in Code} | {"valid"}
    for code, (count, _share) in reached.items():
        assert int(count.replace(",", "")) > 0, code
    for code, (how, test) in elsewhere.items():
        assert how, code
        path = ROOT / test.strip("`")
        constant = code.replace(".", "_").replace("-", "_").upper()
        source = path.read_text(encoding="utf-8")
        assert code in source or f"Code.{constant}" in source, f"{test} never reaches {code}"

"""Reliability guarantees of docs/reliability.md not covered elsewhere: interrupted runs
leave nothing behind, nothing is unpickled or evaluated, hostile text stays inert."""

from __future__ import annotations

import ast
import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spades_replay.cli import main

from .conftest import FIXTURES, ROOT


def _simulating(tmp_path: Path, jobs: str, stdout: int) -> subprocess.Popen[bytes]:
    """``simulate`` of 20,000 four-player games on ``jobs`` processes, in a session of its
    own, once it has started writing ``out.jsonl`` (its standard error piped)."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "spades_replay",
            "simulate",
            "--variant",
            "four-player",
            "--games",
            "20000",
            "--jobs",
            jobs,
            "-o",
            str(tmp_path / "out.jsonl"),
        ],
        stdout=stdout,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob(".out.jsonl.*.partial")) and time.monotonic() < deadline:
        time.sleep(0.05)
    if not list(tmp_path.glob(".out.jsonl.*.partial")):
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail("simulate never started writing")
    return process


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_during_simulate_leaves_no_partial_file(
    tmp_path: Path, jobs: str, stop: signal.Signals
) -> None:
    """Ctrl-C reaches the whole process group, workers included, and SIGTERM the command's
    process alone: either way exit 130, a one-line message, no traceback, and no file,
    partial or whole."""
    process = _simulating(tmp_path, jobs, subprocess.PIPE)
    try:
        time.sleep(0.5)
        if stop is signal.SIGINT:
            os.killpg(process.pid, signal.SIGINT)  # Ctrl-C reaches the process group
        else:
            process.send_signal(stop)  # kill PID, or a supervisor stopping the command
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:  # never leave it running, whatever failed
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    assert process.returncode == 130
    assert err.decode().strip() == "spades-replay: interrupted"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_workers_of_a_killed_command_end_quietly(tmp_path: Path) -> None:
    """``kill -9`` of the command (or the kernel, for want of memory) leaves its workers
    nobody to send results to: each ends once its batch is done, without a traceback, and
    no process of the command is left (its standard error reaches its end)."""
    process = _simulating(tmp_path, "2", subprocess.DEVNULL)
    try:
        time.sleep(1.0)
        process.kill()  # the command alone: its workers live on
        _, err = process.communicate(timeout=60)  # every holder of its stderr has ended
    finally:
        with contextlib.suppress(ProcessLookupError):  # whatever is left of its group
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == -signal.SIGKILL
    assert err == b""


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_an_interrupt_a_library_wraps_in_its_own_error_still_exits_130(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    stop: signal.Signals,
) -> None:
    """The signal can land in our code called back by a library that turns the
    ``KeyboardInterrupt`` into its own error: pydantic's serializer does, and ``simulate``
    reports a ``ValueError`` as a usage error. The command still says it was interrupted."""
    import pydantic

    from spades_replay.cli import simulate_cmd

    class Game(pydantic.BaseModel):
        @pydantic.model_serializer
        def _interrupted_here(self) -> dict[str, int]:
            signal.raise_signal(stop)
            return {}

    def write_corpus(*_: object, **__: object) -> None:
        Game().model_dump_json()

    monkeypatch.setattr(simulate_cmd, "write_corpus", write_corpus)
    code = main(
        [
            "simulate",
            "--variant",
            "two-player",
            "--games",
            "1",
            "--no-progress",
            "-o",
            str(tmp_path / "out.jsonl"),
        ]
    )
    assert (code, capsys.readouterr().err) == (130, "spades-replay: interrupted\n")
    assert list(tmp_path.iterdir()) == []


FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__"}
FORBIDDEN_MODULES = {"pickle", "marshal", "shelve", "dill", "cloudpickle"}


@pytest.mark.slow
def test_nothing_is_unpickled_or_evaluated() -> None:
    for path in sorted((ROOT / "spades_replay").rglob("*.py")) + sorted(
        (ROOT / "dashboard").rglob("*.py")
    ):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                assert not {alias.name for alias in node.names} & FORBIDDEN_MODULES, path
            if isinstance(node, ast.ImportFrom):
                assert node.module not in FORBIDDEN_MODULES, path
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in FORBIDDEN_CALLS, (path, node.lineno)


HOSTILE = "Evil\x1b[31m\x1b]0;owned\x07\u202e[bold]x[/bold]"


def hostile_record(tmp_path: Path) -> Path:
    data = orjson.loads((FIXTURES / "two-player" / "mercy.json").read_bytes())
    data["players"][0]["name"] = HOSTILE[:200]
    data["game_id"] = HOSTILE
    data["hands"][0]["plays"][1] = data["hands"][0]["plays"][0]  # and make it invalid
    path = tmp_path / "hostile\x1b[2J.json"
    path.write_bytes(orjson.dumps(data))
    return path


@pytest.mark.parametrize("command", ["validate", "stats", "replay"])
def test_hostile_text_is_escaped_in_every_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    path = hostile_record(tmp_path)
    code = main([command, str(path)])
    assert code == 1
    captured = capsys.readouterr()
    for stream in (captured.out, captured.err):
        assert "\x1b" not in stream
        assert "\x07" not in stream
        assert "\u202e" not in stream
    shown = captured.out + captured.err
    assert "\\x1b" in shown


def _safe_one_by_one(text: str, limit: int) -> str:
    """What :func:`spades_replay.text.safe` gives, judged character by character."""
    import unicodedata

    out = []
    for char in text[:limit]:
        if unicodedata.category(char) in ("Cc", "Cf", "Co", "Cs", "Zl", "Zp"):
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out) + ("…" if len(text) > limit else "")


@given(st.text(), st.integers(min_value=0, max_value=40))
@settings(max_examples=300, deadline=None)
def test_safe_escapes_as_it_would_character_by_character(text: str, limit: int) -> None:
    """The shortcut for printable text gives what the look at each character gives."""
    from spades_replay.text import safe

    assert safe(text, limit) == _safe_one_by_one(text, limit)
    assert safe("Ann\u202eBob", 200) == "Ann\\u202eBob"
    assert safe("a b\u00a0c", 200) == "a b\u00a0c"


def test_invalid_records_off_a_terminal_read_as_rich_writes_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Off a terminal, ``stats`` and ``rescore`` write each invalid record left out
    directly, not through rich: the characters are the ones rich would write there, for
    every field a problem shows (a place, a rule, legal choices, hostile text, long text),
    batched or not."""
    import io

    from rich.text import Text

    from spades_replay.cli import common
    from spades_replay.errors import Code, Problem
    from spades_replay.replayer.validate import RecordReport

    problems = [
        Problem(Code.FORMAT_NOT_A_RECORD, "not a record", "/format"),
        Problem(Code.FORMAT_JSON, "bad \x1b[31mred\u202e", ""),
        Problem(
            Code.PLAY_REVOKE,
            "Drew played 4♥ holding diamonds " + "x" * 2500,
            "/hands/2/tricks/4/1",
            place="hand 3, trick 5, card 2 (seat 1, Drew\u0007)",
            rule="follow-suit",
            legal=("2♦", "K♦"),
        ),
    ]
    reports = [
        RecordReport(source, line, None, None, 0, None, (problem,))
        for source, line in (("games.jsonl", 7), (None, None), ("a\nb \u2028c.json", None))
        for problem in problems
    ]

    def written(plain: bool, batch: int) -> str:
        stream = io.StringIO()
        console = common.console_for(stream)
        assert not console.is_terminal
        if plain:
            monkeypatch.setattr(common, "REPORT_BATCH", batch)
            common.report_invalid(console, reports)
        else:
            for report in reports:
                console.print(Text(common._left_out(report), style="bold red"))
                common.print_problem(console, report.problems[0])
        return stream.getvalue()

    through_rich = written(False, 0)
    assert "\\x1b[31mred\\u202e" in through_rich
    assert "legal: 2♦ K♦" in through_rich
    assert written(True, 1) == through_rich
    assert written(True, 1 << 16) == through_rich


def test_a_command_run_in_another_thread_leaves_the_signal_handlers_alone(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Only the main thread may handle a signal: a program that runs the command line in a
    thread of its own gets the command's code, and its handlers stay as they were."""
    import threading

    before = {stop: signal.getsignal(stop) for stop in (signal.SIGINT, signal.SIGTERM)}
    record = str(FIXTURES / "two-player" / "mercy.json")
    codes: list[int] = []
    worker = threading.Thread(target=lambda: codes.append(main(["validate", "--quiet", record])))
    worker.start()
    worker.join()
    assert codes == [0]
    assert {stop: signal.getsignal(stop) for stop in before} == before
    capsys.readouterr()

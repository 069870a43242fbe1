"""The command line: output, exit codes, and never a traceback."""

from __future__ import annotations

import gzip
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from spades_replay.cli import main
from spades_replay.record.schema import schema_bytes

from .conftest import CONFORMANCE, FIXTURES, ROOT

VALID = CONFORMANCE / "valid"
INVALID = CONFORMANCE / "invalid"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_validate_a_directory_of_valid_records(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", str(VALID))
    assert code == 0
    records = [orjson.loads(path.read_bytes()) for path in sorted(VALID.glob("*.json"))]
    finished = sum("result" in record for record in records)
    hands = sum(len(record["hands"]) for record in records)
    n = len(records)
    assert f"{n} record(s) in {n} file(s): {n} valid, 0 invalid" in out
    assert (
        f"the valid ones: {finished} game(s) complete, {n - finished} unfinished, "
        f"{hands} hand(s) recorded" in out
    )


def test_the_summary_counts_hands_of_valid_records_only(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An invalid record's hands are not counted: only the valid game's are."""
    valid = FIXTURES / "two-player" / "standard-game.json"
    code, out, _ = run(capsys, "validate", str(valid), str(INVALID / "two-player-revoke.json"))
    assert code == 1
    hands = len(orjson.loads(valid.read_bytes())["hands"])
    assert "2 record(s) in 2 file(s): 1 valid, 1 invalid (play.revoke 1)" in out
    assert f"the valid ones: 1 game(s) complete, 0 unfinished, {hands} hand(s) recorded" in out


def test_validate_reports_the_place_and_the_rule(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", str(INVALID / "two-player-revoke.json"))
    assert code == 1
    assert "hand 1, trick 1, card 2 (seat 0, Megan): played JH but must follow clubs" in out
    assert "legal: 6C TC QC" in out
    assert "/hands/0/plays/1" in out
    assert "[play.revoke]" in out


def test_validate_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", "--format", "json", str(INVALID))
    assert code == 1
    lines = [orjson.loads(line) for line in out.splitlines()]
    summary = lines[-1]["summary"]
    assert summary["invalid"] == len(list(INVALID.glob("*.json")))
    assert summary["valid"] == 0
    reports = lines[:-1]
    assert len(reports) == summary["records"]
    assert all(not report["valid"] for report in reports)
    codes = {report["problems"][0]["code"] for report in reports}
    assert {"play.revoke", "format.unknown-key", "claim.winner", "format.not-a-record"} <= codes


def test_validate_jsonl_and_gzip_with_line_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [
        orjson.dumps(orjson.loads((VALID / "two-player-06.json").read_bytes())),
        b"",
        orjson.dumps(orjson.loads((INVALID / "four-player-revoke.json").read_bytes())),
        b"{broken",
    ]
    corpus = tmp_path / "games.jsonl.gz"
    corpus.write_bytes(gzip.compress(b"\n".join(lines) + b"\n"))
    before = corpus.read_bytes()
    code, out, _ = run(capsys, "validate", str(corpus))
    assert code == 1
    assert f"{corpus}:3: invalid" in out
    assert f"{corpus}:4: invalid" in out
    assert "3 record(s)" in out
    assert corpus.read_bytes() == before


def test_validate_missing_path_is_an_io_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "validate", str(VALID / "two-player-06.json"), "/no/such/file")
    assert code == 2
    assert "no such file or directory: /no/such/file [io.not-found]" in err


def test_validate_corrupt_gzip_is_an_io_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(b"not gzip at all")
    code, _, err = run(capsys, "validate", str(bad))
    assert code == 2
    assert "[io.compression]" in err


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["validate"])
    assert caught.value.code == 2
    with pytest.raises(SystemExit) as caught:
        main(["no-such-command"])
    assert caught.value.code == 2


def test_replay_shows_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "replay", str(VALID / "four-player-01.json"))
    assert code == 0
    assert "Hand 1" in out
    assert "Tricks" in out
    assert "Score" in out
    assert "Result:" in out
    assert "Bids:" in out


def test_replay_one_hand_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "replay", str(VALID / "two-player-06.json"), "--hand", "2")
    assert code == 0
    assert "Hand 2" in out
    assert "Hand 1" not in out
    code, out, _ = run(capsys, "replay", str(VALID / "two-player-06.json"), "--format", "json")
    assert code == 0
    whole = orjson.loads(out)
    assert whole["variant"] == "two-player"
    assert len(whole["hands"]) > 2
    code, out, _ = run(
        capsys, "replay", str(VALID / "two-player-06.json"), "--format", "json", "--hand", "2"
    )
    assert code == 0
    assert orjson.loads(out) == {**whole, "hands": [whole["hands"][1]]}
    code, _, err = run(capsys, "replay", str(VALID / "two-player-06.json"), "--hand", "99")
    assert code == 2
    assert "there is no hand 99" in err


def test_replay_a_game_from_a_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "games.jsonl"
    records = [
        orjson.loads((VALID / name).read_bytes())
        for name in ("two-player-06.json", "four-player-01.json")
    ]
    corpus.write_bytes(b"\n".join(orjson.dumps(r) for r in records) + b"\n")
    code, out, _ = run(capsys, "replay", str(corpus), "--game", "2")
    assert code == 0
    assert "four-player" in out
    code, out, _ = run(capsys, "replay", str(corpus), "--game", records[0]["game_id"])
    assert code == 0
    assert "two-player" in out
    code, _, err = run(capsys, "replay", str(corpus), "--game", "3")
    assert code == 2
    assert "holds 2 record(s)" in err


def test_replay_an_invalid_record(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "replay", str(INVALID / "four-player-play.json"))
    assert code == 1
    assert "[play.not-held]" in out


def test_schema_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["schema"])
    assert code == 0
    assert capsys.readouterr().out.encode() == schema_bytes()
    target = tmp_path / "schema.json"
    assert main(["schema", "-o", str(target)]) == 0
    assert target.read_bytes() == schema_bytes()
    assert main(["schema", "--format-version", "1.0", "-o", str(target)]) == 0
    assert target.read_bytes() == (ROOT / "schema" / "spades-replay-1.0.schema.json").read_bytes()


def test_names_cannot_inject_terminal_controls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = orjson.loads((VALID / "two-player-06.json").read_bytes())
    data["players"][0]["name"] = "Evil\x1b[2J\u202e"
    path = tmp_path / "evil.json"
    path.write_bytes(orjson.dumps(data))
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0
    assert "\x1b[2J" not in out
    assert "\u202e" not in out
    assert "Evil\\x1b[2J\\u202e" in out


SCRIPT = Path(sys.executable).parent / "spades-replay"


@pytest.mark.skipif(not SCRIPT.exists(), reason="the console script is not installed")
def test_console_script_runs() -> None:
    result = subprocess.run(
        [str(SCRIPT), "validate", str(VALID / "two-player-06.json")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0
    assert "1 valid" in result.stdout


def test_python_dash_m() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "spades_replay", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0
    assert result.stdout.startswith("spades-replay ")


def test_the_progress_bar_shows_only_on_a_terminal() -> None:
    from rich.console import Console

    from spades_replay.cli.progress import Bar

    def console(terminal: bool) -> Console:
        return Console(file=io.StringIO(), force_terminal=terminal, width=80)

    out, err = console(True), console(False)
    with Bar("checking", counts="items", out=out, err=err, text_on_stdout=True, total=4) as bar:
        bar.update(3)
        bar.out.print("a report")
    shown = out.file.getvalue()  # type: ignore[attr-defined]
    assert "checking" in shown
    assert "a report" in shown
    assert err.file.getvalue() == ""  # type: ignore[attr-defined]
    quiet_out, quiet_err = console(False), console(False)
    with Bar("checking", counts="bytes", out=quiet_out, err=quiet_err, text_on_stdout=True) as bar:
        bar.update(10, 20)
        bar.out.print("a report")
    assert quiet_out.file.getvalue() == "a report\n"  # type: ignore[attr-defined]
    assert quiet_err.file.getvalue() == ""  # type: ignore[attr-defined]


def test_validate_never_passes_having_checked_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An empty directory, a directory without records, an empty corpus: exit 3, said."""
    empty = tmp_path / "empty"
    empty.mkdir()
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("not a record")
    corpus = tmp_path / "nothing.jsonl"
    corpus.write_bytes(b"\n\n")
    for path in (empty, other, corpus):
        code, _, err = run(capsys, "validate", str(path))
        assert code == 3, path
        assert "no records found" in err
        assert "nothing was checked" in err
    code, out, _ = run(capsys, "validate", "--format", "json", str(empty))
    assert code == 3
    assert orjson.loads(out.splitlines()[-1])["summary"]["records"] == 0
    code, _, err = run(capsys, "stats", str(empty))
    assert code == 3
    assert "no records found" in err


def test_an_empty_record_file_is_an_invalid_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``validate`` agrees with ``replay`` and ``validate_bytes`` on an empty ``.json``."""
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    code, out, _ = run(capsys, "validate", str(empty))
    assert code == 1
    assert "1 record(s)" in out
    assert "[format.json]" in out
    code, _, _ = run(capsys, "replay", str(empty))
    assert code == 1


def test_validate_json_lists_every_record(capsys: pytest.CaptureFixture[str]) -> None:
    """Machine output lists valid records too, without ``--verbose``."""
    code, out, _ = run(capsys, "validate", "--format", "json", str(VALID))
    assert code == 0
    lines = [orjson.loads(line) for line in out.splitlines()]
    reports, summary = lines[:-1], lines[-1]["summary"]
    files = sorted(VALID.glob("*.json"))
    assert len(reports) == len(files) == summary["records"] == summary["valid"]
    assert all(report["valid"] and report["problems"] == [] for report in reports)
    assert [Path(report["source"]).name for report in reports] == [f.name for f in files]


def test_results_say_the_order_of_their_scores(capsys: pytest.CaptureFixture[str]) -> None:
    """Side 1 won -258 to 416: the replay's result names the winner and gives her score
    first; the games table gives every score in the order of the sides, and says so."""
    mercy = str(FIXTURES / "two-player" / "mercy.json")
    code, out, _ = run(capsys, "replay", mercy)
    assert code == 0
    assert "Result: Drew won 416 to -258 after" in out
    code, out, _ = run(capsys, "stats", mercy, "--by", "game", "--columns", "game,sides,scores")
    assert code == 0
    assert "Megan / Drew" in out
    assert "-258 / 416" in out
    assert "scores: in the order of the sides" in out


class _Stdin:
    """Standard input holding ``data``, as the command reads it (``sys.stdin.buffer``)."""

    def __init__(self, data: bytes) -> None:
        self.buffer = io.BufferedReader(io.BytesIO(data))  # type: ignore[arg-type]

    def isatty(self) -> bool:
        return False


def _piped(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes], data: bytes
) -> Any:
    def run_with(*args: str) -> tuple[int, bytes]:
        monkeypatch.setattr(sys, "stdin", _Stdin(data))
        code = main(list(args))
        return code, capsysbinary.readouterr().out

    return run_with


def test_dash_reads_standard_input(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """``-`` is standard input for validate, replay, stats and analyze: one record, a
    corpus, or either gzipped."""
    mercy = (FIXTURES / "two-player" / "mercy.json").read_bytes()
    corpus = (FIXTURES / "corpus" / "two-player.jsonl").read_bytes()
    records = len(corpus.splitlines())
    code, out = _piped(monkeypatch, capsysbinary, mercy)("validate", "-")
    assert code == 0
    assert b"1 record(s) in 1 file(s): 1 valid" in out
    code, out = _piped(monkeypatch, capsysbinary, gzip.compress(corpus))("validate", "-", "-j", "2")
    assert code == 0
    assert f"{records} record(s) in 1 file(s): {records} valid".encode() in out
    revoke = (FIXTURES / "invalid" / "play-revoke.json").read_bytes()
    code, out = _piped(monkeypatch, capsysbinary, revoke)("validate", "-")
    assert code == 1
    assert b"<stdin>: invalid" in out
    code, out = _piped(monkeypatch, capsysbinary, mercy)("replay", "-", "--hand", "1")
    assert code == 0
    assert b"Game fixture-two-player-mercy" in out
    code, out = _piped(monkeypatch, capsysbinary, corpus)(
        "replay", "-", "--game", "2", "--format", "json"
    )
    assert code == 0
    assert orjson.loads(out)["game_id"] == orjson.loads(corpus.splitlines()[1])["game_id"]
    code, out = _piped(monkeypatch, capsysbinary, mercy)("stats", "-", "--format", "csv")
    assert code == 0
    assert b"Drew" in out
    code, out = _piped(monkeypatch, capsysbinary, mercy)("analyze", "-", "--hand", "1")
    assert code == 0
    assert b"Double-dummy analysis" in out


def test_replay_of_a_directory_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "replay", str(FIXTURES))
    assert code == 2
    assert "is a directory" in err
    assert "no such file" not in err


def test_a_pretty_printed_jsonl_gets_one_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pretty = tmp_path / "game.jsonl"
    pretty.write_bytes((FIXTURES / "two-player" / "mercy.json").read_bytes())
    assert len(pretty.read_bytes().splitlines()) > 100
    code, out, _ = run(capsys, "validate", str(pretty))
    assert code == 1
    assert out.count("[format.json]") == 1
    assert "a .jsonl corpus holds one whole record per line" in out
    assert "1 record(s) in 1 file(s): 0 valid, 1 invalid" in out
    code, out, _ = run(capsys, "replay", str(pretty))
    assert code == 1
    assert "looks like a pretty-printed record" in out


@pytest.mark.parametrize("command", ["validate", "stats", "analyze", "simulate"])
def test_a_negative_jobs_is_refused(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    args = {
        "simulate": ["--variant", "two-player", "--games", "1", "-o", "never.jsonl"],
    }.get(command, [str(FIXTURES / "two-player" / "mercy.json")])
    with pytest.raises(SystemExit) as caught:
        main([command, *args, "--jobs", "-2"])
    assert caught.value.code == 2
    assert "--jobs: must be 0 (one per core) or more, not -2" in capsys.readouterr().err
    assert not Path("never.jsonl").exists()


def test_replay_of_a_missing_hand_prints_nothing_but_the_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for extra in ([], ["--format", "json"]):
        code, out, err = run(
            capsys, "replay", str(FIXTURES / "two-player" / "mercy.json"), "--hand", "40", *extra
        )
        assert code == 2
        assert out == ""
        assert "there is no hand 40" in err


def test_a_failed_nil_of_one_trick_is_said_in_the_singular(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "replay", str(FIXTURES / "two-player" / "nil-failed.json"))
    assert code == 0
    assert "Nil failed (1 trick) " in out
    assert "(1 tricks)" not in out


def test_a_number_beyond_64_bits_is_named_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = orjson.loads((FIXTURES / "two-player" / "mercy.json").read_bytes())
    huge = 10**30
    record["x-n"] = huge
    path = tmp_path / "big.json"
    path.write_text(json.dumps(record))
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 1
    assert out.count(str(huge)) == 1
    assert f"'x-n': the integer {huge} is beyond 64 bits" in out


def test_a_large_json_array_is_refused_before_it_is_parsed() -> None:
    """A record file that is a 5 MB array is not an object: refused without building it."""
    import tracemalloc

    import spades_replay
    from spades_replay.errors import FormatError

    data = b" \n[" + b",".join([b'{"a": [1, 2, 3], "b": "text"}'] * 150_000) + b"]"
    tracemalloc.start()
    try:
        with pytest.raises(FormatError) as caught:
            spades_replay.loads(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert caught.value.problems[0].code.value == "format.not-object"
    assert caught.value.problems[0].message == "a record is a JSON object, got an array"
    assert peak < len(data) // 10


@pytest.mark.parametrize("variant", ["two-player", "four-player"])
def test_replay_shows_exchanges_and_bids_in_the_order_they_happen(
    variant: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The terminal follows the timeline (as the dashboard's steps do): two-player exchanges
    come after the draft and before the bids, four-player ones after the bidding."""
    import spades_replay
    from spades_replay.engine.actions import Exchange, PlaceBid

    path = FIXTURES / variant / "blind-nil.json"
    replayed = spades_replay.replay(spades_replay.load(path))
    hand = next(hand for hand in replayed.hands if hand.outcome.exchanges)
    kinds = [type(step.action) for step in hand.timeline]
    exchange_first = kinds.index(Exchange) < kinds.index(PlaceBid)
    assert exchange_first == (variant == "two-player")
    code, out, _ = run(capsys, "replay", str(path), "--hand", str(hand.number))
    assert code == 0
    assert (out.index("Exchange:") < out.index("Bids:")) == exchange_first


def test_replay_and_analyze_of_a_corpus_without_records_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"\n\n")
    for command in ("replay", "analyze"):
        code, out, err = run(capsys, command, str(empty))
        assert code == 3
        assert out == ""
        assert "no records found in" in err


def test_a_game_number_is_written_in_ascii_digits(capsys: pytest.CaptureFixture[str]) -> None:
    """A superscript two or a full-width five is no number (Python's ``isdigit`` says it
    is): read as a game_id, it names none, a usage error rather than a traceback or game 5."""
    corpus = str(FIXTURES / "corpus" / "two-player.jsonl")
    for game in ("\u00b2", "\uff15"):
        code, _, err = run(capsys, "replay", corpus, "--game", game)
        assert code == 2
        assert f"no record with game_id {game!r}" in err


def test_replay_names_who_bids_first_apart_from_who_leads(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Under ``first_lead: two_of_clubs`` the holder of 2C leads, but the bidding still
    starts left of the dealer: the bids are shown in the order of the hand's timeline."""
    import spades_replay
    from spades_replay.engine.actions import PlaceBid

    path = FIXTURES / "four-player" / "house-rules.json"
    replayed = spades_replay.replay(spades_replay.load(path))
    assert any(hand.outcome.leader != (hand.outcome.dealer + 1) % 4 for hand in replayed.hands)
    for hand in replayed.hands:
        bidders = [step.action.seat for step in hand.timeline if isinstance(step.action, PlaceBid)]
        code, out, _ = run(capsys, "replay", str(path), "--hand", str(hand.number))
        assert code == 0
        names = [replayed.players[seat].name for seat in bidders]
        bids_line = next(line for line in out.splitlines() if line.startswith("Bids:"))
        assert [bids_line.index(f"{name} ") for name in names] == sorted(
            bids_line.index(f"{name} ") for name in names
        )
        first, leader = names[0], replayed.players[hand.outcome.leader].name
        said = "bids first and leads" if first == leader else f"bids first, {leader} (seat"
        assert f"{first} (seat {bidders[0]}) {said}" in out


def test_a_corpus_whose_first_line_is_a_lone_brace_is_still_a_corpus(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Line 1 ``{`` alone followed by whole records is a bad line of a corpus, not a
    pretty-printed record: the records after it are still validated."""
    good = (FIXTURES / "two-player" / "mercy.json").read_bytes().replace(b"\n", b"")
    corpus = tmp_path / "games.jsonl"
    corpus.write_bytes(b"{\n" + good + b"\n")
    code, out, _ = run(capsys, "validate", str(corpus), "--format", "json")
    assert code == 1
    lines = [orjson.loads(line) for line in out.splitlines()]
    assert [line.get("line") for line in lines[:-1]] == [1, 2]
    assert lines[-1]["summary"]["valid"] == 1
    assert "pretty-printed" not in out


def test_a_kernel_compile_is_announced(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first analysis on a machine compiles the kernel (up to a minute): the command
    says so when done; a load from the cache passes silently, as does the Python kernel."""
    import io

    from rich.console import Console

    import spades_replay.analysis as analysis
    from spades_replay.cli.common import load_kernel

    def said(kernel: str, seconds: float) -> str:
        monkeypatch.setattr(analysis, "kernel_name", lambda: kernel)
        monkeypatch.setattr(analysis, "prepare_kernel", lambda: seconds)
        console = Console(file=io.StringIO(), width=200)
        load_kernel(console)
        return console.file.getvalue()  # type: ignore[attr-defined]

    assert "compiled the double-dummy kernel in 18 s" in said("compiled", 18.0)
    assert said("compiled", 1.2) == ""
    assert said("python", 18.0) == ""


def test_validate_prints_off_a_terminal_as_rich_would(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Off a terminal validate prints without rich: the same bytes as rich's console there,
    on every invalid fixture, in every output format."""
    from spades_replay.cli import plain

    for arguments in ([], ["--verbose"], ["--format", "json"]):
        main(["validate", *arguments, str(FIXTURES)])
        without = capsys.readouterr()
        with monkeypatch.context() as patched:
            patched.setattr(plain, "sees_terminal", lambda stream: True)
            main(["validate", *arguments, str(FIXTURES)])
        with_rich = capsys.readouterr()
        assert without.out == with_rich.out
        assert without.err == with_rich.err
        assert "invalid" in without.out

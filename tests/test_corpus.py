"""Corpora at scale: ranges of a corpus, line numbers, size limits, worker processes, and
memory that stays flat however large the corpus."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from spades_replay.errors import Code, InputError
from spades_replay.plumbing.corpus import Task, expand, plan, read_task
from spades_replay.plumbing.limits import Limits
from spades_replay.replayer.validate import CorpusValidation

from .conftest import CONFORMANCE, FIXTURES

GOOD = orjson.dumps(orjson.loads((CONFORMANCE / "valid" / "two-player-06.json").read_bytes()))
BAD = orjson.dumps(orjson.loads((CONFORMANCE / "invalid" / "four-player-revoke.json").read_bytes()))


def corpus(tmp_path: Path, lines: list[bytes], name: str = "games.jsonl") -> Path:
    path = tmp_path / name
    data = b"\n".join(lines) + b"\n"
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    return path


def reports(path: Path, **options: object) -> tuple[list[tuple[int | None, str]], CorpusValidation]:
    validation = CorpusValidation([path], **options)  # type: ignore[arg-type]
    found = [(report.line, report.problems[0].code.value) for report in validation]
    return found, validation


def test_ranges_cover_every_line_once(tmp_path: Path) -> None:
    lines = [f'{{"n": {i}, "pad": "{"x" * (i % 37)}"}}'.encode() for i in range(500)]
    path = corpus(tmp_path, lines)
    for chunk in (7, 64, 100, 1000, 10**6):
        tasks = plan([path], chunk)
        seen = [source.data for task in tasks for source in read_task(task)]
        assert [line for line in seen if line] == lines, chunk


def test_line_numbers_are_absolute_across_ranges(tmp_path: Path) -> None:
    lines = [GOOD] * 30
    lines[7] = BAD
    lines[12] = b""
    lines[23] = b"{not json"
    path = corpus(tmp_path, lines)
    expected = [(8, "play.revoke"), (24, "format.json")]
    for chunk in (1000, 5000, 10**7):
        found, validation = reports(path, chunk_bytes=chunk)
        assert found == expected, chunk
        assert validation.summary.records == 29
        assert validation.summary.invalid == 2


def test_two_jobs_give_the_same_reports_as_one(tmp_path: Path) -> None:
    lines = [GOOD if i % 9 else BAD for i in range(60)]
    path = corpus(tmp_path, lines)
    one, first = reports(path, chunk_bytes=20_000)
    two, second = reports(path, chunk_bytes=20_000, jobs=2)
    assert one == two
    assert first.summary.to_dict() == second.summary.to_dict()
    assert len(one) == 7


def test_oversize_lines_are_reported_and_skipped(tmp_path: Path) -> None:
    huge = b'{"format": "' + b"x" * (3 * len(GOOD)) + b'"}'
    path = corpus(tmp_path, [GOOD, huge, GOOD, huge + b"   ", GOOD])
    found, validation = reports(path, limits=Limits(record_bytes=len(GOOD) + 10))
    assert found == [(2, "format.limit"), (4, "format.limit")]
    assert validation.summary.valid == 3


def test_oversize_record_file(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(GOOD)
    found, _ = reports(path, limits=Limits(record_bytes=len(GOOD) - 1))
    assert found == [(None, "format.limit")]


def test_gzip_corpus_and_directories(tmp_path: Path) -> None:
    corpus(tmp_path, [GOOD, BAD], "a.jsonl.gz")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.json").write_bytes(GOOD)
    (tmp_path / ".hidden.json").write_bytes(b"junk")
    (tmp_path / "notes.txt").write_bytes(b"junk")
    files = list(expand([tmp_path]))
    assert [path.name for path in files] == ["a.jsonl.gz", "b.json"]
    found, validation = reports(tmp_path)
    assert found == [(2, "play.revoke")]
    assert validation.summary.files == 2


def test_missing_paths_are_io_errors() -> None:
    with pytest.raises(InputError) as caught:
        list(expand(["/no/such/place"]))
    assert caught.value.problem.code is Code.IO_NOT_FOUND


def test_unreadable_file(tmp_path: Path) -> None:
    """A path that cannot be read as a file (here a directory, which even root cannot read
    as one) is an I/O problem, not a crash."""
    with pytest.raises(InputError) as caught:
        list(read_task(Task(str(tmp_path), False)))
    assert caught.value.problem.code is Code.IO_UNREADABLE


PEAK = """
import resource, sys
from spades_replay.replayer.validate import CorpusValidation
v = CorpusValidation([sys.argv[1]], jobs=int(sys.argv[2]), chunk_bytes=1 << 20)
assert sum(1 for _ in v) == 0, "invalid records"
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(max(peak, children), v.summary.records)
"""


def peak_kib(path: Path, jobs: int) -> tuple[int, int]:
    out = subprocess.run(
        [sys.executable, "-c", PEAK, str(path), str(jobs)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return int(out[0]), int(out[1])


@pytest.mark.slow
@pytest.mark.parametrize("jobs", [1, 2])
def test_memory_stays_flat_as_the_corpus_grows(tmp_path: Path, jobs: int) -> None:
    """Eight times the corpus must not cost eight times the memory: the reader streams."""
    lines = (FIXTURES / "corpus" / "four-player.jsonl").read_bytes().splitlines()
    small = corpus(tmp_path, lines * 8, "small.jsonl")
    large = corpus(tmp_path, lines * 64, "large.jsonl")
    assert large.stat().st_size > 8 * 1024 * 1024
    small_peak, small_records = peak_kib(small, jobs)
    large_peak, large_records = peak_kib(large, jobs)
    assert large_records == 8 * small_records
    assert large_peak < small_peak + 16 * 1024, (small_peak, large_peak)


@pytest.mark.parametrize(
    "name", ["games.jsonl", "games.JSONL.GZ", "game.json", "GAME.JSON.GZ", "games.ndjson.gz"]
)
def test_one_reading_path_for_files_and_uploads(tmp_path: Path, name: str) -> None:
    """A file on disk and the same bytes uploaded (read in memory) give the same records,
    whatever the case of ``.gz``."""
    from spades_replay.plumbing.corpus import is_corpus, read_memory

    many = is_corpus(Path(name))
    lines = [GOOD, b"", BAD] if many else [GOOD]
    data = b"\n".join(lines) + b"\n"
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if name.lower().endswith(".gz") else data)
    on_disk = list(read_task(Task(str(path), many)))
    in_memory = list(read_memory(str(path), path.read_bytes()))
    assert on_disk == in_memory
    records = [source.data.strip() for source in on_disk if not source.blank]
    assert records == ([GOOD, BAD] if many else [GOOD])


def test_record_io_reads_gzip_whatever_the_case(tmp_path: Path) -> None:
    import spades_replay

    path = tmp_path / "GAME.JSON.GZ"
    path.write_bytes(gzip.compress(GOOD))
    assert spades_replay.load(path) == spades_replay.loads(GOOD)


def test_uploads_over_the_cap_are_refused_after_decompression() -> None:
    from spades_replay.plumbing.corpus import read_memory

    bomb = gzip.compress(b"\n" * 5000)
    with pytest.raises(InputError) as caught:
        list(read_memory("x.jsonl.gz", bomb, max_bytes=1000))
    assert caught.value.problem.code is Code.FORMAT_LIMIT
    with pytest.raises(InputError) as caught:
        list(read_memory("x.json.gz", b"not gzip"))
    assert caught.value.problem.code is Code.IO_COMPRESSION


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (GOOD, [(None, GOOD)]),
        (GOOD + b"\n" + BAD + b"\n", [(1, GOOD), (2, BAD)]),
        (b"{\n  " + GOOD[1:], [(None, b"{\n  " + GOOD[1:])]),  # a pretty-printed record
        (gzip.compress(GOOD + b"\n\n" + GOOD), [(1, GOOD), (2, b""), (3, GOOD)]),
        # read as a file of the same bytes is: a BOM, blank lines first, a broken first line
        (b"\xef\xbb\xbf" + GOOD + b"\n" + GOOD, [(1, b"\xef\xbb\xbf" + GOOD), (2, GOOD)]),
        (b"\n\r\n" + GOOD + b"\n" + GOOD, [(1, b""), (2, b""), (3, GOOD), (4, GOOD)]),
        (b'{"format": 1\n' + GOOD + b"\n", [(1, b'{"format": 1'), (2, GOOD)]),
        (b"\xef\xbb\xbf" + GOOD, [(None, b"\xef\xbb\xbf" + GOOD)]),
        (b"\n" + GOOD + b"\n", [(None, b"\n" + GOOD + b"\n")]),
        (b"", []),  # nothing: no record, as an empty corpus
        (b"\n \n", []),
    ],
)
def test_standard_input_holds_a_record_or_a_corpus(
    monkeypatch: pytest.MonkeyPatch, data: bytes, expected: list[tuple[int | None, bytes]]
) -> None:
    import io

    from spades_replay.plumbing.corpus import STDIN, STDIN_NAME

    stdin = type("Stdin", (), {"buffer": io.BufferedReader(io.BytesIO(data))})()
    monkeypatch.setattr(sys, "stdin", stdin)
    sources = list(read_task(Task(STDIN, False)))
    assert [(source.line, source.data) for source in sources] == expected
    assert {source.path for source in sources} <= {STDIN_NAME}


def test_standard_input_over_the_size_limit_is_never_read_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import io

    from spades_replay.plumbing.corpus import STDIN

    big = io.BufferedReader(io.BytesIO(b"x" * 10_000 + b"\n" + b"y" * 10_000))
    monkeypatch.setattr(sys, "stdin", type("Stdin", (), {"buffer": big})())
    (source,) = read_task(Task(STDIN, False), Limits(100, 10, 10))
    assert source.oversize
    assert big.tell() < 1000


@pytest.mark.parametrize("name", ["games.jsonl", "games.jsonl.gz"])
@pytest.mark.parametrize("chunk", [200, 10**6])
def test_pieces_hold_at_most_their_lines_and_cover_every_line_once(
    tmp_path: Path, name: str, chunk: int
) -> None:
    """However a corpus is cut (byte ranges, then pieces of lines), every line is read once,
    in order, and no piece holds more than its lines."""
    from spades_replay.plumbing.corpus import pieces

    lines = [f'{{"n": {i}}}'.encode() if i % 5 else b"" for i in range(1, 400)]
    path = corpus(tmp_path, lines, name)
    for most in (1, 3, 7, 1000):
        cut = list(pieces(plan([path], chunk), lines=most, chunk_bytes=chunk))
        read = [list(read_task(task)) for task in cut]
        assert all(len(sources) <= most for sources in read), most
        seen = [source.data for sources in read for source in sources]
        assert seen == lines, most
        assert sum(task.size for task in cut) == path.stat().st_size


def test_pieces_keep_line_numbers_offsets_and_reports_whatever_the_cut(tmp_path: Path) -> None:
    lines = [GOOD] * 40
    lines[7] = BAD
    lines[12] = b""
    lines[23] = b"{}"
    lines[39] = b"{x"
    expected = [(8, "play.revoke"), (24, "format.not-a-record"), (40, "format.json")]
    for name in ("games.jsonl", "games.jsonl.gz"):
        path = corpus(tmp_path, lines, name)
        for most in (1, 2, 5, 10_000):
            for jobs in (1, 2) if most == 5 else (1,):
                found, validation = reports(path, piece_lines=most, jobs=jobs, chunk_bytes=3000)
                assert found == expected, (name, most, jobs)
                assert validation.summary.records == 39
                assert validation.summary.files == 1


def test_standard_input_is_read_in_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from spades_replay.plumbing.corpus import STDIN, STDIN_NAME

    data = gzip.compress(b"\n".join([GOOD, b"{}", GOOD, b"[", GOOD]) + b"\n")
    stdin = type("Stdin", (), {"buffer": io.BufferedReader(io.BytesIO(data))})()
    monkeypatch.setattr(sys, "stdin", stdin)
    validation = CorpusValidation([STDIN], piece_lines=2)
    found = [(report.source, report.line) for report in validation]
    assert found == [(STDIN_NAME, 2), (STDIN_NAME, 4)]
    assert validation.summary.records == 5


def bomb(lines: int) -> bytes:
    return gzip.compress(b"{}\n" * lines, 9)


def test_a_gzip_bomb_is_refused_past_the_expansion_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A corpus that expands more than ``expansion`` times its compressed size is read up
    to that point (its records reported) and then refused with ``io.expansion``."""
    from spades_replay.plumbing import corpus as reading

    monkeypatch.setattr(reading, "EXPANSION_ALLOWANCE", 3000)
    path = tmp_path / "bomb.jsonl.gz"
    path.write_bytes(bomb(100_000))
    size = path.stat().st_size
    validation = CorpusValidation([path], piece_lines=1000)
    read = sum(1 for _ in validation)
    (problem,) = validation.summary.io_errors
    assert problem.code is Code.IO_EXPANSION
    assert str(path) in problem.message
    assert "100 times" in problem.message
    # no more than 100 times the compressed size is read (the readahead of gzip aside)
    assert 1000 <= read <= 100 * (size + 128 * 1024) // 3
    assert read < 100_000
    assert validation.summary.invalid == read
    lifted = CorpusValidation([path], limits=Limits(expansion=10_000), piece_lines=1000)
    assert sum(1 for _ in lifted) == 100_000
    assert not lifted.summary.io_errors


def test_the_expansion_limit_binds_record_files_uploads_and_standard_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from spades_replay.plumbing.corpus import STDIN, read_memory

    data = bomb(2_000_000)
    record = tmp_path / "bomb.json.gz"
    record.write_bytes(data)
    with pytest.raises(InputError) as caught:
        list(read_task(Task(str(record), False), Limits(record_bytes=10**8)))
    assert caught.value.problem.code is Code.IO_EXPANSION
    with pytest.raises(InputError) as caught:
        list(read_memory("upload.jsonl.gz", data, max_bytes=16 * 1024 * 1024))
    assert caught.value.problem.code is Code.IO_EXPANSION
    stdin = type("Stdin", (), {"buffer": io.BufferedReader(io.BytesIO(data))})()
    monkeypatch.setattr(sys, "stdin", stdin)
    with pytest.raises(InputError) as caught:
        list(read_task(Task(STDIN, False)))
    assert caught.value.problem.code is Code.IO_EXPANSION
    # a small file is never refused, however much it expands
    small = gzip.compress(b"{}\n" * 1000, 9)
    assert len(list(read_memory("small.jsonl.gz", small, Limits(expansion=1)))) == 1000


def test_validate_says_which_input_expanded_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from spades_replay.cli import main
    from spades_replay.plumbing import corpus as reading

    monkeypatch.setattr(reading, "EXPANSION_ALLOWANCE", 3000)
    path = tmp_path / "bomb.jsonl.gz"
    path.write_bytes(bomb(100_000))
    assert main(["validate", "--quiet", "--no-progress", "--max-expansion", "50", str(path)]) == 2
    err = capsys.readouterr().err
    assert "[io.expansion]" in err
    assert "50 times" in err
    with pytest.raises(SystemExit) as stopped:
        main(["validate", "--max-expansion", "0", str(path)])
    assert stopped.value.code == 2
    assert "--max-expansion: must be at least 1" in capsys.readouterr().err


BOMB_PEAK = """
import resource, sys
from spades_replay.replayer.validate import CorpusValidation
from spades_replay.plumbing.limits import Limits
v = CorpusValidation(
    [sys.argv[1]], jobs=int(sys.argv[2]), limits=Limits(expansion=10**6), piece_lines=2000
)
invalid = sum(1 for _ in v)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(max(peak, children), invalid)
"""


@pytest.mark.slow
@pytest.mark.parametrize("jobs", [1, 2])
def test_memory_stays_flat_on_a_gzip_bomb(tmp_path: Path, jobs: int) -> None:
    """Eight times the invalid records must not cost more memory: reports stream out as
    each piece is done, never held until the end."""
    peaks = []
    for lines in (25_000, 200_000):
        path = tmp_path / f"bomb-{lines}.jsonl.gz"
        path.write_bytes(bomb(lines))
        out = subprocess.run(
            [sys.executable, "-c", BOMB_PEAK, str(path), str(jobs)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        assert int(out[1]) == lines
        peaks.append(int(out[0]))
    assert peaks[1] < peaks[0] + 16 * 1024, peaks


def test_a_repeated_invalid_line_gets_the_report_it_would_alone(tmp_path: Path) -> None:
    """A line of the same bytes as the invalid line before it reuses that verdict: every
    report is still the one the line gets judged on its own, on its own line, whatever the
    pieces and the jobs."""
    from spades_replay.replayer.validate import validate_bytes

    lines = [b"{}", b"{}", BAD, BAD, b"{}", GOOD, b"{}", b"[1]", b"[1]", b"", b"{}", b"{x"]
    for name in ("games.jsonl", "games.jsonl.gz"):
        path = corpus(tmp_path, lines, name)
        for most, jobs in ((1, 1), (3, 1), (3, 2), (1000, 1)):
            found = list(CorpusValidation([path], piece_lines=most, jobs=jobs))
            expected = [
                validate_bytes(line, str(path), number)
                for number, line in enumerate(lines, 1)
                if line and line != GOOD
            ]
            assert found == expected, (name, most, jobs)


def test_a_bomb_of_refused_headers_never_loads_the_models(tmp_path: Path) -> None:
    """Lines refused by their opening or their header are judged without pydantic or the
    format's models, so such a bomb is read in the memory of a valid corpus (which takes the
    accept path, without them too)."""
    lines = [b"{}"] * 50 + [b'{"format": "x"}', b"[1]", b'{"format": "spades-replay"}']
    path = corpus(tmp_path, lines, "bomb.jsonl.gz")
    probe = (
        "import sys\n"
        "from spades_replay.replayer.validate import CorpusValidation\n"
        f"found = [r.problems[0].code.value for r in CorpusValidation([{str(path)!r}])]\n"
        "print(sorted(set(found)), len(found))\n"
        "print('pydantic' in sys.modules, 'spades_replay.record.models' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    codes, loaded = done.stdout.splitlines()
    expected = ["format.not-a-record", "format.not-object", "format.version"]
    assert codes == f"{expected} 53"
    assert loaded == "False False"


def test_a_file_named_twice_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under another spelling, through a symbolic link, found again in a walk, or standard
    input named twice: each is one input, as ``ingest`` takes it, so that ``stats PATH...``
    counts what ``stats --store`` counts."""
    (tmp_path / "logs").mkdir()
    game = tmp_path / "logs" / "a.json"
    game.write_bytes(GOOD)
    (tmp_path / "b.json").write_bytes(GOOD)
    (tmp_path / "link.json").symlink_to(game)
    monkeypatch.chdir(tmp_path)
    found = expand(["logs/a.json", str(game), "./logs/../logs/a.json", "link.json", "logs", "-"])
    assert list(found) == [Path("logs/a.json"), Path("-")]
    assert list(expand(["-", "b.json", "-", "logs", "b.json"])) == [
        Path("-"),
        Path("b.json"),
        Path("logs/a.json"),
    ]
    validation = CorpusValidation(["logs", "logs/a.json", str(tmp_path / "logs")])
    assert list(validation) == []
    assert validation.summary.records == 1

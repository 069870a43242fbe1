"""``spades-replay migrate`` and its library: records move between format 1.0 and 1.1 with
every byte of meaning kept (the replays compare equal), inputs are untouched unless
``--in-place``, and a downgrade that would lose an option is refused, naming it."""

from __future__ import annotations

import gzip
import os
import shutil
from pathlib import Path

import orjson
import pytest

import spades_replay
from spades_replay.cli import main
from spades_replay.errors import Code
from spades_replay.record.migrate import migrate_file, migrate_record

from .conftest import CONFORMANCE, CONFORMANCE_1_1, FIXTURES

OLD = sorted((CONFORMANCE / "valid").glob("*.json"))
NEW = sorted((CONFORMANCE_1_1 / "valid").glob("*.json"))
CORPORA = sorted((FIXTURES / "corpus").iterdir())


def _replays(data: bytes) -> list[bytes]:
    """The replay of every record in a file's bytes (a record, or one per line)."""
    text = data.strip()
    try:
        records = [spades_replay.loads(text)]
    except spades_replay.FormatError:
        records = [spades_replay.loads(line) for line in text.splitlines() if line.strip()]
    return [spades_replay.replay(record).to_json() for record in records]


def _read(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def _version(path: Path) -> set[str]:
    text = _read(path).strip()
    try:
        return {orjson.loads(text)["version"]}
    except orjson.JSONDecodeError:
        return {orjson.loads(line)["version"] for line in text.splitlines()}


@pytest.mark.parametrize("path", OLD + NEW[:6] + CORPORA, ids=lambda path: path.name)
def test_round_trips_keep_every_byte_of_meaning(path: Path, tmp_path: Path) -> None:
    up = tmp_path / f"up-{path.name}"
    down = tmp_path / f"down-{path.name}"
    again = tmp_path / f"again-{path.name}"
    result = migrate_file(path, "1.1", up)
    assert result.migrated == result.records > 0
    assert _version(up) == {"1.1"}
    assert _replays(_read(up)) == _replays(_read(path))
    if _version(path) == {"1.0"}:
        assert migrate_file(up, "1.0", down).migrated == result.records
        assert _version(down) == {"1.0"}
        assert _replays(_read(down)) == _replays(_read(path))
        migrate_file(down, "1.1", again)
        assert again.read_bytes() == up.read_bytes()


def test_migrating_is_deterministic_also_for_gz(tmp_path: Path) -> None:
    source = FIXTURES / "corpus" / "mixed.jsonl.gz"
    first, second = tmp_path / "a.jsonl.gz", tmp_path / "b.jsonl.gz"
    migrate_file(source, "1.1", first)
    migrate_file(source, "1.1", second)
    assert first.read_bytes() == second.read_bytes()


def test_a_record_file_stays_a_readable_record_file(tmp_path: Path) -> None:
    target = tmp_path / "one.json"
    migrate_file(OLD[0], "1.1", target)
    text = target.read_bytes()
    assert text.startswith(b'{\n  "format": "spades-replay",\n  "version": "1.1",')
    assert text.endswith(b"}\n")


def test_the_input_is_untouched_without_in_place(tmp_path: Path) -> None:
    source = tmp_path / "game.json"
    shutil.copy(OLD[0], source)
    before = (source.read_bytes(), os.stat(source).st_mtime_ns)
    assert main(["migrate", str(source), "-o", str(tmp_path / "out.json")]) == 0
    assert (source.read_bytes(), os.stat(source).st_mtime_ns) == before
    assert _version(tmp_path / "out.json") == {"1.1"}


def test_in_place_replaces_each_file(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    shutil.copytree(CONFORMANCE / "valid", folder)
    shutil.copy(FIXTURES / "corpus" / "mixed.jsonl.gz", folder / "mixed.jsonl.gz")
    expected = {p.name: _replays(_read(p)) for p in folder.iterdir()}
    assert main(["migrate", str(folder), "--in-place", "--to", "1.1"]) == 0
    for path in folder.iterdir():
        assert _version(path) == {"1.1"}
        assert _replays(_read(path)) == expected[path.name]
    assert not [p for p in folder.iterdir() if p.name.endswith(".partial")]


def test_a_downgrade_that_would_lose_an_option_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "house.json"
    shutil.copy(CONFORMANCE_1_1 / "valid" / "two-player-18.json", source)
    before = source.read_bytes()
    assert main(["migrate", str(source), "--to", "1.0", "--in-place"]) == 1
    assert source.read_bytes() == before
    out = capsys.readouterr().out
    assert "'double_contract_from' is 8" in out
    assert "[migrate.option-lost]" in out
    assert "left as it was" in out
    assert main(["migrate", str(source), "--to", "1.0", "-o", str(tmp_path / "x.json")]) == 1
    assert not (tmp_path / "x.json").exists()


def test_a_corpus_with_one_bad_record_is_not_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = (FIXTURES / "corpus" / "two-player.jsonl").read_bytes().splitlines()
    source = tmp_path / "games.jsonl"
    source.write_bytes(b"\n".join([*lines[:3], b'{"format": "spades-replay"}', *lines[3:]]) + b"\n")
    target = tmp_path / "out.jsonl"
    result = migrate_file(source, "1.1", target)
    assert not target.exists()
    assert [(p.code, p.line) for p in result.problems] == [(Code.FORMAT_VERSION, 4)]
    assert main(["migrate", str(source), "-o", str(target)]) == 1
    assert f"{source}:4: cannot migrate" in capsys.readouterr().out


def test_standard_output_gets_one_record_per_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["migrate", str(OLD[0]), str(OLD[1]), "--no-progress"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert len(lines) == 2
    assert all(orjson.loads(line)["version"] == "1.1" for line in lines)
    assert "migrated 2 record(s) of 2 file(s) to format 1.1" in captured.err


def test_the_library_migrates_bytes() -> None:
    data = migrate_record(OLD[0].read_bytes(), "1.1")
    assert orjson.loads(data)["version"] == "1.1"
    assert migrate_record(data, "1.0") == spades_replay.dumps(spades_replay.load(OLD[0]))


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["-o", "out.jsonl"], "not the same kind of file"),
        (["-o", "game.json"], "use --in-place"),
        (["-o", "hard.json"], "use --in-place"),
        (["-o", "soft.json"], "use --in-place"),
    ],
)
def test_usage_errors(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    extra: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copy(OLD[0], tmp_path / "game.json")
    os.link(tmp_path / "game.json", tmp_path / "hard.json")
    (tmp_path / "soft.json").symlink_to(tmp_path / "game.json")
    assert main(["migrate", "game.json", *extra]) == 2
    assert message in capsys.readouterr().err
    assert (tmp_path / "game.json").read_bytes() == OLD[0].read_bytes()


def test_missing_input_and_conflicting_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["migrate", str(tmp_path / "none.json")]) == 2
    assert "no such file or directory" in capsys.readouterr().err
    with pytest.raises(SystemExit) as caught:
        main(["migrate", str(OLD[0]), "--in-place", "-o", "x.json"])
    assert caught.value.code == 2


def test_a_file_that_cannot_be_read_is_said_and_the_others_are_migrated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(OLD[0], folder / "a.json")
    (folder / "b.json").symlink_to(tmp_path / "missing.json")
    shutil.copy(OLD[1], folder / "c.json")
    assert main(["migrate", str(folder), "-o", str(tmp_path / "out"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "cannot read" in err
    assert "b.json" in err
    assert "Traceback" not in err
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == ["a.json", "c.json"]


def test_no_record_is_exit_3_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for data in (b"", b"\n\n"):
        (tmp_path / "empty.jsonl").write_bytes(data)
        target = tmp_path / "new.jsonl"
        assert main(["migrate", str(tmp_path / "empty.jsonl"), "-o", str(target)]) == 3
        assert "no records found" in capsys.readouterr().err
        assert not target.exists()


def test_standard_input_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["migrate", "-"]) == 2
    assert "save it to a file" in capsys.readouterr().err


def test_several_inputs_go_into_a_directory(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main(["migrate", str(OLD[0]), str(OLD[1]), "-o", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted([OLD[0].name, OLD[1].name])

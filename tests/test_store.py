"""The corpus store: ingest (incremental, crash-safe, locked), the tables it writes, reading
them back (``stats --store`` is ``stats PATH``), ``query`` with DuckDB."""

from __future__ import annotations

import gzip
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pytest

from spades_replay.cli import main
from spades_replay.engine.seats import Variant
from spades_replay.play.simulate import CorpusSpec, write_corpus
from spades_replay.plumbing import corpus
from spades_replay.plumbing.corpus import Task, read_at
from spades_replay.replayer import validate
from spades_replay.store.ingest import PART_PIECES, Settings, ingest
from spades_replay.store.layout import MANIFEST, STORE_VERSION, StoreError, StoreLock
from spades_replay.store.read import Store
from spades_replay.store.sql import run

from .conftest import FIXTURES, INVALID_FIXTURES, ROOT, fixture_records

VALID_FIXTURES = fixture_records() - len(INVALID_FIXTURES)
"""The valid records of fixtures/ (EXPECTED.json of fixtures/invalid is invalid too)."""

TWO = FIXTURES / "corpus" / "two-player.jsonl"
FOUR = FIXTURES / "corpus" / "four-player.jsonl"


def snapshot(directory: Path) -> tuple[bytes, dict[str, list[dict[str, Any]]]] | None:
    """What a reader of the store sees: its manifest and every table's rows (``None``
    when there is no store)."""
    manifest = directory / MANIFEST
    if not manifest.exists():
        return None
    store = Store.open(directory)
    tables = ("games", "side_hands", "seat_hands", "records", "problems")
    return manifest.read_bytes(), {table: store.table(table).to_dicts() for table in tables}


def cli(*arguments: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "spades_replay", *arguments],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture(scope="module")
def fixtures_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of every fixture, valid and invalid (paths relative to the checkout)."""
    directory = tmp_path_factory.mktemp("store") / "fixtures"
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        ingest(["fixtures"], directory)
    finally:
        os.chdir(cwd)
    return directory


# --- stats --store is stats PATH ---------------------------------------------------------


@pytest.mark.parametrize("by", ["player", "game", "variant"])
@pytest.mark.parametrize("kind", ["table", "csv", "json", "parquet"])
def test_stats_of_a_store_are_the_stats_of_its_files(
    fixtures_store: Path,
    by: str,
    kind: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(ROOT)
    direct, stored = tmp_path / "direct", tmp_path / "stored"
    common = ["--by", by, "--format", kind, "--no-progress"]
    assert main(["stats", "fixtures", *common, "-o", str(direct)]) == 1
    direct_err = capsys.readouterr().err
    assert main(["stats", "--store", str(fixtures_store), *common, "-o", str(stored)]) == 1
    stored_err = capsys.readouterr().err
    assert direct.read_bytes() == stored.read_bytes()
    assert direct.stat().st_size > 100
    assert stored_err == direct_err
    assert "invalid, left out" in stored_err


def test_stats_of_a_store_name_games_without_an_id_as_stats_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A game without game_id is named game-N as stats names it."""
    monkeypatch.chdir(tmp_path)
    lines = TWO.read_bytes().splitlines()
    anonymous = []
    for line in lines[:4]:
        record = orjson.loads(line)
        del record["game_id"]
        anonymous.append(orjson.dumps(record))
    Path("a.jsonl").write_bytes(b"\n".join(lines[4:7]) + b"\n")
    Path("b.jsonl").write_bytes(b"\n".join(anonymous) + b"\n")
    ingest(["a.jsonl", "b.jsonl"], "store")
    assert main(["stats", "a.jsonl", "b.jsonl", "--by", "game", "--format", "csv"]) == 0
    direct = capsys.readouterr().out
    assert main(["stats", "--store", "store", "--by", "game", "--format", "csv"]) == 0
    assert capsys.readouterr().out == direct
    assert "game-0," in direct
    ids = run(Store.open("store"), "SELECT game_id FROM games ORDER BY game").rows
    assert [row[0] for row in ids][3:] == ["game-0", "game-1", "game-2", "game-3"]


def test_stats_analysis_of_a_store_is_stats_analysis(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
    paths = ["fixtures/two-player/nil-failed.json"]
    store = tmp_path / "analysed"
    ingest(paths, store, settings=Settings(analysis=True, time_cap=60.0))
    for by in ("player", "variant"):
        assert main(["stats", *paths, "--analysis", "--by", by, "--format", "csv"]) == 0
        direct = capsys.readouterr().out
        assert main(["stats", "--store", str(store), "--analysis", "--by", by]) == 0
        capsys.readouterr()
        assert (
            main(["stats", "--store", str(store), "--analysis", "--by", by, "--format", "csv"]) == 0
        )
        assert capsys.readouterr().out == direct
        assert "tricks_lost" in direct


def test_stats_store_usage_errors(fixtures_store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--store", str(fixtures_store), "--analysis"]) == 2
    assert "holds no double-dummy analysis" in capsys.readouterr().err
    assert main(["stats", "fixtures", "--store", str(fixtures_store)]) == 2
    assert "not both" in capsys.readouterr().err
    assert main(["stats"]) == 2
    assert "--store DIR" in capsys.readouterr().err


# --- the tables ----------------------------------------------------------------------------


def test_records_say_where_every_record_starts(fixtures_store: Path) -> None:
    store = Store.open(fixtures_store)
    records = store.table("records")
    assert records.height == store.summary().records == fixture_records()
    for row in records.iter_rows(named=True):
        source = ROOT / row["source"]
        found = read_at(str(source), row["offset"], row["line"])
        if row["line"] is None:
            assert found.data == source.read_bytes()
        else:
            expected = next(
                item
                for item in corpus.read_task(Task(str(source), True))
                if item.line == row["line"]
            )
            assert found.data == expected.data
            assert found.offset == expected.offset
    gz = records.filter(pl.col("source").str.ends_with(".gz"))
    assert gz.height > 1
    assert gz["offset"].to_list() == sorted(gz["offset"].to_list())


def test_every_problem_of_every_invalid_record_is_in_problems(fixtures_store: Path) -> None:
    problems = Store.open(fixtures_store).table("problems")
    direct = list(validate.CorpusValidation([FIXTURES]))
    expected = [(r.line, p.code.value, p.pointer, p.message) for r in direct for p in r.problems]
    assert [
        (row["line"], row["code"], row["pointer"], row["message"])
        for row in problems.iter_rows(named=True)
    ] == expected
    revoke = problems.filter(pl.col("code") == "play.revoke").row(0, named=True)
    assert revoke["place"].startswith("hand ")
    assert revoke["legal"]
    assert revoke["source"].endswith("play-revoke.json")


def test_the_tables_are_the_stats_tables(fixtures_store: Path) -> None:
    from spades_replay.stats.collect import StatsCollection

    collection = StatsCollection([FIXTURES])
    list(collection)
    direct = collection.tables()
    stored = Store.open(fixtures_store).tables()
    for name in ("games", "side_hands", "seat_hands"):
        mine = getattr(stored, name)
        theirs = (
            getattr(direct, name).with_columns(
                pl.col("source").str.replace(f"^{FIXTURES}", "fixtures")
            )
            if name == "games"
            else getattr(direct, name)
        )
        assert mine.equals(theirs), name


def test_the_scans_are_the_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lazy frames of a store of two sources, collected with the streaming engine, are
    its tables: the same rows in the same order, the second source's games numbered after
    the first's; a query of them is the same query of the tables. (A store's analysis goes
    through the same scans: ``test_stats_analysis_of_a_store_is_stats_analysis``.)"""
    from spades_replay.stats.metrics import player_metrics, player_plan

    monkeypatch.chdir(ROOT)
    paths = ["fixtures/corpus/two-player.jsonl", "fixtures/corpus/four-player.jsonl"]
    ingest(paths, tmp_path / "store")
    store = Store.open(tmp_path / "store")
    tables, scans = store.tables(), store.scans()
    assert scans.seat_analysis is None
    for name in ("games", "side_hands", "seat_hands"):
        (collected,) = store.collect(getattr(scans, name))
        assert collected.equals(getattr(tables, name)), name
    assert tables.games.get_column("game").to_list() == list(range(tables.games.height))
    assert tables.games.get_column("variant").unique(maintain_order=True).to_list() == [
        "two-player",
        "four-player",
    ]
    (players,) = store.collect(player_plan(scans))
    assert players.equals(player_metrics(tables))


# --- incremental ---------------------------------------------------------------------------


def make_corpus(folder: Path, files: int = 4, games: int = 3) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index in range(files):
        variant = Variant.TWO_PLAYER if index % 2 else Variant.FOUR_PLAYER
        path = folder / f"part-{index:02d}.jsonl"
        write_corpus(CorpusSpec(variant, games, seed=100 + index), path)
        paths.append(path)
    return paths


def test_reingesting_an_unchanged_corpus_reads_no_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = make_corpus(tmp_path / "corpus")
    first = ingest([tmp_path / "corpus"], tmp_path / "store")
    assert (first.read, first.unchanged, first.records_read) == (4, 0, 12)
    before = snapshot(tmp_path / "store")

    def no_reading(*args: object, **kwargs: object) -> None:
        raise AssertionError("a record was read")

    monkeypatch.setattr(validate, "read_task", no_reading)
    again = ingest([tmp_path / "corpus"], tmp_path / "store")
    assert (again.read, again.unchanged, again.records_read) == (0, 4, 0)
    # a new modification time with the same bytes: hashed, not read
    os.utime(paths[0], ns=(time.time_ns(), time.time_ns() + 10**9))
    touched = ingest([tmp_path / "corpus"], tmp_path / "store")
    assert (touched.read, touched.unchanged) == (0, 4)
    after = snapshot(tmp_path / "store")
    assert before is not None
    assert after is not None
    assert after[1] == before[1]


def test_a_changed_file_has_its_rows_replaced_and_prune_drops_vanished_files(
    tmp_path: Path,
) -> None:
    paths = make_corpus(tmp_path / "corpus")
    store = tmp_path / "store"
    ingest([tmp_path / "corpus"], store)
    parts_before = {p.name for p in (store / "parts" / "games").iterdir()}
    lines = paths[1].read_bytes().splitlines()
    paths[1].write_bytes(b"\n".join(lines[:1]) + b"\n")
    report = ingest([tmp_path / "corpus"], store)
    assert (report.read, report.unchanged, report.games) == (1, 3, 10)
    parts_after = {p.name for p in (store / "parts" / "games").iterdir()}
    assert len(parts_after) == 4
    assert len(parts_before - parts_after) == 1
    # the store is what stats of the files now gives
    direct = validate.CorpusValidation([tmp_path / "corpus"])
    assert sum(1 for _ in direct) == 0
    assert Store.open(store).tables().games.height == direct.summary.valid == 10
    paths[2].unlink()
    kept = ingest([tmp_path / "corpus"], store)
    assert (kept.pruned, kept.games) == (0, 10)
    pruned = ingest([tmp_path / "corpus"], store, prune=True)
    assert (pruned.pruned, pruned.games) == (1, 7)
    assert len(list((store / "parts" / "games").iterdir())) == 3


def test_the_store_orders_games_as_the_last_ingest_named_its_files(tmp_path: Path) -> None:
    a, b = make_corpus(tmp_path / "corpus", files=2)
    store = tmp_path / "store"
    ingest([a], store)
    ingest([b, a], store)
    games = Store.open(store).table("games")
    assert games["source"].to_list() == [str(b)] * 3 + [str(a)] * 3
    assert games["game"].to_list() == list(range(6))


def test_a_store_is_analysed_or_not(tmp_path: Path) -> None:
    a, b = make_corpus(tmp_path / "corpus", files=2, games=1)
    ingest([a], tmp_path / "store")
    with pytest.raises(StoreError, match="analysis"):
        ingest([b], tmp_path / "store", settings=Settings(analysis=True))


# --- crash safety and the lock -------------------------------------------------------------


@pytest.mark.slow
def test_a_killed_ingest_leaves_the_store_as_before_or_after(tmp_path: Path) -> None:
    corpus_dir = tmp_path / "corpus"
    paths = make_corpus(corpus_dir, files=12, games=2)
    before_dir = tmp_path / "before"
    ingest([corpus_dir], before_dir)
    before = snapshot(before_dir)
    for path in paths[::2]:
        path.write_bytes(path.read_bytes().splitlines()[0] + b"\n")
    make_corpus(tmp_path / "more", files=3, games=2)
    for extra in sorted((tmp_path / "more").iterdir()):
        shutil.copy(extra, corpus_dir / f"more-{extra.name}")
    arguments = ["ingest", str(corpus_dir), "--no-progress"]
    after_dir = tmp_path / "after"
    shutil.copytree(before_dir, after_dir)
    start = time.monotonic()
    assert cli(*arguments, "--store", str(after_dir)).returncode == 0
    duration = time.monotonic() - start
    after = snapshot(after_dir)
    assert after != before
    outcomes = set()
    for step in range(4):
        target = tmp_path / f"killed-{step}"
        shutil.copytree(before_dir, target)
        process = subprocess.Popen(
            [sys.executable, "-m", "spades_replay", *arguments, "--store", str(target)],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(duration * (0.4 + 0.2 * step))
        process.send_signal(signal.SIGKILL)
        process.wait()
        found = snapshot(target)
        assert found in (before, after), f"killed at step {step}: the store is neither"
        outcomes.add("before" if found == before else "after")
        # the next ingest completes the work and removes what the killed one left
        assert cli(*arguments, "--store", str(target)).returncode == 0
        assert snapshot(target) == after
        referenced = Store.open(target).manifest.referenced()
        on_disk = {
            p.relative_to(target).as_posix() for p in (target / "parts").rglob("*") if p.is_file()
        }
        assert on_disk == referenced
    assert "before" in outcomes


@pytest.mark.slow
def test_a_second_ingest_refuses_or_waits(tmp_path: Path) -> None:
    (source,) = make_corpus(tmp_path / "corpus", files=1, games=1)
    store = tmp_path / "store"
    store.mkdir()
    with StoreLock(store):
        refused = cli("ingest", str(source), "--store", str(store))
        assert refused.returncode == 2
        assert "another ingest is writing" in refused.stderr
        assert "--wait" in refused.stderr
        assert "Traceback" not in refused.stderr
        waiting = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "spades_replay",
                "ingest",
                str(source),
                "--store",
                str(store),
                "--wait",
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert waiting.stderr is not None
        said = waiting.stderr.readline()  # printed once it finds the lock taken, then waits
        assert "waiting for another ingest" in said
        time.sleep(0.5)
        assert waiting.poll() is None
        assert not (store / MANIFEST).exists()
    out, err = waiting.communicate(timeout=120)
    assert waiting.returncode == 0, err
    assert "1 read" in out


# --- the store format is a contract --------------------------------------------------------


def test_a_store_of_another_version_is_refused_with_how_to_rebuild(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (source,) = make_corpus(tmp_path / "corpus", files=1, games=1)
    store = tmp_path / "store"
    ingest([source], store)
    data = orjson.loads((store / MANIFEST).read_bytes())
    data["store_version"] = STORE_VERSION + 1
    (store / MANIFEST).write_bytes(orjson.dumps(data))
    for command in (
        ["query", "--store", str(store), "SELECT 1"],
        ["stats", "--store", str(store)],
        ["ingest", str(source), "--store", str(store)],
    ):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert f"store of version {STORE_VERSION + 1}" in err
        assert f"rebuild it: spades-replay ingest PATH... --store {store} --rebuild" in err


def test_not_a_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["query", "--store", str(tmp_path / "nothing"), "SELECT 1"]) == 2
    assert "no such store" in capsys.readouterr().err
    assert main(["query", "--store", str(tmp_path), "SELECT 1"]) == 2
    assert "not a spades-replay store" in capsys.readouterr().err
    (tmp_path / MANIFEST).write_bytes(b"{not json")
    assert main(["stats", "--store", str(tmp_path)]) == 2
    assert "damaged" in capsys.readouterr().err


def test_ingest_reports_unreadable_files_and_keeps_going(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (good,) = make_corpus(tmp_path / "corpus", files=1, games=2)
    broken = tmp_path / "corpus" / "broken.jsonl.gz"
    broken.write_bytes(gzip.compress(good.read_bytes())[:-30])
    store = tmp_path / "store"
    assert (
        main(["ingest", str(tmp_path / "corpus"), str(tmp_path / "missing"), "--store", str(store)])
        == 2
    )
    err = capsys.readouterr().err
    assert "io.compression" in err
    assert "io.not-found" in err
    assert main(["stats", "--store", str(store), "--format", "csv"]) == 2
    assert "io.compression" in capsys.readouterr().err
    errors = run(Store.open(store), "SELECT source FROM sources WHERE io_error IS NOT NULL").rows
    assert errors == [(str(broken),)]


GAME = FIXTURES / "four-player" / "standard-game.json"


def _unreadable_link(kind: str, path: Path) -> None:
    """Make ``path`` a file a directory walk finds but no one can read: a link to a file
    whose bytes cannot be read (``/proc/self/mem``: an I/O error), to nothing, or in a loop."""
    if kind == "io-error":
        if not Path("/proc/self/mem").is_file():
            pytest.skip("no /proc/self/mem here: no file whose reading fails")
        path.symlink_to("/proc/self/mem")
    elif kind == "dangling":
        path.symlink_to(path.parent / "nowhere.json")
    else:
        other = path.parent.parent / "loop.json"
        path.symlink_to(other)
        other.symlink_to(path)


@pytest.mark.parametrize("kind", ["io-error", "dangling", "loop"])
def test_stats_of_a_store_report_a_file_that_could_not_be_read_as_stats_does(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    kind: str,
) -> None:
    """A file the walk finds but that cannot be read (not even hashed, or not even looked
    at) is remembered with its problem: ``stats --store`` prints what ``stats`` prints on
    the files, stderr and exit code 2 included, after the first ingest and after the next."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "logs").mkdir()
    shutil.copy(GAME, tmp_path / "logs" / "a.json")
    _unreadable_link(kind, tmp_path / "logs" / "b.json")
    assert main(["stats", "logs", "--no-progress"]) == 2
    direct = capsys.readouterr()
    assert "cannot read logs/b.json: " in direct.err
    for _ in range(2):
        assert main(["ingest", "logs", "--store", "st", "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert "cannot read logs/b.json: " in err
        assert "Traceback" not in err
        assert main(["stats", "--store", "st", "--no-progress"]) == 2
        assert capsys.readouterr() == direct
    sources = run(
        Store.open("st"), "SELECT source, sha256 IS NULL, records FROM sources ORDER BY first_game"
    ).rows
    assert sources == [("logs/a.json", False, 1), ("logs/b.json", True, 0)]


def test_a_file_that_could_not_be_read_is_read_once_it_can_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every ingest that names a file that could not be read tries it again, whatever its
    size and time (making a file readable changes neither): still unreadable, it is reported
    again; readable, it is read, and its problem is gone."""
    from spades_replay.store import ingest as ingesting

    shutil.copy(GAME, tmp_path / "a.json")
    shutil.copy(GAME, tmp_path / "b.json")
    paths = [tmp_path / "a.json", tmp_path / "b.json"]
    store = tmp_path / "store"
    hashed = ingesting._sha256

    def unreadable(path: str) -> str:
        if path == str(paths[1]):
            raise OSError(5, "Input/output error", path)
        return hashed(path)

    monkeypatch.setattr(ingesting, "_sha256", unreadable)
    message = f"cannot read {paths[1]}: Input/output error"
    for _ in range(2):
        report = ingest(paths, store)
        assert [problem.message for problem in report.io_errors] == [message]
        summary = Store.open(store).summary()
        assert (summary.files, summary.records) == (2, 1)
        assert [(p.code.value, p.message) for p in summary.io_errors] == [
            ("io.unreadable", message)
        ]
    monkeypatch.setattr(ingesting, "_sha256", hashed)
    report = ingest(paths, store)
    assert (report.read, report.unchanged, report.io_errors) == (1, 1, [])
    opened = Store.open(store)
    assert opened.summary().io_errors == []
    assert opened.table("games")["source"].to_list() == [str(path) for path in paths]


def test_a_path_that_could_not_be_read_is_replaced_wherever_it_now_leads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file that could not be read holds nothing but its problem: an ingest that names its
    path again replaces it even where the path now leads to another file (a link retargeted;
    ``/proc/self/mem`` leads to another file in every process), so the store says what
    ``stats`` now says."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "logs").mkdir()
    link = tmp_path / "logs" / "b.json"
    link.symlink_to(tmp_path / "nowhere.json")
    assert main(["ingest", "logs", "--store", "st", "--no-progress"]) == 2
    shutil.copy(GAME, tmp_path / "game.json")
    link.unlink()
    link.symlink_to(tmp_path / "game.json")
    capsys.readouterr()
    assert main(["stats", "logs", "--no-progress"]) == 0
    direct = capsys.readouterr()
    assert main(["ingest", "logs", "--store", "st", "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["stats", "--store", "st", "--no-progress"]) == 0
    assert capsys.readouterr() == direct
    assert [source.path for source in Store.open("st").manifest.sources] == ["logs/b.json"]


def test_an_unchanged_file_whose_reading_stopped_is_reported_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An ingest that names a file whose reading stopped, unchanged since, does not read it
    again but reports its problem again, and exits 2, as ``stats --store`` does."""
    broken = tmp_path / "broken.jsonl.gz"
    broken.write_bytes(gzip.compress(FOUR.read_bytes())[:-30])
    store = tmp_path / "store"
    for _ in range(2):
        assert main(["ingest", str(broken), "--store", str(store), "--no-progress"]) == 2
        out, err = capsys.readouterr()
        assert f"cannot decompress {broken}: " in err
        assert "[io.compression]" in err
    assert "0 read" in out
    assert "1 unchanged" in out


@pytest.mark.parametrize("paths", [["-"], [str(GAME), "-"]], ids=["stdin", "stdin-and-a-file"])
def test_ingest_refuses_standard_input_before_making_the_store(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    paths: list[str],
) -> None:
    """A store knows a file by its path, size, time and sha256: ``-`` is a usage error that
    says what to do instead, and no store is made (nor an existing one touched)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(GAME.read_bytes())))
    store = tmp_path / "new" / "store"
    assert main(["ingest", *paths, "--store", str(store), "--no-progress"]) == 2
    assert capsys.readouterr() == (
        "",
        "spades-replay: error: ingest cannot read standard input (-): a store remembers "
        "every file it reads by its path, size, time and sha256, and standard input has "
        "none; write the records to a file first, then ingest that file\n",
    )
    assert not (tmp_path / "new").exists()
    with pytest.raises(StoreError, match="cannot read standard input"):
        ingest(paths, store)
    assert not (tmp_path / "new").exists()
    ingest([GAME], store)
    before = snapshot(store)
    with pytest.raises(StoreError, match="write the records to a file first"):
        ingest(paths, store, rebuild=True)
    assert snapshot(store) == before


def test_paths_that_name_no_file_make_no_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An ingest whose every path is missing reports each and makes no store: no folder
    (nor the folders above it), and nothing in a folder that exists but holds no store."""
    missing = [str(tmp_path / "gone.json"), str(tmp_path / "gone")]
    empty = tmp_path / "empty"
    empty.mkdir()
    for store in (tmp_path / "new" / "store", empty):
        assert main(["ingest", *missing, "--store", str(store), "--no-progress"]) == 2
        out, err = capsys.readouterr()
        assert err.count("[io.not-found]") == 2
        assert out.splitlines()[-1] == f"no store written to {store}: no path names a file"
    assert not (tmp_path / "new").exists()
    assert list(empty.iterdir()) == []


# --- query ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_query_formats(
    fixtures_store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sql = (
        "SELECT variant, count(*) AS games, avg(hands) AS hands FROM games "
        "GROUP BY variant ORDER BY variant"
    )
    assert main(["query", "--store", str(fixtures_store), sql, "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "variant,games,hands"
    assert main(["query", "--store", str(fixtures_store), sql, "--format", "json"]) == 0
    rows = orjson.loads(capsys.readouterr().out)
    assert [row["variant"] for row in rows] == ["four-player", "two-player"]
    assert sum(row["games"] for row in rows) == VALID_FIXTURES
    assert main(["query", "--store", str(fixtures_store), sql]) == 0
    assert "four-player" in capsys.readouterr().out
    target = tmp_path / "out.parquet"
    assert (
        main(
            ["query", "--store", str(fixtures_store), sql, "--format", "parquet", "-o", str(target)]
        )
        == 0
    )
    assert pl.read_parquet(target)["games"].sum() == VALID_FIXTURES
    assert main(["query", "--store", str(fixtures_store), sql, "--format", "parquet"]) == 2


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("SELEC 1", "bad SQL: Parser Error"),
        ("SELECT nope FROM games", "bad SQL: Binder Error"),
        ("DROP VIEW games", "read-only"),
        ("COPY games TO 'x.csv'", "read-only"),
        ("SELECT 1; SELECT 2", "one SQL statement"),
        ("SELECT * FROM seat_analysis", "ingested without --analysis"),
    ],
)
def test_query_refuses_bad_or_writing_sql(
    fixtures_store: Path, sql: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["query", "--store", str(fixtures_store), sql]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_query_views_number_games_as_stats(fixtures_store: Path) -> None:
    store = Store.open(fixtures_store)
    rows = run(store, "SELECT game, game_id, source, line FROM games ORDER BY game").rows
    games = store.table("games")
    assert rows == list(games.select("game", "game_id", "source", "line").iter_rows())
    seats = run(store, "SELECT game, hand, seat, player FROM seat_hands ORDER BY ALL").rows
    table = store.table("seat_hands").select("game", "hand", "seat", "player").sort(pl.all())
    assert seats == list(table.iter_rows())
    invalid = run(store, "SELECT count(DISTINCT (source, line)) FROM problems").rows
    assert invalid == [(len(INVALID_FIXTURES),)]


def _cut_parts(tmp_path: Path, files: int, games: int, chunk_bytes: int) -> dict[str, list[str]]:
    """Ingest a corpus of ``files`` files of ``games`` games whole, and again by two workers
    in byte ranges of ``chunk_bytes``; check that the tables are the same, and give the part
    files of the first file read in ranges."""
    make_corpus(tmp_path / "corpus", files=files, games=games)
    ingest([tmp_path / "corpus"], tmp_path / "one")
    ingest([tmp_path / "corpus"], tmp_path / "cut", jobs=2, chunk_bytes=chunk_bytes)
    one, cut = snapshot(tmp_path / "one"), snapshot(tmp_path / "cut")
    assert one is not None
    assert cut is not None
    assert cut[1] == one[1]
    return Store.open(tmp_path / "cut").manifest.sources[0].parts


@pytest.mark.slow
def test_the_store_is_the_same_whatever_the_jobs_and_chunks(tmp_path: Path) -> None:
    """Large corpora are cut into byte ranges read by worker processes: the tables do not
    change (lines, offsets and game numbers run on across the ranges, and across the part
    files, each holding the rows of PART_PIECES of them)."""
    assert len(_cut_parts(tmp_path, files=2, games=12, chunk_bytes=9000)["games"]) > 1


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_game_without_an_id_is_named_after_its_number_in_every_piece(
    tmp_path: Path, jobs: int
) -> None:
    """``game-N`` is the game's number in the store, in every piece of a file cut into byte
    ranges, whoever reads them: not its number within its piece, which would name a game of
    the second piece as one of the first."""
    make_corpus(tmp_path / "ids", files=1, games=2 * PART_PIECES + 1)
    lines = [
        orjson.dumps({key: value for key, value in orjson.loads(line).items() if key != "game_id"})
        for line in (tmp_path / "ids" / "part-00.jsonl").read_bytes().splitlines()
    ]
    path = tmp_path / "corpus.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    ingest([path], tmp_path / "store", jobs=jobs, chunk_bytes=max(map(len, lines)) + 1)
    store = Store.open(tmp_path / "store")
    assert len(store.manifest.sources[0].parts["games"]) > 1
    names = [f"game-{game}" for game in range(len(lines))]
    for table in ("games", "side_hands", "seat_hands", "records"):
        rows = store.table(table).select("game", "game_id").unique().sort("game")
        assert rows["game_id"].to_list() == names, table


def test_a_part_file_holds_the_rows_of_part_pieces_pieces(tmp_path: Path) -> None:
    """A file read in pieces of one record each (its records are longer than a range, and
    a range where no line starts holds none): its rows are written every PART_PIECES pieces
    that hold a record, the last part holding what is left, and the tables are those of one
    piece."""
    parts = _cut_parts(tmp_path, files=1, games=2 * PART_PIECES + 1, chunk_bytes=3000)
    assert {table: len(names) for table, names in parts.items()} == dict.fromkeys(
        ("games", "side_hands", "seat_hands", "records"), 3
    )
    games = [pl.read_parquet(tmp_path / "cut" / name).height for name in parts["games"]]
    assert games == [PART_PIECES, PART_PIECES, 1]


@pytest.mark.slow
def test_every_worked_question_of_the_docs_gives_its_output(
    fixtures_store: Path, tmp_path: Path
) -> None:
    """docs/store.md: each SQL block, run on a store of the fixtures, prints the text block
    after it (tools/store_docs.py rewrites the blocks after a change)."""
    page = (ROOT / "docs" / "store.md").read_text()
    pairs = re.findall(r"```sql\n(.*?)```\s*```text\n(.*?)```", page, flags=re.DOTALL)
    assert len(pairs) >= 8
    output = tmp_path / "answer.txt"
    for sql, expected in pairs:
        assert main(["query", "--store", str(fixtures_store), sql, "-o", str(output)]) == 0
        assert output.read_text() == expected, sql


def test_the_sql_columns_are_the_tables_columns(fixtures_store: Path) -> None:
    """The views' SQL types (kept apart so that a query needs no polars) match the tables."""
    from spades_replay.store.read import schemas
    from spades_replay.store.sql import COLUMNS, connect

    kinds = {pl.String: "VARCHAR", pl.Int64: "BIGINT", pl.Boolean: "BOOLEAN"}
    for table, schema in schemas().items():
        expected = tuple(
            (name, kinds.get(kind, "VARCHAR[]" if kind == pl.List(pl.String) else "?"))
            for name, kind in schema.items()
        )
        assert COLUMNS[table] == expected, table
    connection = connect(Store.open(fixtures_store))
    for table in ("games", "problems", "records"):
        described = connection.execute(f"DESCRIBE {table}").fetchall()
        assert tuple((row[0], row[1]) for row in described) == COLUMNS[table]


def test_a_store_inside_its_corpus_never_ingests_itself(tmp_path: Path) -> None:
    make_corpus(tmp_path / "corpus", files=1, games=2)
    store = tmp_path / "corpus" / "store"
    first = ingest([tmp_path / "corpus"], store)
    again = ingest([tmp_path / "corpus"], store)
    assert (first.files, first.records_read, first.invalid) == (1, 2, 0)
    assert (again.files, again.read, again.unchanged) == (1, 0, 1)


def test_a_connection_of_one_game_reads_the_one_part_that_holds_it(tmp_path: Path) -> None:
    """``connect(store, game=N)``: each view that numbers games holds game N's rows, those
    the whole store's views give for it, read from one part file per table (the part of
    ``games`` whose recorded rows reach N names it); ``problems`` is empty, and a number
    past the store's games gives no rows. A manifest without the parts' rows (written
    before they were kept) reads every part of the game's source, to the same rows."""
    from dataclasses import replace

    from spades_replay.store.sql import connect

    _cut_parts(tmp_path, files=2, games=2 * PART_PIECES + 1, chunk_bytes=3000)
    store = Store.open(tmp_path / "cut")
    older = Store(
        store.directory,
        replace(
            store.manifest,
            sources=tuple(replace(source, part_files=None) for source in store.manifest.sources),
        ),
    )
    whole = connect(store)
    games = sum(source.games for source in store.manifest.sources)
    assert games == 2 * (2 * PART_PIECES + 1)
    numbered = ("games", "side_hands", "seat_hands", "records")
    for game in range(games):
        one, old = connect(store, game=game), connect(older, game=game)
        for table in numbered:
            parts = store.game_parts(table, game)
            assert len(parts) == 1, (table, game)
            assert len(older.game_parts(table, game)) > 1
            expected = whole.sql(f"SELECT * FROM {table} WHERE game = {game} ORDER BY ALL")
            rows = expected.fetchall()
            assert rows, (table, game)
            assert one.sql(f"SELECT * FROM {table} ORDER BY ALL").fetchall() == rows
            assert old.sql(f"SELECT * FROM {table} ORDER BY ALL").fetchall() == rows
        assert one.sql("SELECT count(*) FROM problems").fetchall() == [(0,)]
    past = connect(store, game=games)
    for table in numbered:
        assert store.game_parts(table, games) == []
        assert past.sql(f"SELECT count(*) FROM {table}").fetchall() == [(0,)]


@pytest.mark.parametrize("name", ["bomb.jsonl", "bomb.jsonl.gz"])
def test_ingest_writes_records_and_problems_in_parts_as_it_goes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """However many invalid records a corpus holds, ingest holds a few pieces of them at a
    time: the rows of every PART_PIECES pieces are written as part files of their own."""
    from spades_replay.store import ingest as ingesting
    from spades_replay.store.layout import read_manifest

    monkeypatch.setattr(ingesting, "PIECE_LINES", 300)
    monkeypatch.setattr(ingesting, "PART_PIECES", 2)
    good = FOUR.read_bytes().splitlines()[0]
    data = b"{}\n" * 1000 + good + b"\n"
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    ingest([path], tmp_path / "store")
    manifest = read_manifest(tmp_path / "store")
    assert manifest is not None
    (source,) = manifest.sources
    assert len(source.parts["problems"]) == 2
    assert len(source.parts["records"]) == 2
    store = Store.open(tmp_path / "store")
    problems = store.table("problems")
    assert problems["line"].to_list() == list(range(1, 1001))
    assert set(problems["code"].to_list()) == {"format.not-a-record"}
    records = store.table("records")
    assert records["line"].to_list() == list(range(1, 1002))
    assert records["offset"].to_list() == [3 * line for line in range(1001)]
    assert store.table("games").height == 1

"""A store reads only its own files, and a damaged store is refused with one code
(``store.damaged``), naming what is wrong, the same way in ``query``, ``stats --store``,
``ingest`` and the library; ``ingest --rebuild`` makes it anew. Clean-up never follows a
symbolic link out of the store, and a query can neither write nor reach outside it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import orjson
import polars as pl
import pytest

from spades_replay.errors import Code
from spades_replay.store.ingest import ingest
from spades_replay.store.layout import MANIFEST, StoreError, read_manifest
from spades_replay.store.read import Store
from spades_replay.store.sql import connect, run

from .conftest import FIXTURES, ROOT

TWO = FIXTURES / "corpus" / "two-player.jsonl"
FOUR = FIXTURES / "corpus" / "four-player.jsonl"


def cli(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "spades_replay", *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("built") / "store"
    ingest([TWO, FOUR], directory)
    return directory


@pytest.fixture
def store(built: Path, tmp_path: Path) -> Path:
    """A fresh copy of a good store of two sources, to damage."""
    copy = tmp_path / "store"
    shutil.copytree(built, copy, symlinks=True)
    return copy


def manifest_of(store: Path) -> dict[str, Any]:
    data: dict[str, Any] = orjson.loads((store / MANIFEST).read_bytes())
    return data


def write_manifest(store: Path, data: dict[str, Any]) -> None:
    (store / MANIFEST).write_text(json.dumps(data))


def first_part(store: Path, table: str = "games") -> Path:
    return store / manifest_of(store)["sources"][0]["parts"][table][0]


def refused(store: Path) -> StoreError:
    with pytest.raises(StoreError) as caught:
        Store.open(store)
    return caught.value


def source_field(name: str, value: object) -> Callable[[dict[str, Any]], None]:
    def tamper(data: dict[str, Any]) -> None:
        data["sources"][0][name] = value

    return tamper


def setting(path: tuple[str, ...], value: object) -> Callable[[dict[str, Any]], None]:
    def tamper(data: dict[str, Any]) -> None:
        place = data["settings"]
        for key in path[:-1]:
            place = place[key]
        place[path[-1]] = value

    return tamper


def part_name(name: str) -> Callable[[dict[str, Any]], None]:
    def tamper(data: dict[str, Any]) -> None:
        data["sources"][0]["parts"]["games"][0] = name

    return tamper


def counts(games: int, invalid: int, records: int) -> Callable[[dict[str, Any]], None]:
    def tamper(data: dict[str, Any]) -> None:
        data["sources"][0].update(games=games, invalid=invalid, records=records)

    return tamper


def _set(key: str, value: object) -> Callable[[dict[str, Any]], None]:
    def tamper(data: dict[str, Any]) -> None:
        data[key] = value

    return tamper


def _huge_totals(data: dict[str, Any]) -> None:
    for source in data["sources"]:
        source.update(games=2**62, invalid=0, records=2**62)


def _second_part_twice(data: dict[str, Any]) -> None:
    data["sources"][1]["parts"]["games"] = data["sources"][0]["parts"]["games"]


def _part_file(value: object) -> Callable[[dict[str, Any]], None]:
    def tamper(data: dict[str, Any]) -> None:
        files = data["sources"][0]["part_files"]
        files[next(iter(files))] = value

    return tamper


def _same_file_twice(data: dict[str, Any]) -> None:
    data["sources"][1]["resolved"] = data["sources"][0]["resolved"]


TAMPERED: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "kind": (_set("kind", "something else"), "is not a spades-replay store"),
    "store_version": (_set("store_version", "1"), "is a store of version"),
    "settings": (_set("settings", []), "settings is [], not an object"),
    "settings.analysis": (setting(("analysis",), 1), "settings.analysis is 1"),
    "settings.limits": (setting(("limits",), None), "settings.limits is null"),
    "settings.limits.record_bytes": (
        setting(("limits", "record_bytes"), 0),
        "settings.limits.record_bytes is 0",
    ),
    "settings.limits.depth": (setting(("limits", "depth"), "64"), "settings.limits.depth"),
    "settings.limits.string_chars": (
        setting(("limits", "string_chars"), 2.5),
        "settings.limits.string_chars is 2.5",
    ),
    "settings.time_cap": (setting(("time_cap",), -1), "settings.time_cap is -1"),
    "sources": (_set("sources", {}), "sources is {}, not a list"),
    "sources[0]": (_set("sources", [7]), "sources[0] is 7, not an object"),
    "path": (source_field("path", 3), "sources[0].path is 3"),
    "resolved": (source_field("resolved", ""), 'sources[0].resolved is ""'),
    "size": (source_field("size", -5), "sources[0].size is -5"),
    "mtime_ns": (source_field("mtime_ns", 2**64), "sources[0].mtime_ns"),
    "sha256": (source_field("sha256", "abc"), 'sources[0].sha256 is "abc"'),
    # null only beside an io_error: a file that could not be read
    "sha256.null": (source_field("sha256", None), "sources[0].sha256 is null, not a sha256"),
    "records": (source_field("records", True), "sources[0].records is true"),
    "games": (source_field("games", 2**63), "sources[0].games is 9223372036854775808"),
    "invalid": (source_field("invalid", None), "sources[0].invalid is null"),
    "io_error": (source_field("io_error", {"code": "no.such"}), "sources[0].io_error"),
    "parts": (source_field("parts", "x"), 'sources[0].parts is "x"'),
    "parts.table": (source_field("parts", {"evil": []}), 'names a table "evil"'),
    "parts.list": (source_field("parts", {"games": "p"}), 'sources[0].parts.games is "p"'),
    "parts.name": (source_field("parts", {"games": [5]}), "sources[0].parts.games holds 5"),
    "parts.seat_analysis": (
        source_field("parts", {"seat_analysis": []}),
        'names a table "seat_analysis" the store has not',
    ),
    "part.absolute": (part_name("/etc/passwd"), "is an absolute path, outside the store"),
    "part.dotdot": (part_name("parts/games/../../../x.parquet"), "leaves the store"),
    "part.other-folder": (part_name("parts/records/x.parquet"), "is not a part file of games"),
    "part.missing": (part_name("parts/games/gone.parquet"), "is missing"),
    "part.twice": (_second_part_twice, "is named twice"),
    "part_files": (source_field("part_files", []), "sources[0].part_files is [], not an object"),
    "part_files.entry": (_part_file({"size": 5}), 'is {"size":5}, not a size and rows'),
    "part_files.size": (_part_file({"size": -1, "rows": 0}), ".size is -1, not a whole number"),
    "part_files.rows": (_part_file({"size": 0, "rows": 1.5}), ".rows is 1.5, not a whole number"),
    "counts.sum": (counts(1, 1, 5), "counts 5 record(s) but 1 game(s) and 1 invalid"),
    "counts.parts": (counts(2**40, 0, 2**40), "counts 1099511627776 games but its games parts"),
    "counts.total": (_huge_totals, "count more than 2^63-1 games"),
    "resolved.twice": (_same_file_twice, "a file is named by two sources"),
}


@pytest.mark.parametrize("field", sorted(TAMPERED))
def test_a_tampered_manifest_is_refused_naming_the_field(store: Path, field: str) -> None:
    tamper, expected = TAMPERED[field]
    data = manifest_of(store)
    tamper(data)
    write_manifest(store, data)
    error = refused(store)
    assert expected in str(error)
    if field not in ("kind", "store_version"):
        assert error.code is Code.STORE_DAMAGED
        assert str(error).endswith("[store.damaged]")
        assert f"ingest PATH... --store {store} --rebuild" in str(error)


def test_a_damaged_store_is_named_and_what_it_quotes_is_cut_short(
    built: Path, tmp_path: Path
) -> None:
    """The message names the store (its path cut at 500 characters) and quotes the wrong
    value (cut at 80), each followed by an ellipsis."""
    deep = tmp_path / ("d" * 200) / ("e" * 200) / ("f" * 200) / "store"
    shutil.copytree(built, deep, symlinks=True)
    data = manifest_of(deep)
    data["sources"][0]["sha256"] = "z" * 100
    write_manifest(deep, data)
    name = str(deep)[:500] + "…"
    assert len(str(deep)) > 500
    assert str(refused(deep)) == (
        f'the store {name} is damaged: sources[0].sha256 is "{"z" * 79}…, not a sha256 '
        f"digest; rebuild it: spades-replay ingest PATH... --store {name} --rebuild "
        "[store.damaged]"
    )


def test_a_manifest_that_is_not_json_is_damaged(store: Path) -> None:
    (store / MANIFEST).write_bytes(b'{"kind": "spades-replay st')
    assert "manifest.json is not JSON" in str(refused(store))


def _garbage(part: Path) -> None:
    part.write_bytes(b"this is no parquet file at all, only words " * 20)


def _truncated(part: Path) -> None:
    part.write_bytes(part.read_bytes()[:-100])


def _other_columns(part: Path) -> None:
    pl.DataFrame({"game": [0], "secret": ["x"]}).write_parquet(part)


def _other_types(part: Path) -> None:
    frame = pl.read_parquet(part)
    frame.with_columns(pl.col("score_0").cast(pl.String)).write_parquet(part)


def _symlink_out(part: Path) -> None:
    outside = part.parent.parent.parent.parent / "elsewhere.parquet"
    shutil.copy(part, outside)
    part.unlink()
    part.symlink_to(outside)


def _folder_link_out(part: Path) -> None:
    games = part.parent
    outside = games.parent.parent.parent / "elsewhere"
    shutil.copytree(games, outside)
    shutil.rmtree(games)
    games.symlink_to(outside)


def _not_regular(part: Path) -> None:
    part.unlink()
    os.mkfifo(part)


PART_DAMAGE: dict[str, tuple[Callable[[Path], None], str]] = {
    "garbage": (_garbage, "is not a Parquet file, or is cut short"),
    "truncated": (_truncated, "is not a Parquet file, or is cut short"),
    "other-columns": (_other_columns, "has no column game_id"),
    "other-types": (_other_types, "holds column score_0 as String, not Int64"),
    "symlink-out": (_symlink_out, "is reached through a symbolic link"),
    "folder-link-out": (_folder_link_out, "parts/games is not a folder of the store"),
    "fifo": (_not_regular, "is not a regular file"),
}


@pytest.mark.parametrize("damage", sorted(PART_DAMAGE))
def test_a_damaged_part_is_refused_everywhere_the_same_way(store: Path, damage: str) -> None:
    hurt, expected = PART_DAMAGE[damage]
    part = first_part(store)
    hurt(part)
    error = refused(store)
    assert expected in str(error)
    assert error.code is Code.STORE_DAMAGED
    if damage != "folder-link-out":
        assert part.relative_to(store).as_posix() in str(error)
    runs = [
        cli("query", "--store", str(store), "SELECT count(*) FROM games"),
        cli("stats", "--store", str(store)),
        cli("ingest", str(TWO), "--store", str(store), "--no-progress"),
    ]
    for result in runs:
        assert result.returncode == 2, result.stderr
        assert "Traceback" not in result.stderr
        assert expected in result.stderr
        assert "[store.damaged]" in result.stderr
        assert "--rebuild" in result.stderr


@pytest.mark.parametrize("table", ["games", "records"])
def test_a_part_whose_rows_cannot_be_counted_is_named(
    store: Path, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rows of a source's parts are counted in one scan of them all; when that scan
    fails (here a part cut short after its columns were read: its file replaced meanwhile),
    they are counted one at a time to name the part."""
    from spades_replay.store import read

    expected = {name: list(schema.items()) for name, schema in read.schemas().items()}
    columns = {path: expected[path.parent.name] for path in (store / "parts").glob("*/*")}
    monkeypatch.setattr(read, "_schema", lambda path: columns[path])
    parts = manifest_of(store)["sources"][1]["parts"][table]
    _truncated(store / parts[-1])
    error = refused(store)
    assert error.code is Code.STORE_DAMAGED
    assert f"part {parts[-1]} is not a Parquet file, or is cut short" in str(error)


def test_the_rows_of_every_part_of_a_source_are_counted(store: Path) -> None:
    """A source's rows are the sum over all its parts: a part's rows gone is told."""
    parts = manifest_of(store)["sources"][1]["parts"]["games"]
    last = store / parts[-1]
    pl.read_parquet(last).head(0).write_parquet(last)
    error = refused(store)
    assert error.code is Code.STORE_DAMAGED
    assert "sources[1] counts" in str(error)


def test_a_part_of_another_size_is_named_even_when_its_footer_is_sound(store: Path) -> None:
    """A part that is not the size it was written (here the same rows written anew without
    compression) is damaged, though its columns and rows are right."""
    part = first_part(store)
    written = part.stat().st_size
    pl.read_parquet(part).write_parquet(part, compression="uncompressed")
    error = refused(store)
    assert error.code is Code.STORE_DAMAGED
    assert (
        f"part {part.relative_to(store).as_posix()} is {part.stat().st_size} bytes, not the "
        f"{written} it was written with"
    ) in str(error)


def test_parts_of_their_written_sizes_are_opened_without_their_footers(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sizes and rows the manifest records stand for the footers: opening the store
    reads none, and a count the recorded rows do not add up to is told all the same."""
    from spades_replay.store import read

    def unread(path: object) -> None:
        raise AssertionError(f"read the footer of {path}")

    monkeypatch.setattr(read, "_schema", unread)
    monkeypatch.setattr(read, "_rows", unread)
    Store.open(store)
    data = manifest_of(store)
    data["sources"][1]["records"] += 1
    data["sources"][1]["invalid"] += 1
    write_manifest(store, data)
    assert "sources[1] counts" in str(refused(store))


def _without_part_files(store: Path, keep: int = 0) -> None:
    """The manifest as written before part files' sizes and rows were kept (every source's;
    with ``keep``, all but that many of the first source's entries)."""
    data = manifest_of(store)
    for source in data["sources"]:
        files = source.pop("part_files")
        if keep:
            source["part_files"] = dict(list(files.items())[:keep])
            keep = 0
    write_manifest(store, data)


@pytest.mark.parametrize("keep", [0, 1])
def test_parts_without_their_written_sizes_are_checked_by_their_footers(
    store: Path, keep: int
) -> None:
    """A source whose entry does not record every part (a manifest written before they
    were kept, or one whose record lacks a part) has its parts' footers read."""
    _without_part_files(store, keep)
    Store.open(store)
    _truncated(first_part(store))
    assert "is not a Parquet file, or is cut short" in str(refused(store))


def test_an_ingest_records_what_an_older_manifest_lacks(store: Path, built: Path) -> None:
    """An ingest (here finding every file unchanged) writes the sizes and rows of the
    parts of every source into the manifest, as it would have written them."""
    _without_part_files(store)
    result = cli("ingest", str(TWO), str(FOUR), "--store", str(store), "--no-progress")
    assert result.returncode == 0, result.stderr
    assert "2 unchanged" in result.stdout
    assert manifest_of(store)["sources"] == manifest_of(built)["sources"]
    for source in manifest_of(store)["sources"]:
        for name, part in source["part_files"].items():
            assert part["size"] == (store / name).stat().st_size
            assert part["rows"] == pl.read_parquet(store / name).height


def test_ingest_rebuild_makes_a_damaged_store_anew(store: Path, built: Path) -> None:
    _garbage(first_part(store))
    (store / "parts" / "games" / "notes.txt").write_text("mine")
    result = cli("ingest", str(TWO), str(FOUR), "--store", str(store), "--rebuild", "--no-progress")
    assert result.returncode == 0, result.stderr
    assert Store.open(store).table("games").equals(Store.open(built).table("games"))
    assert (store / "parts" / "games" / "notes.txt").read_text() == "mine"


def test_rebuild_removes_links_out_but_never_what_they_point_to(store: Path) -> None:
    _folder_link_out(first_part(store))
    outside = store.parent / "elsewhere"
    before = sorted(path.name for path in outside.iterdir())
    ingest([TWO], store, rebuild=True)
    assert sorted(path.name for path in outside.iterdir()) == before
    assert not (store / "parts" / "games").is_symlink()
    assert Store.open(store).summary().records == 25


def test_rebuild_refuses_another_programs_manifest(tmp_path: Path) -> None:
    (tmp_path / MANIFEST).write_text('{"kind": "my notes"}')
    with pytest.raises(StoreError) as caught:
        ingest([TWO], tmp_path, rebuild=True)
    assert str(caught.value) == (
        f"{tmp_path} is not a spades-replay store (manifest.json is not its manifest): "
        "it is not rebuilt"
    )
    assert (tmp_path / MANIFEST).read_text() == '{"kind": "my notes"}'


def test_ingest_never_deletes_through_a_symlink_out(store: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.parquet").write_bytes(b"precious")
    (victim / "0123456789abcdef-0123456789abcdef-00000.parquet").write_bytes(b"precious")
    (store / "parts" / "evil").symlink_to(victim)
    (store / "parts" / "seat_hands" / "0123456789abcdef-0123456789abcdef-00009.parquet").symlink_to(
        victim / "keep.parquet"
    )
    leftover = store / "parts" / "games" / "0123456789abcdef-0123456789abcdef-00003.parquet"
    leftover.write_bytes(b"an ingest killed before its switch left this")
    report = ingest([TWO], store)
    assert report.removed_parts == 1
    assert not leftover.exists()
    assert sorted(path.name for path in victim.iterdir()) == [
        "0123456789abcdef-0123456789abcdef-00000.parquet",
        "keep.parquet",
    ]
    assert all(path.read_bytes() == b"precious" for path in victim.iterdir())


def test_a_manifest_naming_a_file_outside_is_never_read(store: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.parquet"
    shutil.copy(first_part(store), outside)
    data = manifest_of(store)
    data["sources"][0]["parts"]["games"][0] = str(outside)
    write_manifest(store, data)
    result = cli("query", "--store", str(store), "SELECT * FROM games")
    assert result.returncode == 2
    assert f"part {outside} is an absolute path, outside the store" in result.stderr
    assert "[store.damaged]" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_manifest_is_read_again_when_an_ingest_replaced_it(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader that finds a part missing because an ingest replaced the manifest and
    removed that part meanwhile reads the new manifest instead of calling the store damaged."""
    from spades_replay.store import layout

    good = (store / MANIFEST).read_bytes()
    data = manifest_of(store)
    data["sources"][0]["parts"]["games"][0] = "parts/games/gone.parquet"
    write_manifest(store, data)
    checked = layout._checked
    calls = []

    def racing(root: Path, raw: bytes) -> Any:
        calls.append(raw)
        if len(calls) == 1:
            (store / MANIFEST).write_bytes(good)  # the ingest's switch, while this one checks
        return checked(root, raw)

    monkeypatch.setattr(layout, "_checked", racing)
    manifest = read_manifest(store)
    assert manifest is not None
    assert len(calls) == 2


def test_query_cannot_write_or_install_through_explain(store: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    opened = Store.open(store)
    for sql in (
        f"EXPLAIN ANALYZE COPY (SELECT 'x') TO '{victim}'",
        f"explain /* a comment */ analyse\nCOPY (SELECT 'x') TO '{victim}'",
        "EXPLAIN ANALYZE INSTALL httpfs",
        "EXPLAIN ANALYZE LOAD httpfs",
        "EXPLAIN ANALYZE SET enable_external_access = true",
    ):
        with pytest.raises(StoreError, match="the store is read-only"):
            run(opened, sql)
    assert not victim.exists()
    assert run(opened, "EXPLAIN ANALYZE SELECT count(*) FROM games").columns
    assert run(opened, "EXPLAIN SELECT 1").columns
    # what DuckDB parses as queries, as docs/store.md lists them
    for sql in ("FROM games", "VALUES (1)", "DESCRIBE games", "SHOW TABLES", "SUMMARIZE games"):
        assert run(opened, sql).columns, sql
    for sql in ("PRAGMA version", "SET threads = 1", f"COPY games TO '{victim}'"):
        with pytest.raises(StoreError, match="the store is read-only"):
            run(opened, sql)
    result = cli("query", "--store", str(store), f"EXPLAIN ANALYZE COPY (SELECT 1) TO '{victim}'")
    assert result.returncode == 2
    assert "read-only" in result.stderr
    assert not victim.exists()


def test_the_connection_itself_reads_only_the_store(store: Path, tmp_path: Path) -> None:
    """Whatever statement reaches DuckDB: no file outside the store, no extension, and a
    locked configuration."""
    victim = tmp_path / "victim.txt"
    connection = connect(Store.open(store))
    try:
        settings = dict(
            connection.execute(
                "SELECT name, value FROM duckdb_settings() WHERE name IN "
                "('autoinstall_known_extensions', 'autoload_known_extensions', "
                "'enable_external_access', 'lock_configuration')"
            ).fetchall()
        )
        assert set(settings.values()) == {"false", "true"}
        assert settings["lock_configuration"] == "true"
        assert settings["enable_external_access"] == "false"
        assert settings["autoinstall_known_extensions"] == "false"
        assert settings["autoload_known_extensions"] == "false"
        for sql in (
            f"COPY (SELECT 'x') TO '{victim}'",
            "SELECT * FROM read_csv('/etc/passwd')",
            "INSTALL httpfs",
            "LOAD httpfs",
            "SELECT * FROM 'https://example.com/x.parquet'",
            f"SELECT * FROM read_parquet('{store}/parts/games/../../../x.parquet')",
        ):
            with pytest.raises(duckdb.Error):
                connection.execute(sql)
        with pytest.raises(duckdb.Error, match="locked"):
            connection.execute("SET enable_external_access = true")
        assert connection.execute("SELECT count(*) FROM games").fetchone() == (50,)
    finally:
        connection.close()
    assert not victim.exists()


def test_a_query_that_reads_outside_the_store_is_told_why(store: Path) -> None:
    result = cli("query", "--store", str(store), "SELECT * FROM read_csv('/etc/passwd')")
    assert result.returncode == 2
    assert "a query reads the store's tables only" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_part_spoilt_after_the_store_opened_stops_its_scans_with_the_damaged_error(
    store: Path,
) -> None:
    """A part cut short after the store was opened (its footers checked then) stops a query
    of the scans with ``store.damaged``, never a polars error."""
    from spades_replay.stats.metrics import player_plan

    opened = Store.open(store)
    part = first_part(store, "seat_hands")
    part.write_bytes(part.read_bytes()[:100])
    with pytest.raises(StoreError) as caught:
        opened.collect(player_plan(opened.scans()))
    assert caught.value.code is Code.STORE_DAMAGED
    assert "a part cannot be read" in str(caught.value)

"""The store's layout on its own (``spades_replay.store.layout``), without an ingest: the
manifest's bytes, every check of its fields with the exact message, the part files' names
and kinds, the clean-ups, the lock. Manifests are written here as JSON and part files as a
few bytes: nothing is read as Parquet, so these run in a moment."""

from __future__ import annotations

import copy
import errno
import os
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from spades_replay.errors import Code
from spades_replay.store import layout
from spades_replay.store.layout import (
    MAX_COUNT,
    READ_ATTEMPTS,
    TABLES,
    Manifest,
    SourceEntry,
    StoreError,
    StoreLock,
    check_part_files,
    check_parts_directory,
    checked_source,
    clear_for_rebuild,
    damaged,
    open_manifest,
    part_files,
    part_name_problem,
    read_manifest,
    rebuild_hint,
    remove_unreferenced,
    write_manifest,
)

from .support.faults import Faults

KEY = "0123456789abcdef"
DIGEST = "fedcba9876543210"
SHA = "0123456789abcdef" * 4
MISSING = object()
"""A field's value that stands for the field left out."""


def part(table: str, chunk: int, key: str = KEY) -> str:
    """The name of a part file as ingest names it."""
    return f"parts/{table}/{key}-{DIGEST}-{chunk:05d}.parquet"


SETTINGS: dict[str, Any] = {
    "analysis": False,
    "limits": {"record_bytes": 1_000_000, "depth": 64, "string_chars": 10_000},
    "time_cap": None,
}


def source(number: int = 0, **changes: object) -> dict[str, Any]:
    """A source entry as JSON data, good unless changed (``MISSING`` leaves a field out)."""
    data: dict[str, Any] = {
        "path": f"corpus/{number}.jsonl",
        "resolved": f"/data/corpus/{number}.jsonl",
        "size": 120,
        "mtime_ns": 1_700_000_000_000_000_000,
        "sha256": SHA,
        "records": 3,
        "games": 2,
        "invalid": 1,
        "io_error": None,
        "parts": {"games": [part("games", number)], "records": [part("records", number)]},
    }
    data.update(changes)
    return {key: value for key, value in data.items() if value is not MISSING}


def manifest(*sources: object, **changes: object) -> dict[str, Any]:
    """A manifest as JSON data, of ``sources`` (one good source when none is given)."""
    data: dict[str, Any] = {
        "kind": "spades-replay store",
        "store_version": 1,
        "settings": copy.deepcopy(SETTINGS),
        "sources": list(sources) if sources else [source()],
    }
    data.update(changes)
    return {key: value for key, value in data.items() if value is not MISSING}


def with_settings(**changes: object) -> dict[str, Any]:
    settings = {**copy.deepcopy(SETTINGS), **changes}
    return manifest(settings={k: v for k, v in settings.items() if v is not MISSING})


def with_limit(name: str, value: object) -> dict[str, Any]:
    limits = {**SETTINGS["limits"], name: value}
    return with_settings(limits={k: v for k, v in limits.items() if v is not MISSING})


def _names(data: object) -> Iterator[str]:
    """The part names a manifest's data holds, where it holds them where ingest puts them."""
    if not isinstance(data, dict) or not isinstance(data.get("sources"), list):
        return
    for found in data["sources"]:
        parts = found.get("parts") if isinstance(found, dict) else None
        if isinstance(parts, dict):
            for names in parts.values():
                if isinstance(names, list):
                    yield from (name for name in names if isinstance(name, str))


def stored(root: Path, data: object) -> Path:
    """``root`` made a store whose manifest is ``data``, with a few bytes in each part file
    it names inside ``parts/``."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "manifest.json").write_bytes(orjson.dumps(data))
    for name in _names(data):
        if name.startswith("parts/") and ".." not in name.split("/"):
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(b"a part")
    return root


def damaged_text(root: Path, what: str) -> str:
    return (
        f"the store {root} is damaged: {what}; rebuild it: spades-replay ingest PATH... "
        f"--store {root} --rebuild [store.damaged]"
    )


def refusal(root: Path, data: object) -> StoreError:
    stored(root, data)
    with pytest.raises(StoreError) as caught:
        read_manifest(root)
    return caught.value


def entry(number: int, parts: dict[str, list[str]], **changes: Any) -> SourceEntry:
    fields: dict[str, Any] = {
        "path": f"corpus/{number}.jsonl",
        "resolved": f"/data/corpus/{number}.jsonl",
        "size": 120,
        "mtime_ns": 5,
        "sha256": SHA,
        "records": 3,
        "games": 2,
        "invalid": 1,
        "parts": parts,
        **changes,
    }
    return SourceEntry(**fields)


# --- the manifest's bytes ------------------------------------------------------------------


def test_the_manifest_is_sorted_two_space_indented_json_ending_in_a_newline() -> None:
    games, records = part("games", 0), part("records", 1)
    written = Manifest(
        {"time_cap": None, "analysis": True, "limits": {"string_chars": 5, "depth": 2}},
        (
            entry(
                0,
                {"records": [records], "games": [games]},
                path="b.jsonl",
                resolved="/d/b.jsonl",
                size=7,
                mtime_ns=-3,
                io_error={"message": "gone", "code": "io.not-found"},
            ),
        ),
    )
    assert (
        written.to_bytes()
        == textwrap.dedent(
            f"""\
        {{
          "kind": "spades-replay store",
          "settings": {{
            "analysis": true,
            "limits": {{
              "depth": 2,
              "string_chars": 5
            }},
            "time_cap": null
          }},
          "sources": [
            {{
              "games": 2,
              "invalid": 1,
              "io_error": {{
                "code": "io.not-found",
                "message": "gone"
              }},
              "mtime_ns": -3,
              "parts": {{
                "games": [
                  "{games}"
                ],
                "records": [
                  "{records}"
                ]
              }},
              "path": "b.jsonl",
              "records": 3,
              "resolved": "/d/b.jsonl",
              "sha256": "{SHA}",
              "size": 7
            }}
          ],
          "store_version": 1
        }}
        """
        ).encode()
    )


def test_an_empty_manifest_is_its_kind_settings_and_version() -> None:
    assert Manifest({}).to_bytes() == (
        b'{\n  "kind": "spades-replay store",\n  "settings": {},\n  "sources": [],\n'
        b'  "store_version": 1\n}\n'
    )


def test_a_manifest_written_is_read_back_the_same(tmp_path: Path) -> None:
    written = Manifest(
        copy.deepcopy(SETTINGS),
        (
            entry(0, {"games": [part("games", 0)], "records": [part("records", 0)]}),
            entry(
                1,
                {"games": [], "problems": [part("problems", 1), part("problems", 2)]},
                games=0,
                invalid=3,
                io_error={"code": "io.unreadable", "message": "cut short"},
            ),
        ),
    )
    root = tmp_path / "store"
    root.mkdir()
    write_manifest(root, written)
    assert (root / "manifest.json").read_bytes() == written.to_bytes()
    for name in written.referenced():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(b"a part")
    assert read_manifest(root) == written
    assert open_manifest(str(root)) == written


def test_referenced_is_every_part_of_every_source() -> None:
    first = entry(0, {"games": [part("games", 0), part("games", 1)], "records": []})
    second = entry(1, {"problems": [part("problems", 2)]})
    assert Manifest({}, (first, second)).referenced() == {
        part("games", 0),
        part("games", 1),
        part("problems", 2),
    }
    assert Manifest({}).referenced() == set()


@pytest.mark.parametrize(
    ("settings", "analysis"),
    [
        ({"analysis": True}, True),
        ({"analysis": False}, False),
        ({}, False),
        ({"analysis": 1}, True),
    ],
)
def test_analysis_is_the_setting_as_a_bool(settings: dict[str, Any], analysis: bool) -> None:
    assert Manifest(settings).analysis is analysis


# --- every field checked, with its message -------------------------------------------------

TOO_BIG = 2**63
FIELD_DAMAGE: dict[str, tuple[dict[str, Any], str]] = {
    "settings-list": (manifest(settings=[]), "settings is [], not an object"),
    "settings-missing": (manifest(settings=MISSING), "settings is null, not an object"),
    "analysis-missing": (
        with_settings(analysis=MISSING),
        "settings.analysis is null, not true or false",
    ),
    "analysis-one": (with_settings(analysis=1), "settings.analysis is 1, not true or false"),
    "analysis-text": (
        with_settings(analysis="true"),
        'settings.analysis is "true", not true or false',
    ),
    "limits-missing": (with_settings(limits=MISSING), "settings.limits is null, not an object"),
    "limits-list": (with_settings(limits=[1]), "settings.limits is [1], not an object"),
    "time_cap-negative": (
        with_settings(time_cap=-1),
        "settings.time_cap is -1, not a number of seconds",
    ),
    "time_cap-negative-fraction": (
        with_settings(time_cap=-0.5),
        "settings.time_cap is -0.5, not a number of seconds",
    ),
    "time_cap-too-big": (
        with_settings(time_cap=TOO_BIG),
        f"settings.time_cap is {TOO_BIG}, not a number of seconds",
    ),
    "time_cap-text": (
        with_settings(time_cap="5"),
        'settings.time_cap is "5", not a number of seconds',
    ),
    "time_cap-bool": (
        with_settings(time_cap=True),
        "settings.time_cap is true, not a number of seconds",
    ),
    "sources-object": (manifest(sources={}), "manifest.json's sources is {}, not a list"),
    "sources-missing": (
        manifest(sources=MISSING),
        "manifest.json's sources is null, not a list",
    ),
    "source-not-object": (
        manifest(source(0), 7),
        "sources[1] is 7, not an object",
    ),
    "sha256-short": (
        manifest(source(sha256="abc")),
        'sources[0].sha256 is "abc", not a sha256 digest',
    ),
    "sha256-63": (
        manifest(source(sha256=SHA[:63])),
        f'sources[0].sha256 is "{SHA[:63]}", not a sha256 digest',
    ),
    "sha256-65": (
        manifest(source(sha256=SHA + "0")),
        f'sources[0].sha256 is "{SHA}0", not a sha256 digest',
    ),
    "sha256-upper": (
        manifest(source(sha256=SHA.upper())),
        f'sources[0].sha256 is "{SHA.upper()}", not a sha256 digest',
    ),
    "sha256-not-hex": (
        manifest(source(sha256="g" * 64)),
        f'sources[0].sha256 is "{"g" * 64}", not a sha256 digest',
    ),
    "sha256-number": (
        manifest(source(sha256=5)),
        "sources[0].sha256 is 5, not a sha256 digest",
    ),
    "counts": (
        manifest(source(records=5, games=1, invalid=1)),
        "sources[0] counts 5 record(s) but 1 game(s) and 1 invalid record(s); each record is "
        "one or the other",
    ),
    "counts-fewer": (
        manifest(source(records=1, games=1, invalid=1)),
        "sources[0] counts 1 record(s) but 1 game(s) and 1 invalid record(s); each record is "
        "one or the other",
    ),
    "io_error-list": (
        manifest(source(io_error=[])),
        "sources[0].io_error is [], not a problem",
    ),
    "io_error-unknown-code": (
        manifest(source(io_error={"code": "no.such", "message": "x"})),
        'sources[0].io_error is {"code":"no.such","message":"x"}, not a problem',
    ),
    "io_error-no-message": (
        manifest(source(io_error={"code": "io.not-found"})),
        'sources[0].io_error is {"code":"io.not-found"}, not a problem',
    ),
    "io_error-message-number": (
        manifest(source(io_error={"code": "io.not-found", "message": 3})),
        'sources[0].io_error is {"code":"io.not-found","message":3}, not a problem',
    ),
    "parts-text": (manifest(source(parts="x")), 'sources[0].parts is "x", not an object'),
    "parts-missing": (
        manifest(source(parts=MISSING)),
        "sources[0].parts is null, not an object",
    ),
    "parts-table": (
        manifest(source(parts={"evil": []})),
        'sources[0].parts names a table "evil" the store has not',
    ),
    "parts-seat_analysis": (
        manifest(source(parts={"games": [], "seat_analysis": []})),
        'sources[0].parts names a table "seat_analysis" the store has not',
    ),
    "parts-not-list": (
        manifest(source(parts={"games": "p"})),
        'sources[0].parts.games is "p", not a list',
    ),
    "parts-name-number": (
        manifest(source(parts={"records": [part("records", 0), 5]})),
        "sources[0].parts.records holds 5, not a name",
    ),
    "part-absolute": (
        manifest(source(parts={"games": ["/etc/x.parquet"]})),
        "part /etc/x.parquet is an absolute path, outside the store",
    ),
    "part-other-table": (
        manifest(source(parts={"records": [part("games", 0)]})),
        f"part {part('games', 0)} is not a part file of records (parts/records/NAME.parquet)",
    ),
    "totals-games": (
        manifest(
            source(0, records=2**62, games=2**62, invalid=0),
            source(1, records=2**62, games=2**62, invalid=0),
        ),
        "the sources of manifest.json count more than 2^63-1 games",
    ),
    "totals-records": (
        manifest(
            source(0, records=2**62, games=0, invalid=2**62),
            source(1, records=2**62, games=0, invalid=2**62),
        ),
        "the sources of manifest.json count more than 2^63-1 records",
    ),
    "resolved-twice": (
        manifest(source(0), source(1, resolved="/data/corpus/0.jsonl")),
        "a file is named by two sources",
    ),
}

for _name in ("path", "resolved"):
    FIELD_DAMAGE[f"{_name}-number"] = (
        manifest(source(**{_name: 3})),
        f"sources[0].{_name} is 3, not a name",
    )
    FIELD_DAMAGE[f"{_name}-empty"] = (
        manifest(source(**{_name: ""})),
        f'sources[0].{_name} is "", not a name',
    )
    FIELD_DAMAGE[f"{_name}-missing"] = (
        manifest(source(**{_name: MISSING})),
        f"sources[0].{_name} is null, not a name",
    )

WRONG_WHOLE_NUMBERS = ("-1", "1.0", "true", '"5"', "null", str(TOO_BIG))
"""Values no count takes (as the message quotes them); and, for the limits, 0."""


def _quoted(shown: str) -> object:
    value: object = orjson.loads(shown)
    return MISSING if value is None else value


for _shown_value in WRONG_WHOLE_NUMBERS:
    _value = _quoted(_shown_value)
    for _name in ("record_bytes", "depth", "string_chars"):
        FIELD_DAMAGE[f"limits.{_name}={_shown_value}"] = (
            with_limit(_name, _value),
            f"settings.limits.{_name} is {_shown_value}, not a whole number from 1 to 2^63-1",
        )
    for _name in ("size", "records", "games", "invalid"):
        FIELD_DAMAGE[f"{_name}={_shown_value}"] = (
            manifest(source(**{_name: _value})),
            f"sources[0].{_name} is {_shown_value}, not a whole number from 0 to 2^63-1",
        )
    if _shown_value != "-1":
        FIELD_DAMAGE[f"mtime_ns={_shown_value}"] = (
            manifest(source(mtime_ns=_value)),
            f"sources[0].mtime_ns is {_shown_value}, not a whole number from -2^63 to 2^63-1",
        )
for _name in ("record_bytes", "depth", "string_chars"):
    FIELD_DAMAGE[f"limits.{_name}=0"] = (
        with_limit(_name, 0),
        f"settings.limits.{_name} is 0, not a whole number from 1 to 2^63-1",
    )


@pytest.mark.parametrize("case", sorted(FIELD_DAMAGE))
def test_each_wrong_field_is_damage_named_with_its_value(tmp_path: Path, case: str) -> None:
    data, what = FIELD_DAMAGE[case]
    error = refusal(tmp_path / "store", data)
    assert error.code is Code.STORE_DAMAGED
    assert str(error) == damaged_text(tmp_path / "store", what)


ACCEPTED: dict[str, dict[str, Any]] = {
    "limits at 1": with_settings(limits={"record_bytes": 1, "depth": 1, "string_chars": 1}),
    "limits at 2^63-1": with_settings(
        limits={"record_bytes": MAX_COUNT, "depth": MAX_COUNT, "string_chars": MAX_COUNT}
    ),
    "time_cap 0": with_settings(time_cap=0),
    "time_cap a fraction": with_settings(time_cap=0.5),
    "time_cap 2^63-1": with_settings(time_cap=MAX_COUNT),
    "counts at 0": manifest(source(size=0, records=0, games=0, invalid=0, parts={})),
    "counts at 2^63-1": manifest(
        source(size=MAX_COUNT, records=MAX_COUNT, games=MAX_COUNT, invalid=0)
    ),
    "mtime_ns at -2^63": manifest(source(mtime_ns=-(2**63))),
    "mtime_ns at 2^63-1": manifest(source(mtime_ns=MAX_COUNT)),
    "totals at 2^63-1": manifest(
        source(0, records=2**62, games=2**62, invalid=0),
        source(1, records=2**62 - 1, games=2**62 - 1, invalid=0),
    ),
    "io_error": manifest(source(io_error={"code": "io.unreadable", "message": ""})),
    "seat_analysis with the analysis": manifest(
        source(parts={"seat_analysis": [part("seat_analysis", 0)]}),
        settings={**SETTINGS, "analysis": True},
    ),
    "every table": manifest(
        source(parts={table: [part(table, 0)] for table in TABLES}),
        settings={**SETTINGS, "analysis": True},
    ),
    "settings of a later ingest": with_settings(extra={"kept": True}),
    "no source": manifest(sources=[]),
}


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_each_field_at_its_bounds_is_read(tmp_path: Path, case: str) -> None:
    data = ACCEPTED[case]
    read = read_manifest(stored(tmp_path / "store", data))
    assert read is not None
    assert read.settings == data["settings"]
    assert [found.to_dict() for found in read.sources] == [
        {"io_error": None, **given} for given in data["sources"]
    ]
    assert read.store_version == 1


def test_a_count_below_minus_2_to_the_63_is_refused(tmp_path: Path) -> None:
    """JSON read by orjson holds no such integer (it reads one as a float), but a source
    given by Python may."""
    with pytest.raises(StoreError) as caught:
        checked_source(tmp_path, 2, source(mtime_ns=-(2**63) - 1), False)
    assert str(caught.value) == damaged_text(
        tmp_path,
        "sources[2].mtime_ns is -9223372036854775809, not a whole number from -2^63 to 2^63-1",
    )
    assert checked_source(tmp_path, 2, source(mtime_ns=-(2**63)), False)["mtime_ns"] == -(2**63)


def test_a_source_given_by_python_is_quoted_even_when_json_has_no_such_value(
    tmp_path: Path,
) -> None:
    with pytest.raises(StoreError) as caught:
        checked_source(tmp_path, 0, source(path=Path("corpus")), False)
    assert str(caught.value) == damaged_text(tmp_path, 'sources[0].path is "corpus", not a name')


def test_seat_analysis_is_a_table_of_an_analysed_store_only(tmp_path: Path) -> None:
    data = source(parts={"seat_analysis": [part("seat_analysis", 0)]})
    assert checked_source(tmp_path, 0, data, True) is data
    with pytest.raises(StoreError, match='names a table "seat_analysis" the store has not'):
        checked_source(tmp_path, 0, data, False)


def test_a_wrong_value_is_quoted_cut_at_80_characters_and_a_part_at_300(tmp_path: Path) -> None:
    long = "p" * 100
    error = refusal(tmp_path / "a", manifest(source(path=1.5)))
    assert str(error) == damaged_text(tmp_path / "a", "sources[0].path is 1.5, not a name")
    error = refusal(tmp_path / "b", manifest(source(sha256=long)))
    assert str(error) == damaged_text(
        tmp_path / "b", f'sources[0].sha256 is "{"p" * 79}…, not a sha256 digest'
    )
    exactly = '"' + "p" * 78 + '"'
    error = refusal(tmp_path / "c", manifest(source(sha256="p" * 78)))
    assert str(error) == damaged_text(
        tmp_path / "c", f"sources[0].sha256 is {exactly}, not a sha256 digest"
    )
    name = "/" + "q" * 400
    error = refusal(tmp_path / "d", manifest(source(parts={"games": [name]})))
    assert str(error) == damaged_text(
        tmp_path / "d", f"part {name[:300]}… is an absolute path, outside the store"
    )
    control = "\x1b[31m"
    error = refusal(tmp_path / "e", manifest(source(parts={"games": [control]})))
    assert str(error) == damaged_text(
        tmp_path / "e",
        "part \\x1b[31m is not a part file of games (parts/games/NAME.parquet)",
    )


# --- what is not a store, or not this version ----------------------------------------------


@pytest.mark.parametrize(
    "data", [[], "spades-replay store", {"kind": "my notes"}, {"store_version": 1}]
)
def test_a_manifest_of_another_kind_is_not_a_store(tmp_path: Path, data: object) -> None:
    error = refusal(tmp_path, data)
    assert error.code is None
    assert str(error) == (
        f"{tmp_path} is not a spades-replay store (manifest.json is not its manifest)"
    )


@pytest.mark.parametrize(
    ("version", "shown"),
    [("1", '"1"'), (True, "true"), (1.0, "1.0"), (2, "2"), (0, "0"), (MISSING, "null")],
)
def test_a_store_of_another_version_is_refused_with_how_to_rebuild(
    tmp_path: Path, version: object, shown: str
) -> None:
    error = refusal(tmp_path, manifest(store_version=version))
    assert error.code is None
    assert str(error) == (
        f"{tmp_path} is a store of version {shown}; this spades-replay reads store version 1: "
        f"rebuild it: spades-replay ingest PATH... --store {tmp_path} --rebuild"
    )


def test_a_manifest_that_is_not_json_is_damaged(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_bytes(b'{"kind": "spades-replay st')
    with pytest.raises(StoreError) as caught:
        read_manifest(tmp_path)
    assert caught.value.code is Code.STORE_DAMAGED
    assert str(caught.value) == damaged_text(tmp_path, "manifest.json is not JSON")


def test_no_manifest_is_no_store_yet(tmp_path: Path) -> None:
    assert read_manifest(tmp_path) is None
    assert read_manifest(tmp_path / "not made") is None


def test_a_file_is_not_a_store_directory(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(StoreError) as caught:
        read_manifest(str(tmp_path / "file"))
    assert str(caught.value) == f"{tmp_path / 'file'} is not a directory"
    assert caught.value.code is None


def test_an_unreadable_manifest_is_named_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").mkdir()
    with pytest.raises(StoreError) as caught:
        read_manifest(tmp_path)
    assert str(caught.value) == f"cannot read {tmp_path / 'manifest.json'}: Is a directory"
    assert caught.value.code is None


def test_open_manifest_tells_no_store_from_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(StoreError) as caught:
        open_manifest(tmp_path / "nothing")
    assert str(caught.value) == f"no such store: {tmp_path / 'nothing'}"
    with pytest.raises(StoreError) as caught:
        open_manifest(tmp_path)
    assert str(caught.value) == f"{tmp_path} is not a spades-replay store (no manifest.json)"
    assert caught.value.code is None


# --- a manifest replaced while it is read --------------------------------------------------


class Reads:
    """Stands for ``_manifest_bytes``: each read gives the next of ``found`` (the last one
    once they run out), and every manifest checked is counted."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *found: bytes) -> None:
        self.found = list(found)
        self.reads = 0
        self.checked: list[bytes] = []
        checked = layout._checked

        def counting(root: Path, raw: bytes) -> Manifest:
            self.checked.append(raw)
            return checked(root, raw)

        monkeypatch.setattr(layout, "_manifest_bytes", self.read)
        monkeypatch.setattr(layout, "_checked", counting)

    def read(self, root: Path) -> bytes:
        self.reads += 1
        return self.found[min(self.reads, len(self.found)) - 1]


def _missing_part(chunk: int) -> bytes:
    return orjson.dumps(manifest(source(parts={"games": [part("games", chunk)]})))


def test_a_manifest_replaced_while_checked_is_read_again_up_to_read_attempts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each read names another missing part: an ingest that keeps replacing it. The reader
    gives up after READ_ATTEMPTS checks and reports the last manifest's damage."""
    reads = Reads(monkeypatch, *(_missing_part(chunk) for chunk in range(10)))
    with pytest.raises(StoreError) as caught:
        read_manifest(tmp_path)
    assert READ_ATTEMPTS == 3
    assert reads.checked == [_missing_part(0), _missing_part(2), _missing_part(4)]
    assert str(caught.value) == damaged_text(tmp_path, f"part {part('games', 4)} is missing")


def test_a_damaged_manifest_that_stays_the_same_is_refused_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = Reads(monkeypatch, _missing_part(0))
    with pytest.raises(StoreError, match="is missing"):
        read_manifest(tmp_path)
    assert reads.checked == [_missing_part(0)]
    assert reads.reads == 2


def test_the_manifest_that_replaced_a_damaged_one_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = manifest(source(parts={}))
    reads = Reads(monkeypatch, _missing_part(0), orjson.dumps(good))
    found = read_manifest(tmp_path)
    assert found is not None
    assert found.sources[0].to_dict() == {"io_error": None, **good["sources"][0]}
    assert reads.checked == [_missing_part(0), orjson.dumps(good)]


def test_a_store_of_another_kind_is_refused_however_often_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = Reads(monkeypatch, b'{"kind": "a"}', b'{"kind": "b"}', b'{"kind": "c"}')
    with pytest.raises(StoreError, match="is not a spades-replay store"):
        read_manifest(tmp_path)
    assert reads.checked == [b'{"kind": "a"}']


# --- part names, part files, the parts folders ---------------------------------------------

PART_NAME_PROBLEMS: dict[str, tuple[str, str, str | None]] = {
    "good": (part("games", 0), "games", None),
    "any name ending .parquet": ("parts/games/x.parquet", "games", None),
    "absolute": ("/etc/x.parquet", "games", "is an absolute path, outside the store"),
    "absolute, leaving": ("/parts/../x.parquet", "games", "is an absolute path, outside the store"),
    "dot dot": (
        "parts/games/../x.parquet",
        "games",
        "leaves the store (a '..', '.' or empty step)",
    ),
    "dot": ("parts/./games/x.parquet", "games", "leaves the store (a '..', '.' or empty step)"),
    "empty step": ("parts//x.parquet", "games", "leaves the store (a '..', '.' or empty step)"),
    "trailing slash": ("parts/games/", "games", "leaves the store (a '..', '.' or empty step)"),
    "backslash": (
        "parts/games/a\\b.parquet",
        "games",
        "leaves the store (a '..', '.' or empty step)",
    ),
    "nul": ("parts/games/a\0.parquet", "games", "leaves the store (a '..', '.' or empty step)"),
    "other table": (
        part("games", 0),
        "records",
        "is not a part file of records (parts/records/NAME.parquet)",
    ),
    "not parquet": (
        "parts/games/x.csv",
        "games",
        "is not a part file of games (parts/games/NAME.parquet)",
    ),
    "too deep": (
        "parts/games/a/x.parquet",
        "games",
        "is not a part file of games (parts/games/NAME.parquet)",
    ),
    "too shallow": (
        "games/x.parquet",
        "games",
        "is not a part file of games (parts/games/NAME.parquet)",
    ),
    "other folder": (
        "other/games/x.parquet",
        "games",
        "is not a part file of games (parts/games/NAME.parquet)",
    ),
}


@pytest.mark.parametrize("case", sorted(PART_NAME_PROBLEMS))
def test_part_name_problem(case: str) -> None:
    name, table, problem = PART_NAME_PROBLEMS[case]
    assert part_name_problem(name, table) == problem


def _with_parts(*names: str) -> Manifest:
    return Manifest(
        {}, tuple(entry(number, {"games": [name]}) for number, name in enumerate(names))
    )


def _made(root: Path, *names: str) -> None:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(b"a part")


def _part_refusal(root: Path, manifest: Manifest) -> str:
    with pytest.raises(StoreError) as caught:
        check_part_files(root, manifest)
    assert caught.value.code is Code.STORE_DAMAGED
    return str(caught.value)


def test_check_part_files_passes_regular_files_inside_the_store(tmp_path: Path) -> None:
    names = (part("games", 0), part("games", 1), part("records", 0))
    _made(tmp_path, *names)
    check_part_files(
        tmp_path,
        Manifest({}, (entry(0, {"games": list(names[:2])}), entry(1, {"records": [names[2]]}))),
    )
    check_part_files(tmp_path, Manifest({}))


def test_a_store_reached_through_a_link_to_its_folder_is_read(tmp_path: Path) -> None:
    _made(tmp_path / "store", part("games", 0))
    (tmp_path / "link").symlink_to(tmp_path / "store")
    check_part_files(tmp_path / "link", _with_parts(part("games", 0)))


def test_a_missing_part_is_named(tmp_path: Path) -> None:
    _made(tmp_path, part("games", 0))
    assert _part_refusal(tmp_path, _with_parts(part("games", 0), part("games", 1))) == (
        damaged_text(tmp_path, f"part {part('games', 1)} is missing")
    )


def test_a_part_named_twice_is_named(tmp_path: Path) -> None:
    _made(tmp_path, part("games", 0))
    twice = damaged_text(tmp_path, f"part {part('games', 0)} is named twice")
    assert _part_refusal(tmp_path, _with_parts(part("games", 0), part("games", 0))) == twice
    one_source = Manifest({}, (entry(0, {"games": [part("games", 0), part("games", 0)]}),))
    assert _part_refusal(tmp_path, one_source) == twice


def test_a_part_through_a_symbolic_link_is_refused(tmp_path: Path) -> None:
    _made(tmp_path, part("games", 0))
    (tmp_path / part("games", 1)).symlink_to(tmp_path / part("games", 0))
    assert _part_refusal(tmp_path, _with_parts(part("games", 1))) == damaged_text(
        tmp_path, f"part {part('games', 1)} is reached through a symbolic link"
    )


def test_a_part_in_a_linked_folder_is_refused(tmp_path: Path) -> None:
    _made(tmp_path, part("records", 0))
    (tmp_path / "parts" / "games").symlink_to(tmp_path / "parts" / "records")
    name = part("games", 0)
    assert _part_refusal(tmp_path, _with_parts(name)) == damaged_text(
        tmp_path, f"part {name} is reached through a symbolic link"
    )


def test_a_part_that_is_a_folder_or_a_fifo_is_not_a_regular_file(tmp_path: Path) -> None:
    (tmp_path / part("games", 0)).mkdir(parents=True)
    os.mkfifo(tmp_path / part("games", 1))
    for name in (part("games", 0), part("games", 1)):
        assert _part_refusal(tmp_path, _with_parts(name)) == damaged_text(
            tmp_path, f"part {name} is not a regular file"
        )


def test_a_part_that_cannot_be_looked_at_is_named_with_the_reason(tmp_path: Path) -> None:
    _made(tmp_path, "parts/games/file.parquet")
    name = "parts/games/file.parquet/x.parquet"
    assert _part_refusal(tmp_path, _with_parts(name)) == damaged_text(
        tmp_path, f"part {name} cannot be read: Not a directory"
    )


def test_a_long_part_name_is_cut_at_300_characters(tmp_path: Path) -> None:
    name = "parts/games/" + "a" * 200 + "/" + "b" * 200 + ".parquet"
    assert _part_refusal(tmp_path, _with_parts(name)) == damaged_text(
        tmp_path, f"part {name[:300]}… is missing"
    )


def test_the_parts_folders_are_real_folders(tmp_path: Path) -> None:
    check_parts_directory(tmp_path)
    (tmp_path / "parts" / "games").mkdir(parents=True)
    check_parts_directory(tmp_path)
    for table in TABLES:
        (tmp_path / "elsewhere" / table).mkdir(parents=True)
        link = tmp_path / "parts" / table
        if table == "games":
            link.rmdir()
        link.symlink_to(tmp_path / "elsewhere" / table)
        with pytest.raises(StoreError) as caught:
            check_parts_directory(tmp_path)
        assert str(caught.value) == damaged_text(
            tmp_path, f"parts/{table} is not a folder of the store"
        )
        link.unlink()


def test_a_parts_file_or_link_is_not_the_parts_folder(tmp_path: Path) -> None:
    (tmp_path / "parts").write_text("x")
    with pytest.raises(StoreError) as caught:
        check_parts_directory(tmp_path)
    assert caught.value.code is Code.STORE_DAMAGED
    assert str(caught.value) == damaged_text(tmp_path, "parts is not a folder of the store")


def test_a_parts_folder_that_cannot_be_looked_at_is_named_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lstat = os.lstat

    def failing(path: Any) -> os.stat_result:
        if Path(path) == tmp_path / "parts" / "records":
            raise OSError(errno.EIO, os.strerror(errno.EIO), str(path))
        return lstat(path)

    (tmp_path / "parts" / "records").mkdir(parents=True)
    monkeypatch.setattr(layout.os, "lstat", failing)
    with pytest.raises(StoreError) as caught:
        check_parts_directory(tmp_path)
    assert str(caught.value) == damaged_text(
        tmp_path, f"parts/records cannot be read: {os.strerror(errno.EIO)}"
    )


def test_read_manifest_checks_the_folders_and_the_files(tmp_path: Path) -> None:
    root = stored(tmp_path / "store", manifest())
    assert read_manifest(root) is not None
    (root / part("records", 0)).unlink()
    with pytest.raises(StoreError) as caught:
        read_manifest(root)
    assert str(caught.value) == damaged_text(root, f"part {part('records', 0)} is missing")
    (root / part("records", 0)).write_bytes(b"a part")
    (tmp_path / "problems").mkdir()
    (root / "parts" / "problems").symlink_to(tmp_path / "problems")
    with pytest.raises(StoreError) as caught:
        read_manifest(root)
    assert str(caught.value) == damaged_text(root, "parts/problems is not a folder of the store")


# --- rebuilding ------------------------------------------------------------------------------


def test_rebuild_refuses_another_programs_manifest(tmp_path: Path) -> None:
    for text in ('{"kind": "my notes"}', "{}"):
        (tmp_path / "manifest.json").write_text(text)
        with pytest.raises(StoreError) as caught:
            clear_for_rebuild(tmp_path)
        assert caught.value.code is None
        assert str(caught.value) == (
            f"{tmp_path} is not a spades-replay store (manifest.json is not its manifest): "
            "it is not rebuilt"
        )
        assert (tmp_path / "manifest.json").read_text() == text


@pytest.mark.parametrize(
    "text",
    [None, b'{"kind": "spades-replay st', b"[1, 2]", b'"my notes"', orjson.dumps(manifest())],
)
def test_rebuild_takes_a_store_a_damaged_manifest_or_none(
    tmp_path: Path, text: bytes | None
) -> None:
    """A manifest that is not JSON, or JSON but not an object, is a damaged store's: it is
    rebuilt. Missing folders are no matter."""
    if text is not None:
        (tmp_path / "manifest.json").write_bytes(text)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "parts").symlink_to(tmp_path / "elsewhere")
    clear_for_rebuild(tmp_path)
    assert not (tmp_path / "parts").exists()
    assert (tmp_path / "elsewhere").is_dir()
    if text is not None:
        assert (tmp_path / "manifest.json").read_bytes() == text


def test_rebuild_removes_the_links_of_table_folders_only_never_their_targets(
    tmp_path: Path,
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.parquet").write_bytes(b"precious")
    (outside / "file").write_bytes(b"precious too")
    root = tmp_path / "store"
    (root / "parts" / "games").mkdir(parents=True)
    (root / "parts" / "games" / "notes.txt").write_text("mine")
    links = [table for table in TABLES if table != "games"]
    for table in links:
        (root / "parts" / table).symlink_to(outside if table != "records" else outside / "file")
    clear_for_rebuild(root)
    assert sorted(path.name for path in (root / "parts").iterdir()) == ["games"]
    assert (root / "parts" / "games" / "notes.txt").read_text() == "mine"
    assert (outside / "keep.parquet").read_bytes() == b"precious"
    assert (outside / "file").read_bytes() == b"precious too"


# --- writing the manifest ------------------------------------------------------------------


def test_the_manifest_is_replaced_atomically_whatever_step_fails(tmp_path: Path) -> None:
    old = Manifest(copy.deepcopy(SETTINGS), (entry(0, {}),))
    new = Manifest(copy.deepcopy(SETTINGS), (entry(0, {}), entry(1, {})))
    write_manifest(tmp_path, old)
    with Faults(tmp_path) as counting:
        write_manifest(tmp_path, new)
    assert (tmp_path / "manifest.json").read_bytes() == new.to_bytes()
    kinds = [operation.kind for operation in counting.seen]
    assert "write" in kinds
    assert kinds[-2:] == ["fsync", "rename"]
    assert counting.seen[-1].path == str(tmp_path / "manifest.json")
    for index in range(len(counting.seen)):
        write_manifest(tmp_path, old)
        with Faults(tmp_path, fail_at=index), pytest.raises(OSError, match="injected fault"):
            write_manifest(tmp_path, new)
        assert os.listdir(tmp_path) == ["manifest.json"], index
        assert (tmp_path / "manifest.json").read_bytes() == old.to_bytes(), index


# --- the lock --------------------------------------------------------------------------------


def _open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_a_second_lock_is_refused_and_the_first_released_lets_another_in(tmp_path: Path) -> None:
    before = _open_files()
    with StoreLock(tmp_path) as held:
        assert isinstance(held, StoreLock)
        assert _open_files() == before + 1
        # a second lock that waits, as it must not, is let in after a while: the test fails
        # rather than waiting for ever
        release = threading.Timer(5, held.__exit__)
        release.start()
        with pytest.raises(StoreError) as caught:
            StoreLock(tmp_path).__enter__()
        release.cancel()
        assert str(caught.value) == (
            f"another ingest is writing {tmp_path}; run again when it is done, or with --wait "
            "to wait for it"
        )
        assert caught.value.code is None
        assert _open_files() == before + 1
    assert _open_files() == before
    with StoreLock(tmp_path):
        pass
    assert (tmp_path / ".lock").stat().st_mode & 0o777 == 0o644 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_leaving_a_lock_twice_or_unheld_is_harmless(tmp_path: Path) -> None:
    lock = StoreLock(tmp_path)
    lock.__exit__(None, None, None)
    before = _open_files()
    lock.__enter__()
    lock.__exit__(None, None, None)
    lock.__exit__(None, None, None)
    assert _open_files() == before
    with StoreLock(tmp_path):
        pass


@pytest.mark.parametrize("tell", [True, False])
def test_a_waiting_lock_is_told_then_takes_the_lock_once_it_is_released(
    tmp_path: Path, tell: bool
) -> None:
    told = threading.Event()
    taken = threading.Event()
    holder = StoreLock(tmp_path).__enter__()

    def waiting() -> None:
        with StoreLock(tmp_path, wait=True, on_wait=told.set if tell else None):
            taken.set()

    thread = threading.Thread(target=waiting, daemon=True)
    thread.start()
    if tell:
        assert told.wait(10)
    assert not taken.wait(0.3)
    holder.__exit__(None, None, None)
    thread.join(10)
    assert taken.is_set()
    assert told.is_set() is tell


def test_a_lock_that_cannot_be_opened_is_named_with_the_reason(tmp_path: Path) -> None:
    with pytest.raises(StoreError) as caught:
        StoreLock(tmp_path / "nothing").__enter__()
    assert str(caught.value) == (
        f"cannot lock {tmp_path / 'nothing' / '.lock'}: No such file or directory"
    )


@pytest.mark.parametrize("wait", [False, True])
def test_a_lock_the_system_refuses_is_named_with_the_reason_and_never_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wait: bool
) -> None:
    def refusing(fd: int, operation: int) -> None:
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    told: list[bool] = []
    monkeypatch.setattr(layout.fcntl, "flock", refusing)
    before = _open_files()
    with pytest.raises(StoreError) as caught:
        StoreLock(tmp_path, wait=wait, on_wait=lambda: told.append(True)).__enter__()
    assert str(caught.value) == f"cannot lock {tmp_path / '.lock'}: {os.strerror(errno.ENOLCK)}"
    assert told == []
    assert _open_files() == before


# --- part files and their clean-up ---------------------------------------------------------

PARTIAL = f".{KEY}-{DIGEST}-00007.parquet.x1y2z3.partial"


def _file(path: Path, data: bytes = b"a part") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _layout(root: Path, outside: Path) -> dict[str, Path]:
    """A store's folders holding ingest's own files, and others': what each is."""
    _file(outside / "precious.parquet", b"precious")
    own = {  # made in neither their order nor its reverse, which a folder may list them in
        "games 2": _file(root / part("games", 2)),
        "games 0": _file(root / part("games", 0)),
        "games partial": _file(root / "parts" / "games" / PARTIAL),
        "games 1": _file(root / part("games", 1)),
        "problems 3": _file(root / part("problems", 3, key="ffffffffffffffff")),
        "side_hands 2": _file(root / part("side_hands", 2)),
        "seat_analysis 0": _file(root / part("seat_analysis", 0)),
    }
    for other in (
        "parts/games/notes.txt",
        f"parts/games/{KEY}-{DIGEST}-00001.parquet.bak",
        f"parts/games/{KEY.upper()}-{DIGEST}-00001.parquet",
        f"parts/games/{KEY}-{DIGEST}-0001.parquet",
        f"parts/games/{KEY}-{DIGEST}-00001.parquetx",
        f"parts/games/x{KEY}-{DIGEST}-00001.parquet",
        f"parts/games/.{KEY}-{DIGEST}-00008.parquet.d.partial/x",
        f"parts/{KEY}-{DIGEST}-00001.parquet",
        f"parts/evil/{KEY}-{DIGEST}-00001.parquet",
        f"{KEY}-{DIGEST}-00001.parquet",
    ):
        _file(root / other, b"not ingest's")
    (root / part("records", 5)).parent.mkdir(parents=True)
    (root / part("records", 5)).symlink_to(outside / "precious.parquet")
    (root / part("seat_hands", 6)).mkdir(parents=True)
    return own


def test_part_files_are_ingests_own_files_table_by_table(tmp_path: Path) -> None:
    own = _layout(tmp_path / "store", tmp_path / "outside")
    assert list(part_files(tmp_path / "store")) == [
        own[name]
        for name in (
            "games partial",
            "games 0",
            "games 1",
            "games 2",
            "side_hands 2",
            "seat_analysis 0",
            "problems 3",
        )
    ]


def test_part_files_never_go_through_a_link(tmp_path: Path) -> None:
    assert list(part_files(tmp_path)) == []
    _file(tmp_path / "outside" / "games" / f"{KEY}-{DIGEST}-00001.parquet")
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "parts").symlink_to(tmp_path / "outside")
    assert list(part_files(tmp_path / "store")) == []
    (tmp_path / "store" / "parts").unlink()
    (tmp_path / "store" / "parts").mkdir()
    (tmp_path / "store" / "parts" / "games").symlink_to(tmp_path / "outside" / "games")
    kept = _file(tmp_path / "store" / part("records", 2))
    assert list(part_files(tmp_path / "store")) == [kept]


def test_a_file_gone_before_it_is_looked_at_is_no_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gone = _file(tmp_path / part("games", 0))
    kept = _file(tmp_path / part("games", 1))
    iterdir = Path.iterdir

    def racing(folder: Path) -> Iterator[Path]:
        found = list(iterdir(folder))
        if folder.name == "games":
            gone.unlink()  # another process removed it since
        return iter(found)

    monkeypatch.setattr(Path, "iterdir", racing)
    assert list(part_files(tmp_path)) == [kept]


def test_remove_unreferenced_removes_ingests_files_the_manifest_does_not_name(
    tmp_path: Path,
) -> None:
    root = tmp_path / "store"
    own = _layout(root, tmp_path / "outside")
    everything = sorted(path for path in root.rglob("*"))
    named = Manifest(
        {},
        (
            entry(0, {"games": [part("games", 0)]}),
            entry(1, {"side_hands": [part("side_hands", 2)]}),
        ),
    )
    assert remove_unreferenced(root, named) == 5
    removed = {
        own[name]
        for name in ("games 1", "games 2", "games partial", "problems 3", "seat_analysis 0")
    }
    assert sorted(path for path in root.rglob("*")) == [
        path for path in everything if path not in removed
    ]
    assert (tmp_path / "outside" / "precious.parquet").read_bytes() == b"precious"
    assert remove_unreferenced(root, named) == 0


def test_remove_unreferenced_removes_a_killed_writers_manifest_only(tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    target = _file(tmp_path / "outside" / "target", b"precious")
    root = tmp_path / "store"
    stale = [
        _file(root / ".manifest.json.k2j3h4.partial"),
        _file(root / ".manifest.json..partial"),
    ]
    kept = [
        _file(root / "manifest.json", b"{}"),
        _file(root / ".manifest.json.k2j3h4.partial.bak"),
        _file(root / "manifest.json.k2j3h4.partial"),
        _file(root / ".manifest.json.partial"),
        _file(root / ".other.json.k2j3h4.partial"),
        _file(root / "parts" / ".manifest.json.k2j3h4.partial"),
    ]
    (root / ".manifest.json.dir.partial").mkdir()
    (root / ".manifest.json.link.partial").symlink_to(target)
    kept += [root / ".manifest.json.dir.partial", root / ".manifest.json.link.partial"]
    assert remove_unreferenced(root, Manifest({})) == 0
    assert not any(path.exists() for path in stale)
    assert all(path.exists() for path in kept)
    assert target.read_bytes() == b"precious"


def test_remove_unreferenced_counts_only_what_it_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A part or a stale manifest removed by another process meanwhile is no error, and
    is not counted."""
    first = _file(tmp_path / part("games", 0))
    second = _file(tmp_path / part("games", 1))
    stale = _file(tmp_path / ".manifest.json.abc.partial")
    listed = part_files
    is_regular = layout._is_regular

    def racing(directory: Path) -> Iterator[Path]:
        for path in listed(directory):
            if path == first:
                path.unlink()
            yield path

    def stale_gone(path: Path) -> bool:
        regular = is_regular(path)
        if path == stale:
            path.unlink()
        return regular

    monkeypatch.setattr(layout, "part_files", racing)
    monkeypatch.setattr(layout, "_is_regular", stale_gone)
    assert remove_unreferenced(tmp_path, Manifest({})) == 1
    assert not second.exists()
    assert not stale.exists()


# --- the errors ------------------------------------------------------------------------------


def test_a_store_error_carries_its_code_after_the_message() -> None:
    plain = StoreError("cannot lock it")
    assert (str(plain), plain.code) == ("cannot lock it", None)
    coded = StoreError("it is damaged", Code.STORE_DAMAGED)
    assert (str(coded), coded.code) == ("it is damaged [store.damaged]", Code.STORE_DAMAGED)


def test_damaged_names_the_store_cut_at_500_characters_and_how_to_rebuild() -> None:
    deep = Path("/" + "d" * 600)
    shown = "/" + "d" * 499 + "…"
    assert (
        rebuild_hint(deep) == f"rebuild it: spades-replay ingest PATH... --store {shown} --rebuild"
    )
    assert rebuild_hint(Path("/s\nx")) == (
        "rebuild it: spades-replay ingest PATH... --store /s\\x0ax --rebuild"
    )
    error = damaged(deep, "it is wrong")
    assert error.code is Code.STORE_DAMAGED
    assert str(error) == (
        f"the store {shown} is damaged: it is wrong; rebuild it: spades-replay ingest PATH... "
        f"--store {shown} --rebuild [store.damaged]"
    )
    exactly = Path("/" + "e" * 499)
    assert str(damaged(exactly, "x")).startswith(f"the store {exactly} is damaged: x;")


def _long_folder(base: Path, length: int) -> Path:
    """A folder under ``base`` whose path is ``length`` characters long (in steps of at most
    200 characters, under the system's limit on one name)."""
    folder = base
    while len(str(folder)) < length:
        room = length - len(str(folder)) - 1
        folder = folder / ("d" * min(room, 200) if room > 0 else "d")
    folder.mkdir(parents=True)
    assert len(str(folder)) == length
    return folder


def test_every_message_naming_a_store_cuts_its_path_at_500_characters(tmp_path: Path) -> None:
    """A path of 501 characters is shown as its first 500 and an ellipsis, in each message
    that names a store or its manifest without calling it damaged."""
    file = _long_folder(tmp_path / "a", 500) / "f"
    file.write_text("x")
    assert len(str(file)) == 502
    with pytest.raises(StoreError) as caught:
        read_manifest(file)
    assert str(caught.value) == f"{str(file)[:500]}… is not a directory"

    root = _long_folder(tmp_path / "b", 501 - len("/manifest.json"))
    (root / "manifest.json").mkdir()
    path = str(root / "manifest.json")
    with pytest.raises(StoreError) as caught:
        read_manifest(root)
    assert str(caught.value) == f"cannot read {path[:500]}…: Is a directory"

    store = _long_folder(tmp_path / "c", 501)
    shown = f"{str(store)[:500]}…"
    (store / "manifest.json").write_text('{"kind": "my notes"}')
    with pytest.raises(StoreError) as caught:
        read_manifest(store)
    assert str(caught.value) == (
        f"{shown} is not a spades-replay store (manifest.json is not its manifest)"
    )
    with pytest.raises(StoreError) as caught:
        clear_for_rebuild(store)
    assert str(caught.value) == (
        f"{shown} is not a spades-replay store (manifest.json is not its manifest): "
        "it is not rebuilt"
    )
    (store / "manifest.json").write_bytes(orjson.dumps(manifest(store_version=2)))
    with pytest.raises(StoreError) as caught:
        read_manifest(store)
    assert str(caught.value) == (
        f"{shown} is a store of version 2; this spades-replay reads store version 1: "
        f"rebuild it: spades-replay ingest PATH... --store {shown} --rebuild"
    )


def test_every_message_naming_a_part_cuts_it_at_300_characters(tmp_path: Path) -> None:
    """A part name of 301 characters is shown as its first 300 and an ellipsis, whatever is
    wrong with it."""
    folder = "parts/games/" + "a" * 200
    name = folder + "/" + "b" * (301 - len(folder) - 1 - len(".parquet")) + ".parquet"
    assert len(name) == 301
    shown = f"part {name[:300]}…"
    _made(tmp_path, name)
    assert _part_refusal(tmp_path, _with_parts(name, name)) == damaged_text(
        tmp_path, f"{shown} is named twice"
    )
    (tmp_path / name).unlink()
    os.mkfifo(tmp_path / name)
    assert _part_refusal(tmp_path, _with_parts(name)) == damaged_text(
        tmp_path, f"{shown} is not a regular file"
    )
    (tmp_path / name).unlink()
    _made(tmp_path, part("games", 0))
    (tmp_path / name).symlink_to(tmp_path / part("games", 0))
    assert _part_refusal(tmp_path, _with_parts(name)) == damaged_text(
        tmp_path, f"{shown} is reached through a symbolic link"
    )
    too_long = "parts/games/" + "c" * 281 + ".parquet"
    assert len(too_long) == 301
    assert _part_refusal(tmp_path, _with_parts(too_long)) == damaged_text(
        tmp_path, f"part {too_long[:300]}… cannot be read: File name too long"
    )


def test_a_lock_the_system_fails_to_release_is_still_let_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Leaving a lock whose release the system refuses closes its file all the same, and
    raises nothing: the lock goes with the file."""
    lock = StoreLock(tmp_path)
    lock.__enter__()
    before = _open_files()
    real = layout.fcntl.flock

    def refuse_release(fd: int, operation: int) -> None:
        if operation == layout.fcntl.LOCK_UN:
            raise OSError(errno.EIO, "Input/output error")
        real(fd, operation)

    monkeypatch.setattr(layout.fcntl, "flock", refuse_release)
    lock.__exit__(None, None, None)
    assert _open_files() == before - 1
    monkeypatch.setattr(layout.fcntl, "flock", real)
    with StoreLock(tmp_path):
        pass

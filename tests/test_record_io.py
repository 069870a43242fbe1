"""The record layer: load/loads/dump/dumps, canonical output, extensions, versions, and
format errors with their codes and JSON Pointers."""

from __future__ import annotations

import copy
import gzip
import io
from pathlib import Path
from typing import Any

import orjson
import pytest

import spades_replay
from spades_replay.errors import Code, FormatError
from spades_replay.record.io import dump, dumps, from_data, loads, to_data
from spades_replay.record.models import KEY_ORDER
from spades_replay.record.problems import json_pointer

from .conftest import CONFORMANCE

TWO = CONFORMANCE / "valid" / "two-player-06.json"
FOUR = CONFORMANCE / "valid" / "four-player-01.json"
ALL_VALID = sorted((CONFORMANCE / "valid").glob("*.json"))


def data_of(path: Path) -> dict[str, Any]:
    value: dict[str, Any] = orjson.loads(path.read_bytes())
    return value


@pytest.mark.parametrize("path", ALL_VALID, ids=lambda path: path.name)
def test_round_trip(path: Path) -> None:
    record = spades_replay.load(path)
    text = dumps(record)
    assert loads(text) == record
    assert dumps(loads(text)) == text
    assert loads(dumps(record, indent=True)) == record


def test_output_is_canonical() -> None:
    data = data_of(TWO)
    data["x-zeta"] = 1
    data["x-alpha"] = {"nested": [1, 2]}
    data["meta"] = {"site": "club", "event": "finals"}
    shuffled = dict(reversed(list(data.items())))
    first, second = from_data(data), from_data(shuffled)
    assert first == second
    assert dumps(first) == dumps(second)
    keys = list(orjson.loads(dumps(first)))
    assert keys == [key for key in KEY_ORDER if key in keys] + ["x-alpha", "x-zeta"]
    assert list(orjson.loads(dumps(first))["meta"]) == ["event", "site"]


def test_rules_are_written_fully_resolved() -> None:
    data = data_of(TWO)
    data["rules"] = {"target_score": 300}
    written = orjson.loads(dumps(from_data(data)))["rules"]
    assert written == {
        "target_score": 300,
        "bag_limit": 10,
        "bag_penalty": 100,
        "nil_bonus": 100,
        "blind_nil_bonus": 200,
        "blind_nil_exchange": 3,
        "failed_nil_tricks_count_as_bags": True,
        "failed_nil_tricks_help_partner": False,
        "lose_score": None,
    }
    del data["rules"]
    assert orjson.loads(dumps(from_data(data)))["rules"]["target_score"] == 500


def test_extensions_are_kept_everywhere() -> None:
    data = data_of(FOUR)
    data["x-app"] = {"build": 17}
    data["players"][0]["x-avatar"] = "fox.png"
    data["hands"][0]["x-table"] = 4
    data["hands"][0]["result"]["x-note"] = "close"
    data["rules"]["x-house"] = "club"
    back = orjson.loads(dumps(from_data(data)))
    assert back["x-app"] == {"build": 17}
    assert back["players"][0]["x-avatar"] == "fox.png"
    assert back["hands"][0]["x-table"] == 4
    assert back["hands"][0]["result"]["x-note"] == "close"
    assert back["rules"]["x-house"] == "club"


def test_dump_writes_files_and_gzip(tmp_path: Path) -> None:
    record = spades_replay.load(TWO)
    plain = tmp_path / "game.json"
    packed = tmp_path / "game.json.gz"
    dump(record, plain)
    dump(record, packed)
    assert plain.read_bytes().endswith(b"\n")
    assert spades_replay.load(plain) == record
    assert spades_replay.load(packed) == record
    assert gzip.decompress(packed.read_bytes()) == plain.read_bytes()
    stream = io.BytesIO()
    dump(record, stream, indent=False)
    assert stream.getvalue() == dumps(record) + b"\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json", "game.json.gz"]


def test_a_bom_is_ignored_and_bad_encodings_are_reported() -> None:
    raw = TWO.read_bytes()
    assert loads(b"\xef\xbb\xbf" + raw) == loads(raw)
    with pytest.raises(FormatError) as caught:
        loads(raw.replace(b'"Megan"', b'"Meg\xffan"'))
    assert caught.value.problem.code is Code.FORMAT_ENCODING


def mutate(path: Path, change: Any) -> bytes:
    data = copy.deepcopy(data_of(path))
    change(data)
    return orjson.dumps(data)


def setter(pointer: str, value: Any) -> Any:
    parts = [int(p) if p.isdigit() else p for p in pointer.strip("/").split("/")]

    def change(data: Any) -> None:
        for part in parts[:-1]:
            data = data[part]
        data[parts[-1]] = value

    return change


def deleter(pointer: str) -> Any:
    parts = [int(p) if p.isdigit() else p for p in pointer.strip("/").split("/")]

    def change(data: Any) -> None:
        for part in parts[:-1]:
            data = data[part]
        del data[parts[-1]]

    return change


FORMAT_ERRORS = [
    # (path, change, code, pointer)
    (TWO, setter("/format", "spades"), Code.FORMAT_NOT_A_RECORD, "/format"),
    (TWO, deleter("/format"), Code.FORMAT_NOT_A_RECORD, "/format"),
    (TWO, setter("/version", "1.2"), Code.FORMAT_VERSION, "/version"),
    (TWO, setter("/version", "2.0"), Code.FORMAT_VERSION, "/version"),
    (TWO, setter("/version", "1"), Code.FORMAT_VERSION, "/version"),
    (TWO, setter("/version", 1.0), Code.FORMAT_VERSION, "/version"),
    (TWO, setter("/variant", "three-player"), Code.FORMAT_VARIANT, "/variant"),
    (TWO, deleter("/variant"), Code.FORMAT_VARIANT, "/variant"),
    (TWO, deleter("/hands/0/plays"), Code.FORMAT_MISSING_KEY, "/hands/0/plays"),
    (TWO, setter("/hands/0/playz", []), Code.FORMAT_UNKNOWN_KEY, "/hands/0/playz"),
    (TWO, setter("/players/1/nick", "d"), Code.FORMAT_UNKNOWN_KEY, "/players/1/nick"),
    (TWO, setter("/rules/target", 300), Code.FORMAT_UNKNOWN_KEY, "/rules/target"),
    (TWO, setter("/hands/0/deck/3", "1H"), Code.FORMAT_CARD, "/hands/0/deck/3"),
    (TWO, setter("/hands/0/plays/0", "as"), Code.FORMAT_CARD, "/hands/0/plays/0"),
    (TWO, setter("/hands/0/plays/0", 5), Code.FORMAT_CARD, "/hands/0/plays/0"),
    (TWO, setter("/hands/0/bids/1", 14), Code.FORMAT_BID, "/hands/0/bids/1"),
    (TWO, setter("/hands/0/bids/1", -1), Code.FORMAT_BID, "/hands/0/bids/1"),
    (TWO, setter("/hands/0/bids/1", "nil"), Code.FORMAT_BID, "/hands/0/bids/1"),
    (TWO, setter("/hands/0/bids/1", True), Code.FORMAT_BID, "/hands/0/bids/1"),
    (TWO, setter("/hands/0/bids/1", 4.0), Code.FORMAT_BID, "/hands/0/bids/1"),
    (TWO, setter("/hands/0/draft", "KD"), Code.FORMAT_DRAFT, "/hands/0/draft"),
    (TWO, setter("/hands/0/draft", 5), Code.FORMAT_DRAFT, "/hands/0/draft"),
    (TWO, setter("/hands/0/bids", [1, 2, 3]), Code.FORMAT_COUNT, "/hands/0/bids"),
    (TWO, setter("/players", [{"name": "a"}]), Code.FORMAT_COUNT, "/players"),
    (FOUR, setter("/hands/0/deal/2", ["AS"]), Code.FORMAT_COUNT, "/hands/0/deal/2"),
    (TWO, setter("/first_dealer", 2), Code.FORMAT_RANGE, "/first_dealer"),
    (TWO, setter("/first_dealer", True), Code.FORMAT_TYPE, "/first_dealer"),
    (TWO, setter("/rules/target_score", 0), Code.FORMAT_RANGE, "/rules/target_score"),
    (TWO, setter("/rules/target_score", "500"), Code.FORMAT_TYPE, "/rules/target_score"),
    (
        TWO,
        setter("/rules/failed_nil_tricks_count_as_bags", 1),
        Code.FORMAT_TYPE,
        "/rules/failed_nil_tricks_count_as_bags",
    ),
    (TWO, setter("/rules/lose_score", 600), Code.FORMAT_VALUE, "/rules/lose_score"),
    (TWO, setter("/players/0/name", ""), Code.FORMAT_RANGE, "/players/0/name"),
    (TWO, setter("/players/0", "Megan"), Code.FORMAT_TYPE, "/players/0"),
    (TWO, setter("/hands", {}), Code.FORMAT_TYPE, "/hands"),
    (TWO, setter("/meta", {"site": 5}), Code.FORMAT_TYPE, "/meta/site"),
    (TWO, setter("/result", {"winner": 3, "scores": [1, 2]}), Code.FORMAT_RANGE, "/result/winner"),
    (
        TWO,
        setter("/hands/0/exchanges", [{"seat": 0, "out": []}]),
        Code.FORMAT_MISSING_KEY,
        "/hands/0/exchanges/0/in",
    ),
]


@pytest.mark.parametrize(("path", "change", "code", "pointer"), FORMAT_ERRORS)
def test_format_errors(path: Path, change: Any, code: Code, pointer: str) -> None:
    with pytest.raises(FormatError) as caught:
        loads(mutate(path, change))
    problems = caught.value.problems
    assert (problems[0].code, problems[0].pointer) == (code, pointer), [str(p) for p in problems]
    assert all(problem.code.family.value == "format" for problem in problems)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (b"", Code.FORMAT_JSON),
        (b"{oops", Code.FORMAT_JSON),
        (b"[1, 2]", Code.FORMAT_NOT_OBJECT),
        (b'"a string"', Code.FORMAT_NOT_OBJECT),
        (b"NaN", Code.FORMAT_JSON),
        (b'{"format": "spades-replay"', Code.FORMAT_JSON),
        # opening as a word or a number is not being one
        (b"this is not json {", Code.FORMAT_JSON),
        (b"nope", Code.FORMAT_JSON),
        (b"12abc", Code.FORMAT_JSON),
        (b" true", Code.FORMAT_NOT_OBJECT),
        (b"-12.5", Code.FORMAT_NOT_OBJECT),
        (b"null\n", Code.FORMAT_NOT_OBJECT),
    ],
)
def test_not_a_record(text: bytes, code: Code) -> None:
    with pytest.raises(FormatError) as caught:
        loads(text)
    assert caught.value.problem.code is code


def test_messages_quote_the_input() -> None:
    with pytest.raises(FormatError) as caught:
        loads(mutate(TWO, setter("/hands/0/plays/2", "ZZ")))
    assert "'ZZ' is not a card" in caught.value.problem.message
    with pytest.raises(FormatError) as caught:
        loads(mutate(TWO, setter("/version", "3.1")))
    message = caught.value.problem.message
    assert "3.1" in message
    assert "1.0" in message


def test_a_misspelt_key_is_reported_before_the_missing_one() -> None:
    def rename(data: dict[str, Any]) -> None:
        data["playres"] = data.pop("players")

    with pytest.raises(FormatError) as caught:
        loads(mutate(TWO, rename))
    codes = [problem.code for problem in caught.value.problems]
    assert codes == [Code.FORMAT_UNKNOWN_KEY, Code.FORMAT_MISSING_KEY]


def test_json_pointer_escapes() -> None:
    assert json_pointer(["a/b", "c~d", 3]) == "/a~1b/c~0d/3"


def test_to_data_is_plain_json() -> None:
    data = to_data(spades_replay.load(FOUR))
    assert orjson.loads(orjson.dumps(data)) == data
    assert data["rules"]["lose_score"] is None


def test_a_located_problem_keeps_every_other_field() -> None:
    """``Problem.located`` copies field by field: a field added to ``Problem`` and left out
    of the copy fails here."""

    from spades_replay.errors import Code, Problem

    values: dict[str, object] = {
        "code": Code.PLAY_REVOKE,
        "legal": ("2♦",),
        "hand": 1,
        "trick": 2,
        "card": 3,
        "seat": 0,
        "line": 4,
    }
    problem = Problem(
        **{  # type: ignore[arg-type]
            name: values.get(name, f"the {name}") for name in Problem._fields
        }
    )
    assert problem.located("elsewhere", 9) == problem._replace(source="elsewhere", line=9)
    assert problem.located(None) == problem._replace(source=None, line=None)


@pytest.mark.parametrize(
    "data",
    [
        b"{}",
        b"  {}",
        b"\xef\xbb\xbf{}",
        b"[]",
        b"7",
        b'"x"',
        b"{",
        b"{} {}",
        b'{"format": null}',
        b'{"format": "Spades-replay", "version": "1.0"}',
        b'{"format": "spades-replay"}',
        b'{"format": "spades-replay", "version": 1.0}',
        b'{"format": "spades-replay", "version": "2.0"}',
        b'{"format": "spades-replay", "version": "1.9"}',
        b'{"format": "spades-replay", "version": "01.0"}',
        b'{"format": "spades-replay", "version": "1.0\\n"}',
        b'{"format": "spades-replay", "version": "1.0"}',
        b" " * 300,
    ],
)
def test_what_is_refused_before_the_models_is_what_loads_refuses(data: bytes) -> None:
    """``refuse_early`` raises exactly the error ``loads`` raises, or nothing where only the
    models can tell; and a valid record passes it."""
    from spades_replay.errors import Problem
    from spades_replay.plumbing.limits import Limits
    from spades_replay.record.header import refuse_early

    for limits in (Limits(), Limits(record_bytes=100)):
        early: tuple[Problem, ...] = ()
        try:
            refuse_early(data, limits)
        except FormatError as error:
            early = error.problems
        with pytest.raises(FormatError) as late:
            loads(data, limits)
        assert early in ((), late.value.problems)
    refuse_early(TWO.read_bytes())
    for refused in (b"{}", b"[]", b'{"format": "spades-replay", "version": "2.0"}'):
        with pytest.raises(FormatError):
            refuse_early(refused)

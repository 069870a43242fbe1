"""Format versions: the reader reads 1.0 and 1.1, a 1.1 option in a 1.0 record is a format
error, writers write 1.1 with every option resolved, and records move between the versions
without changing what they mean."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

import spades_replay
from spades_replay.engine.rules import Rules
from spades_replay.engine.seats import Variant
from spades_replay.errors import Code, FormatError
from spades_replay.play.simulate import simulate_game
from spades_replay.record.io import dumps, loads, to_data
from spades_replay.record.models import OPTIONS_1_1, VERSIONS
from spades_replay.record.versions import at_version
from spades_replay.replayer.convert import RULE_FIELDS, rules_model

from .conftest import CONFORMANCE, CONFORMANCE_1_1

OLD = sorted((CONFORMANCE / "valid").glob("*.json"))
NEW = sorted((CONFORMANCE_1_1 / "valid").glob("*.json"))


def _data(path: Path) -> dict[str, Any]:
    value: dict[str, Any] = orjson.loads(path.read_bytes())
    return value


def _problem(data: dict[str, Any]) -> tuple[Code, str, str]:
    with pytest.raises(FormatError) as caught:
        loads(orjson.dumps(data))
    problem = caught.value.problem
    return problem.code, problem.pointer, problem.message


def test_the_reader_reads_both_versions() -> None:
    assert VERSIONS == ("1.0", "1.1")
    assert spades_replay.load(OLD[0]).version == "1.0"
    assert spades_replay.load(NEW[0]).version == "1.1"


@pytest.mark.parametrize("path", OLD, ids=lambda path: path.name)
def test_a_1_0_record_reads_with_the_1_0_rules_and_writes_back_as_1_0(path: Path) -> None:
    record = spades_replay.load(path)
    assert record.version == "1.0"
    for name in OPTIONS_1_1:
        assert getattr(record.rules, name) == getattr(Rules(), name)
    written = to_data(record)
    assert written["version"] == "1.0"
    assert set(written["rules"]).isdisjoint(OPTIONS_1_1)


@pytest.mark.parametrize("path", NEW, ids=lambda path: path.name)
def test_a_1_1_record_round_trips_with_every_option(path: Path) -> None:
    record = spades_replay.load(path)
    written = to_data(record)
    assert list(written["rules"]) == list(RULE_FIELDS)
    assert written["rules"] == _data(path)["rules"]
    assert loads(dumps(record)) == record


@pytest.mark.parametrize("option", OPTIONS_1_1)
def test_a_1_1_option_in_a_1_0_record_is_a_format_error(option: str) -> None:
    data = _data(OLD[0])
    data["rules"][option] = Rules().as_dict()[option]
    code, pointer, message = _problem(data)
    assert code is Code.FORMAT_OPTION_VERSION
    assert pointer == f"/rules/{option}"
    assert f"'{option}' is a format 1.1 option" in message


def test_the_same_options_are_fine_in_a_1_1_record() -> None:
    data = _data(OLD[0])
    data["version"] = "1.1"
    data["rules"]["nil_allowed"] = False
    assert loads(orjson.dumps(data)).rules.nil_allowed is False


def test_a_newer_minor_version_is_refused_naming_both_versions() -> None:
    data = _data(NEW[0])
    data["version"] = "1.2"
    code, pointer, message = _problem(data)
    assert (code, pointer) == (Code.FORMAT_VERSION, "/version")
    assert "format 1.2" in message
    assert "1.0 to 1.1" in message


@pytest.mark.parametrize(
    ("option", "value", "code"),
    [
        ("nil_allowed", 0, Code.FORMAT_TYPE),
        ("blind_nil_allowed", "no", Code.FORMAT_TYPE),
        ("blind_nil_min_deficit", -50, Code.FORMAT_RANGE),
        ("blind_nil_min_deficit", 1.5, Code.FORMAT_TYPE),
        ("min_team_bid", 14, Code.FORMAT_RANGE),
        ("min_team_bid", -1, Code.FORMAT_RANGE),
        ("first_lead", "dealer", Code.FORMAT_VALUE),
        ("spades_must_be_broken", None, Code.FORMAT_TYPE),
        ("double_contract_from", 0, Code.FORMAT_RANGE),
        ("double_contract_from", 14, Code.FORMAT_RANGE),
    ],
)
def test_option_values_out_of_range_are_format_errors(option: str, value: Any, code: Code) -> None:
    data = _data(NEW[0])
    data["rules"][option] = value
    found, pointer, _ = _problem(data)
    assert (found, pointer) == (code, f"/rules/{option}")


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("blind_nil_min_deficit", 0),
        ("blind_nil_min_deficit", None),
        ("min_team_bid", 13),
        ("first_lead", "two_of_clubs"),
        ("double_contract_from", 1),
        ("double_contract_from", 13),
    ],
)
def test_option_values_at_the_edges_are_read(option: str, value: Any) -> None:
    data = _data(NEW[0])
    data["rules"][option] = value
    assert getattr(loads(orjson.dumps(data)).rules, option) == value


def test_rule_fields_are_the_models_and_the_engines() -> None:
    assert tuple(Rules().as_dict()) == RULE_FIELDS


@pytest.mark.parametrize("variant", list(Variant))
def test_writers_write_1_1_with_every_option_resolved(variant: Variant) -> None:
    record = simulate_game(variant, seed=3, max_hands=1)
    written = orjson.loads(dumps(record))
    assert written["version"] == "1.1"
    assert list(written["rules"]) == list(RULE_FIELDS)


def test_rules_model_resolves_every_option() -> None:
    rules = Rules(nil_allowed=False, first_lead="two_of_clubs", double_contract_from=10)
    model = rules_model(rules)
    assert model.model_dump() == rules.as_dict()


@pytest.mark.parametrize("path", OLD, ids=lambda path: path.name)
def test_upgrade_and_downgrade_keep_every_byte_of_meaning(path: Path) -> None:
    record = spades_replay.load(path)
    upgraded = at_version(record, "1.1")
    assert upgraded.version == "1.1"
    assert spades_replay.replay(upgraded).result == spades_replay.replay(record).result
    back = at_version(loads(dumps(upgraded)), "1.0")
    assert dumps(back) == dumps(record)


@pytest.mark.parametrize(
    ("option", "value", "shown"),
    [
        ("nil_allowed", False, "'nil_allowed' is false"),
        ("blind_nil_min_deficit", 100, "'blind_nil_min_deficit' is 100"),
        ("first_lead", "two_of_clubs", "'first_lead' is 'two_of_clubs'"),
        ("double_contract_from", 10, "'double_contract_from' is 10"),
    ],
)
def test_a_downgrade_that_would_lose_an_option_is_refused(
    option: str, value: Any, shown: str
) -> None:
    data = _data(NEW[0])
    data["rules"] = {**Rules().as_dict(), option: value}
    record = loads(orjson.dumps(data))
    with pytest.raises(FormatError) as caught:
        at_version(record, "1.0")
    problem = caught.value.problem
    assert (problem.code, problem.pointer) == (Code.MIGRATE_OPTION_LOST, f"/rules/{option}")
    assert shown in problem.message


def test_an_unknown_target_version_is_refused() -> None:
    with pytest.raises(ValueError, match=r"no format 1\.2"):
        at_version(spades_replay.load(OLD[0]), "1.2")

"""The option table (``spades_replay.engine.rules``): each house-rule option declared once, and
everything that names options built from it: the engine's rules, the record's model and so the
JSON Schema, the format versions, rescoring's set, ``--rule``, the stats' labels and the
messages, which speak the tool's words and never pydantic's."""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import orjson
import pytest
from annotated_types import Ge, Le

from spades_replay.cli import main
from spades_replay.cli.common import UsageError, rule_setting
from spades_replay.engine.rules import (
    OPTION,
    OPTIONS,
    PRESETS,
    SCORING_OPTIONS,
    Effect,
    Option,
    Rules,
    RuleValue,
    not_an_option,
    options_problem,
)
from spades_replay.errors import Code
from spades_replay.record import models
from spades_replay.record.io import dumps
from spades_replay.record.versions import downgrade_problem
from spades_replay.replayer.convert import RULE_FIELDS
from spades_replay.replayer.rescore import RescoreError, check_options
from spades_replay.replayer.validate import validate_bytes
from spades_replay.stats.tables import rules_label, rules_of_label, short_rules_label

from .conftest import ROOT

ROW_IDS = [row.name for row in OPTIONS]


def _other_values(row: Option) -> list[RuleValue]:
    """Legal values of ``row`` other than its default."""
    if row.kind == "bool":
        values: list[RuleValue] = [not row.default]
    elif row.kind == "word":
        values = [choice for choice in row.choices if choice != row.default]
    else:
        assert row.low is not None
        assert row.high is not None
        values = [row.low, row.high, (row.low + row.high) // 2]
        values = [value for value in values if value != row.default]
    if row.optional and row.default is not None:
        values.append(None)
    return values


def _bad_values(row: Option) -> list[object]:
    """Values ``row`` does not take, of every kind of mistake."""
    bad: list[object] = ["seven", [1], {"a": 1}]
    if row.kind != "bool":
        bad.append(True)
    if row.kind == "int":
        assert row.low is not None
        assert row.high is not None
        bad += [row.low - 1, row.high + 1, 2.5]
    else:
        bad.append(3)
    if not row.optional:
        bad.append(None)
    return bad


def _text(value: RuleValue) -> str:
    """A value as ``--rule`` writes it."""
    return (
        "null" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
    )


def _record(rules: dict[str, object], version: str = "1.1") -> bytes:
    return orjson.dumps(
        {
            "format": "spades-replay",
            "version": version,
            "variant": "two-player",
            "rules": rules,
            "players": [{"name": "Megan"}, {"name": "Drew"}],
            "hands": [],
        }
    )


def test_the_engines_rules_are_the_table() -> None:
    assert tuple(row.name for row in OPTIONS) == tuple(Rules().as_dict()) == RULE_FIELDS
    assert {row.name: row.default for row in OPTIONS} == Rules().as_dict()
    assert all(row.problem(row.default) is None for row in OPTIONS)
    assert all(row.since in models.VERSIONS for row in OPTIONS)
    assert all(set(row.variants) for row in OPTIONS)


def test_the_records_model_is_generated_from_the_table() -> None:
    fields = models.RulesObject.model_fields
    assert list(fields) == [row.name for row in OPTIONS]
    for row in OPTIONS:
        field = fields[row.name]
        assert field.default == row.default, row.name
        bounds = {type(item): item for item in field.metadata}
        if row.kind == "int" and not row.optional:
            assert (bounds[Ge].ge, bounds[Le].le) == (row.low, row.high), row.name
    schema = models.RulesObject.model_json_schema()["properties"]
    assert schema["first_lead"]["enum"] == list(OPTION["first_lead"].choices)
    assert schema["lose_score"]["anyOf"][0]["minimum"] == OPTION["lose_score"].low


def test_scoring_options_are_those_that_do_not_shape_legality() -> None:
    assert set(SCORING_OPTIONS) == {row.name for row in OPTIONS if row.scoring}
    assert {row.name for row in OPTIONS if row.effect is Effect.SHAPES}.isdisjoint(SCORING_OPTIONS)
    # those that end the game come first, as docs/rules.md lists them
    assert SCORING_OPTIONS[:2] == ("target_score", "lose_score")


def test_the_1_1_options_are_those_the_table_dates_1_1() -> None:
    newer = tuple(row.name for row in OPTIONS if row.since == "1.1")
    assert models.OPTIONS_1_1 == models.NEWER_OPTIONS["1.0"] == newer
    assert models.NEWER_OPTIONS["1.1"] == ()


@pytest.mark.parametrize("row", OPTIONS, ids=ROW_IDS)
def test_every_option_is_parsed_by_rule(row: Option) -> None:
    for value in _other_values(row):
        assert rule_setting(f"{row.name}={_text(value)}") == (row.name, value)


@pytest.mark.parametrize("text", ["+500", "5_00", "\u0665\u0660\u0660", "500.0", "5e2", "0x1f4"])
def test_a_number_is_written_in_ascii_digits(text: str) -> None:
    """What Python's ``int`` would also take is not a whole number as the docs write one."""
    with pytest.raises(UsageError, match="must be a whole number"):
        rule_setting(f"target_score={text}")
    assert rule_setting("target_score= 500") == ("target_score", 500)
    assert rule_setting("lose_score=-200") == ("lose_score", -200)


@pytest.mark.parametrize("row", OPTIONS, ids=ROW_IDS)
def test_every_option_has_a_short_label_for_each_value(row: Option) -> None:
    values = _other_values(row)
    labels = [row.short_label(value) for value in values]
    assert all(labels)
    assert len(set(labels)) == len(labels)
    assert row.short_label(row.default) not in labels
    for value in values:
        rules = Rules().replace(**{row.name: value})
        assert rules_of_label(rules_label(rules)) == rules
        if rules not in PRESETS.values():
            assert short_rules_label(rules) == row.short_label(value)


@pytest.mark.parametrize("row", OPTIONS, ids=ROW_IDS)
def test_a_bad_value_reads_alike_everywhere(row: Option) -> None:
    """A record, ``--rule`` and rescoring say the same of a bad value: the table's words."""
    for value in _bad_values(row):
        message = row.problem(value)
        assert message is not None
        assert message.startswith(f"'{row.name}' must be ")
        assert "Input should" not in message
        report = validate_bytes(_record({row.name: value}))
        first = report.problems[0]
        assert (first.message, first.pointer) == (message, f"/rules/{row.name}")
        assert first.code in (Code.FORMAT_TYPE, Code.FORMAT_RANGE, Code.FORMAT_VALUE)
        if row.scoring:
            with pytest.raises(RescoreError, match="^" + message.replace("(", r"\(")):
                check_options({row.name: value})  # type: ignore[dict-item]
        if isinstance(value, int | str) and not isinstance(value, bool):
            with pytest.raises(UsageError) as raised:
                rule_setting(f"{row.name}={value}")
            assert str(raised.value).startswith(f"--rule {row.name}={value}: '{row.name}' must")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (0, "'bag_limit' must be at least 1, got 0"),
        (1001, "'bag_limit' must be at most 1000, got 1001"),
        ("7", "'bag_limit' must be a whole number from 1 to 1000, got '7'"),
    ],
)
def test_messages_in_the_tools_words(value: object, message: str) -> None:
    assert OPTION["bag_limit"].problem(value) == message
    assert OPTION["first_lead"].problem("dealer") == (
        "'first_lead' must be 'left_of_dealer' or 'two_of_clubs', got 'dealer'"
    )
    assert OPTION["lose_score"].problem("x") == (
        "'lose_score' must be a whole number from -100000 to 100000, or null, got 'x'"
    )
    assert OPTION["nil_allowed"].problem(1) == "'nil_allowed' must be true or false, got 1"


def test_the_rules_go_together() -> None:
    assert options_problem({"target_score": 300, "lose_score": 300}) == (
        "lose_score (300) must be below target_score (300)"
    )
    assert options_problem({"lose_score": 499}) is None
    assert options_problem({"colour": 1}) == not_an_option("colour")


def test_a_misspelt_option_is_named_as_such(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert not_an_option("frist_lead") == (
        "'frist_lead' is not an option (did you mean 'first_lead'?)"
    )
    assert not_an_option("colour").startswith(
        "'colour' is not an option; the options are target_score, bag_limit"
    )
    output = tmp_path / "games.jsonl"
    simulate = ["simulate", "--variant", "four-player", "--games", "1", "-o", str(output)]
    code = main([*simulate, "--rule", "frist_lead=two_of_clubs"])
    assert not output.exists()
    assert code == 2
    assert capsys.readouterr().err == (
        "spades-replay: error: --rule frist_lead=two_of_clubs: 'frist_lead' is not an option "
        "(did you mean 'first_lead'?)\n"
    )
    report = validate_bytes(_record({"frist_lead": "two_of_clubs"}))
    assert report.problems[0].code is Code.FORMAT_UNKNOWN_KEY
    assert report.problems[0].message == (
        "'frist_lead' is not an option (did you mean 'first_lead'?); only keys beginning with "
        "'x-' may be added"
    )
    with pytest.raises(RescoreError, match=r"^'nil_bonsu' is not an option \(did you mean"):
        check_options({"nil_bonsu": 50})


def test_a_shaping_option_is_refused_by_rescore_whatever_its_value(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["rescore", "fixtures/two-player/mercy.json", "--rule", "first_lead=nowhere"])
    assert code == 2
    assert "first_lead shaped what was legal" in capsys.readouterr().err


@pytest.mark.parametrize("name", models.OPTIONS_1_1)
def test_versions_refuse_and_lose_options_the_table_dates_later(name: str) -> None:
    row = OPTION[name]
    (value, *_) = _other_values(row)
    report = validate_bytes(_record({name: value}, "1.0"))
    assert (report.problems[0].code, report.problems[0].message) == (
        Code.FORMAT_OPTION_VERSION,
        f"'{name}' is a format {row.since} option, not allowed in a version 1.0 record (set "
        f"'version' to '{row.since}', or run spades-replay migrate)",
    )
    record = models.RECORD_ADAPTER.validate_python(orjson.loads(_record({name: value})))
    problem = downgrade_problem(record.rules, "1.0")
    assert problem is not None
    assert problem.pointer == f"/rules/{name}"
    assert "format 1.0 has no such option" in problem.message
    defaults = models.RECORD_ADAPTER.validate_python(orjson.loads(_record({name: row.default})))
    assert downgrade_problem(defaults.rules, "1.0") is None
    assert name not in orjson.loads(dumps(defaults.model_copy(update={"version": "1.0"})))["rules"]


def test_every_scoring_option_has_what_its_widget_needs() -> None:
    for name in SCORING_OPTIONS:
        row = OPTION[name]
        assert row.title
        assert row.text
        if row.optional:
            assert row.switch
            assert row.offered is not None
            assert row.problem(row.offered) is None


def test_the_formats_table_of_options_follows_the_option_table() -> None:
    """docs/format.md lists every option in the table's order, with its default and range."""
    text = (ROOT / "docs" / "format.md").read_text()
    section = text[text.index("## Rules") : text.index("## A two-player hand")]
    rows = re.findall(r"^\| `([a-z_]+)` \| ([^|]+) \| ([^|]+) \|", section, flags=re.MULTILINE)
    assert [name for name, _, _ in rows] == [row.name for row in OPTIONS]
    for name, default, values in rows:
        row = OPTION[name]
        shown = f'`"{row.default}"`' if row.kind == "word" else _text(row.default)
        assert default.strip() == shown, name
        if row.kind == "int":
            assert f"{row.low} to {row.high}" in values, name
        if row.optional:
            assert values.startswith("null or"), name


def test_the_rules_object_keeps_its_names() -> None:
    """In Python the record's rules object is RulesObject (the engine's is Rules); the JSON
    Schema names it Rules, as format 1.0's did, and it pickles (worker processes)."""
    record = models.RECORD_ADAPTER.validate_python(orjson.loads(_record({"bag_limit": 7})))
    assert type(record.rules) is models.RulesObject
    assert pickle.loads(pickle.dumps(record)) == record
    assert models.RulesObject.model_json_schema()["title"] == "Rules"


def test_a_bad_value_is_quoted_as_json_writes_it_and_long_text_is_cut() -> None:
    number = "'bag_limit' must be a whole number from 1 to 1000, got"
    assert OPTION["bag_limit"].problem(None) == f"{number} null"
    assert OPTION["bag_limit"].problem(True) == f"{number} true"
    assert OPTION["bag_limit"].problem({"a": 1}) == f"{number} an object"
    assert OPTION["bag_limit"].problem([1, 2]) == f"{number} an array of 2"
    # a quote of up to 60 characters is shown whole; a longer one keeps its first 55
    assert OPTION["bag_limit"].problem("y" * 58) == f"{number} '{'y' * 58}'"
    assert OPTION["bag_limit"].problem("x" * 100) == f"{number} '{'x' * 54}...'"
    assert not_an_option("z" * 59) == (
        f"'{'z' * 54}...' is not an option; the options are {', '.join(OPTION)}"
    )


def test_lose_score_is_held_below_the_default_target_when_no_target_is_given() -> None:
    assert options_problem({"lose_score": 600}) == (
        "lose_score (600) must be below target_score (500)"
    )


def test_what_an_option_takes_reads_for_any_row() -> None:
    """Rows the table does not have yet: a word option of three choices, a number with no
    upper bound."""
    words = OPTION["first_lead"]._replace(choices=("one", "two", "three"))
    assert words.expected() == "'one', 'two' or 'three'"
    unbounded = OPTION["bag_limit"]._replace(high=None)
    assert unbounded.expected() == "a whole number of at least 1"
    assert unbounded.problem("7") == "'bag_limit' must be a whole number of at least 1, got '7'"


def test_the_widgets_steps_switches_and_short_labels_of_each_option() -> None:
    """What the dashboard's widgets and the stats' labels take from the table: a number's
    step (1 unless the row says), the switch of an optional option (none unless the row has
    one), and the short label (words only, for the options that have no ``short``)."""
    assert {row.name: row.step for row in OPTIONS if row.kind == "int"} == {
        "target_score": 50,
        "bag_limit": 1,
        "bag_penalty": 10,
        "nil_bonus": 10,
        "blind_nil_bonus": 10,
        "blind_nil_exchange": 1,
        "lose_score": 50,
        "blind_nil_min_deficit": 1,
        "min_team_bid": 1,
        "double_contract_from": 1,
    }
    assert {row.name: row.switch for row in OPTIONS if row.switch} == {
        "lose_score": "Mercy rule: a side at the lose score loses",
        "double_contract_from": "Doubled contracts: 20 a trick from",
    }
    assert [row.name for row in OPTIONS if not row.short] == [
        "failed_nil_tricks_count_as_bags",
        "failed_nil_tricks_help_partner",
        "nil_allowed",
        "blind_nil_allowed",
        "first_lead",
        "spades_must_be_broken",
    ]

"""The checked-in JSON Schemas: 1.1 generated from the models and never drifting, 1.0 frozen as
published; both agree with the code on what is a well-formed record."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from spades_replay.errors import Code, Family
from spades_replay.record.schema import FROZEN_FILENAME, SCHEMA_FILENAME, schema_bytes
from spades_replay.replayer.validate import validate_bytes

from .conftest import CONFORMANCE, CONFORMANCE_1_1, FIXTURES, ROOT

SCHEMA_FILE = ROOT / "schema" / SCHEMA_FILENAME
FROZEN_FILE = ROOT / "schema" / FROZEN_FILENAME
VALIDATOR = jsonschema.Draft202012Validator(json.loads(SCHEMA_FILE.read_text()))
FROZEN = jsonschema.Draft202012Validator(json.loads(FROZEN_FILE.read_text()))


def _records(folder: Path) -> list[Path]:
    return sorted((folder / "valid").glob("*.json")) + sorted(
        p for p in (folder / "invalid").glob("*.json") if p.name != "EXPECTED.json"
    )


def _json(path: Path) -> object:
    """The JSON value in a file, or None where it holds no JSON (some invalid fixtures)."""
    try:
        return json.loads(path.read_bytes())
    except ValueError:
        return None


BEYOND_SCHEMA = {Code.FORMAT_LIMIT, Code.FORMAT_VALUE}
"""Format errors a JSON Schema cannot express: size limits, and lose_score below target_score."""


def _format_error(path: Path) -> bool:
    report = validate_bytes(path.read_bytes())
    return any(p.code.family is Family.FORMAT for p in report.problems)


def _within_schema(path: Path) -> bool:
    report = validate_bytes(path.read_bytes())
    return _json(path) is not None and not any(p.code in BEYOND_SCHEMA for p in report.problems)


def _version(path: Path) -> object:
    data = _json(path)
    return data.get("version") if isinstance(data, dict) else None


RECORDS = _records(CONFORMANCE) + _records(CONFORMANCE_1_1)
FIXTURE_RECORDS = sorted(
    p
    for folder in ("two-player", "four-player", "invalid")
    for p in (FIXTURES / folder).glob("*.json")
    if p.name != "EXPECTED.json" and _within_schema(p)
)


def test_checked_in_schema_matches_the_models() -> None:
    """If this fails, run: ./dev run schema -o schema/spades-replay-1.1.schema.json"""
    assert SCHEMA_FILE.read_bytes() == schema_bytes()


def test_the_frozen_schema_is_the_one_the_package_prints() -> None:
    """The 1.0 schema never changes: the package's copy is the file in schema/."""
    assert FROZEN_FILE.read_bytes() == schema_bytes("1.0")
    assert "format 1.0" in json.loads(FROZEN_FILE.read_text())["title"]


def test_no_schema_of_an_unknown_version() -> None:
    with pytest.raises(ValueError, match=r"1\.0, 1\.1"):
        schema_bytes("1.2")


@pytest.mark.parametrize("path", [SCHEMA_FILE, FROZEN_FILE], ids=lambda path: path.name)
def test_schema_is_valid_json_schema(path: Path) -> None:
    jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text()))


@pytest.mark.parametrize("path", RECORDS + FIXTURE_RECORDS, ids=lambda path: path.name)
def test_schema_and_code_agree(path: Path) -> None:
    """A record passes the 1.1 schema exactly when the code finds no format error in it (rules
    errors are beyond what a schema can say)."""
    format_error = _format_error(path)
    assert VALIDATOR.is_valid(_json(path)) is not format_error


@pytest.mark.parametrize(
    "path",
    [p for p in RECORDS + FIXTURE_RECORDS if _version(p) == "1.0"],
    ids=lambda path: path.name,
)
def test_every_1_0_record_still_meets_the_frozen_schema_as_before(path: Path) -> None:
    """Every 1.0 record the code reads without a format error validates against the frozen
    1.0 schema; every one it refuses for its format, the frozen schema refuses too."""
    format_error = _format_error(path)
    assert FROZEN.is_valid(_json(path)) is not format_error

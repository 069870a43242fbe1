"""The checked-in JSON Schema: generated from the models, never drifting, and agreeing with
the code on what is a well-formed record."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from spades_replay.errors import Family
from spades_replay.record.schema import SCHEMA_FILENAME, schema_bytes
from spades_replay.validate import validate_bytes

from .conftest import CONFORMANCE, ROOT

SCHEMA_FILE = ROOT / "schema" / SCHEMA_FILENAME
VALIDATOR = jsonschema.Draft202012Validator(json.loads(SCHEMA_FILE.read_text()))
RECORDS = sorted((CONFORMANCE / "valid").glob("*.json")) + sorted(
    p for p in (CONFORMANCE / "invalid").glob("*.json") if p.name != "EXPECTED.json"
)


def test_checked_in_schema_matches_the_models() -> None:
    """If this fails, run: ./dev run schema -o schema/spades-replay-1.0.schema.json"""
    assert SCHEMA_FILE.read_bytes() == schema_bytes()


def test_schema_is_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(json.loads(SCHEMA_FILE.read_text()))


@pytest.mark.parametrize("path", RECORDS, ids=lambda path: path.name)
def test_schema_and_code_agree(path: Path) -> None:
    """A record passes the schema exactly when the code finds no format error in it (rules
    errors are beyond what a schema can say)."""
    report = validate_bytes(path.read_bytes())
    format_error = any(p.code.family is Family.FORMAT for p in report.problems)
    assert VALIDATOR.is_valid(json.loads(path.read_text())) is not format_error

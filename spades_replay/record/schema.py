"""The JSON Schemas of the format: 1.1 generated from the pydantic models (never edited by
hand), and 1.0 frozen as it was published.

The checked-in copies live in ``schema/`` (one file per format version); a test fails when the
1.1 file drifts from what :func:`schema_bytes` generates, or the 1.0 file from the frozen copy
the package ships. ``spades-replay schema`` prints either.

The 1.1 schema describes every record a 1.1 reader reads: version ``"1.0"`` or ``"1.1"``, and
a ``"1.0"`` record's ``rules`` without the 1.1 options.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

import orjson

from spades_replay.record.models import (
    CARD_NAMES,
    FORMAT_VERSION,
    RECORD_ADAPTER,
    RulesObject,
)

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID = f"https://spades-replay.dev/schema/spades-replay-{FORMAT_VERSION}.schema.json"
SCHEMA_FILENAME = f"spades-replay-{FORMAT_VERSION}.schema.json"
FROZEN_VERSION = "1.0"
FROZEN_FILENAME = f"spades-replay-{FROZEN_VERSION}.schema.json"
"""The schema of format 1.0, as published; it never changes (every 1.0 record keeps
validating against it)."""
SCHEMA_VERSIONS = (FROZEN_VERSION, FORMAT_VERSION)


_CARD: dict[str, Any] = {"enum": list(CARD_NAMES), "type": "string"}
_BID: dict[str, Any] = {
    "anyOf": [
        {"maximum": 13, "minimum": 0, "type": "integer"},
        {"const": "blind_nil", "type": "string"},
    ]
}
_SHARED: dict[str, tuple[dict[str, Any], str]] = {
    "Card": (
        _CARD,
        "A card: rank (2-9, T, J, Q, K, A) then suit (C, D, H, S), e.g. AS, TH.",
    ),
    "Bid": (_BID, "A bid: a whole number of tricks from 0 (Nil) to 13, or blind_nil."),
}


_JSON_NAMES = {RulesObject.__qualname__: RulesObject.__name__}
"""Definitions the schema names with the format's word rather than the Python class's: the
``rules`` object is ``Rules`` (in Python, ``RulesObject``, apart from the engine's ``Rules``)."""


def _share(node: Any) -> Any:
    """Replace every inline copy of a shared definition by a reference to it, and name each
    definition with the format's word."""
    if isinstance(node, dict):
        for name, (inline, _) in _SHARED.items():
            if node == inline:
                return {"$ref": f"#/$defs/{name}"}
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.removeprefix("#/$defs/") in _JSON_NAMES:
            return {**node, "$ref": "#/$defs/" + _JSON_NAMES[ref.removeprefix("#/$defs/")]}
        return {_JSON_NAMES.get(key, key): _share(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_share(value) for value in node]
    return node


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a format 1.1 record (which a 1.0 record also meets)."""
    generated = _share(RECORD_ADAPTER.json_schema(mode="validation"))
    definitions = dict(generated.pop("$defs"))
    generated.pop("discriminator", None)
    for name, (inline, description) in _SHARED.items():
        definitions[name] = {"description": description, **inline}
    return {
        "$schema": SCHEMA_DIALECT,
        "$id": SCHEMA_ID,
        "title": f"spades-replay game record, format {FORMAT_VERSION}",
        "description": (
            "One recorded game of Spades, two-player (with the draft) or four-player "
            "(partnership). The schema checks the shape of a record; the rules of play "
            "(legal cards, exchanges, scores, claims) are checked by replaying it. "
            "See docs/format.md."
        ),
        **generated,
        "$defs": dict(sorted(definitions.items())),
    }


def schema_bytes(version: str = FORMAT_VERSION) -> bytes:
    """The schema of ``version`` as the checked-in file holds it: indented JSON, keys sorted,
    newline. ``"1.1"`` is generated; ``"1.0"`` is the frozen file."""
    if version == FROZEN_VERSION:
        return resources.files(__package__).joinpath(FROZEN_FILENAME).read_bytes()
    if version != FORMAT_VERSION:
        raise ValueError(f"no schema of format {version}; there are {', '.join(SCHEMA_VERSIONS)}")
    return orjson.dumps(json_schema(), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"

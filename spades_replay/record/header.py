"""What can be told of a document before the format's models are built: its size, whether it
opens an object, and its header (``format`` and ``version``). Nothing here imports pydantic,
so a command that meets only records refused here (a decompression bomb of ``{}`` lines)
never loads the models; :func:`spades_replay.record.io.loads` runs the same checks, in the
same order, with the same problems.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from spades_replay.errors import Code, FormatError, Problem
from spades_replay.plumbing.limits import DEFAULT_LIMITS, Limits

FORMAT_NAME = "spades-replay"
FORMAT_VERSION = "1.1"

KEY_ORDER = (
    "format",
    "version",
    "game_id",
    "variant",
    "rules",
    "players",
    "first_dealer",
    "meta",
    "hands",
    "result",
)
"""A record's top-level keys, in the order they are written
(docs/format.md, "Writing records")."""
"""The version writers write, and the newest this reader reads."""

_VERSION = re.compile(r"^(0|[1-9][0-9]{0,5})\.(0|[1-9][0-9]{0,5})$")
_READER_MAJOR, _READER_MINOR = (int(part) for part in FORMAT_VERSION.split("."))
_READABLE = FORMAT_VERSION if _READER_MINOR == 0 else f"{_READER_MAJOR}.0 to {FORMAT_VERSION}"
_QUOTE_LIMIT = 60


def json_type(value: object) -> str:
    """The JSON name of a parsed value's type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "a number"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def quote(value: object) -> str:
    """A short, escaped rendering of an input value for messages."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list | tuple):
        return f"an array of {len(value)}"
    text = (
        "null" if value is None else str(value).lower() if isinstance(value, bool) else repr(value)
    )
    if len(text) > _QUOTE_LIMIT:
        text = text[: _QUOTE_LIMIT - 5] + "...'"
    return text


def fail(code: Code, message: str, pointer: str = "") -> FormatError:
    return FormatError((Problem(code, message, pointer),))


def check_size(size: int, limits: Limits = DEFAULT_LIMITS) -> None:
    """Raise ``format.limit`` when a record of ``size`` bytes is over the limit."""
    if size > limits.record_bytes:
        raise fail(
            Code.FORMAT_LIMIT,
            f"the record exceeds the size limit of {limits.record_bytes} bytes",
        )


def check_header(value: Any) -> None:
    """Check that a parsed value claims to be a record of a version this reader reads."""
    if not isinstance(value, dict):
        raise fail(Code.FORMAT_NOT_OBJECT, f"a record is a JSON object, got {json_type(value)}")
    name = value.get("format")
    if name != FORMAT_NAME:
        found = "no 'format' key" if "format" not in value else f"'format' is {quote(name)}"
        raise fail(
            Code.FORMAT_NOT_A_RECORD,
            f"not a spades-replay record: {found}, not '{FORMAT_NAME}'",
            "/format",
        )
    version = value.get("version")
    match = _VERSION.match(version) if isinstance(version, str) else None
    if match is None:
        found = "missing" if "version" not in value else quote(version)
        raise fail(
            Code.FORMAT_VERSION,
            f"'version' must be 'MAJOR.MINOR', e.g. '{FORMAT_VERSION}'; got {found}",
            "/version",
        )
    major, minor = int(match.group(1)), int(match.group(2))
    if major != _READER_MAJOR or minor > _READER_MINOR:
        newer = (major, minor) > (_READER_MAJOR, _READER_MINOR)
        advice = "a newer spades-replay reads it" if newer else "no reader of it is known"
        raise fail(
            Code.FORMAT_VERSION,
            f"the record is format {version} but this reader reads format {_READABLE}; {advice}",
            "/version",
        )


_OPENINGS = {
    ord("["): "an array",
    ord('"'): "a string",
    ord("t"): "a boolean",
    ord("f"): "a boolean",
    ord("n"): "null",
    **{ord(char): "a number" for char in "-0123456789"},
}
"""What a JSON document is, by its first character, when it is not an object."""
_LEADING = re.compile(rb"(?:\xef\xbb\xbf)?[ \t\r\n]*")


def check_opening(data: bytes | str) -> None:
    """Refuse a document that opens as anything but an object (``format.not-object``)
    before parsing it: a large JSON array is never built in memory only to be refused."""
    raw = data if isinstance(data, bytes | bytearray) else data[:64].encode("utf-8", "replace")
    start = _LEADING.match(raw)
    index = start.end() if start is not None else 0
    if index >= len(raw) or raw[index] not in _OPENINGS:
        return
    if raw[index] not in b'["':
        # a word or a number is said to be one only when the whole document is one ("this
        # is not json" opens like true): a syntax error is the models' to explain
        try:
            orjson.loads(data)
        except orjson.JSONDecodeError:
            return
    raise fail(Code.FORMAT_NOT_OBJECT, f"a record is a JSON object, got {_OPENINGS[raw[index]]}")


def refuse_early(data: bytes | str, limits: Limits = DEFAULT_LIMITS) -> None:
    """Raise the :class:`FormatError` that :func:`spades_replay.record.io.loads` raises for a
    document over the size limit, that opens anything but an object, or that is a JSON
    object whose header is wrong; return for anything else, which only the models can judge
    (a JSON syntax error too: the models' path explains it)."""
    check_size(len(data), limits)
    check_opening(data)
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return
    if isinstance(value, dict):
        check_header(value)

"""Reading and writing records: ``load``, ``loads``, ``dump``, ``dumps``, as :mod:`json` does.

``loads(dumps(record)) == record`` for every record. Output is canonical: keys in the order of
FORMAT-v1.md, extensions (``x-`` keys) and ``meta`` sorted, the ``rules`` object fully resolved,
absent optional keys left out. The same record always gives the same bytes.
"""

from __future__ import annotations

import gzip
import os
import re
from pathlib import Path
from typing import IO, Any

import orjson
from pydantic import ValidationError

from spades_replay.atomic import atomic_writer
from spades_replay.errors import Code, FormatError, Problem
from spades_replay.record.models import (
    FORMAT_NAME,
    FORMAT_VERSION,
    RECORD_ADAPTER,
    AnyRecord,
)
from spades_replay.record.problems import json_type, problems_from_validation, quote

BOM = b"\xef\xbb\xbf"
_VERSION = re.compile(r"^(0|[1-9][0-9]{0,5})\.(0|[1-9][0-9]{0,5})$")
_READER_MAJOR, _READER_MINOR = (int(part) for part in FORMAT_VERSION.split("."))
_READABLE = FORMAT_VERSION if _READER_MINOR == 0 else f"{_READER_MAJOR}.0 to {FORMAT_VERSION}"


def _fail(code: Code, message: str, pointer: str = "") -> FormatError:
    return FormatError((Problem(code, message, pointer),))


def parse_json(data: bytes | str) -> Any:
    """Parse JSON text (UTF-8 bytes or a string) with orjson; a leading BOM is ignored.

    Raises :class:`FormatError` (``format.json`` or ``format.encoding``) with the line and
    column of a syntax error.
    """
    if isinstance(data, bytes | bytearray | memoryview) and bytes(data[:3]) == BOM:
        data = bytes(data[3:])
    elif isinstance(data, str) and data.startswith("\ufeff"):
        data = data[1:]
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as error:
        if "UTF-8" in error.msg or "surrogate" in error.msg:
            raise _fail(
                Code.FORMAT_ENCODING, f"not UTF-8 text: {error.msg} (byte {error.pos + 1})"
            ) from None
        raise _fail(
            Code.FORMAT_JSON,
            f"not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})",
        ) from None


def check_header(value: Any) -> None:
    """Check that a parsed value claims to be a record of a version this reader reads."""
    if not isinstance(value, dict):
        raise _fail(Code.FORMAT_NOT_OBJECT, f"a record is a JSON object, got {json_type(value)}")
    name = value.get("format")
    if name != FORMAT_NAME:
        found = "no 'format' key" if "format" not in value else f"'format' {quote(name)}"
        raise _fail(
            Code.FORMAT_NOT_A_RECORD,
            f"not a spades-replay record: {found} (expected 'format': '{FORMAT_NAME}')",
            "/format",
        )
    version = value.get("version")
    match = _VERSION.match(version) if isinstance(version, str) else None
    if match is None:
        found = "missing" if "version" not in value else quote(version)
        raise _fail(
            Code.FORMAT_VERSION,
            f"'version' must be 'MAJOR.MINOR', e.g. '{FORMAT_VERSION}'; got {found}",
            "/version",
        )
    major, minor = int(match.group(1)), int(match.group(2))
    if major != _READER_MAJOR or minor > _READER_MINOR:
        newer = (major, minor) > (_READER_MAJOR, _READER_MINOR)
        advice = "a newer spades-replay reads it" if newer else "no reader of it is known"
        raise _fail(
            Code.FORMAT_VERSION,
            f"the record is format {version} but this reader reads format {_READABLE}; {advice}",
            "/version",
        )


def from_data(value: Any) -> AnyRecord:
    """The record held by an already-parsed JSON value; raises :class:`FormatError`."""
    check_header(value)
    try:
        return RECORD_ADAPTER.validate_python(value)
    except ValidationError as error:
        raise FormatError(problems_from_validation(error)) from None


def loads(data: bytes | str) -> AnyRecord:
    """The record in a JSON document; raises :class:`FormatError` when it is not one.

    Only the format is checked here; :func:`spades_replay.replay` checks the rules.
    """
    return from_data(parse_json(data))


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a file, decompressed when its name ends in ``.gz``."""
    target = Path(path)
    if target.suffix == ".gz":
        with gzip.open(target, "rb") as stream:
            return stream.read()
    return target.read_bytes()


def load(source: str | os.PathLike[str] | IO[bytes]) -> AnyRecord:
    """The record in a file (a path, ``.gz`` allowed, or a binary file object)."""
    if isinstance(source, str | os.PathLike):
        return loads(read_bytes(source))
    return loads(source.read())


def to_data(record: AnyRecord) -> dict[str, Any]:
    """The record as canonical JSON-ready data (what :func:`dumps` writes)."""
    return record.model_dump(mode="json")


def dumps(record: AnyRecord, *, indent: bool = False) -> bytes:
    """The record as canonical UTF-8 JSON bytes, compact unless ``indent``."""
    option = orjson.OPT_INDENT_2 if indent else 0
    return orjson.dumps(to_data(record), option=option)


def dump(
    record: AnyRecord, target: str | os.PathLike[str] | IO[bytes], *, indent: bool = True
) -> None:
    """Write the record to a path (atomically; gzip-compressed when it ends in ``.gz``) or to
    a binary file object. Files end with a newline."""
    data = dumps(record, indent=indent) + b"\n"
    if not isinstance(target, str | os.PathLike):
        target.write(data)
        return
    if Path(target).suffix == ".gz":
        data = gzip.compress(data, mtime=0)
    with atomic_writer(target) as stream:
        stream.write(data)

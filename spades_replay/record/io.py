"""Reading and writing records: ``load``, ``loads``, ``dump``, ``dumps``, as :mod:`json` does.

``loads(dumps(record)) == record`` for every record. Output is canonical: keys in the order of
docs/format.md, extensions (``x-`` keys) and ``meta`` sorted, the ``rules`` object fully resolved,
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

from spades_replay.errors import Code, FormatError
from spades_replay.plumbing.atomic import atomic_writer
from spades_replay.plumbing.corpus import BOM, is_gzip_name
from spades_replay.plumbing.limits import DEFAULT_LIMITS, Limits
from spades_replay.record.header import check_header as check_header
from spades_replay.record.header import check_opening
from spades_replay.record.header import check_size as check_size
from spades_replay.record.header import fail as _fail
from spades_replay.record.models import RECORD_ADAPTER, AnyRecord
from spades_replay.record.problems import TOO_LARGE, problems_from_validation, quote


def parse_json(data: bytes | str, limits: Limits = DEFAULT_LIMITS) -> Any:
    """Parse JSON text (UTF-8 bytes or a string) with orjson; a leading BOM is ignored.

    Raises :class:`FormatError` (``format.json`` or ``format.encoding``) with the line and
    column of a syntax error, and ``format.limit`` for input over the size limit or nested
    deeper than orjson's own limit of 1024.
    """
    check_size(len(data), limits)
    if isinstance(data, bytes | bytearray | memoryview) and bytes(data[:3]) == BOM:
        data = bytes(data[3:])
    elif isinstance(data, str) and data.startswith("\ufeff"):
        data = data[1:]
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as error:
        if "recursion" in error.msg:
            raise _fail(Code.FORMAT_LIMIT, f"nesting too deep: {error.msg}") from None
        if "UTF-8" in error.msg or "surrogate" in error.msg:
            raise _fail(Code.FORMAT_ENCODING, _encoding_message(data, error.msg)) from None
        raise _fail(Code.FORMAT_JSON, _json_message(data, error)) from None


def _json_message(data: bytes | str, error: orjson.JSONDecodeError) -> str:
    """What is wrong with text that is not JSON, in words: an empty input, text that is not
    JSON at all (quoting how it begins), or the parser's reason with the line and column."""
    text = data.decode("utf-8", "replace") if not isinstance(data, str) else data
    if not text.strip():
        return "not valid JSON: the input is empty"
    start = len(text) - len(text.lstrip())
    if error.pos <= start and error.msg.startswith("unexpected character"):
        begins = text[start:].split("\n", 1)[0]
        shown = begins[:40] + ("…" if len(begins) > 40 else "")
        return f"not JSON at all: it begins {quote(shown)}, where a record begins with '{{'"
    if "number is infinity" in error.msg:  # valid JSON, but no reader holds the number
        found = _NUMBER.search(text, max(error.pos - 1, 0))
        written = found.group() if found else ""
        shown = written if len(written) <= 24 else f"{written[:20]}… ({len(written)} characters)"
        return f"{TOO_LARGE} to read: {shown} (line {error.lineno}, column {error.colno})"
    return f"not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})"


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
"""A JSON number, as written."""


def _encoding_message(data: bytes | str, detail: str) -> str:
    """Where the text stops being UTF-8: the byte offset and line of the first bad byte."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        return (
            f"not UTF-8 text: byte {error.start + 1} (line {line}) is "
            f"0x{raw[error.start]:02x}, which cannot start or continue a UTF-8 character"
        )
    return f"not UTF-8 text: {detail}"


def from_data(value: Any, limits: Limits = DEFAULT_LIMITS) -> AnyRecord:
    """The record held by an already-parsed JSON value; raises :class:`FormatError`."""
    check_header(value)
    context = None if limits is DEFAULT_LIMITS else {"limits": limits}
    try:
        return RECORD_ADAPTER.validate_python(value, context=context)
    except ValidationError as error:
        raise FormatError(problems_from_validation(error)) from None


def loads(data: bytes | str, limits: Limits = DEFAULT_LIMITS) -> AnyRecord:
    """The record in a JSON document; raises :class:`FormatError` when it is not one.

    Only the format is checked here; :func:`spades_replay.replay` checks the rules.

    A valid record is parsed and validated in one pass by pydantic (the fastest way, as
    docs/performance.md measures). Anything else takes a slower path that explains it: orjson
    for syntax and encoding errors (with line and column), the header for versions, then
    pydantic's errors, from the same JSON-mode validation as the fast path.
    """
    check_size(len(data), limits)
    check_opening(data)
    context = None if limits is DEFAULT_LIMITS else {"limits": limits}
    try:
        return RECORD_ADAPTER.validate_json(data, context=context)
    except ValidationError:
        pass
    value = parse_json(data, limits)
    check_header(value)
    text = data[len(BOM) :] if isinstance(data, bytes) and data.startswith(BOM) else data
    if isinstance(text, str) and text.startswith("\ufeff"):
        text = text[1:]
    try:
        return RECORD_ADAPTER.validate_json(text, context=context)
    except ValidationError as error:
        raise FormatError(problems_from_validation(error)) from None


def read_bytes(path: str | os.PathLike[str], limits: Limits = DEFAULT_LIMITS) -> bytes:
    """The bytes of a record file, decompressed when its name ends in ``.gz``; never more
    than the size limit is read (``format.limit`` beyond it)."""
    target = Path(path)
    opener = gzip.open if is_gzip_name(target.name) else open
    with opener(target, "rb") as stream:
        data: bytes = stream.read(limits.record_bytes + 1)
    check_size(len(data), limits)
    return data


def load(source: str | os.PathLike[str] | IO[bytes], limits: Limits = DEFAULT_LIMITS) -> AnyRecord:
    """The record in a file (a path, ``.gz`` allowed, or a binary file object)."""
    if isinstance(source, str | os.PathLike):
        return loads(read_bytes(source, limits), limits)
    data = source.read(limits.record_bytes + 1)
    check_size(len(data), limits)
    return loads(data, limits)


def to_data(record: AnyRecord) -> dict[str, Any]:
    """The record as canonical JSON-ready data (what :func:`dumps` writes)."""
    return record.model_dump(mode="json")


def readable_json(value: Any, depth: int = 0) -> bytes:
    """JSON for people: objects indented by two spaces, but a list of plain values (cards,
    bids, scores) kept on one line, so a hand reads as a handful of lines.

    >>> readable_json({"bids": [3, 4], "players": [{"name": "Megan"}]}).decode()
    '{\\n  "bids": [3,4],\\n  "players": [\\n    {\\n      "name": "Megan"\\n    }\\n  ]\\n}'
    """
    pad = b"  " * (depth + 1)
    if isinstance(value, dict) and value:
        items = [
            pad + orjson.dumps(key) + b": " + readable_json(item, depth + 1)
            for key, item in value.items()
        ]
        return b"{\n" + b",\n".join(items) + b"\n" + b"  " * depth + b"}"
    if isinstance(value, list) and any(isinstance(item, dict | list) for item in value):
        items = [pad + readable_json(item, depth + 1) for item in value]
        return b"[\n" + b",\n".join(items) + b"\n" + b"  " * depth + b"]"
    return orjson.dumps(value)


def dumps(record: AnyRecord, *, indent: bool = False) -> bytes:
    """The record as canonical UTF-8 JSON bytes: compact, or with ``indent`` readable
    (:func:`readable_json`)."""
    data = to_data(record)
    return readable_json(data) if indent else orjson.dumps(data)


def dump(
    record: AnyRecord, target: str | os.PathLike[str] | IO[bytes], *, indent: bool = True
) -> None:
    """Write the record to a path (atomically; gzip-compressed when it ends in ``.gz``) or to
    a binary file object. Files end with a newline."""
    data = dumps(record, indent=indent) + b"\n"
    if not isinstance(target, str | os.PathLike):
        target.write(data)
        return
    if is_gzip_name(Path(target).name):
        data = gzip.compress(data, mtime=0)
    with atomic_writer(target) as stream:
        stream.write(data)

"""Turn pydantic's validation errors into format :class:`~spades_replay.errors.Problem` s.

Each error becomes one problem with a stable code, a JSON Pointer built from pydantic's ``loc``
(with the variant's union tag stripped) and a message that quotes the offending input.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from spades_replay.engine.rules import OPTION, not_an_option
from spades_replay.errors import Code, Problem
from spades_replay.record.header import json_type as json_type
from spades_replay.record.header import quote as quote
from spades_replay.record.models import EXTENSION_PATTERN

_CARD_FIELDS = frozenset({"deck", "deal", "plays", "out", "in"})
_VARIANT_TAGS = frozenset({"two-player", "four-player"})
_BID_TAGS = frozenset({"constrained-int", "literal['blind_nil']"})
_TYPE_NAMES = {
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "string_type": "a string",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "dict_type": "an object",
    "tuple_type": "an array",
    "list_type": "an array",
    "none_required": "null",
}
_OPTION_CODES = {
    **dict.fromkeys(_TYPE_NAMES, Code.FORMAT_TYPE),
    **dict.fromkeys(
        ("greater_than_equal", "less_than_equal", "greater_than", "less_than"), Code.FORMAT_RANGE
    ),
}
"""The code of a bad option value, by pydantic's kind of error (else ``format.value``)."""


def json_pointer(path: Iterable[str | int]) -> str:
    """The RFC 6901 JSON Pointer of a path of keys and indexes.

    >>> json_pointer(["hands", 2, "plays", 9])
    '/hands/2/plays/9'
    >>> json_pointer(["meta", "a/b~c"])
    '/meta/a~1b~0c'
    """
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


TOO_LARGE = "a number too large"
"""How a number that no field can hold is named: the reader turns a whole number past 64 bits
into an approximation, so it is not shown (``1.1805916207174113e+21`` for ``2**70``)."""


def number_text(value: int | float) -> str:
    """A number from the input as a message shows it: as written, or, when it is too large
    for any field, :data:`TOO_LARGE`.

    >>> number_text(12), number_text(12.5), number_text(2.0**70), number_text(1.5e300)
    ('12', '12.5', 'a number too large', 'a number too large')
    """
    if isinstance(value, float) and value.is_integer() and abs(value) >= 2.0**63:
        return TOO_LARGE
    return repr(value)


def _path(loc: Sequence[str | int]) -> list[str | int]:
    parts = list(loc)
    if parts and parts[0] in _VARIANT_TAGS:
        parts = parts[1:]
    if parts and (parts[-1] == "[key]" or parts[-1] in _BID_TAGS):
        parts = parts[:-1]
    return parts


def _field(path: Sequence[str | int]) -> str | None:
    for part in reversed(path):
        if isinstance(part, str):
            return part
    return None


def problem_from_error(error: ErrorDetails) -> Problem:
    """One pydantic error as a format problem."""
    kind = error["type"]
    path = _path(error["loc"])
    value: Any = error.get("input")
    ctx: dict[str, Any] = dict(error.get("ctx") or {})
    if kind == "missing" and path and isinstance(path[-1], int):
        array = path[:-1]
        count = len(value) if isinstance(value, list | tuple) else 0
        return Problem(
            Code.FORMAT_COUNT,
            f"'{_field(array)}' has too few items: {count}, item {path[-1] + 1} is missing",
            json_pointer(array),
        )
    if kind in ("union_tag_not_found", "union_tag_invalid"):
        path = [*path, "variant"]
    if kind == "option_version":
        path = [*path, str(ctx["option"])]
    field = _field(path)
    in_field = path and isinstance(path[-1], int)
    code, message = _describe(kind, path, field, value, ctx, error["msg"], bool(in_field))
    return Problem(code, message, json_pointer(path))


def _describe(
    kind: str,
    path: Sequence[str | int],
    field: str | None,
    value: Any,
    ctx: dict[str, Any],
    msg: str,
    in_list: bool,
) -> tuple[Code, str]:
    name = f"'{field}'" if field else "the record"
    if kind == "missing":
        return Code.FORMAT_MISSING_KEY, f"missing required key '{field}'"
    if kind == "option_version":
        return Code.FORMAT_OPTION_VERSION, msg
    if kind in ("limit_string", "limit_depth"):
        return Code.FORMAT_LIMIT, f"{name}: {msg}"
    if kind == "number":  # the message already names the number (it may sit deep inside)
        return Code.FORMAT_VALUE, f"{name}: {msg}"
    if kind == "string_pattern_mismatch" and ctx.get("pattern") == EXTENSION_PATTERN:
        if list(path[:-1]) == ["rules"]:
            return (
                Code.FORMAT_UNKNOWN_KEY,
                f"{not_an_option(str(value))}; only keys beginning with 'x-' may be added",
            )
        return (
            Code.FORMAT_UNKNOWN_KEY,
            f"unknown key {quote(value)} (only keys beginning with 'x-' may be added)",
        )
    option = OPTION.get(str(field)) if len(path) == 2 and path[0] == "rules" else None
    if option is not None:  # the option table says what the option takes, in its own words
        problem = option.problem(value)
        if problem is not None:
            return _OPTION_CODES.get(kind, Code.FORMAT_VALUE), problem
    if kind in ("union_tag_not_found", "union_tag_invalid"):
        found = "missing" if kind == "union_tag_not_found" else f"{quote(ctx.get('tag'))}"
        return (
            Code.FORMAT_VARIANT,
            f"'variant' must be 'two-player' or 'four-player', got {found}",
        )
    if field in _CARD_FIELDS and in_list and kind in ("literal_error", "string_type"):
        return (
            Code.FORMAT_CARD,
            f"{quote(value)} is not a card (rank 2-9, T, J, Q, K or A, then suit C, D, H or S)",
        )
    if (
        field == "bids"
        and in_list
        and kind in ("literal_error", "int_type", "less_than_equal", "greater_than_equal")
    ):
        return (
            Code.FORMAT_BID,
            f"{quote(value)} is not a bid (a whole number from 0 to 13, or 'blind_nil')",
        )
    if field == "draft" and kind in ("string_pattern_mismatch", "string_type"):
        detail = f" ({len(value)} letters)" if isinstance(value, str) else ""
        return (
            Code.FORMAT_DRAFT,
            f"'draft' must be 26 letters, each K or D; got {quote(value)}{detail}",
        )
    if kind in ("too_short", "too_long"):
        expected = _expected_count(ctx)
        actual = ctx.get("actual_length", len(value) if isinstance(value, list | tuple) else "?")
        return Code.FORMAT_COUNT, f"{name} must hold {expected}, got {actual}"
    if kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        bounds = _bounds(ctx)
        return Code.FORMAT_RANGE, f"{name} must be {bounds}, got {quote(value)}"
    if kind in ("string_too_short", "string_too_long"):
        return Code.FORMAT_RANGE, f"{name} must be {_length_bounds(ctx)}, got {quote(value)}"
    if kind == "literal_error" and field in ("format", "version"):
        return (
            Code.FORMAT_NOT_A_RECORD if field == "format" else Code.FORMAT_VERSION,
            f"'{field}' must be {ctx.get('expected')}, got {quote(value)}",
        )
    if kind in _TYPE_NAMES:
        number = isinstance(value, int | float) and not isinstance(value, bool)
        found = number_text(value) if number else json_type(value)
        return Code.FORMAT_TYPE, f"{name} must be {_TYPE_NAMES[kind]}, got {found}"
    if kind == "value_error":
        return Code.FORMAT_VALUE, msg.removeprefix("Value error, ")
    return Code.FORMAT_VALUE, f"{name}: {msg} (got {quote(value)})"


def _expected_count(ctx: dict[str, Any]) -> str:
    low, high = ctx.get("min_length"), ctx.get("max_length")
    if low is not None and low == high:
        return f"exactly {low} item(s)"
    if high is not None and low in (None, 0):
        return f"at most {high} item(s)"
    if low is not None and high is None:
        return f"at least {low} item(s)"
    return (
        f"{ctx.get('field_type', 'the right number of')} item(s)"
        if low is None
        else (f"{low} to {high} item(s)")
    )


def _bounds(ctx: dict[str, Any]) -> str:
    if "ge" in ctx:
        return f"at least {ctx['ge']}"
    if "le" in ctx:
        return f"at most {ctx['le']}"
    if "gt" in ctx:
        return f"more than {ctx['gt']}"
    return f"less than {ctx.get('lt')}"


def _length_bounds(ctx: dict[str, Any]) -> str:
    if "min_length" in ctx:
        return f"at least {ctx['min_length']} character(s) long"
    return f"at most {ctx.get('max_length')} character(s) long"


def problems_from_validation(error: ValidationError) -> tuple[Problem, ...]:
    """Every error of a failed validation, once per place.

    Unknown keys come first, since a misspelt key also makes the intended one missing; the
    rest keep pydantic's order (document order). A list with a bad item is not also said to
    hold too few items.
    """
    seen: set[str] = set()
    problems = []
    for details in error.errors(include_url=False):
        problem = problem_from_error(details)
        if problem.pointer in seen:
            continue
        seen.add(problem.pointer)
        problems.append(problem)
    # a list with a bad item is also counted one short (pydantic counts the good ones): one
    # fault, one message, so the count of a list whose items have problems is left out
    problems = [
        problem
        for problem in problems
        if problem.code is not Code.FORMAT_COUNT
        or not any(other.pointer.startswith(problem.pointer + "/") for other in problems)
    ]
    problems.sort(key=lambda problem: problem.code is not Code.FORMAT_UNKNOWN_KEY)
    return tuple(problems)

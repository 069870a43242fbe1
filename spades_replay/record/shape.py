"""The shape of a record, checked on parsed JSON without the models: an accept-only check.

:func:`accepts` answers whether the format's models (:mod:`spades_replay.record.models`, the
one definition of the format) accept a JSON value as parsed by orjson, without importing
pydantic or building the models: the keys of every object, the type, range, length and
pattern of every value, the variant's sequences of two or four, the options of ``rules``
(their types and ranges read from the engine's option table, as the models read them, and
``lose_score`` below ``target_score``), the options a ``"1.0"`` record may not hold, and the
limits on ``meta`` and ``x-`` extensions. It answers ``True`` only for a value the models
accept, and then the models would hold the same data: what it accepts is read from the
parsed value as it is (:mod:`spades_replay.replayer.verify` does so).

It never explains: on ``False`` the models run and say what is wrong. It also answers
``False`` where orjson's reading of the text may differ from the models' own parser: a
float beyond the 64-bit integers inside ``meta`` or an extension (orjson reads an integer
too large for 64 bits as a float, which the models refuse as an integer) is left to them.

The check of each hand has a compiled kernel (``_shape_kernel.c``, built where the install
finds a C compiler, as the verifier's is): it accepts the plain shape of a hand at once and
leaves anything else (extensions, an exchange's ``in_``, every hand it refuses) to the
Python check, which stays the reference and decides. ``SPADES_VERIFY_KERNEL=python`` leaves
every hand to the Python check, as it does the verifier's card work.

A differential test holds it equal to the models (``tests/test_shape.py``: every fixture,
both conformance sets, simulated corpora, every mutant, hypothesis inputs; and every input
of ``./dev fuzz``), and compares its tables with the models' JSON Schema.

>>> import orjson, pathlib
>>> accepts(orjson.loads(pathlib.Path("fixtures/two-player/mercy.json").read_bytes()))
True
>>> accepts({"format": "spades-replay", "version": "1.1", "variant": "two-player"})
False
"""

from __future__ import annotations

import importlib
import math
import os
from collections.abc import Callable
from itertools import chain
from typing import Any

import orjson

from spades_replay.engine.rules import OPTIONS, Option
from spades_replay.plumbing.limits import DEFAULT_LIMITS, Limits
from spades_replay.record.header import KEY_ORDER

__all__ = [
    "CARD_NAMES",
    "COMPILED_HAND",
    "EXTENSION_PREFIX",
    "FIELDS",
    "HAND_KERNEL",
    "INT_RANGE",
    "REQUIRED",
    "accepts",
    "free_form_problem",
]

RANK_LETTERS = "23456789TJQKA"
SUIT_LETTERS = "CDHS"
CARD_NAMES = tuple(rank + suit for suit in SUIT_LETTERS for rank in RANK_LETTERS)
"""The 52 card names a record writes (``"QH"``), in the engine's order."""
_CARDS = frozenset(CARD_NAMES)

EXTENSION_PREFIX = "x-"
"""An object's key that is no field of its model is an extension when it begins so."""
TEXT_CHARS = 200
"""The longest name, player id, game id, ``meta`` key or extension key."""
POINTS = 10_000_000
"""The largest score, points or bags a claim may hold (and its negative the smallest)."""
INT_RANGE = (-(2**63), 2**64 - 1)
"""The integers JSON tools agree on (orjson writes no others)."""

FIELDS: dict[str, frozenset[str]] = {
    "record": frozenset(KEY_ORDER),
    "rules": frozenset(row.name for row in OPTIONS),
    "player": frozenset(("name", "id")),
    "hand2": frozenset(("deck", "draft", "bids", "exchanges", "plays", "result")),
    "hand4": frozenset(("deal", "bids", "exchanges", "plays", "result")),
    "exchange": frozenset(("seat", "out", "in")),
    "claim": frozenset(("tricks", "points", "scores", "bags")),
    "game_claim": frozenset(("winner", "scores")),
}
"""The keys of each object of a record (as written: the exchange's ``in``; the models also
take their field's name, ``in_``, where ``in`` is absent)."""
REQUIRED: dict[str, frozenset[str]] = {
    "record": frozenset(("format", "version", "variant", "players", "hands")),
    "rules": frozenset(),
    "player": frozenset(("name",)),
    "hand2": frozenset(("deck", "draft", "bids", "plays")),
    "hand4": frozenset(("deal", "bids", "plays")),
    "exchange": frozenset(("seat", "out", "in")),
    "claim": frozenset(),
    "game_claim": frozenset(("winner", "scores")),
}
"""The keys each object must hold."""

VERSIONS = ("1.0", "1.1")
_SEATS = {"two-player": 2, "four-player": 4}
_NEWER_OPTIONS = {"1.0": frozenset(row.name for row in OPTIONS if row.since != "1.0")}
"""The options a record of each version may not hold (the models' ``NEWER_OPTIONS``)."""
_TARGET_DEFAULT = next(row.default for row in OPTIONS if row.name == "target_score")


def _text(value: object) -> bool:
    return type(value) is str and 0 < len(value) <= TEXT_CHARS


def _ints(value: object, count: int, low: int, high: int) -> bool:
    """A list of ``count`` integers (never ``true`` or ``1.0``) from ``low`` to ``high``."""
    if type(value) is not list or len(value) != count:
        return False
    for item in value:  # noqa: SIM110 (a loop: all() over a generator is slower for 2 to 4 items)
        if type(item) is not int or not low <= item <= high:
            return False
    return True


def _cards(value: object, low: int, high: int) -> bool:
    """A list of ``low`` to ``high`` card names (an unhashable item raises TypeError, which
    :func:`accepts` takes for "no")."""
    return type(value) is list and low <= len(value) <= high and _CARDS.issuperset(value)


def free_form_problem(value: Any, limits: Limits = DEFAULT_LIMITS) -> tuple[str, Any] | None:
    """Why a free-form value (an extension's) is refused, or ``None``: its numbers must be
    finite, its integers within 64 bits, its strings (keys too) within
    ``limits.string_chars``, its nesting within ``limits.depth``. The first problem found,
    as what is wrong and the item it is wrong with: ``"infinite"`` (a number), ``"wide"``
    (an integer), ``"long"`` (a string) or ``"deep"`` (an array or object). The models raise
    their error from it; :func:`accepts` only asks whether there is one."""
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return ("infinite", item)
        if isinstance(item, int) and not INT_RANGE[0] <= item <= INT_RANGE[1]:
            return ("wide", item)
        if isinstance(item, str):
            if len(item) > limits.string_chars:
                return ("long", item)
        elif isinstance(item, list | dict):
            if depth > limits.depth:
                return ("deep", item)
            children = item.values() if isinstance(item, dict) else item
            pending.extend((child, depth + 1) for child in children)
            if isinstance(item, dict):
                pending.extend((key, depth + 1) for key in item)
    return None


def _read_alike(value: Any) -> bool:
    """Whether orjson and the models read a free-form value alike: no float at or beyond the
    ends of the 64-bit integers, which may have been written as an integer too large for
    orjson (which reads it as the nearest float)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if type(item) is float and not INT_RANGE[0] < item < 2**64:
            return False
        if type(item) is list:
            pending.extend(item)
        elif type(item) is dict:
            pending.extend(item.values())
    return True


def _extras(value: dict[str, Any], fields: frozenset[str], limits: Limits) -> bool:
    """Whether every key of ``value`` that is not one of ``fields`` is an extension, each
    with a value the models take."""
    for key, item in value.items():
        if key in fields:
            continue
        if not key.startswith(EXTENSION_PREFIX) or len(key) > TEXT_CHARS:
            return False
        if free_form_problem(item, limits) is not None or not _read_alike(item):
            return False
    return True


def _object(value: object, kind: str, limits: Limits) -> bool:
    """An object with the keys its model requires, and no key but its fields and
    extensions."""
    if type(value) is not dict:
        return False
    fields = FIELDS[kind]
    if not REQUIRED[kind] <= value.keys():
        return False
    return value.keys() <= fields or _extras(value, fields, limits)


def _option(row: Option, value: object) -> bool:
    """Whether ``value`` is a value of the option (its type as the models take it)."""
    if value is None:
        return row.optional
    if row.kind == "bool":
        return type(value) is bool
    if row.kind == "word":
        return type(value) is str and value in row.choices
    if type(value) is not int:
        return False
    return (row.low is None or value >= row.low) and (row.high is None or value <= row.high)


_OPTION_ROWS = {row.name: row for row in OPTIONS}


def _rules(value: object, version: str, limits: Limits) -> bool:
    if not _object(value, "rules", limits):
        return False
    assert isinstance(value, dict)
    for name, item in value.items():
        row = _OPTION_ROWS.get(name)
        if row is not None and not _option(row, item):
            return False
    lose = value.get("lose_score")
    target = value.get("target_score", _TARGET_DEFAULT)
    if lose is not None and lose >= target:
        return False
    newer = _NEWER_OPTIONS.get(version)
    return newer is None or newer.isdisjoint(value.keys())


_PLAYER_FIELDS = FIELDS["player"]


_RULES_SEEN: dict[tuple[bytes, str, Limits], bool] = {}
"""The verdicts on the ``rules`` objects already checked, by their JSON text (which tells
``true`` from ``1``), version and limits: a corpus repeats a few rule sets."""


def _rules_seen(value: object, version: str, limits: Limits) -> bool:
    """:func:`_rules`, remembered for the rule sets already seen."""
    if type(value) is not dict:
        return False
    key = (orjson.dumps(value), version, limits)
    verdict = _RULES_SEEN.get(key)
    if verdict is None:
        if len(_RULES_SEEN) >= 1024:
            _RULES_SEEN.clear()
        verdict = _RULES_SEEN[key] = _rules(value, version, limits)
    return verdict


def _player(value: object, limits: Limits) -> bool:
    if type(value) is not dict:
        return False
    player_id = value.get("id")
    if not _text(value.get("name")) or (player_id is not None and not _text(player_id)):
        return False
    return value.keys() <= _PLAYER_FIELDS or _extras(value, _PLAYER_FIELDS, limits)


def _meta(value: object, limits: Limits) -> bool:
    if type(value) is not dict:
        return False
    for key, item in value.items():
        if len(key) > TEXT_CHARS or type(item) is not str or len(item) > limits.string_chars:
            return False
    return True


def _bids(value: object, seats: int) -> bool:
    if type(value) is not list or len(value) != seats:
        return False
    for bid in value:
        if type(bid) is int:
            if not 0 <= bid <= 13:
                return False
        elif bid != "blind_nil":
            return False
    return True


def _exchange(value: object, seats: int, limits: Limits) -> bool:
    """An exchange; the models take ``in_`` (the field's name) for ``in`` where ``in`` is
    absent (and an ``in_`` beside ``in`` is a key that is not an extension)."""
    if type(value) is not dict:
        return False
    if "in" not in value and "in_" in value:
        value = {("in" if key == "in_" else key): item for key, item in value.items()}
    if not _object(value, "exchange", limits):
        return False
    seat = value["seat"]
    return (
        type(seat) is int
        and 0 <= seat < seats
        and _cards(value["out"], 0, 13)
        and _cards(value["in"], 0, 13)
    )


def _claim(value: object, seats: int, limits: Limits) -> bool:
    if value is None:
        return True
    if not _object(value, "claim", limits):
        return False
    assert isinstance(value, dict)
    tricks = value.get("tricks")
    if tricks is not None and not _ints(tricks, seats, 0, 13):
        return False
    for key in ("points", "scores", "bags"):
        item = value.get(key)
        if item is not None and not _ints(item, 2, -POINTS, POINTS):
            return False
    return True


def _hand(value: object, seats: int, limits: Limits) -> bool:
    two = seats == 2
    if not _object(value, "hand2" if two else "hand4", limits):
        return False
    assert isinstance(value, dict)
    if not _bids(value["bids"], seats) or not _cards(value["plays"], 0, 13 * seats):
        return False
    if two:
        draft = value["draft"]
        if not _cards(value["deck"], 52, 52):
            return False
        if type(draft) is not str or len(draft) != 26 or draft.strip("KD"):
            return False
    else:
        deal = value["deal"]
        if type(deal) is not list or len(deal) != 4:
            return False
        for holding in deal:
            if type(holding) is not list or len(holding) != 13:
                return False
        if not _CARDS.issuperset(chain.from_iterable(deal)):
            return False
    exchanges = value.get("exchanges", ())
    if exchanges != ():
        if type(exchanges) is not list or len(exchanges) > seats:
            return False
        for exchange in exchanges:
            if not _exchange(exchange, seats, limits):
                return False
    return "result" not in value or _claim(value["result"], seats, limits)


def _compiled_hand() -> Callable[[Any, int], bool] | None:
    """The compiled check of a hand, where the install built it (it needs a C compiler)."""
    try:
        # by name: import-linter reads a static import of it as one of the whole package
        compiled = importlib.import_module("spades_replay.record._shape_kernel")
    except ImportError:
        return None
    compiled.letters(RANK_LETTERS, SUIT_LETTERS)
    hand: Callable[[Any, int], bool] = compiled.hand
    return hand


COMPILED_HAND = _compiled_hand()
"""``hand(value, seats)``: ``True`` only where :func:`_hand` accepts the hand, at once; ``False``
leaves it to :func:`_hand`. ``None`` where the compiled kernel was not built."""
HAND_KERNEL = (
    None
    if os.environ.get("SPADES_VERIFY_KERNEL", "").strip().lower() == "python"
    else COMPILED_HAND
)
"""The compiled check :func:`accepts` asks first (``None``: every hand goes to the Python
check)."""


def _game_claim(value: object, limits: Limits) -> bool:
    if value is None:
        return True
    if not _object(value, "game_claim", limits):
        return False
    assert isinstance(value, dict)
    winner = value["winner"]
    return type(winner) is int and 0 <= winner <= 1 and _ints(value["scores"], 2, -POINTS, POINTS)


def _record(value: object, limits: Limits) -> bool:
    if not _object(value, "record", limits):
        return False
    assert isinstance(value, dict)
    version = value["version"]
    seats = _SEATS.get(value["variant"]) if type(value["variant"]) is str else None
    if value["format"] != "spades-replay" or version not in VERSIONS or seats is None:
        return False
    game_id = value.get("game_id")
    if game_id is not None and not _text(game_id):
        return False
    if "rules" in value and not _rules_seen(value["rules"], version, limits):
        return False
    players = value["players"]
    if type(players) is not list or len(players) != seats:
        return False
    for player in players:
        if not _player(player, limits):
            return False
    dealer = value.get("first_dealer", 0)
    if type(dealer) is not int or not 0 <= dealer < seats:
        return False
    if "meta" in value and not _meta(value["meta"], limits):
        return False
    hands = value["hands"]
    if type(hands) is not list:
        return False
    quick = HAND_KERNEL
    for hand in hands:
        if (quick is None or not quick(hand, seats)) and not _hand(hand, seats, limits):
            return False
    return "result" not in value or _game_claim(value["result"], limits)


def accepts(value: Any, limits: Limits = DEFAULT_LIMITS) -> bool:
    """Whether the format's models accept ``value`` (JSON as orjson parses it) as a record
    under ``limits``: ``True`` only when they do (see the module's note for where it leaves
    a value to them)."""
    try:
        return _record(value, limits)
    except TypeError:  # an unhashable value where a card name or a word goes
        return False

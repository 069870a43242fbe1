"""The differential check of the shape check (``spades_replay.record.shape``) against the
format's models, shared by tests/test_shape.py and the fuzz tests (so ``./dev fuzz`` drives
it on every input)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from spades_replay.errors import FormatError
from spades_replay.plumbing.limits import DEFAULT_LIMITS, Limits
from spades_replay.record import shape
from spades_replay.record.io import loads, parse_json

from .mutate import BASES, odd_values, parent_and_key, paths_of


def models_accept(data: bytes, limits: Limits = DEFAULT_LIMITS) -> bool:
    """Whether the models load the bytes as a record."""
    try:
        loads(data, limits)
    except FormatError:
        return False
    return True


def _python_accepts(value: Any, limits: Limits) -> bool:
    """The shape check with every hand left to its Python check (the reference)."""
    kernel = shape.HAND_KERNEL
    shape.HAND_KERNEL = None
    try:
        return shape.accepts(value, limits)
    finally:
        shape.HAND_KERNEL = kernel


def _read_alike(value: Any) -> bool:
    """Whether orjson reads the value as the models' parser does: no float beyond the
    64-bit integers anywhere (orjson reads a wider integer as one)."""
    if isinstance(value, float):
        return -(2**63) < value < 2**64
    if isinstance(value, list):
        return all(map(_read_alike, value))
    if isinstance(value, dict):
        return all(map(_read_alike, value.values()))
    return True


def assert_shape_agrees(data: bytes, limits: Limits = DEFAULT_LIMITS) -> bool:
    """Assert that the shape check, on each of its kernels, accepts the bytes' JSON exactly
    when the models accept the bytes (where orjson reads the JSON as the models do); and
    that the compiled check of a hand accepts none that the Python check refuses. Returns
    whether the models accept it."""
    expected = models_accept(data, limits)
    try:
        value = parse_json(data, limits)
    except FormatError:
        assert not expected, "orjson refuses what the models accept"
        return expected
    python = _python_accepts(value, limits)
    assert shape.accepts(value, limits) == python, "the compiled hand check disagrees"
    if python:
        assert expected, "the shape check accepts what the models refuse"
    elif expected:
        assert not _read_alike(value), "the shape check refuses what the models accept"
    quick = shape.COMPILED_HAND
    hands = value.get("hands") if isinstance(value, dict) else None
    if quick is not None and isinstance(hands, list):
        for seats in (2, 4):
            for hand in hands:
                if quick(hand, seats):
                    assert shape._hand(hand, seats, limits), "the compiled hand check is looser"
    return expected


TRICKY = st.one_of(
    odd_values,
    st.sampled_from(
        [
            True,
            False,
            1.0,
            0,
            13,
            14,
            -1,
            2**63,
            2**64,
            -(2**63) - 1,
            1e19,
            10_000_001,
            "2C",
            "ZZ",
            "2c",
            "K" * 26,
            "K" * 25 + "X",
            "blind_nil",
            "1.0",
            "1.1",
            "two-player",
            "four-player",
            "x" * 201,
            [],
            {},
            [[]],
            ["2C"] * 13,
            [0, 0],
            [0, 0, 0, 0],
            [True, 1],
            [1.0, 1],
            {"x-a": 1},
            {"tricks": None},
            {"seat": 0, "out": [], "in": []},
        ]
    ),
)
"""Values that the models and a careless check could read differently."""
KEYS = st.sampled_from(
    ["x-a", "x-" + "a" * 199, "x-" + "a" * 200, "in_", "in", "X-a", "extra", "id", "result"]
)


@st.composite
def reshaped(draw: st.DrawFn) -> bytes:
    """A fixture's record with one value replaced by a tricky one, one key dropped, or one
    key added (an extension or not), written by ``json`` (which writes integers of any
    size)."""
    data = json.loads(json.dumps(draw(st.sampled_from(BASES))))
    path = draw(st.sampled_from(paths_of(data)[1:]))
    parent, key = parent_and_key(data, path)
    action = draw(st.sampled_from(["replace", "drop", "add"]))
    if action == "replace":
        parent[key] = draw(TRICKY)
    elif action == "drop" and isinstance(parent, dict):
        del parent[key]
    elif isinstance(parent[key], dict):
        parent[key][draw(KEYS)] = draw(TRICKY)
    return json.dumps(data).encode()

"""The differential test of the shape check (``spades_replay.record.shape``): it accepts a
parsed record exactly when the format's models accept it, on each of its kernels.

The records: every fixture (files and corpus lines), both conformance sets, simulated corpora
of both variants under random house rules, every mutation kind of the fuzz test, and
Hypothesis records with one value made tricky (``true`` for ``1``, ``1.0``, integers beyond
64 bits, card names and words a letter off, lists a card short), a key dropped or added (an
extension, ``in_`` for ``in``, a key too long). Every input of the fuzz tests (and so of
``./dev fuzz``) goes through the same check. The shape check's tables are compared with the
models' JSON Schema, and its compiled kernel compiles cleanly.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings

from spades_replay.engine.seats import Variant
from spades_replay.plumbing.limits import Limits
from spades_replay.record import shape
from spades_replay.record.io import dumps
from spades_replay.record.schema import json_schema
from spades_replay.replayer.validate import check_bytes, verify_bytes

from .conftest import CONFORMANCE, CONFORMANCE_1_1, FIXTURES
from .support.ckernels import can_build, compile_strictly
from .support.games import fixture_records, simulated
from .support.mutate import mutated
from .support.shape import assert_shape_agrees, reshaped

EXAMPLES = int(os.environ.get("SPADES_FUZZ_EXAMPLES", "300"))
SOURCE = Path(shape.__file__).with_name("_shape_kernel.c")


def records() -> Iterator[tuple[str, bytes]]:
    """Every fixture (files and corpus lines) and every conformance record."""
    yield from fixture_records()
    for folder in (CONFORMANCE, CONFORMANCE_1_1):
        for path in sorted(folder.rglob("*.json")):
            if path.name not in ("EXPECTED.json", "RESCORE.json", "REFUSED.json"):
                yield str(path.relative_to(folder.parent)), path.read_bytes()


RECORDS = list(records())


def test_the_sets_hold_valid_and_invalid_records() -> None:
    accepted = [assert_shape_agrees(data) for _, data in RECORDS]
    assert sum(accepted) > 100
    assert len(accepted) - sum(accepted) > 30


@pytest.mark.parametrize(("name", "data"), RECORDS, ids=[name for name, _ in RECORDS])
def test_fixtures_and_conformance(name: str, data: bytes) -> None:
    assert_shape_agrees(data)


def test_tighter_limits() -> None:
    """The limits on ``meta`` and extensions are the caller's, for the check as for the
    models."""
    tight = Limits(depth=2, string_chars=5)
    for _, data in RECORDS:
        assert_shape_agrees(data, tight)


@pytest.mark.parametrize("variant", list(Variant))
def test_simulated_corpora(variant: Variant) -> None:
    for record in simulated(variant, 16, 31):
        assert assert_shape_agrees(dumps(record))
        assert assert_shape_agrees(dumps(record, indent=True))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutants(data: bytes) -> None:
    assert_shape_agrees(data)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reshaped())
def test_tricky_values_and_keys(data: bytes) -> None:
    """And the fast path as a whole reports what the models and the engine report."""
    assert_shape_agrees(data)
    report, verified = verify_bytes(data)
    expected, replayed = check_bytes(data)
    assert report == expected
    assert (verified is None) == (replayed is None)


def test_the_exchange_takes_in_by_its_field_name_too() -> None:
    """The models read an exchange's ``in`` from ``in_`` where ``in`` is absent (and refuse
    ``in_`` beside ``in``): the check does the same."""
    data: dict[str, Any] = orjson.loads((FIXTURES / "four-player" / "blind-nil.json").read_bytes())
    exchange = next(e for hand in data["hands"] for e in hand.get("exchanges", ()))
    exchange["in_"] = exchange.pop("in")
    assert assert_shape_agrees(orjson.dumps(data))
    exchange["in"] = exchange["in_"]
    assert not assert_shape_agrees(orjson.dumps(data))


def test_a_wide_integer_in_an_extension_is_left_to_the_models() -> None:
    """orjson reads 2**64 as a float: the check leaves it to the models, which refuse it."""
    data = orjson.loads((FIXTURES / "two-player" / "mercy.json").read_bytes())
    text = orjson.dumps(data)[:-1] + b',"x-wide":18446744073709551616}'
    assert not shape.accepts(orjson.loads(text))
    assert not assert_shape_agrees(text)
    assert assert_shape_agrees(orjson.dumps(data)[:-1] + b',"x-wide":1e300}')
    narrow = orjson.dumps(data)[:-1] + b',"x-wide":-9223372036854775809}'
    assert not shape.accepts(orjson.loads(narrow))
    assert not assert_shape_agrees(narrow)


def _definitions() -> dict[str, Any]:
    schema = json_schema()
    definitions: dict[str, Any] = schema["$defs"]
    return definitions


SCHEMA_NAMES = {
    "rules": "Rules",
    "player": "Player",
    "hand2": "Hand2",
    "hand4": "Hand4",
    "claim": "HandClaim4",
    "game_claim": "GameClaim",
}


@pytest.mark.parametrize("kind", sorted(shape.FIELDS))
def test_the_tables_are_the_models(kind: str) -> None:
    """Every object's keys and required keys are those of its model in the JSON Schema."""
    definitions = _definitions()
    if kind == "record":
        models = [definitions["TwoPlayerRecord"], definitions["FourPlayerRecord"]]
    elif kind == "exchange":
        models = [definitions["Exchange2"], definitions["Exchange4"]]
    else:
        models = [definitions[SCHEMA_NAMES[kind]]]
    for model in models:
        assert set(model["properties"]) == shape.FIELDS[kind]
        assert set(model.get("required", ())) == shape.REQUIRED[kind]
        assert model["additionalProperties"] is False
        assert model["patternProperties"] == {f"^{shape.EXTENSION_PREFIX}": {}}
    if kind == "claim":
        assert set(definitions["HandClaim2"]["properties"]) == shape.FIELDS[kind]


def test_the_kernel_compiles_without_warnings(tmp_path: Path) -> None:
    """``_shape_kernel.c`` compiles under -Wall -Wextra -Werror (the install builds the
    optional extension quietly, so a warning would otherwise go unseen)."""
    if not can_build():
        pytest.skip("no C compiler or no Python headers here: the kernel cannot be built")
    done = compile_strictly(SOURCE, tmp_path / "kernel.o")
    assert done.returncode == 0, done.stderr


def test_the_kernel_is_built_where_a_compiler_is() -> None:
    if can_build():
        assert shape.COMPILED_HAND is not None, "a compiler is here, but the kernel was not built"


def _keys(value: Any) -> set[str]:
    """Every key of every object inside ``value``."""
    if isinstance(value, dict):
        return set(value).union(*map(_keys, value.values()))
    if isinstance(value, list):
        return set().union(*map(_keys, value))
    return set()


def test_the_kernel_accepts_the_plain_hands_and_leaves_the_rest() -> None:
    """On hands without extensions or exchanges the compiled check answers as the Python
    one; a hand with either is left to the Python check."""
    quick = shape.COMPILED_HAND
    if quick is None:
        pytest.skip("the compiled kernel is not built here")
    plain = 0
    for _, data in RECORDS:
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(value, dict):
            continue
        seats = {"two-player": 2, "four-player": 4}.get(value.get("variant"))
        hands = value.get("hands")
        if seats is None or not isinstance(hands, list):
            continue
        for hand in hands:
            reference = shape._hand(hand, seats, shape.DEFAULT_LIMITS)
            if _keys(hand) & {"in_"} or any(key.startswith("x-") for key in _keys(hand)):
                assert not quick(hand, seats)
            else:
                assert quick(hand, seats) == reference
                plain += 1
    assert plain > 500
    data = orjson.loads((FIXTURES / "four-player" / "blind-nil.json").read_bytes())
    hand = next(hand for hand in data["hands"] if hand.get("exchanges"))
    assert quick(hand, 4)
    for change in ("extension", "in_", "claim extension"):
        changed = orjson.loads(orjson.dumps(hand))
        if change == "extension":
            changed["x-note"] = {"a": [1]}
        elif change == "in_":
            changed["exchanges"][0]["in_"] = changed["exchanges"][0].pop("in")
        else:
            changed["result"]["x-note"] = 1
        assert not quick(changed, 4)
        assert shape._hand(changed, 4, shape.DEFAULT_LIMITS)

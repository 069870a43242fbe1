"""The fast verifier's two kernels: the compiled one (``_verify_kernel.c``) answers exactly
what the pure-Python reference answers.

Every differential check of tests/test_verify.py and tests/test_fuzz.py already runs the
whole verifier on each kernel built here. These tests add the kernel functions on their own,
on hands cut and shuffled in ways no record would hold, and check that the compiled kernel is
built wherever it can be: the extension is optional, so a C error would otherwise only make
the install quietly fall back to Python.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spades_replay.engine.seats import Variant
from spades_replay.play.simulate import simulate_game
from spades_replay.replayer.verify import (
    CARD_NAMES,
    COMPILED_KERNEL,
    KERNEL,
    KERNEL_VARIABLE,
    PYTHON_KERNEL,
    Kernel,
)

from .support.ckernels import can_build, compile_strictly, printed_in_a_new_process

needs_compiled = pytest.mark.skipif(
    COMPILED_KERNEL is None, reason="the compiled kernel is not built here (no C compiler)"
)


def test_the_compiled_kernel_is_built_wherever_it_can_be() -> None:
    if not can_build():
        pytest.skip("no C compiler or no Python headers here: the kernel cannot be built")
    assert COMPILED_KERNEL is not None, "the C source did not build (pip install -v shows why)"


SOURCE = Path(__file__).resolve().parents[1] / "spades_replay" / "replayer" / "_verify_kernel.c"


def test_the_c_source_compiles_without_a_warning(tmp_path: Path) -> None:
    """The system's C compiler, every common warning on and each an error: the install
    builds the optional extension quietly, so a warning would otherwise go unseen."""
    if not can_build():
        pytest.skip("no C compiler or no Python headers here: the kernel cannot be built")
    done = compile_strictly(SOURCE, tmp_path / "kernel.o")
    assert done.returncode == 0, done.stderr


def test_the_c_source_takes_the_card_letters_from_the_engine() -> None:
    """The kernel reads the rank and suit letters from spades_replay.engine.cards when it is
    imported: the source spells neither, so the card names are spelt in one place."""
    from spades_replay.engine.cards import RANKS, SUITS

    source = SOURCE.read_text()
    assert RANKS not in source
    assert SUITS not in source
    assert '"RANKS"' in source
    assert '"SUITS"' in source


def _kernel_of_a_new_process(setting: str | None) -> str:
    """The kernel a new process verifies with, ``SPADES_VERIFY_KERNEL`` set to ``setting``."""
    script = "from spades_replay.replayer.verify import KERNEL; print(KERNEL.name)"
    return printed_in_a_new_process(script, KERNEL_VARIABLE, setting)


def test_the_default_kernel_is_the_compiled_one_unless_python_is_asked_for() -> None:
    assert KERNEL in (COMPILED_KERNEL, PYTHON_KERNEL)
    built = "python" if COMPILED_KERNEL is None else "compiled"
    assert _kernel_of_a_new_process(None) == built
    assert _kernel_of_a_new_process(" Python ") == "python"


HANDS4 = [
    (hand.plays, [PYTHON_KERNEL.holding(seat) for seat in hand.deal])
    for seed in range(4)
    for hand in simulate_game(Variant.FOUR_PLAYER, seed=seed, max_hands=6).hands
    if not hand.exchanges and len(hand.plays) == 52
]
HANDS2 = [
    (hand.deck, hand.draft, hand.plays)
    for seed in range(4)
    for hand in simulate_game(Variant.TWO_PLAYER, seed=seed, max_hands=6).hands
    if not hand.exchanges and len(hand.plays) == 26
]


def _mutated(plays: tuple[str, ...], rng: random.Random) -> tuple[str, ...]:
    """The plays with one of: two cards swapped, a card replaced by any card, a trick's
    cards shuffled, or nothing changed."""
    cards = list(plays)
    kind = rng.randrange(4)
    if kind == 0:
        first, second = rng.randrange(len(cards)), rng.randrange(len(cards))
        cards[first], cards[second] = cards[second], cards[first]
    elif kind == 1:
        cards[rng.randrange(len(cards))] = rng.choice(CARD_NAMES)
    elif kind == 2:
        width = 4 if len(cards) == 52 else 2
        start = width * rng.randrange(len(cards) // width)
        trick = cards[start : start + width]
        rng.shuffle(trick)
        cards[start : start + width] = trick
    return tuple(cards)


def _both(kernel_call: str, *arguments: object) -> object:
    """What the pure-Python and the compiled kernel answer; asserts that they agree."""
    assert COMPILED_KERNEL is not None
    expected = getattr(PYTHON_KERNEL, kernel_call)(*arguments)
    assert getattr(COMPILED_KERNEL, kernel_call)(*arguments) == expected, kernel_call
    return expected


@needs_compiled
def test_the_hands_are_there() -> None:
    assert len(HANDS4) > 12
    assert len(HANDS2) > 12


@needs_compiled
@given(seed=st.integers(0, 2**32 - 1), leader=st.integers(0, 3), broken=st.booleans())
def test_four_player_tricks(seed: int, leader: int, broken: bool) -> None:
    rng = random.Random(seed)
    plays, holdings = rng.choice(HANDS4)
    _both("play4", _mutated(plays, rng), list(holdings), leader, broken)


@needs_compiled
@given(seed=st.integers(0, 2**32 - 1), leader=st.integers(0, 1), broken=st.booleans())
def test_two_player_draft_and_tricks(seed: int, leader: int, broken: bool) -> None:
    rng = random.Random(seed)
    deck, draft, plays = rng.choice(HANDS2)
    deck = _mutated(deck, rng) if rng.random() < 0.3 else deck
    draft = "".join(rng.choice("KD") for _ in draft) if rng.random() < 0.3 else draft
    drafted = _both("draft2", deck, draft)
    if drafted is not None:
        first, second = drafted
        lead, other = (second, first) if leader else (first, second)
        _both("play2", _mutated(plays, rng), lead, other, leader, broken)


@needs_compiled
@pytest.mark.parametrize("cards", [(), ("AS",), tuple(CARD_NAMES), ("2C", "2C", "KH")])
def test_holdings(cards: tuple[str, ...]) -> None:
    _both("holding", cards)


@needs_compiled
@pytest.mark.parametrize("kernel", [PYTHON_KERNEL, COMPILED_KERNEL], ids=["python", "compiled"])
def test_a_name_that_is_no_card_is_a_key_error(kernel: Kernel) -> None:
    with pytest.raises(KeyError):
        kernel.holding(("AS", "1S"))
    plays, holdings = HANDS4[0]
    with pytest.raises(KeyError):
        kernel.play4(("ZZ", *plays[1:]), holdings, 0, True)


@needs_compiled
def test_the_compiled_kernel_refuses_what_it_cannot_take() -> None:
    assert COMPILED_KERNEL is not None
    plays, holdings = HANDS4[0]
    with pytest.raises(ValueError, match="52 cards"):
        COMPILED_KERNEL.play4(plays[:-1], holdings, 0, True)
    with pytest.raises(ValueError, match="no seat 4"):
        COMPILED_KERNEL.play4(plays, holdings, 4, True)
    with pytest.raises(ValueError, match="4 holdings"):
        COMPILED_KERNEL.play4(plays, holdings[:3], 0, True)
    with pytest.raises(OverflowError):
        COMPILED_KERNEL.play4(plays, [-1, *holdings[1:]], 0, True)
    deck, draft, _ = HANDS2[0]
    with pytest.raises(ValueError, match="K or D"):
        COMPILED_KERNEL.draft2(deck, draft[:-1] + "X")

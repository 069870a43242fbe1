"""Self-play's two ways of playing a hand's cards: the compiled kernel (``_play_kernel.c``)
plays exactly what the pure-Python reference (``simulate._card_play``) plays.

The kernel states two rules again (what may be played, what wins a trick) and the two bots'
choices of a card; it is held equal to the reference card by card, on hands dealt at random
under every play option with every mix of heuristic and random seats, and game by game, on
whole simulated games under random house rules: the same records, byte for byte, and the
same draws from the game's generator.
"""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from spades_replay.engine.cards import DECK
from spades_replay.engine.scoring import BLIND_NIL, NIL
from spades_replay.engine.seats import Variant
from spades_replay.engine.tricks import CLUB_TWO, opening_leader
from spades_replay.play import simulate
from spades_replay.play.bots import HeuristicBot, RandomBot
from spades_replay.play.simulate import (
    COMPILED_PLAY,
    PLAY_KERNEL_VARIABLE,
    _card_play,
    _compiled_card_play,
    simulate_game,
)
from spades_replay.record.io import dumps

from .support.ckernels import can_build, compile_strictly, printed_in_a_new_process
from .support.games import random_rules

needs_compiled = pytest.mark.skipif(
    COMPILED_PLAY is None, reason="the compiled kernel is not built here (no C compiler)"
)
SOURCE = Path(__file__).resolve().parents[1] / "spades_replay" / "play" / "_play_kernel.c"


def test_the_compiled_kernel_is_built_wherever_it_can_be() -> None:
    if not can_build():
        pytest.skip("no C compiler or no Python headers here: the kernel cannot be built")
    assert COMPILED_PLAY is not None, "the C source did not build (pip install -v shows why)"


def test_the_c_source_compiles_without_a_warning(tmp_path: Path) -> None:
    if not can_build():
        pytest.skip("no C compiler or no Python headers here: the kernel cannot be built")
    done = compile_strictly(SOURCE, tmp_path / "kernel.o")
    assert done.returncode == 0, done.stderr


def _card_play_of_a_new_process(setting: str | None) -> str:
    """How a new process plays self-play's cards, ``SPADES_PLAY_KERNEL`` set to ``setting``."""
    script = "from spades_replay.play.simulate import CARD_PLAY; print(CARD_PLAY.__name__)"
    return printed_in_a_new_process(script, PLAY_KERNEL_VARIABLE, setting)


def test_the_compiled_kernel_plays_unless_python_is_asked_for() -> None:
    built = "_card_play" if COMPILED_PLAY is None else "_compiled_card_play"
    assert _card_play_of_a_new_process(None) == built
    assert _card_play_of_a_new_process(" Python ") == "_card_play"


BIDS = (None, BLIND_NIL, NIL, NIL, 1, 2, 3, 4, 5, 6, 7, 13)
"""The bids a position draws from: no bid, Blind Nil, Nil (twice as often) and numbers."""


def _position(rng: random.Random) -> tuple[Any, list[Any]]:
    """The start of a hand's play dealt at random (as ``_card_play`` reads it: variant, rules,
    bids, holdings and the first leader), under random house rules, and its bots: each seat
    heuristic or random."""
    variant = rng.choice([Variant.TWO_PLAYER, Variant.FOUR_PLAYER])
    rules = random_rules(rng)
    deck = list(DECK)
    rng.shuffle(deck)
    count = variant.seat_count
    holdings = tuple(
        sum(1 << card for card in deck[13 * seat : 13 * seat + 13]) for seat in range(count)
    )
    leader = opening_leader(variant, rules, rng.randrange(count), holdings)
    state = SimpleNamespace(
        variant=variant,
        rules=rules,
        bids=tuple(rng.choice(BIDS) for _ in range(count)),
        holdings=holdings,
        trick_leader=leader,
    )
    bots = [HeuristicBot() if rng.random() < 0.6 else RandomBot() for _ in range(count)]
    return state, bots


@needs_compiled
def test_the_kernel_plays_every_card_the_reference_plays() -> None:
    """Card by card, on 4,000 random hands: the same outcome, and the game's generator left
    where the reference leaves it."""
    rng = random.Random(2026)
    openings = 0
    for _ in range(4000):
        state, bots = _position(rng)
        seed = rng.randrange(2**32)
        reference, compiled = random.Random(seed), random.Random(seed)
        expected = _card_play(state, bots, reference)
        assert _compiled_card_play(state, bots, compiled) == expected, state
        assert compiled.getstate() == reference.getstate()
        openings += expected.plays[0] == CLUB_TWO and state.rules.first_lead == "two_of_clubs"
    assert openings > 100


@needs_compiled
@pytest.mark.parametrize("variant", list(Variant), ids=lambda variant: variant.value)
def test_whole_games_are_the_same_bytes_on_both(
    variant: Variant, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Games under random house rules (every option of the format), heuristic, random and
    mixed seats: the same records on either kernel."""
    rng = random.Random(variant.seat_count)
    for index in range(40):
        rules = random_rules(rng)
        kinds = [rng.choice("hr") for _ in range(variant.seat_count)] if index % 3 else ["h"] * 4
        seed = rng.randrange(2**32)
        records = []
        for card_play in (_card_play, _compiled_card_play):
            monkeypatch.setattr(simulate, "CARD_PLAY", card_play)
            bots = [
                HeuristicBot() if kind == "h" else RandomBot(0.2)
                for kind in kinds[: variant.seat_count]
            ]
            records.append(dumps(simulate_game(variant, seed=seed, rules=rules, bots=bots)))
        assert records[0] == records[1], (index, rules, kinds)


@needs_compiled
def test_the_kernel_refuses_what_it_cannot_take() -> None:
    assert COMPILED_PLAY is not None
    hands = [sum(1 << card for card in range(13 * seat, 13 * seat + 13)) for seat in range(4)]

    def play(**changed: Any) -> tuple[Any, ...]:
        arguments = {
            "holdings": hands,
            "leader": 0,
            "opening": -1,
            "spades_may_lead": False,
            "bids": (3, 3, 3, 3),
            "random_seats": 0,
            "choice": random.Random(0).choice,
        }
        arguments.update(changed)
        return COMPILED_PLAY(*arguments.values())

    assert play()[2] == (0, 0, 0, 13)  # each seat one suit: spades take every trick
    with pytest.raises(ValueError, match="two or four seats"):
        play(holdings=hands[:3], bids=(3, 3, 3))
    with pytest.raises(ValueError, match="one bid per seat"):
        play(bids=(3, 3))
    with pytest.raises(ValueError, match="past the 52"):
        play(holdings=[1 << 52, *hands[1:]])
    with pytest.raises(ValueError, match="bid is out of range"):
        play(bids=(3, 3, 3, 14))
    with pytest.raises(ValueError, match="out of range"):
        play(leader=4)
    with pytest.raises(ValueError, match="no card to play"):
        play(holdings=[0, *hands[1:]])
    with pytest.raises(ValueError, match="not one of the cards offered"):
        play(random_seats=1, choice=lambda cards: 51)

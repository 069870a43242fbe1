"""Quick self-play held equal to the engine.

:func:`~spades_replay.play.simulate.simulate_game` plays heuristic and random bots without a
state per draft turn or card: the bots choose on plain values, and the recorder takes the rest
of a draft and a hand's whole card play at once (:func:`~spades_replay.engine.state.apply_draws`,
:func:`~spades_replay.engine.state.apply_plays`). These tests hold each piece equal to the
engine taking one action at a time: the same states, the same errors, the same records byte
for byte, under rules drawn over every option, and every record valid.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spades_replay.engine.actions import Draw, IllegalActionError, PlayCard
from spades_replay.engine.cards import DECK, cards_of
from spades_replay.engine.rules import Rules
from spades_replay.engine.seats import Variant
from spades_replay.engine.state import (
    HandState,
    Phase,
    after_play,
    apply,
    apply_draws,
    apply_plays,
    legal_plays,
    start_four_player,
    start_two_player,
)
from spades_replay.engine.tricks import play_out, spades_open
from spades_replay.errors import RulesError
from spades_replay.play.bots import (
    Bot,
    HeuristicBot,
    RandomBot,
    _cheapest,
    _costliest,
    _play_value,
    next_action,
)
from spades_replay.play.recorder import Recorder
from spades_replay.play.simulate import _card_play, deal_of, roster, simulate_game
from spades_replay.record.io import dumps
from spades_replay.replayer.validate import validate_bytes

from .support.games import RULES


def _engine_game(
    variant: Variant, seed: int, bots: list[Bot], rules: Rules, max_hands: int
) -> bytes:
    """The game :func:`simulate_game` plays, one engine action at a time (its loop for any
    other bot): the reference the quick loop is held to."""
    rng = random.Random(seed)
    names = [name for name, _ in roster(variant)]
    recorder = Recorder(
        variant,
        [
            {"name": name, "id": f"{bot.name}-{name.lower()}"}
            for name, bot in zip(names, bots, strict=True)
        ],
        rules=rules,
        first_dealer=rng.randrange(variant.seat_count),
        game_id=f"{variant.value}-{seed}",
        meta={"source": "spades-replay simulate", "seed": str(seed)},
    )
    while not recorder.game_over and recorder.hands_started < max_hands:
        deck = list(DECK)
        rng.shuffle(deck)
        if variant is Variant.TWO_PLAYER:
            recorder.start_hand(deck=deck)
        else:
            dealer = (recorder.first_dealer + recorder.hands_started) % 4
            recorder.start_hand(deal=deal_of(deck, dealer))
        while recorder.state.phase is not Phase.DONE:
            recorder.act(next_action(recorder.state, bots, rng))
    return dumps(recorder.record())


def _bots(variant: Variant, kinds: list[str], blind_rate: float) -> list[Bot]:
    cast = [bot for _, bot in roster(variant)]
    return [
        cast[seat] if kind == "heuristic" else RandomBot(blind_nil_rate=blind_rate)
        for seat, kind in enumerate(kinds[: variant.seat_count])
    ]


@given(
    variant=st.sampled_from(list(Variant)),
    seed=st.integers(0, 2**40),
    rules=RULES,
    kinds=st.lists(st.sampled_from(["heuristic", "random"]), min_size=4, max_size=4),
    blind_rate=st.sampled_from([0.0, 0.3]),
)
def test_quick_self_play_gives_the_engines_games_byte_for_byte(
    variant: Variant, seed: int, rules: Rules, kinds: list[str], blind_rate: float
) -> None:
    quick = dumps(
        simulate_game(
            variant,
            seed=seed,
            bots=_bots(variant, kinds, blind_rate),
            rules=rules,
            max_hands=4,
        )
    )
    engine = _engine_game(variant, seed, _bots(variant, kinds, blind_rate), rules, 4)
    assert quick == engine
    assert validate_bytes(quick).valid


@pytest.mark.parametrize("variant", list(Variant))
def test_whole_games_are_the_engines_and_valid(variant: Variant) -> None:
    for seed in range(6):
        bots = [bot for _, bot in roster(variant)]
        quick = dumps(simulate_game(variant, seed=seed, bots=bots))
        assert quick == _engine_game(
            variant, seed, [bot for _, bot in roster(variant)], Rules(), 60
        )
        assert validate_bytes(quick).valid


# -- the engine's batches: the same states and errors as one action at a time -------------------


def _at_play(variant: Variant, rules: Rules, rng: random.Random) -> HandState:
    """A hand just before its first card, set up with random legal actions."""
    deck = list(DECK)
    rng.shuffle(deck)
    if variant is Variant.TWO_PLAYER:
        state = start_two_player(rules, rng.randrange(2), deck)
    else:
        holdings = [sum(1 << card for card in seat) for seat in deal_of(deck, 3)]
        state = start_four_player(rules, 3, holdings)
    bot = RandomBot(blind_nil_rate=0.3)
    while state.phase is not Phase.PLAY:
        assert state.turn is not None
        state = apply(state, bot.act(state, state.turn, rng))
    return state


def _one_at_a_time(state: HandState, cards: list[int]) -> HandState:
    for card in cards:
        state = apply(state, PlayCard(state.turn if state.turn is not None else 0, card))
    return state


def _outcome(
    step: Callable[[HandState, list[Any]], HandState], state: HandState, values: list[Any]
) -> object:
    """The state a step gives, or what its error says."""
    try:
        return step(state, values)
    except IllegalActionError as error:
        return (error.code, error.message, error.at, error.seat, error.legal, error.trick)


@given(
    variant=st.sampled_from(list(Variant)),
    seed=st.integers(0, 2**32),
    rules=RULES,
    length=st.integers(0, 60),
    wrong=st.sampled_from([0.0, 0.1, 0.02]),
    split=st.integers(0, 7),
)
def test_apply_plays_is_the_engine_one_card_at_a_time(
    variant: Variant, seed: int, rules: Rules, length: int, wrong: float, split: int
) -> None:
    """From the start of play (the whole-hand path) and from a trick under way (one card at a
    time), legal cards, an illegal one now and then, and cards past the end of the hand."""
    rng = random.Random(seed)
    state = _at_play(variant, rules, rng)
    cards: list[int] = []
    walk = state
    while len(cards) < length and walk.phase is Phase.PLAY:
        if rng.random() < wrong:
            cards.append(rng.randrange(52))
            break
        card = rng.choice(cards_of(legal_plays(walk)))
        cards.append(card)
        walk = apply(walk, PlayCard(walk.turn or 0, card))
    if walk.phase is Phase.DONE and length > len(cards):
        cards.append(rng.randrange(52))
    assert _outcome(apply_plays, state, cards) == _outcome(_one_at_a_time, state, cards)
    try:
        middle = _one_at_a_time(state, cards[:split])
    except IllegalActionError:
        return
    rest = cards[split:]
    assert _outcome(apply_plays, middle, rest) == _outcome(_one_at_a_time, middle, rest)


@given(
    variant=st.sampled_from(list(Variant)),
    seed=st.integers(0, 2**32),
    rules=RULES,
    kinds=st.lists(st.sampled_from(["heuristic", "random"]), min_size=4, max_size=4),
)
def test_the_quick_card_play_is_the_outcome_the_engine_plays_out(
    variant: Variant, seed: int, rules: Rules, kinds: list[str]
) -> None:
    """The recorder takes the quick loop's outcome of a hand's play unchecked: it is what the
    engine's whole-hand statement of the play rules gives for the same cards, and the state
    after it is the one the engine reaches one card at a time."""
    rng = random.Random(seed)
    state = _at_play(variant, rules, rng)
    outcome = _card_play(state, _bots(variant, kinds, 0.0), rng)
    spades_free = spades_open(rules, spades_broken=False)
    assert outcome == play_out(state.holdings, state.turn, outcome.plays, spades_free=spades_free)
    assert after_play(state, outcome) == _one_at_a_time(state, list(outcome.plays))


def _draw_one_at_a_time(state: HandState, keeps: list[bool]) -> HandState:
    for keep in keeps:
        state = apply(state, Draw(state.turn if state.turn is not None else 0, keep))
    return state


@given(
    seed=st.integers(0, 2**32),
    rules=RULES,
    done=st.integers(0, 26),
    more=st.integers(0, 30),
)
def test_apply_draws_is_the_engine_one_turn_at_a_time(
    seed: int, rules: Rules, done: int, more: int
) -> None:
    rng = random.Random(seed)
    deck = list(DECK)
    rng.shuffle(deck)
    state = start_two_player(rules, rng.randrange(2), deck)
    state = _draw_one_at_a_time(state, [rng.random() < 0.5 for _ in range(done)])
    keeps = [rng.random() < 0.5 for _ in range(more)]
    assert _outcome(apply_draws, state, keeps) == _outcome(_draw_one_at_a_time, state, keeps)


def test_the_recorder_refuses_an_illegal_card_among_many_and_plays_none() -> None:
    rng = random.Random(3)
    recorder = Recorder(Variant.FOUR_PLAYER, ["A", "B", "C", "D"])
    deck = list(DECK)
    rng.shuffle(deck)
    recorder.start_hand(deal=deal_of(deck, 0))
    for seat in (1, 2, 3, 0):
        recorder.bid(seat, 3)
    state = recorder.state
    first = cards_of(legal_plays(state))[0]
    held = state.holdings[(state.turn or 0) + 1 & 3]
    follower_cannot = next(
        card for card in range(52) if not held >> card & 1 and card // 13 != first // 13
    )
    with pytest.raises(RulesError) as batch:
        recorder.play_cards([first, follower_cannot])
    assert recorder.state is state
    recorder.play(state.turn or 0, first)
    with pytest.raises(RulesError) as single:
        recorder.play(recorder.turn or 0, follower_cannot)
    assert batch.value.problems[0].code == single.value.problems[0].code
    assert batch.value.problems[0].place == single.value.problems[0].place


# -- the heuristic bot's choice on masks ----------------------------------------------------------


@given(st.integers(1, (1 << 52) - 1))
def test_cheapest_and_costliest_are_min_and_max_by_play_value(mask: int) -> None:
    cards = cards_of(mask)
    assert _cheapest(mask) == min(cards, key=_play_value)
    assert _costliest(mask) == max(cards, key=_play_value)


def test_other_bots_play_one_action_at_a_time() -> None:
    """A bot of another kind (here a subclass) is asked with a state for every action, and
    still gives the heuristic's games."""

    class Careful(HeuristicBot):
        pass

    variant = Variant.FOUR_PLAYER
    styles = [bot for _, bot in roster(variant)]
    careful: list[Bot] = [
        Careful(boldness=bot.boldness, nil_rate=bot.nil_rate, blind_nil_rate=bot.blind_nil_rate)
        for bot in styles
        if isinstance(bot, HeuristicBot)
    ]
    record = simulate_game(variant, seed=5, bots=careful)
    assert dumps(record) == dumps(simulate_game(variant, seed=5))

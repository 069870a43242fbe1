"""Play analysis of replayed hands, and the ``analyze`` command: values consistent along every
hand, agreement with exhaustive search at the end of hands, Nil verdicts, time caps, workers,
output and exit codes."""

from __future__ import annotations

import functools
import itertools
import random
import re
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from spades_replay.analysis import (
    KERNEL_VARIABLE,
    HandAnalysis,
    Position,
    Solver,
    analyze_hand,
    analyze_hands,
    analyze_replay,
    kernel_name,
    position_before,
)
from spades_replay.cli import main
from spades_replay.engine.cards import cards_of
from spades_replay.engine.scoring import BLIND_NIL, NIL
from spades_replay.engine.seats import Variant
from spades_replay.engine.tricks import CLUB_TWO
from spades_replay.play.bots import HeuristicBot
from spades_replay.play.simulate import simulate_game
from spades_replay.record.io import dump, load, loads
from spades_replay.replayer.replay import HandReplay, Replay, replay

from .conftest import CONFORMANCE
from .support.games import random_rules
from .support.solver import compiled_solver, exhaustive_nil, exhaustive_tricks

VALID = CONFORMANCE / "valid"
TWO_PLAYER_GAME = VALID / "two-player-01.json"
FOUR_PLAYER_GAME = VALID / "four-player-01.json"


@functools.cache
def game(path: Path) -> Replay:
    return replay(load(path))


@functools.cache
def simulated(seed: int) -> Replay:
    return replay(simulate_game("two-player", seed=seed, bots=[HeuristicBot(), HeuristicBot()]))


def positions(hand: HandReplay) -> list[Position]:
    """The position before every card of the hand, and after the last."""
    outcome = hand.outcome
    found = [Position(hand.variant, outcome.holdings, outcome.leader)]
    for card in hand.actions.plays:
        found.append(found[-1].play(card))
    return found


def check_consistency(hand: HandReplay, analysis: HandAnalysis) -> None:
    """What must hold of every analysed play, whatever the hand."""
    variant = hand.variant
    steps = positions(hand)
    total = 13
    assert analysis.made == steps[-1].side_tricks
    analysed = [play for play in analysis.plays if play.analysed]
    assert [play.index for play in analysed] == list(
        range(analysis.analysed_from, len(analysis.plays))
    )
    for play in analysis.plays:
        position = steps[play.index]
        assert play.seat == position.to_move
        assert play.card == hand.actions.plays[play.index]
        if not play.analysed:
            assert (play.best, play.value, play.best_cards) == (None, None, ())
            continue
        assert play.best is not None
        assert play.value is not None
        assert play.cost == play.best - play.value >= 0
        assert set(play.best_cards) <= set(cards_of(position.legal_plays()))
        assert (play.card in play.best_cards) == (play.cost == 0)
        # the value after a card is the value before the next: the same position
        if play.index + 1 < len(analysis.plays):
            following = analysis.plays[play.index + 1]
            if following.analysed:
                assert following.best is not None
                same_side = variant.side_of(following.seat) == variant.side_of(play.seat)
                assert play.value == (following.best if same_side else total - following.best)
    if analysis.par is not None and analysis.plays:
        first = analysis.plays[0]
        assert first.best == analysis.par[variant.side_of(first.seat)]
    if analysis.complete and analysis.plays and analysis.plays[-1].analysed:
        last = analysis.plays[-1]
        assert last.value == analysis.made[variant.side_of(last.seat)]
    lost = [0] * variant.seat_count
    for play in analysis.plays:
        lost[play.seat] += play.cost or 0
    assert analysis.tricks_lost == tuple(lost)


def two_player_hands() -> Iterator[HandReplay]:
    yield from game(TWO_PLAYER_GAME).hands[:16]
    yield from simulated(4).hands[:10]


@pytest.mark.slow
def test_values_are_consistent_along_every_two_player_hand() -> None:
    checked = 0
    for hand in two_player_hands():
        analysis = analyze_hand(hand)
        assert not analysis.capped
        assert analysis.par is not None
        assert sum(analysis.par) == 13
        check_consistency(hand, analysis)
        checked += 1
    assert checked == 26


@pytest.mark.slow
def test_the_first_hand_of_the_two_player_oracle_game() -> None:
    analysis = analyze_hand(game(TWO_PLAYER_GAME).hands[0])
    assert analysis.par == (8, 5)
    assert analysis.made == (5, 8)
    assert analysis.tricks_lost == (3, 0)
    costly = [(play.trick, play.position, play.cost) for play in analysis.plays if play.cost]
    assert costly == [(3, 2, 1), (4, 2, 1), (6, 2, 1)]


def expected_play(position: Position, card: int) -> tuple[int, int, tuple[int, ...]]:
    """(best, value of ``card``, best cards) for the player to move, by exhaustive search."""
    variant = position.variant
    side = variant.side_of(position.to_move)
    values = {}
    for legal in cards_of(position.legal_plays()):
        after = position.play(legal)
        side0 = after.side_tricks[0] + exhaustive_tricks(
            variant, after.holdings, after.leader, after.trick, after.spades_broken
        )
        values[legal] = side0 if side == 0 else 13 - side0
    best = max(values.values())
    return best, values[card], tuple(c for c, value in values.items() if value == best)


@pytest.mark.parametrize(
    ("path", "tricks", "hands", "time_cap"),
    [(TWO_PLAYER_GAME, 4, 6, None), (FOUR_PLAYER_GAME, 2, 4, 0.3)],
)
def test_the_last_tricks_agree_with_exhaustive_search(
    path: Path, tricks: int, hands: int, time_cap: float | None
) -> None:
    replayed = game(path)
    count = replayed.variant.seat_count
    for hand in replayed.hands[:hands]:
        analysis = analyze_hand(hand, time_cap=time_cap)
        steps = positions(hand)
        for play in analysis.plays[-tricks * count :]:
            assert play.analysed
            best, value, best_cards = expected_play(steps[play.index], play.card)
            assert (play.best, play.value, play.best_cards) == (best, value, best_cards)


def test_nil_verdicts_are_consistent_and_agree_with_exhaustive_search() -> None:
    nils = 0
    for seed in (4, 6, 7, 8, 9):
        for hand in simulated(seed).hands:
            if not hand.complete or not any(bid in (NIL, BLIND_NIL) for bid in hand.outcome.bids):
                continue
            analysis = analyze_hand(hand)
            steps = positions(hand)
            for nil in analysis.nils:
                nils += 1
                assert nil.blind == (hand.outcome.bids[nil.seat] == BLIND_NIL)
                assert nil.tricks == hand.tricks_won[nil.seat]
                assert nil.made == (nil.tricks == 0)
                verdict = nil.makeable
                assert verdict is not None
                for play in analysis.plays:
                    for swing in play.nil_swings:
                        if swing.seat != nil.seat:
                            continue
                        assert swing.makeable != verdict
                        nil_side = Variant.TWO_PLAYER.side_of(nil.seat)
                        # only the Nil's side can lose it; only the defence can let it off
                        assert (Variant.TWO_PLAYER.side_of(play.seat) == nil_side) == (
                            not swing.makeable
                        )
                        verdict = swing.makeable
                assert verdict == nil.made
                # the verdict three tricks from the end, by exhaustive search
                late = steps[-7]
                if late.tricks_won[nil.seat] == 0:
                    forced = exhaustive_nil(
                        late.variant,
                        nil.seat,
                        late.holdings,
                        late.leader,
                        late.trick,
                        late.spades_broken,
                    )
                    assert Solver(late.variant).nil_forced(late, nil.seat) == forced
    assert nils >= 8


def test_a_capped_hand_says_so_and_keeps_its_later_plays() -> None:
    hand = game(FOUR_PLAYER_GAME).hands[1]
    analysis = analyze_hand(hand, time_cap=0.0)
    assert analysis.capped
    assert analysis.par is None
    assert 0 < analysis.analysed_from < len(analysis.plays)
    check_consistency(hand, analysis)
    data = analysis.to_dict()
    assert data["capped"] is True
    assert data["par"] is None
    assert data["analysed_from"] == analysis.analysed_from
    assert data["plays"][0]["cost"] is None


@pytest.mark.slow
def test_workers_give_the_same_results_and_report_progress() -> None:
    hands = game(TWO_PLAYER_GAME).hands[:3]
    seen: list[tuple[int, int]] = []
    alone = [analysis.to_dict() for analysis in analyze_hands(hands)]
    pooled = [
        analysis.to_dict()
        for analysis in analyze_hands(
            hands, jobs=2, progress=lambda done, total: seen.append((done, total))
        )
    ]
    assert pooled == alone
    assert seen == [(0, 3), (1, 3), (2, 3), (3, 3)]


def test_best_alternatives_on_demand() -> None:
    hand = game(TWO_PLAYER_GAME).hands[0]
    analysis = analyze_hand(hand)
    play = analysis.plays[5]
    values = Solver(hand.variant).card_values(position_before(hand, play.index))
    assert values[play.card] == play.value
    assert max(values.values()) == play.best
    assert tuple(card for card, value in values.items() if value == play.best) == play.best_cards
    assert position_before(hand, 26).tricks_left == 0
    with pytest.raises(ValueError, match="there is no card 27"):
        position_before(hand, 27)


def test_two_player_games_under_first_lead_two_of_clubs_are_analysed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``first_lead: two_of_clubs`` is four-player only (the engine's ``opening_card``): a
    two-player leader who holds 2C may lead any card, and the analysis takes that card."""
    games = tmp_path / "g.jsonl"
    rules = ["--rule", "first_lead=two_of_clubs", "--rule", "target_score=100"]
    simulate = ["simulate", "--variant", "two-player", "--games", "2", "--seed", "1", *rules]
    assert main([*simulate, "-o", str(games)]) == 0
    records = [replay(loads(line)) for line in games.read_bytes().splitlines()]
    assert any(
        hand.outcome.holdings[hand.outcome.leader] >> CLUB_TWO & 1
        and hand.actions.plays[0] != CLUB_TWO
        for record in records
        for hand in record.hands
    ), "a leader held 2C and led another card"
    capsys.readouterr()
    assert main(["analyze", "--all", "--format", "json", str(games)]) == 0
    analysed = [orjson.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [len(game["hands"]) for game in analysed] == [len(r.hands) for r in records]


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(Variant))
def test_games_under_every_play_option_are_analysed_alike_by_both_kernels(
    variant: Variant, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A short simulated game under each combination of the play options of format 1.1 (the
    other options drawn at random), every hand analysed on each solver kernel: the analysis
    takes every card the engine took, and the kernels agree on every play both analysed (the
    pure-Python kernel is capped on four-player hands, which it takes seconds to solve)."""
    compiled_solver()  # skips where numba is missing
    rng = random.Random(f"play-options-{variant}")
    cap = 2.0 if variant is Variant.FOUR_PLAYER else None
    for first_lead, must_break in itertools.product(
        ("left_of_dealer", "two_of_clubs"), (True, False)
    ):
        rules = random_rules(rng).replace(
            first_lead=first_lead, spades_must_be_broken=must_break, target_score=100
        )
        record = simulate_game(variant, seed=rng.randrange(2**32), rules=rules, max_hands=1)
        hand = replay(record).hands[0]
        by_kernel = []
        for kernel in ("python", "compiled"):
            monkeypatch.setenv(KERNEL_VARIABLE, kernel)
            assert kernel_name() == kernel
            by_kernel.append(analyze_hand(hand, time_cap=cap if kernel == "python" else None))
        python, compiled = by_kernel
        assert not compiled.capped
        assert len(python.plays) == len(compiled.plays) == len(hand.actions.plays)
        for slow, fast in zip(python.plays, compiled.plays, strict=True):
            if slow.analysed:
                assert slow.to_dict() == fast.to_dict()
        if not python.capped:
            assert python.to_dict() == compiled.to_dict()


def test_analyze_replay_and_json() -> None:
    replayed = game(TWO_PLAYER_GAME)
    (only,) = analyze_replay(replayed, hand=2)
    assert only.number == 2
    data = orjson.loads(orjson.dumps(only.to_dict()))
    assert data["variant"] == "two-player"
    assert sum(data["par"]) == 13
    assert {"card", "best", "value", "cost", "best_cards", "nil_live", "nil_swings"} <= set(
        data["plays"][0]
    )
    with pytest.raises(ValueError, match="there is no hand 99"):
        analyze_replay(replayed, hand=99)


# -- the command line ---------------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_analyze_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "analyze", str(TWO_PLAYER_GAME), "--hand", "1")
    assert code == 0
    assert re.search(r"side\s+bid\s+par \(double dummy\)\s+made", out)
    assert re.search(r"Megan\s+4\s+8\s+5\n", out)
    assert re.search(r"Drew\s+8\s+5\s+8\n", out)
    assert "Megan 7♣ -1" in out
    assert (
        "trick 3, card 2: Megan played 7♣: -1 (Megan could make 8, after it 7); best: K♣ A♣" in out
    )
    assert "Tricks lost by misplays: Megan 3 · Drew 0" in out


def test_analyze_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "analyze", str(TWO_PLAYER_GAME), "--hand", "1", "--format", "json")
    assert code == 0
    document = orjson.loads(out)
    assert document["variant"] == "two-player"
    assert document["players"] == ["Megan", "Drew"]
    (hand,) = document["hands"]
    assert hand["par"] == [8, 5]
    assert hand["tricks_lost"] == [3, 0]
    assert hand["plays"][5]["card"] == "7C"
    assert hand["plays"][5]["cost"] == 1
    assert hand["plays"][5]["best_cards"] == ["KC", "AC"]


def test_analyze_nil_verdicts(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    dump(simulate_game("two-player", seed=9, bots=[HeuristicBot(), HeuristicBot()]), record)
    code, out, _ = run(capsys, "analyze", str(record), "--hand", "1")
    assert code == 0
    assert "Nil: Megan (seat 0): " in out
    assert "against any defence from the start of play" in out


def test_analyze_four_player_with_a_time_cap(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "analyze", str(FOUR_PLAYER_GAME), "--hand", "2", "--time-cap", "0.000001"
    )
    assert code == 0
    assert "Time cap reached: the first" in out
    assert "Par: not found within the time cap." in out
    assert re.search(r"team 0 \(Alex & Charlie\)\s+Alex Nil \+ Charlie 2\s+\?\s+8", out)
    assert " ?" in out


def test_analyze_invalid_record(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "analyze", str(CONFORMANCE / "invalid" / "two-player-revoke.json"))
    assert code == 1
    assert "invalid" in out
    assert "must follow clubs" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--hand", "99"], "there is no hand 99"),
        (["--time-cap", "-1"], "--time-cap must be 0"),
        (["--time-cap", "nan"], "--time-cap must be 0"),
    ],
)
def test_analyze_usage_errors(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, _, err = run(capsys, "analyze", str(TWO_PLAYER_GAME), *args)
    assert code == 2
    assert message in err
    assert "Traceback" not in err


def test_analyze_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "analyze", str(tmp_path / "nope.json"))
    assert code == 2
    assert "no such file" in err

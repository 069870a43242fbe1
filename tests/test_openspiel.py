"""OpenSpiel interop: import its spades histories, export our hands, proved against pyspiel.

The proofs against the real package skip, saying why, when ``open-spiel`` is not installed
(``pip install 'spades-replay[openspiel]'``); everything else needs no OpenSpiel.
"""

from __future__ import annotations

import gzip
import math
import random
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from spades_replay import replay
from spades_replay.cli import main
from spades_replay.engine.actions import Action, Exchange, PlaceBid, PlayCard
from spades_replay.engine.cards import cards_of
from spades_replay.engine.rules import Rules
from spades_replay.engine.scoring import BLIND_NIL, SideScore
from spades_replay.engine.seats import Seat
from spades_replay.engine.state import HandState, Phase, legal_plays, strict_legal_plays
from spades_replay.interop.openspiel import (
    DEFAULT_SETTINGS,
    FIRST_DEALER,
    HistoryError,
    OpenSpielHand,
    Settings,
    UnsupportedError,
    check_rules,
    from_history,
    read_games,
    to_history,
)
from spades_replay.play.simulate import simulate_game
from spades_replay.record.io import dumps, load
from spades_replay.replayer.replay import Replay
from spades_replay.replayer.validate import validate_bytes

from .conftest import FIXTURES, PYSPIEL_REASON, ROOT

POOLED = Rules(failed_nil_tricks_help_partner=True)
"""Our rules closest to OpenSpiel's, for simulated games to export."""


def _pyspiel() -> Any:
    return pytest.importorskip("pyspiel", reason=PYSPIEL_REASON)


class OpenSpielBot:
    """A seeded random player that keeps to OpenSpiel's rules: bids of 0 to 4 (so partners
    never pass 13), no Blind Nil, and no spade led while it holds another suit."""

    name = "openspiel"

    def __init__(self, blind_nil: bool = False, bid_high: bool = False) -> None:
        self.blind_nil = blind_nil
        self.bid_high = bid_high

    def wants_blind_nil(self, state: HandState, seat: Seat, rng: random.Random) -> bool:
        return False

    def act(self, state: HandState, seat: Seat, rng: random.Random) -> Action:
        if state.phase is Phase.EXCHANGE:
            return Exchange(seat, (), ())
        if state.phase is Phase.BIDDING:
            if self.blind_nil:
                return PlaceBid(seat, BLIND_NIL)
            return PlaceBid(seat, 7 if self.bid_high else rng.choice((0, 1, 2, 3, 3, 4, 4)))
        return PlayCard(seat, rng.choice(cards_of(strict_legal_plays(state))))


def _simulated(seed: int, bots: list[Any] | None = None, rules: Rules = POOLED) -> Replay:
    record = simulate_game(
        "four-player",
        seed=seed,
        bots=bots or [OpenSpielBot() for _ in range(4)],
        rules=rules,
        max_hands=6,
    )
    return replay(record)


def _random_openspiel_history(
    pyspiel: Any, game: Any, rng: random.Random, nil_rate: float = 0.15
) -> Any:
    """A finished pyspiel state, every choice seeded: mostly small bids, some Nil."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice([action for action, _ in state.chance_outcomes()]))
            continue
        legal = state.legal_actions()
        if legal[0] >= 52:
            bid = 0 if rng.random() < nil_rate else rng.randint(1, 5)
            action = 52 + bid if 52 + bid in legal else legal[-1]
        else:
            action = rng.choice(legal)
        state.apply_action(action)
    return state


def _tricks_of(state: Any) -> tuple[int, ...]:
    """The tricks each OpenSpiel seat took, as its own text of a finished game says."""
    text = state.to_string()
    line = text.split("North East  South  West\n")[-1].splitlines()[0]
    return tuple(int(item) for item in line.split())


def _replay_in_pyspiel(pyspiel: Any, game: Any, hand: OpenSpielHand) -> Any:
    """Play an exported hand in pyspiel, every action checked legal there first."""
    state = game.new_initial_state()
    for index, action in enumerate(hand.history):
        if index == 52:
            state.set_current_scores(list(hand.scores_before))
        legal = (
            [outcome for outcome, _ in state.chance_outcomes()]
            if state.is_chance_node()
            else state.legal_actions()
        )
        assert action in legal, f"action {index} ({action}) is not legal in OpenSpiel"
        state.apply_action(action)
    return state


# -- proofs against the real OpenSpiel -----------------------------------------------------


@pytest.mark.parametrize(
    "settings",
    [DEFAULT_SETTINGS, Settings(win_threshold=40, mercy_threshold=-150)],
    ids=["defaults", "low-thresholds"],
)
def test_random_openspiel_games_import_valid_with_its_scores(settings: Settings) -> None:
    pyspiel = _pyspiel()
    params = {"win_threshold": settings.win_threshold, "mercy_threshold": settings.mercy_threshold}
    game = pyspiel.load_game("spades", params)
    rng = random.Random(16)
    bonuses = 0
    for number in range(150):
        state = _random_openspiel_history(pyspiel, game, rng)
        history = state.history()
        record = from_history(history, game_id=f"os-{number}", settings=settings)
        report = validate_bytes(dumps(record))
        assert report.valid, [str(problem) for problem in report.problems]
        replayed = replay(record)
        hand = replayed.hands[0]
        assert hand.tricks_won == _tricks_of(state)
        assert hand.scores is not None
        points = (hand.scores[0].points, hand.scores[1].points)
        returns = state.returns()
        assert settings.returns(points) == (returns[0], returns[1])
        assert (returns[1], returns[0]) == (returns[3], returns[2])
        bonus = (returns[0] - points[0], returns[1] - points[1])
        result = replayed.result
        # the record is a won game exactly when OpenSpiel pays the bonus
        assert result.complete == (bonus != (0, 0))
        if result.complete:
            bonuses += 1
            assert result.winner is not None
            if result.reason == "target":
                assert bonus[result.winner] == settings.win_or_loss_bonus
            else:
                assert bonus[result.winner ^ 1] == -settings.win_or_loss_bonus
        assert to_history(record).history == tuple(history)
    if settings is not DEFAULT_SETTINGS:
        assert bonuses > 10


@pytest.mark.slow
def test_exported_hands_replay_in_openspiel_to_the_same_tricks_and_scores() -> None:
    pyspiel = _pyspiel()
    game = pyspiel.load_game("spades")
    compared = quirks = 0
    for seed in range(60):
        replayed = _simulated(seed)
        for number in range(1, len(replayed.hands) + 1):
            hand = to_history(replayed, number)
            state = _replay_in_pyspiel(pyspiel, game, hand)
            ours = replayed.hands[number - 1]
            assert _tricks_of(state) == tuple(ours.tricks_won[seat] for seat in hand.seats)
            assert hand.points is not None
            returns = state.returns()
            expected = DEFAULT_SETTINGS.returns(hand.points)
            if any(score < 0 and score % 10 for score in hand.scores_before):
                # OpenSpiel reads the bags from the last digit of a running score with C++'s
                # remainder, negative below zero: it may then miss a bag penalty of ours
                sides = ours.scores
                assert sides is not None
                team = hand.seats[0] % 2
                expected = DEFAULT_SETTINGS.returns(
                    tuple(
                        _openspiel_points(sides[team ^ side], hand.scores_before[side])
                        for side in (0, 1)
                    )
                )
                quirks += 1
            assert (returns[0], returns[1]) == expected
            after = state.get_current_scores()
            assert tuple(after) == (
                hand.scores_before[0] + expected[0],
                hand.scores_before[1] + expected[1],
            )
            compared += 1
    assert compared > 150
    assert 0 < quirks < compared


def test_the_engines_strict_lead_is_openspiels_rule_of_play() -> None:
    """Before every card of random OpenSpiel games, the cards OpenSpiel allows are those of
    the engine's ``strict_legal_plays`` in the imported game, which allows fewer than
    ``legal_plays`` wherever spades are broken and the leader holds another suit."""
    pyspiel = _pyspiel()
    game = pyspiel.load_game("spades")
    rng = random.Random(23)
    compared = stricter = 0
    for _ in range(12):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
                continue
            legal = state.legal_actions()
            if legal[0] >= 52:
                bid = rng.randint(0, 4)
                state.apply_action(52 + bid if 52 + bid in legal else legal[-1])
                continue
            ours = replay(from_history(state.history())).hands[0].timeline[-1].state
            assert cards_of(strict_legal_plays(ours)) == tuple(sorted(legal))
            stricter += strict_legal_plays(ours) != legal_plays(ours)
            compared += 1
            state.apply_action(rng.choice(legal))
    assert compared == 12 * 52
    assert stricter > 0


def _openspiel_points(side: SideScore, score_before: int) -> int:
    """A side's points for a hand as OpenSpiel counts them from ``score_before``: its bags
    are the score's last digit by C++'s remainder (negative for a negative score)."""
    if side.made is False:
        return side.points
    bags = int(math.fmod(score_before, 10)) + side.overtricks + side.nil_bags
    penalty = -100 * int(bags / 10)
    return side.points - side.penalty_points + penalty


def test_export_then_import_gives_back_the_same_hands() -> None:
    for seed in range(10):
        replayed = _simulated(seed)
        for number in range(1, len(replayed.hands) + 1):
            exported = to_history(replayed, number)
            back = from_history(exported.history, players=exported.players)
            ours = replayed.hands[number - 1]
            theirs = back.hands[0]
            actions = replayed.actions[number - 1]
            assert actions.deal is not None
            deal = tuple(tuple(map(_name, actions.deal[seat])) for seat in exported.seats)
            assert theirs.deal == deal
            assert theirs.bids == tuple(actions.bids[seat] for seat in exported.seats)
            assert theirs.plays == tuple(map(_name, actions.plays))
            assert theirs.result is not None
            assert theirs.result.tricks == tuple(ours.tricks_won[seat] for seat in exported.seats)
            if number == 1:
                assert theirs.result.points == exported.points
            assert to_history(back).history == exported.history


def _name(card: int) -> str:
    return "23456789TJQKA"[card % 13] + "CDHS"[card // 13]


# -- import: malformed histories ----------------------------------------------------------


def _exported(seed: int = 3, number: int = 1) -> OpenSpielHand:
    return to_history(_simulated(seed), number)


def test_a_history_maps_to_seat_zero_bidding_and_leading_first() -> None:
    history = list(_exported().history)
    record = from_history(history, players=["N", "E", "S", "W"], game_id="g")
    assert record.first_dealer == FIRST_DEALER
    hand = record.hands[0]
    assert hand.deal[1][0] == _name(history[1])
    assert hand.bids[0] == history[52] - 52
    assert hand.plays[0] == _name(history[56])
    assert record.rules.failed_nil_tricks_help_partner is True
    assert record.rules.target_score == 500
    assert record.rules.lose_score == -350
    assert [player.name for player in record.players] == ["N", "E", "S", "W"]


def test_a_partial_history_imports_as_an_unfinished_hand() -> None:
    history = list(_exported().history[:70])
    record = from_history(history)
    assert len(record.hands[0].plays) == 14
    assert record.hands[0].result is None
    assert validate_bytes(dumps(record)).valid
    assert to_history(record).history == tuple(history)


def _raises(history: list[Any], index: int | None, pattern: str) -> None:
    with pytest.raises(HistoryError) as caught:
        from_history(history)
    assert caught.value.index == index
    assert re.search(pattern, str(caught.value)), str(caught.value)


def test_malformed_histories_name_the_action() -> None:
    good = list(_exported().history)
    _raises(good[:30], None, r"stops during the deal, after 30 actions")
    _raises(good[:54], None, r"stops during the bidding")
    _raises([*good[:5], "7", *good[6:]], 5, r"'7' is not an action")
    _raises([*good[:5], True, *good[6:]], 5, r"true is not an action")
    _raises([*good[:3], 52, *good[4:]], 3, r"52 is not a card dealt")
    _raises(
        [*good[:3], good[0], *good[4:]], 3, r"deals .. a second time \(first dealt by action 0\)"
    )
    _raises([*good[:53], 66, *good[54:]], 53, r"66 is not a bid")
    _raises([*good[:60], 70, *good[61:]], 60, r"70 is not a card played")
    _raises([*good, 0], 108, r"the game is over after 108 actions")


def test_a_team_bid_over_13_is_refused() -> None:
    good = list(_exported().history)
    _raises([*good[:52], 52 + 7, 52 + 1, 52 + 7, 52 + 1, *good[56:]], 54, r"caps the two partners")


def test_illegal_plays_name_the_rule_and_what_was_legal() -> None:
    good = list(_exported().history)
    # a card seat 0 does not hold (seat 1 was dealt it)
    _raises([*good[:56], good[1], *good[57:]], 56, r"seat 0 plays .., but she does not hold it")
    # a revoke: seat 1 throws off while she holds the suit seat 0 led
    for seed in range(20):
        good = list(_exported(seed).history)
        led = good[56] // 13
        holding = good[1:52:4]
        follow = sorted(card for card in holding if card // 13 == led)
        other = [card for card in holding if card // 13 != led]
        if follow and other:
            legal = " ".join(map(_name, follow))
            _raises(
                [*good[:57], other[0], *good[58:]],
                57,
                rf"trick 1, seat 1 plays {_name(other[0])}, but she must follow .* "
                rf"\(legal: {legal}\)",
            )
            return
    raise AssertionError("no simulated hand lets seat 1 revoke")


def _spade_lead_game() -> tuple[Replay, int]:
    """A simulated game under our rules with a hand whose leader leads a broken spade while
    holding other suits: legal for us, never in OpenSpiel."""
    from spades_replay.play.bots import RandomBot

    for seed in range(50):
        replayed = _simulated(seed, bots=[RandomBot(blind_nil_rate=0.0) for _ in range(4)])
        for number in range(1, len(replayed.hands) + 1):
            bids = replayed.hands[number - 1].actions.bids
            if bids[0] + bids[2] > 13 or bids[1] + bids[3] > 13:
                continue
            try:
                to_history(replayed, number)
            except UnsupportedError as error:
                if "never counts spades as broken" in str(error):
                    return replayed, number
    raise AssertionError("no simulated hand leads a broken spade")


def test_a_broken_spade_led_holding_other_suits_is_refused_both_ways() -> None:
    replayed, number = _spade_lead_game()
    with pytest.raises(UnsupportedError, match=r"hand \d+: trick \d+: seat \d leads .S while"):
        to_history(replayed, number)
    played = replayed.hands[number - 1]
    dealer = played.outcome.dealer
    seats = [(dealer + 1 + p) % 4 for p in range(4)]
    deal = played.actions.deal
    assert deal is not None
    history = [deal[seat][k] for k in range(13) for seat in seats]
    history += [52 + played.actions.bids[seat] for seat in seats]
    history += list(played.actions.plays)
    with pytest.raises(HistoryError, match=r"never counts spades as broken") as caught:
        from_history(history)
    assert caught.value.index is not None
    assert caught.value.index >= 56
    assert history[caught.value.index] // 13 == 3


def test_read_games_reads_every_form_and_reports_bad_entries() -> None:
    text = (
        "[1, 2, 3]\n"
        '{"history": [4], "players": ["a", {"name": "b", "id": "u2"}, "c", "d"], "id": "x"}\n'
        "\n5\n6\n\n7\n"
        '{"history": [1], "colour": "red"}\n'
        '{"history": [1], "players": ["a"]}\n'
        "[1, 2\n"
        "hello\n"
        '"text"\n'
    )
    games = list(read_games(text))
    assert [game.history for game in games[:4]] == [(1, 2, 3), (4,), (5, 6), (7,)]
    assert [game.line for game in games] == [1, 2, 4, 7, 8, 9, 10, 11, 12]
    assert games[1].players == ("a", {"name": "b", "id": "u2"}, "c", "d")
    assert games[1].game_id == "x"
    errors = [game.error or "" for game in games[4:]]
    assert "unknown key 'colour'" in errors[0]
    assert "'players' must be 4 names" in errors[1]
    assert "not valid JSON" in errors[2]
    assert "not a history" in errors[3]
    assert "not a history" in errors[4]


def test_bad_players_are_a_history_error_not_a_traceback() -> None:
    with pytest.raises(HistoryError, match="not valid: at /players/0/name"):
        from_history(list(_exported().history), players=["", "b", "c", "d"])


# -- export: refusals ---------------------------------------------------------------------


def test_two_player_games_are_refused() -> None:
    record = load(FIXTURES / "two-player" / "standard-game.json")
    with pytest.raises(UnsupportedError, match="four-player partnership Spades only"):
        to_history(record)


@pytest.mark.parametrize(
    ("change", "pattern"),
    [
        ({"failed_nil_tricks_help_partner": False}, "failed_nil_tricks_help_partner false"),
        ({"failed_nil_tricks_count_as_bags": False}, "failed_nil_tricks_count_as_bags false"),
        ({"nil_bonus": 50}, "nil_bonus 50, OpenSpiel plays 100"),
        ({"bag_limit": 5}, "bag_limit 5"),
        ({"bag_penalty": 50}, "bag_penalty 50"),
        ({"double_contract_from": 10}, "double_contract_from 10, OpenSpiel plays null"),
        ({"first_lead": "two_of_clubs"}, "first_lead 'two_of_clubs'"),
    ],
)
def test_rules_openspiel_lacks_are_refused_naming_the_option(
    change: dict[str, Any], pattern: str
) -> None:
    with pytest.raises(UnsupportedError, match=pattern):
        check_rules(
            replay(simulate_game("four-player", seed=1, max_hands=1)).variant,
            POOLED.replace(**change),
        )


def test_the_default_rules_are_refused_for_failed_nil() -> None:
    replayed = replay(simulate_game("four-player", seed=1, max_hands=1))
    with pytest.raises(UnsupportedError, match="toward her partner's bid"):
        to_history(replayed)


def test_the_refusals_of_export_name_the_first_hand_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A refused hand is named by its record and its hand: not the record alone."""
    blind = simulate_game(
        "four-player",
        seed=1,
        bots=[OpenSpielBot(blind_nil=True), *[OpenSpielBot() for _ in range(3)]],
        rules=POOLED,
        max_hands=2,
    )
    corpus = tmp_path / "games.jsonl"
    corpus.write_bytes(dumps(blind) + b"\n")
    code, _, stderr = run(capsys, "export", "openspiel", str(corpus), "-o", str(tmp_path / "o"))
    assert code == 1  # a hand refused
    assert f"(first: {corpus}:1: hand 1: seat 0 bids Blind Nil)" in stderr


def test_blind_nil_and_big_team_bids_are_refused_per_hand() -> None:
    blind = _simulated(1, bots=[OpenSpielBot(blind_nil=True), *[OpenSpielBot() for _ in range(3)]])
    with pytest.raises(UnsupportedError, match="hand 1: seat 0 bids Blind Nil"):
        to_history(blind, 1)
    high = _simulated(1, bots=[OpenSpielBot(bid_high=True) for _ in range(4)])
    with pytest.raises(UnsupportedError, match="caps the two partners"):
        to_history(high, 1)


def test_scores_before_follow_the_rotation() -> None:
    replayed = _simulated(5)
    assert len(replayed.hands) >= 3
    for number in (2, 3):
        hand = to_history(replayed, number)
        previous = replayed.hands[number - 2].scores
        assert previous is not None
        team = hand.seats[0] % 2
        assert hand.scores_before == (previous[team].score, previous[team ^ 1].score)
        assert hand.players == tuple(replayed.players[seat].name for seat in hand.seats)
    with pytest.raises(ValueError, match="there is no hand 99"):
        to_history(replayed, 99)


# -- the commands -------------------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_import_every_form_reporting_bad_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second, third = (list(_exported(seed).history) for seed in (3, 4, 5))
    bad = [*first[:60], 70, *first[61:]]
    text = (
        orjson.dumps(first).decode()
        + "\n"
        + orjson.dumps({"history": second, "players": ["A", "B", "C", "D"], "id": "g2"}).decode()
        + "\n\n"
        + "\n".join(map(str, third))
        + "\n\n"
        + orjson.dumps({"history": bad, "id": "broken"}).decode()
        + "\n"
    )
    source = tmp_path / "games.txt"
    source.write_text(text)
    compressed = tmp_path / "more.txt.gz"
    compressed.write_bytes(gzip.compress(orjson.dumps(first) + b"\n"))
    out = tmp_path / "out.jsonl"
    code, stdout, stderr = run(
        capsys, "import", "openspiel", str(source), str(compressed), "-o", str(out), "--no-progress"
    )
    assert code == 1
    assert "imported 4 game(s) from OpenSpiel" in stdout
    assert "1 refused" in stdout
    broken_line = 4 + len(third) + 1
    assert f"games.txt:{broken_line} (id broken): action 60: 70 is not a card played" in stderr
    lines = out.read_bytes().splitlines()
    assert len(lines) == 4
    for line in lines:
        assert validate_bytes(line).valid
    ids = [orjson.loads(line)["game_id"] for line in lines]
    assert ids == ["games.txt:1", "g2", "games.txt:4", "more.txt.gz:1"]
    assert [p["name"] for p in orjson.loads(lines[1])["players"]] == ["A", "B", "C", "D"]
    assert source.read_text() == text

    exported = tmp_path / "back.txt"
    code, stdout, _ = run(capsys, "export", "openspiel", str(out), "-o", str(exported))
    assert code == 0, stdout
    assert "exported 4 hand(s) of 4 game(s)" in stdout
    assert [orjson.loads(line) for line in exported.read_bytes().splitlines()] == [
        first,
        second,
        third,
        first,
    ]


def test_export_jsonl_reimports_with_players_and_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = tmp_path / "ours.jsonl"
    corpus.write_bytes(
        b"".join(
            dumps(
                simulate_game(
                    "four-player",
                    seed=seed,
                    bots=[OpenSpielBot() for _ in range(4)],
                    rules=POOLED,
                    max_hands=3,
                )
            )
            + b"\n"
            for seed in (1, 2)
        )
    )
    exported = tmp_path / "hands.jsonl"
    code, _, _ = run(
        capsys, "export", "openspiel", str(corpus), "-o", str(exported), "--format", "jsonl"
    )
    assert code == 0
    entries = [orjson.loads(line) for line in exported.read_bytes().splitlines()]
    assert entries[0]["id"] == "four-player-1 hand 1"
    back = tmp_path / "back.jsonl"
    code, _, _ = run(capsys, "import", "openspiel", str(exported), "-o", str(back))
    assert code == 0
    records = [orjson.loads(line) for line in back.read_bytes().splitlines()]
    assert [record["game_id"] for record in records] == [entry["id"] for entry in entries]
    assert [record["players"] for record in records] == [entry["players"] for entry in entries]
    assert entries[0]["players"][0] == {"name": "Charlie", "id": "openspiel-charlie"}


def test_export_refuses_naming_the_rule_and_reports_invalid_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "hands.txt"
    code, stdout, stderr = run(
        capsys,
        "export",
        "openspiel",
        str(FIXTURES / "two-player"),
        str(FIXTURES / "four-player"),
        str(FIXTURES / "invalid" / "play-revoke.json"),
        "-o",
        str(out),
    )
    assert code == 1
    assert "refused 8 game(s): OpenSpiel's spades is four-player" in stderr
    assert "two-player game cannot be exported" in stderr
    assert "toward her partner's bid" in stderr
    assert "play-revoke.json: invalid" in stderr
    assert "invalid record(s)" in stdout
    assert out.exists()


def test_io_and_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, stderr = run(
        capsys, "import", "openspiel", "/no/such/file", "-o", str(tmp_path / "o.jsonl")
    )
    assert code == 2
    assert "no such file" in stderr
    code, _, stderr = run(
        capsys, "export", "openspiel", "/no/such/dir", "-o", str(tmp_path / "o.txt")
    )
    assert code == 2
    assert "no such file or directory" in stderr
    code, _, stderr = run(
        capsys,
        "export",
        "openspiel",
        str(FIXTURES / "four-player"),
        "-o",
        str(tmp_path / "no" / "dir" / "o.txt"),
    )
    assert code == 2
    assert "cannot write" in stderr
    with pytest.raises(SystemExit):
        main(["import", "openspiel"])
    (tmp_path / "x.txt").write_text("[1]\n")
    code, _, stderr = run(
        capsys, "import", "openspiel", str(tmp_path / "x.txt"), "-o", str(tmp_path / "o.json")
    )
    assert code == 2
    assert "FILE.jsonl" in stderr
    for option, value, said in (
        ("--mercy-threshold", "600", "--mercy-threshold must be below"),
        (
            "--win-threshold",
            "1000000",
            "--win-threshold: 'target_score' must be at most 100000, got 1000000",
        ),
        (
            "--mercy-threshold",
            "-100001",
            "--mercy-threshold: 'lose_score' must be at least -100000, got -100001",
        ),
    ):
        code, _, stderr = run(
            capsys,
            "import",
            "openspiel",
            str(tmp_path / "x.txt"),
            "-o",
            str(tmp_path / "o.jsonl"),
            option,
            value,
        )
        assert code == 2
        assert said in stderr
    (tmp_path / "latin.txt").write_bytes(b"\xe9\n")
    code, _, stderr = run(
        capsys, "import", "openspiel", str(tmp_path / "latin.txt"), "-o", str(tmp_path / "o.jsonl")
    )
    assert code == 2
    assert "not UTF-8" in stderr


# -- the docs ------------------------------------------------------------------------------

INTEROP = (ROOT / "docs" / "interop.md").read_text()


@pytest.mark.parametrize("name", ["import", "export"])
def test_the_examples_in_the_docs_are_true(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    match = re.search(
        rf"<!-- example: {name} -->\n(?:.*?)```sh\n\$ (.*?)\n(.*?)```", INTEROP, flags=re.S
    )
    assert match is not None
    command, expected = match.group(1), match.group(2)
    inputs = re.findall(r"<!-- file: (\S+) -->\n```\w*\n(.*?)```", INTEROP, flags=re.S)
    for file_name, content in inputs:
        (tmp_path / file_name).write_text(content)
    monkeypatch.chdir(tmp_path)
    if name == "export":
        run(capsys, "import", "openspiel", "game.txt", "-o", "game.jsonl")
    args = command.split()[1:]
    code, stdout, _ = run(capsys, *args)
    assert code == 0
    output = {"import": "game.jsonl", "export": "back.txt"}[name]
    shown = re.search(rf"<!-- output: {output} -->\n```\w*\n(.*?)```", INTEROP, flags=re.S)
    assert stdout == expected
    if shown is not None:
        assert (tmp_path / output).read_text() == shown.group(1)


# -- any mutation: a record or a clear error -------------------------------------------------

GOOD = _exported(7).history


@given(
    st.lists(st.tuples(st.integers(0, len(GOOD) - 1), st.integers(-3, 70)), min_size=1, max_size=4),
    st.integers(0, len(GOOD)),
)
def test_any_mutated_history_imports_valid_or_names_the_action(
    changes: list[tuple[int, int]], length: int
) -> None:
    history = list(GOOD)
    for index, action in changes:
        history[index] = action
    history = history[:length]
    failure: HistoryError | None = None
    try:
        record = from_history(history)
    except HistoryError as error:
        failure = error
    if failure is not None:
        assert failure.index is None or 0 <= failure.index < len(history)
        assert str(failure)
        return
    assert validate_bytes(dumps(record)).valid
    assert to_history(record).history == tuple(history)

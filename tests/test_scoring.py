"""Scoring (docs/rules.md): every worked example, then tables over every option."""

from __future__ import annotations

import polars as pl
import pytest

from spades_replay.engine.rules import Rules
from spades_replay.engine.scoring import (
    BLIND_NIL,
    NIL,
    SCORE_COLUMNS,
    SCORE_PARTS,
    NilOutcome,
    SideScore,
    bid_name,
    end_reason,
    score_hand,
    score_side,
    winner,
)
from spades_replay.engine.seats import Variant
from spades_replay.replayer.replay import _side_dict as replay_side_dict
from spades_replay.replayer.rescore import PARTS
from spades_replay.stats.tables import SIDE_HAND_SCHEMA
from spades_replay.store.sql import COLUMNS

TWO = Variant.TWO_PLAYER
FOUR = Variant.FOUR_PLAYER
STANDARD = Rules()


def side(
    variant: Variant,
    bids: tuple[int, ...],
    tricks: tuple[int, ...],
    which: int = 0,
    rules: Rules = STANDARD,
    score: int = 0,
    bags: int = 0,
) -> SideScore:
    return score_side(variant, rules, which, bids, tricks, score_before=score, bags_before=bags)


def test_each_nil_is_told_seat_by_seat() -> None:
    """Every Nil and Blind Nil of a side: its seat, whether blind, its tricks, made, points."""
    both = side(FOUR, (BLIND_NIL, 3, NIL, 2), (0, 5, 2, 6))
    assert list(both.nils) == [
        NilOutcome(seat=0, blind=True, tricks=0, made=True, points=200),
        NilOutcome(seat=2, blind=False, tricks=2, made=False, points=-100),
    ]
    assert (both.contract, both.made, both.tricks_toward) == (0, None, 0)  # no contract
    assert (both.side, both.tricks) == (0, 2)
    other = side(FOUR, (BLIND_NIL, NIL, 4, 3), (1, 0, 5, 7), which=1)
    assert list(other.nils) == [NilOutcome(seat=1, blind=False, tricks=0, made=True, points=100)]
    assert (other.side, other.tricks) == (1, 7)


# --- the worked examples of docs/rules.md, verbatim ------------------------------------------


def test_example_karen_bids_7_wins_8() -> None:
    """Karen bids 7 and wins 8 tricks: 70 + 1 = 71 points and 1 bag."""
    karen = side(TWO, (7, 4), (8, 5))
    assert (karen.points, karen.overtricks, karen.bags) == (71, 1, 1)


def test_example_bonnie_sandbags() -> None:
    """Bonnie bids 4 and wins 7, then bids 3 and wins 6, then bids 4 and wins 9. She now has
    3 + 3 + 5 = 11 bags: in the third hand she loses 100 points and carries 1 bag. Nine more
    bags cost her another 100."""
    score, bags = 0, 0
    hands = [((4, 1), (7, 6)), ((3, 1), (6, 7)), ((4, 1), (9, 4))]
    penalties = []
    for bids, tricks in hands:
        bonnie = side(TWO, bids, tricks, score=score, bags=bags)
        score, bags = bonnie.score, bonnie.bags
        penalties.append(bonnie.bag_penalties)
    assert penalties == [0, 0, 1]
    assert bags == 1
    assert score == (43) + (33) + (45 - 100)
    nine_more = side(TWO, (4, 1), (13, 0), score=score, bags=bags)
    assert nine_more.overtricks == 9
    assert nine_more.bag_penalties == 1
    assert nine_more.penalty_points == -100
    assert nine_more.bags == 0


def test_example_megan_and_drew_bids() -> None:
    """Megan bids 8, then Drew bids 6: Megan must win at least 8 tricks, Drew at least 6."""
    megan, drew = score_hand(TWO, STANDARD, (8, 6), (7, 6), (0, 0), (0, 0))
    assert (megan.contract, megan.made, megan.points) == (8, False, -80)
    assert (drew.contract, drew.made, drew.points) == (6, True, 60)


def test_example_partnership_contracts() -> None:
    """Alex (seat 0) bids 4, Beth 3, Charlie (seat 2) 2, David 2. Alex and Charlie must win
    at least 6 tricks together; Beth and David at least 5."""
    team0, team1 = score_hand(FOUR, STANDARD, (4, 3, 2, 2), (3, 3, 3, 4), (0, 0), (0, 0))
    assert (team0.contract, team0.made, team0.points) == (6, True, 60)
    assert (team1.contract, team1.made, team1.points) == (5, True, 52)


def test_example_alex_makes_his_four_alone() -> None:
    """Alex bids 4 and his partner Charlie bids Nil: Charlie tries to win no trick, and Alex
    must still win at least 4."""
    made = side(FOUR, (4, 3, NIL, 2), (4, 5, 0, 4))
    assert (made.contract, made.made, made.contract_points, made.nil_points) == (4, True, 40, 100)
    set_ = side(FOUR, (4, 3, NIL, 2), (3, 5, 1, 4))
    assert (set_.made, set_.contract_points, set_.nil_points) == (False, -40, -100)


def test_example_beth_and_david() -> None:
    """Beth and David bid 5 and win 7: 50 + 2 = 52 points and 2 bags."""
    team1 = side(FOUR, (3, 2, 3, 3), (3, 4, 3, 3), which=1)
    assert (team1.points, team1.bags) == (52, 2)


# --- contract made and set, bags ------------------------------------------------------------

CONTRACTS = [
    # bids, tricks, points, overtricks, made
    ((4, 9), (4, 9), 40, 0, True),
    ((4, 5), (6, 7), 42, 2, True),
    ((13, 0), (13, 0), 130, 0, True),
    ((5, 5), (4, 9), -50, 0, False),
    ((1, 5), (0, 13), -10, 0, False),
]


@pytest.mark.parametrize(("bids", "tricks", "points", "overtricks", "made"), CONTRACTS)
def test_contracts(
    bids: tuple[int, int], tricks: tuple[int, int], points: int, overtricks: int, made: bool
) -> None:
    result = side(TWO, bids, tricks)
    assert (result.points, result.overtricks, result.made) == (points, overtricks, made)
    assert result.bag_points == overtricks


# --- bag penalties ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bags_before", "overtricks", "penalties", "bags_after"),
    [(9, 1, 1, 0), (8, 5, 1, 3), (0, 9, 0, 9), (9, 0, 0, 9), (5, 12, 1, 7)],
)
def test_bag_penalty_and_carry_over(
    bags_before: int, overtricks: int, penalties: int, bags_after: int
) -> None:
    result = side(TWO, (13 - overtricks, 1), (13, 0), bags=bags_before)
    assert result.overtricks == overtricks
    assert result.bag_penalties == penalties
    assert result.penalty_points == -100 * penalties
    assert result.bags == bags_after


def test_bag_penalty_twice_in_one_hand_with_a_low_limit() -> None:
    rules = Rules(bag_limit=3, bag_penalty=50)
    result = side(TWO, (1, 5), (8, 5), rules=rules, bags=2)
    assert result.overtricks == 7
    assert (result.bag_penalties, result.penalty_points, result.bags) == (3, -150, 0)
    assert result.points == 10 + 7 - 150


def test_bag_penalties_twice_in_a_game() -> None:
    score, bags, total_penalties = 0, 0, 0
    for _ in range(4):
        result = side(TWO, (3, 4), (9, 4), score=score, bags=bags)
        score, bags = result.score, result.bags
        total_penalties += result.bag_penalties
    assert total_penalties == 2
    assert bags == 4
    assert score == 4 * 36 - 200


# --- Nil and Blind Nil, both variants ---------------------------------------------------

NILS = [
    # variant, bids, tricks, side, nil points, contract points, bag points
    (TWO, (NIL, 5), (0, 13), 0, 100, 0, 0),
    (TWO, (NIL, 5), (2, 11), 0, -100, 0, 2),
    (TWO, (BLIND_NIL, 5), (0, 13), 0, 200, 0, 0),
    (TWO, (BLIND_NIL, 5), (3, 10), 0, -200, 0, 3),
    (FOUR, (NIL, 3, 4, 3), (0, 4, 5, 4), 0, 100, 40, 1),
    (FOUR, (NIL, 3, 4, 3), (1, 4, 4, 4), 0, -100, 40, 1),
    (FOUR, (BLIND_NIL, 3, 4, 3), (0, 4, 5, 4), 0, 200, 40, 1),
    (FOUR, (BLIND_NIL, 3, 4, 3), (2, 4, 3, 4), 0, -200, -40, 2),
    # both partners Nil, all combinations
    (FOUR, (NIL, 5, NIL, 5), (0, 6, 0, 7), 0, 200, 0, 0),
    (FOUR, (NIL, 5, NIL, 5), (1, 6, 2, 4), 0, -200, 0, 3),
    (FOUR, (NIL, 5, NIL, 5), (0, 6, 2, 5), 0, 0, 0, 2),
    (FOUR, (BLIND_NIL, 5, BLIND_NIL, 5), (0, 6, 0, 7), 0, 400, 0, 0),
    (FOUR, (BLIND_NIL, 5, BLIND_NIL, 5), (1, 6, 1, 5), 0, -400, 0, 2),
    (FOUR, (BLIND_NIL, 5, BLIND_NIL, 5), (1, 6, 0, 6), 0, 0, 0, 1),
    (FOUR, (NIL, 5, BLIND_NIL, 5), (0, 6, 0, 7), 0, 300, 0, 0),
    (FOUR, (NIL, 5, BLIND_NIL, 5), (1, 6, 0, 6), 0, 100, 0, 1),
    (FOUR, (NIL, 5, BLIND_NIL, 5), (0, 6, 1, 6), 0, -100, 0, 1),
    (FOUR, (NIL, 5, BLIND_NIL, 5), (1, 6, 1, 5), 0, -300, 0, 2),
]


@pytest.mark.parametrize(
    ("variant", "bids", "tricks", "which", "nil_points", "contract_points", "bag_points"), NILS
)
def test_nil_and_blind_nil(
    variant: Variant,
    bids: tuple[int, ...],
    tricks: tuple[int, ...],
    which: int,
    nil_points: int,
    contract_points: int,
    bag_points: int,
) -> None:
    assert sum(tricks) == 13
    result = side(variant, bids, tricks, which=which)
    assert result.nil_points == nil_points
    assert result.contract_points == contract_points
    assert result.bag_points == bag_points
    assert result.points == nil_points + contract_points + bag_points
    assert sum(nil.points for nil in result.nils) == nil_points


def test_nil_bidders_have_no_contract_in_two_player() -> None:
    result = side(TWO, (NIL, 5), (0, 13))
    assert (result.contract, result.made) == (0, None)


# --- every option on and off ------------------------------------------------------------


def test_option_nil_bonuses() -> None:
    rules = Rules(nil_bonus=50, blind_nil_bonus=150)
    assert side(TWO, (NIL, 5), (0, 13), rules=rules).nil_points == 50
    assert side(TWO, (NIL, 5), (1, 12), rules=rules).nil_points == -50
    assert side(TWO, (BLIND_NIL, 5), (0, 13), rules=rules).nil_points == 150
    assert side(TWO, (BLIND_NIL, 5), (1, 12), rules=rules).nil_points == -150


def test_option_bag_penalty_and_limit() -> None:
    rules = Rules(bag_limit=5, bag_penalty=50)
    result = side(TWO, (3, 4), (8, 5), rules=rules)
    assert (result.bag_penalties, result.penalty_points, result.bags) == (1, -50, 0)
    assert side(TWO, (3, 4), (8, 5)).bag_penalties == 0


@pytest.mark.parametrize("variant", [TWO, FOUR])
def test_option_failed_nil_tricks_count_as_bags(variant: Variant) -> None:
    bids = (NIL, 5) if variant is TWO else (NIL, 5, 4, 5)
    tricks = (2, 11) if variant is TWO else (2, 5, 4, 2)
    on = side(variant, bids, tricks)
    off = side(variant, bids, tricks, rules=Rules(failed_nil_tricks_count_as_bags=False))
    assert (on.nil_bags, on.bags) == (2, 2)
    assert (off.nil_bags, off.bags, off.bag_points) == (0, 0, 0)
    assert on.points - off.points == 2


def test_option_failed_nil_tricks_count_as_bags_with_both_partners_nil() -> None:
    bids, tricks = (NIL, 5, NIL, 5), (1, 6, 2, 4)
    assert side(FOUR, bids, tricks).bags == 3
    assert side(FOUR, bids, tricks, rules=Rules(failed_nil_tricks_count_as_bags=False)).bags == 0


def test_option_failed_nil_tricks_help_partner() -> None:
    pooled = Rules(failed_nil_tricks_help_partner=True)
    bids, tricks = (NIL, 3, 5, 3), (2, 4, 4, 3)
    off = side(FOUR, bids, tricks)
    on = side(FOUR, bids, tricks, rules=pooled)
    assert (off.tricks_toward, off.made, off.contract_points, off.nil_bags) == (4, False, -50, 2)
    assert (on.tricks_toward, on.made, on.contract_points, on.overtricks) == (6, True, 50, 1)
    assert on.nil_bags == 0
    assert on.points == 50 + 1 - 100
    unmade = side(FOUR, (NIL, 3, 6, 3), (1, 4, 4, 4), rules=pooled)
    assert (unmade.made, unmade.bag_points) == (False, 0)


def test_option_help_partner_has_no_effect_in_two_player() -> None:
    pooled = Rules(failed_nil_tricks_help_partner=True)
    assert side(TWO, (NIL, 5), (2, 11), rules=pooled) == side(TWO, (NIL, 5), (2, 11))


def test_bid_names() -> None:
    assert [bid_name(b) for b in (BLIND_NIL, NIL, 4)] == ["Blind Nil", "Nil", "4"]


# --- the end of the game ----------------------------------------------------------------

ENDS = [
    # rules, scores, reason, winner
    (STANDARD, (499, 300), None, None),
    (STANDARD, (500, 300), "target", 0),
    (STANDARD, (300, 512), "target", 1),
    (STANDARD, (530, 510), "target", 0),  # both past the target: the higher wins
    (STANDARD, (510, 530), "target", 1),
    (STANDARD, (520, 520), None, None),  # tied past the target: another hand
    (STANDARD, (-900, 100), None, None),  # no lose_score: no mercy
    (Rules(lose_score=-200), (-200, 100), "mercy", 1),
    (Rules(lose_score=-200), (100, -250), "mercy", 0),
    (Rules(lose_score=-200), (100, -200), "mercy", 0),  # at lose_score, either side
    (Rules(lose_score=-200), (-199, 100), None, None),
    (Rules(lose_score=-200), (-300, -250), "mercy", 1),  # both at or below: the higher wins
    (Rules(lose_score=-200), (-250, -250), None, None),
    (Rules(lose_score=-200), (520, -300), "target", 0),
    (Rules(target_score=200), (210, 150), "target", 0),
]


@pytest.mark.parametrize(("rules", "scores", "reason", "won"), ENDS)
def test_end_of_game(
    rules: Rules, scores: tuple[int, int], reason: str | None, won: int | None
) -> None:
    assert end_reason(rules, scores) == reason
    assert winner(rules, scores) == won


def test_one_list_of_a_scores_parts() -> None:
    """SCORE_PARTS names every field of SideScore in order, and every table of score parts is
    built from it: the replay's JSON, the stats' and the store's columns and types, the
    points by part."""
    assert tuple(part.field for part in SCORE_PARTS) == SideScore._fields
    score = score_side(TWO, STANDARD, 0, (7, 0), (8, 5), score_before=40, bags_before=9)
    assert score._asdict() == {part.field: getattr(score, part.field) for part in SCORE_PARTS}
    columns = [part.column for part in SCORE_COLUMNS]
    assert list(SIDE_HAND_SCHEMA)[-len(columns) + 1 :] == columns[1:]
    assert [name for name, _ in COLUMNS["side_hands"]][-len(columns) + 1 :] == columns[1:]
    types = {"int": ("BIGINT", pl.Int64), "bool": ("BOOLEAN", pl.Boolean)}
    sql = dict(COLUMNS["side_hands"])
    for part in SCORE_COLUMNS:
        assert (sql[part.column], SIDE_HAND_SCHEMA[part.column]) == types[part.kind]
    assert PARTS == ("contract_points", "bag_points", "nil_points", "penalty_points", "points")
    assert sum(getattr(score, part) for part in PARTS[:-1]) == score.points
    assert list(replay_side_dict(score)) == [part.column for part in SCORE_PARTS]

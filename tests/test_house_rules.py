"""The seven options of format 1.1, enforced: every worked example of the rule book's house
rules section, the recorder's ``legal_*`` answers, bots that keep to every option, and
``simulate --rule`` for each option."""

from __future__ import annotations

import random
from pathlib import Path

import orjson
import pytest

import spades_replay
from spades_replay.cli import main
from spades_replay.engine.actions import DeclareBlindNil, IllegalActionError, PlaceBid, PlayCard
from spades_replay.engine.bidding import bid_violation, blind_nil_open, legal_bids_of
from spades_replay.engine.cards import CARD_NAMES, mask_of, parse_card
from spades_replay.engine.rules import Rules
from spades_replay.engine.scoring import BLIND_NIL, NIL, score_side
from spades_replay.engine.seats import Variant
from spades_replay.engine.state import (
    HandState,
    apply,
    apply_draws,
    legal_bids,
    legal_plays,
    start_four_player,
    start_two_player,
)
from spades_replay.errors import Code, RulesError
from spades_replay.play.bots import RandomBot, closest_bid
from spades_replay.play.recorder import Recorder
from spades_replay.play.simulate import roster, simulate_game
from spades_replay.replayer.validate import validate_bytes

from .conftest import FIXTURES

FOUR = Variant.FOUR_PLAYER
TWO = Variant.TWO_PLAYER
NAMES4 = ["Alex", "Beth", "Charlie", "David"]
DECK = list(CARD_NAMES)


def _deal(seed: int, two_of_clubs_to: int | None = None) -> list[list[str]]:
    deck = list(DECK)
    random.Random(seed).shuffle(deck)
    deal = [deck[seat::4] for seat in range(4)]
    if two_of_clubs_to is not None:
        holder = next(seat for seat, cards in enumerate(deal) if "2C" in cards)
        if holder != two_of_clubs_to:
            i, j = deal[holder].index("2C"), 0
            deal[holder][i], deal[two_of_clubs_to][j] = deal[two_of_clubs_to][j], "2C"
    return deal


# -- min_team_bid: 4 (Alex 2, Beth 3, Charlie 1) ---------------------------------------------


def test_min_team_bid_worked_example() -> None:
    rules = Rules(min_team_bid=4)
    # Alex bids 2, Beth 3, Charlie (Alex's partner) 1: the team would bid 3
    assert bid_violation(FOUR, rules, 2, 1, (2, 3, None, None), (0, 0)) is Code.BID_MIN_TEAM_BID
    assert bid_violation(FOUR, rules, 2, 2, (2, 3, None, None), (0, 0)) is None
    # had Alex bid Nil, Charlie alone must bid at least 4
    assert bid_violation(FOUR, rules, 2, 3, (NIL, 3, None, None), (0, 0)) is not None
    assert bid_violation(FOUR, rules, 2, 4, (NIL, 3, None, None), (0, 0)) is None
    # had Alex and Charlie both bid Nil, the team has no contract: any numbers are fine
    assert bid_violation(FOUR, rules, 2, NIL, (NIL, 3, None, None), (0, 0)) is None
    assert bid_violation(FOUR, rules, 2, BLIND_NIL, (NIL, 3, None, None), (0, 0)) is None
    # the first bid of a team is never short: the error is placed on the second
    assert bid_violation(FOUR, rules, 0, 1, (None,) * 4, (0, 0)) is None


def test_min_team_bid_through_the_recorder() -> None:
    rec = Recorder("four-player", NAMES4, rules=Rules(min_team_bid=4), first_dealer=3)
    rec.start_hand(deal=_deal(1))
    rec.bid(0, 2)
    rec.bid(1, 3)
    assert rec.legal_bids() == tuple(range(2, 14))
    with pytest.raises(RulesError) as caught:
        rec.bid(2, 1)
    problem = caught.value.problem
    assert problem.code is Code.BID_MIN_TEAM_BID
    assert problem.place == "hand 1, bid of seat 2 (Charlie)"
    assert "min_team_bid 4" in problem.message
    assert "1" not in problem.legal
    assert rec.turn == 2  # nothing changed


def test_min_team_bid_has_no_effect_in_two_player() -> None:
    assert legal_bids_of(TWO, Rules(min_team_bid=13), 1, (None, 1), (0, 0), blind=False) == (
        tuple(range(14))
    )


# -- blind_nil_min_deficit: 100 -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("scores", "may"),
    [
        ((120, 250), {0: True, 1: False, 2: True, 3: False}),
        ((120, 210), dict.fromkeys(range(4), False)),
    ],
)
def test_blind_nil_min_deficit_worked_example_four_player(
    scores: tuple[int, int], may: dict[int, bool]
) -> None:
    rules = Rules(blind_nil_min_deficit=100)
    for seat, allowed in may.items():
        assert blind_nil_open(FOUR, rules, seat, scores) is allowed
    state = start_four_player(rules, 3, [mask_of(map(parse_card, c)) for c in _deal(2)], scores)
    assert state.turn == 0
    assert (BLIND_NIL in legal_bids(state)) is may[0]


def test_blind_nil_min_deficit_worked_example_two_player() -> None:
    rules = Rules(blind_nil_min_deficit=100)
    # Drew (seat 1) at 40 against Megan's 150 may; Megan may not
    assert blind_nil_open(TWO, rules, 1, (150, 40))
    assert not blind_nil_open(TWO, rules, 0, (150, 40))


def test_blind_nil_min_deficit_zero_lets_a_level_side_declare() -> None:
    rules = Rules(blind_nil_min_deficit=0)
    assert blind_nil_open(FOUR, rules, 0, (0, 0))
    assert not blind_nil_open(FOUR, rules, 0, (10, 0))


def test_blind_nil_deficit_through_the_recorder() -> None:
    rec = Recorder("two-player", ["Megan", "Drew"], rules=Rules(blind_nil_min_deficit=100))
    rec.start_hand(deck=DECK)
    assert not rec.can_declare_blind_nil(0)
    with pytest.raises(RulesError) as caught:
        rec.declare_blind_nil(0)
    problem = caught.value.problem
    assert problem.code is Code.BID_BLIND_NIL_DEFICIT
    assert problem.place == "hand 1, bid of seat 0 (Megan)"
    assert "at 0 to 0 (level)" in problem.message
    assert "blind_nil_min_deficit is 100" in problem.message


# -- nil_allowed and blind_nil_allowed are independent -----------------------------------------


def test_no_nil_still_allows_blind_nil() -> None:
    rec = Recorder("four-player", NAMES4, rules=Rules(nil_allowed=False))
    rec.start_hand(deal=_deal(3))
    assert rec.legal_bids() == ("blind_nil", *range(1, 14))
    with pytest.raises(RulesError) as caught:
        rec.bid(1, 0)
    assert caught.value.problem.code is Code.BID_NIL_NOT_ALLOWED
    assert caught.value.problem.legal == ("Blind Nil", *map(str, range(1, 14)))
    rec.bid(1, "blind_nil")


def test_no_blind_nil_still_allows_nil() -> None:
    rec = Recorder("four-player", NAMES4, rules=Rules(blind_nil_allowed=False))
    rec.start_hand(deal=_deal(3))
    assert rec.legal_bids() == tuple(range(14))
    with pytest.raises(RulesError) as caught:
        rec.bid(1, "blind_nil")
    assert caught.value.problem.code is Code.BID_BLIND_NIL_NOT_ALLOWED
    rec.bid(1, 0)
    two = Recorder("two-player", ["Megan", "Drew"], rules=Rules(blind_nil_allowed=False))
    two.start_hand(deck=DECK)
    assert not two.can_declare_blind_nil(0)
    with pytest.raises(RulesError) as caught:
        two.declare_blind_nil(0)
    assert caught.value.problem.code is Code.BID_BLIND_NIL_NOT_ALLOWED


# -- what the engine says of a refused bid -------------------------------------------------------


def _refused_bid(state: HandState, action: PlaceBid | DeclareBlindNil) -> tuple[object, ...]:
    with pytest.raises(IllegalActionError) as caught:
        apply(state, action)
    error = caught.value
    return error.code, error.message, error.rule, error.seat, error.at, error.legal


NUMBERS = tuple(map(str, range(1, 14)))
DEFICIT = (
    "Blind Nil may be declared only by a side at least blind_nil_min_deficit points behind the "
    "other side before the hand"
)


@pytest.mark.parametrize(
    ("scores", "standing"),
    [
        ((120, 100), "at 100 to 120 (20 behind)"),
        ((101, 100), "at 100 to 101 (1 behind)"),
        ((100, 100), "at 100 to 100 (level)"),
        ((100, 120), "at 120 to 100 (20 ahead)"),
    ],
)
def test_a_blind_nil_refused_for_the_deficit_says_where_the_side_stands(
    scores: tuple[int, int], standing: str
) -> None:
    rules = Rules(blind_nil_min_deficit=100)
    deal = [mask_of(map(parse_card, cards)) for cards in _deal(2)]
    state = start_four_player(rules, 0, deal, scores)  # seat 1, of side 1, bids first
    assert _refused_bid(state, PlaceBid(1, BLIND_NIL)) == (
        Code.BID_BLIND_NIL_DEFICIT,
        f"declared Blind Nil {standing}, but blind_nil_min_deficit is 100: a side must be at "
        "least that many points behind",
        DEFICIT,
        1,
        ("bids", 1),
        ("Nil", *NUMBERS),
    )


def test_a_two_player_declaration_refused_leaves_nothing_else_to_declare() -> None:
    state = start_two_player(Rules(blind_nil_allowed=False), 0, tuple(map(parse_card, DECK)))
    assert _refused_bid(state, DeclareBlindNil(0)) == (
        Code.BID_BLIND_NIL_NOT_ALLOWED,
        "declared Blind Nil, but Blind Nil is not allowed (blind_nil_allowed is false)",
        "with blind_nil_allowed false, Blind Nil may not be declared",
        0,
        ("bids", 0),
        (),
    )


def test_a_two_player_nil_refused_offers_the_numbers() -> None:
    state = start_two_player(Rules(nil_allowed=False), 0, tuple(map(parse_card, DECK)))
    state = apply_draws(state, [True] * 26)
    assert _refused_bid(state, PlaceBid(1, NIL)) == (
        Code.BID_NIL_NOT_ALLOWED,
        "bid Nil, but Nil is not allowed (nil_allowed is false): bids are 1 to 13",
        "with nil_allowed false, a bid of 0 (Nil) is not allowed: bids are 1 to 13",
        1,
        ("bids", 1),
        NUMBERS,
    )


def test_a_partners_blind_nil_adds_nothing_to_the_team_bid() -> None:
    deal = [mask_of(map(parse_card, cards)) for cards in _deal(2)]
    state = start_four_player(Rules(min_team_bid=4), 0, deal)
    for seat, bid in ((1, BLIND_NIL), (2, 3)):
        state = apply(state, PlaceBid(seat, bid))
    assert _refused_bid(state, PlaceBid(3, 3)) == (
        Code.BID_MIN_TEAM_BID,
        "bid 3: team 1 would bid 3, below min_team_bid 4: with her partner's Blind Nil she must "
        "bid at least 4",
        "a team's bids must add up to at least min_team_bid (Nil counts 0), unless both partners "
        "bid Nil or Blind Nil",
        3,
        ("bids", 3),
        ("Blind Nil", "Nil", *NUMBERS[3:]),
    )


# -- first_lead: "two_of_clubs" ---------------------------------------------------------------


def _bid_all(rec: Recorder) -> None:
    while rec.phase == "bidding":
        rec.bid(rec.turn or 0, 3)


@pytest.mark.parametrize("dealer", [0, 3])
def test_two_of_clubs_worked_example(dealer: int) -> None:
    """Seat 2 holds 2C: seat 2 leads 2C to trick 1, whoever dealt; trick 1 then goes on
    clockwise from seat 2. Leading any other card to trick 1 is illegal."""
    rec = Recorder(
        "four-player", NAMES4, rules=Rules(first_lead="two_of_clubs"), first_dealer=dealer
    )
    rec.start_hand(deal=_deal(4, two_of_clubs_to=2))
    _bid_all(rec)
    assert rec.turn == 2
    assert rec.legal_plays() == ("2C",)
    other = next(card for card in rec.holding(2) if card != "2C")
    with pytest.raises(RulesError) as caught:
        rec.play(2, other)
    problem = caught.value.problem
    assert problem.code is Code.PLAY_FIRST_LEAD
    assert problem.legal == ("2C",)
    assert "first_lead is two_of_clubs" in problem.message
    rec.play(2, "2C")
    assert rec.turn == 3


def test_two_of_clubs_is_led_by_its_holder_after_the_exchange() -> None:
    rules = Rules(first_lead="two_of_clubs")
    deal = _deal(5, two_of_clubs_to=0)
    rec = Recorder("four-player", NAMES4, rules=rules, first_dealer=3)
    rec.start_hand(deal=deal)
    rec.bid(0, "blind_nil")
    for seat in (1, 2, 3):
        rec.bid(seat, 3)
    give, take, _ = rec.exchange_options()
    swap = ["2C", *[c for c in give if c != "2C"][:2]]
    rec.exchange(0, swap, take[:3])
    assert rec.turn == 2  # the partner now holds 2C and leads it
    assert rec.legal_plays() == ("2C",)


def test_first_lead_has_no_effect_in_two_player() -> None:
    def played_to_the_lead(rules: Rules) -> tuple[int | None, tuple[str, ...]]:
        rec = Recorder("two-player", ["Megan", "Drew"], rules=rules)
        rec.start_hand(deck=DECK)
        while rec.phase == "draft":
            rec.draw(rec.turn or 0, True)
        while rec.phase == "bidding":
            rec.bid(rec.turn or 0, 5)
        return rec.turn, rec.legal_plays()

    assert played_to_the_lead(Rules(first_lead="two_of_clubs")) == played_to_the_lead(Rules())
    assert played_to_the_lead(Rules())[0] == 1  # the second player leads, as always


# -- spades_must_be_broken: false ---------------------------------------------------------------


def test_spades_may_be_led_at_any_time_worked_example() -> None:
    """Kelly may lead AS to trick 1 while holding hearts."""
    deal = _deal(6)
    holder = next(seat for seat, cards in enumerate(deal) if "AS" in cards)
    rules = Rules(spades_must_be_broken=False)
    dealer = (holder - 1) % 4
    state = start_four_player(rules, dealer, [mask_of(map(parse_card, c)) for c in deal])
    for seat in FOUR.seats_from(holder):
        state = apply(state, PlaceBid(seat, 3))
    assert state.turn == holder
    assert legal_plays(state) == state.holdings[holder]
    state = apply(state, PlayCard(holder, parse_card("AS")))
    assert state.trick == (parse_card("AS"),)
    strict = start_four_player(Rules(), dealer, [mask_of(map(parse_card, c)) for c in deal])
    for seat in FOUR.seats_from(holder):
        strict = apply(strict, PlaceBid(seat, 3))
    with pytest.raises(IllegalActionError) as caught:
        apply(strict, PlayCard(holder, parse_card("AS")))
    assert caught.value.code is Code.PLAY_SPADES_NOT_BROKEN


# -- double_contract_from: 10 ("10 for 200") ----------------------------------------------------


def test_double_contract_worked_example() -> None:
    rules = Rules(double_contract_from=10)
    beth_david = score_side(
        FOUR, rules, 1, bids=(1, 6, 1, 4), tricks=(1, 5, 1, 6), score_before=0, bags_before=0
    )
    assert (beth_david.points, beth_david.bags) == (201, 1)
    set_ = score_side(
        FOUR, rules, 1, bids=(1, 6, 1, 4), tricks=(2, 5, 2, 4), score_before=0, bags_before=0
    )
    assert set_.points == -100
    drew = score_side(TWO, rules, 1, bids=(3, 10), tricks=(3, 10), score_before=0, bags_before=0)
    assert drew.points == 200


# -- bots keep to every option ------------------------------------------------------------------

HOUSE_RULES = [
    Rules(nil_allowed=False),
    Rules(blind_nil_allowed=False),
    Rules(blind_nil_min_deficit=50),
    Rules(min_team_bid=9),
    Rules(first_lead="two_of_clubs"),
    Rules(spades_must_be_broken=False),
    Rules(double_contract_from=7),
    Rules(nil_allowed=False, blind_nil_min_deficit=0, min_team_bid=11, first_lead="two_of_clubs"),
]


@pytest.mark.parametrize("kind", ["heuristic", "random"])
@pytest.mark.parametrize("variant", list(Variant))
@pytest.mark.parametrize("rules", HOUSE_RULES, ids=repr)
def test_bots_only_make_legal_actions_under_every_option(
    kind: str, variant: Variant, rules: Rules
) -> None:
    bots = [bot for _, bot in roster(variant, kind)]
    if kind == "random":
        bots = [RandomBot(blind_nil_rate=0.5) for _ in bots]
    for seed in range(3):
        record = simulate_game(variant, seed=seed, bots=bots, rules=rules, max_hands=12)
        data = spades_replay.dumps(record)
        assert validate_bytes(data).valid
        bids = [bid for hand in orjson.loads(data)["hands"] for bid in hand["bids"]]
        if not rules.nil_allowed:
            assert 0 not in bids
        if not rules.blind_nil_allowed:
            assert "blind_nil" not in bids


@pytest.mark.parametrize("rules", [Rules(), *HOUSE_RULES], ids=repr)
def test_the_legal_bids_are_the_bids_no_rule_refuses(rules: Rules) -> None:
    # legal_bids_of keeps the numbers of each partner's bid once (the scores decide only
    # Blind Nil): what it lists is what bid_violation lets through, in the order asked
    for variant in Variant:
        for seat in variant.seats:
            for partner in (None, BLIND_NIL, NIL, *range(1, 14)):
                bids: list[int | None] = [None] * variant.seat_count
                mate = variant.partner(seat)
                if mate is not None:
                    bids[mate] = partner
                for scores in ((0, 0), (0, 120), (-200, 300), (310, -40)):
                    for blind in (False, True):
                        candidates = ((BLIND_NIL,) if blind else ()) + tuple(range(14))
                        allowed = tuple(
                            bid
                            for bid in candidates
                            if bid_violation(variant, rules, seat, bid, bids, scores) is None
                        )
                        assert (
                            legal_bids_of(variant, rules, seat, bids, scores, blind=blind)
                            == allowed
                        )


def test_closest_bid_keeps_to_the_legal_numbers() -> None:
    assert closest_bid((0, *range(5, 14)), 3) == 5
    assert closest_bid(tuple(range(1, 14)), 4) == 4
    assert closest_bid((BLIND_NIL, 0), 4) == 0


# -- simulate --rule ----------------------------------------------------------------------------


def test_simulate_accepts_every_option(tmp_path: Path) -> None:
    target = tmp_path / "games.jsonl"
    settings = [
        "nil_allowed=false",
        "blind_nil_allowed=true",
        "blind_nil_min_deficit=100",
        "min_team_bid=6",
        "first_lead=two_of_clubs",
        "spades_must_be_broken=false",
        "double_contract_from=10",
    ]
    arguments = ["simulate", "--variant", "four-player", "--games", "2", "-o", str(target)]
    for setting in settings:
        arguments += ["--rule", setting]
    assert main([*arguments, "--no-progress"]) == 0
    for line in target.read_bytes().splitlines():
        record = spades_replay.loads(line)
        assert record.version == "1.1"
        assert (record.rules.nil_allowed, record.rules.first_lead) == (False, "two_of_clubs")
        assert (record.rules.min_team_bid, record.rules.double_contract_from) == (6, 10)
        assert record.rules.blind_nil_min_deficit == 100
        assert record.rules.spades_must_be_broken is False
        assert validate_bytes(line).valid


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("first_lead=dealer", "first_lead"),
        ("min_team_bid=14", "min_team_bid"),
        ("nil_allowed=maybe", "'nil_allowed' must be true or false, got 'maybe'"),
        ("blind_nil_min_deficit=-5", "blind_nil_min_deficit"),
    ],
)
def test_simulate_refuses_bad_option_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], setting: str, message: str
) -> None:
    arguments = ["simulate", "--variant", "two-player", "--games", "1", "--rule", setting]
    assert main([*arguments, "-o", str(tmp_path / "x.jsonl")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x.jsonl").exists()


# -- the house-rules fixtures are played under their options -------------------------------------


def test_the_four_player_house_rules_fixture_keeps_its_options() -> None:
    record = spades_replay.load(FIXTURES / "four-player" / "house-rules.json")
    rules = record.rules
    assert (rules.blind_nil_allowed, rules.min_team_bid, rules.first_lead) == (
        False,
        5,
        "two_of_clubs",
    )
    for hand in record.hands:
        assert hand.plays[0] == "2C"
        assert "blind_nil" not in hand.bids
        for team in ((0, 2), (1, 3)):
            pair = [hand.bids[seat] for seat in team]
            assert pair == [0, 0] or sum(int(bid) for bid in pair) >= 5


def test_the_two_player_house_rules_fixture_keeps_its_options() -> None:
    record = spades_replay.load(FIXTURES / "two-player" / "house-rules.json")
    assert record.rules.nil_allowed is False
    assert all(0 not in hand.bids for hand in record.hands)
    replayed = spades_replay.replay(record)
    doubled = [
        side
        for hand in replayed.hands
        if hand.scores is not None
        for side in hand.scores
        if side.made and side.contract >= 7
    ]
    assert doubled
    assert all(side.contract_points == 20 * side.contract for side in doubled)

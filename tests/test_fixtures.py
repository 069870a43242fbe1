"""The bundled fixtures: valid ones validate, round-trip, and show the events they are there
for; invalid ones fail with exactly their expected error, and name the rule they break; every error
code has one."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

import spades_replay
from spades_replay.errors import Code, Family
from spades_replay.play.simulate import simulate_game
from spades_replay.record.io import dumps, loads
from spades_replay.replayer.convert import rules_of
from spades_replay.replayer.validate import CorpusValidation, validate_bytes
from tests.support.events import game_events

from .conftest import FIXTURES

RECORDS = sorted((FIXTURES / "two-player").glob("*.json")) + sorted(
    (FIXTURES / "four-player").glob("*.json")
)
CORPORA = sorted((FIXTURES / "corpus").iterdir())
INVALID = FIXTURES / "invalid"
EXPECTED = orjson.loads((INVALID / "EXPECTED.json").read_bytes())

# what each fixture is there to show (checked against the replay, not taken on trust)
SHOWS = {
    "two-player/standard-game.json": {"won", "bag-penalty", "contract-set", "nil-made"},
    "two-player/nil-failed.json": {"nil-failed"},
    "two-player/blind-nil.json": {"blind-nil-made", "blind-nil-failed", "exchange"},
    "two-player/both-past-target.json": {"both-past-target"},
    "two-player/tie-plays-on.json": {"tie-plays-on", "won"},
    "two-player/mercy.json": {"mercy"},
    "two-player/unfinished.json": {"unfinished"},
    "two-player/house-rules.json": {"won", "double-contract"},
    "four-player/standard-game.json": {
        "won",
        "bag-penalty",
        "contract-set",
        "nil-made",
        "nil-failed",
    },
    "four-player/blind-nil.json": {"blind-nil-made", "blind-nil-failed", "exchange"},
    "four-player/both-partners-nil.json": {"both-partners-nil"},
    "four-player/both-past-target.json": {"both-past-target"},
    "four-player/tie-plays-on.json": {"tie-plays-on", "won"},
    "four-player/mercy.json": {"mercy"},
    "four-player/pooled-nil.json": {"nil-failed", "bag-penalty"},
    "four-player/unfinished.json": {"unfinished"},
    "four-player/house-rules.json": {"won", "double-contract", "nil-made"},
}
EVERY_SCORING_EVENT = {
    "nil-made",
    "nil-failed",
    "blind-nil-made",
    "blind-nil-failed",
    "bag-penalty",
    "both-past-target",
    "tie-plays-on",
    "mercy",
}


def name_of(path: Path) -> str:
    return path.relative_to(FIXTURES).as_posix()


def test_every_fixture_is_described() -> None:
    assert {name_of(path) for path in RECORDS} == set(SHOWS)


@pytest.mark.parametrize("path", RECORDS, ids=name_of)
def test_valid_fixture(path: Path) -> None:
    report = validate_bytes(path.read_bytes(), str(path))
    assert report.valid, [str(problem) for problem in report.problems]
    record = spades_replay.load(path)
    assert loads(dumps(record)) == record
    assert dumps(record, indent=True) + b"\n" == path.read_bytes()  # files are canonical
    shown = game_events(spades_replay.replay(record))
    assert SHOWS[name_of(path)] <= shown


@pytest.mark.parametrize("variant", ["two-player", "four-player"])
def test_fixtures_cover_every_scoring_event(variant: str) -> None:
    shown: set[str] = set()
    for path in RECORDS:
        if path.parent.name == variant:
            shown |= game_events(spades_replay.replay(spades_replay.load(path)))
    wanted = EVERY_SCORING_EVENT | ({"both-partners-nil"} if variant == "four-player" else set())
    assert wanted <= shown


def test_the_tie_really_plays_on() -> None:
    for variant in ("two-player", "four-player"):
        replayed = spades_replay.replay(
            spades_replay.load(FIXTURES / variant / "tie-plays-on.json")
        )
        target = replayed.rules.target_score
        tied = [
            hand.number
            for hand in replayed.hands
            if hand.scores and hand.scores[0].score == hand.scores[1].score >= target
        ]
        assert tied, variant
        assert tied[0] < len(replayed.hands)  # another hand followed
        assert replayed.hands[tied[0] - 1].outcome.end is None


SIMULATED = [path for path in RECORDS if path.name != "unfinished.json"]


@pytest.mark.parametrize("path", SIMULATED, ids=name_of)
def test_fixtures_are_reproducible(path: Path) -> None:
    record = spades_replay.load(path)
    assert record.meta["source"] == "spades-replay simulate"
    again = simulate_game(
        record.variant,
        seed=int(record.meta["seed"]),
        rules=rules_of(record.rules),
        game_id=record.game_id,
    )
    assert dumps(again) == dumps(record)


@pytest.mark.parametrize("path", CORPORA, ids=name_of)
def test_corpora_validate(path: Path) -> None:
    validation = CorpusValidation([path])
    assert list(validation) == []
    assert validation.summary.records >= 4
    assert validation.summary.invalid == 0


# the rule each invalid fixture of the rules families breaks, in the words a report gives it
_CLAIMS = "every claim must match the replay"
_RESULT = "the game result is claimed only for a won game, and must match the replay"
RULE_BROKEN = {
    "bid-blind-nil-deficit.json": "Blind Nil may be declared only by a side at least "
    "blind_nil_min_deficit points behind the other side before the hand",
    "bid-blind-nil-not-allowed.json": "with blind_nil_allowed false, Blind Nil may not be declared",
    "bid-min-team-bid.json": "a team's bids must add up to at least min_team_bid (Nil counts 0), "
    "unless both partners bid Nil or Blind Nil",
    "bid-nil-not-allowed.json": "with nil_allowed false, a bid of 0 (Nil) is not allowed: "
    "bids are 1 to 13",
    "claim-bags.json": _CLAIMS,
    "claim-final-scores.json": _RESULT,
    "claim-game-not-over.json": _RESULT,
    "claim-points.json": _CLAIMS,
    "claim-scores.json": _CLAIMS,
    "claim-tricks.json": _CLAIMS,
    "claim-unfinished-hand.json": "results are claimed only for finished hands",
    "claim-winner.json": _RESULT,
    "deal-duplicate-card.json": "the deal gives each of the 52 cards to exactly one seat",
    "deck-duplicate-card.json": "the deck holds each of the 52 cards exactly once",
    "exchange-duplicate-card.json": "each card of an exchange is named once",
    "exchange-not-blind-nil.json": "only a Blind Nil bidder exchanges cards",
    "exchange-not-held.json": "a player gives only cards she holds",
    "exchange-not-in-pile.json": "cards taken in come from the discard pile as it is at that "
    "moment",
    "exchange-order.json": "when both players bid Blind Nil, the second player exchanges first",
    "exchange-partner-blind.json": "when both partners bid Blind Nil, no cards are exchanged",
    "exchange-partner-not-held.json": "the partner gives only cards she was dealt",
    "exchange-repeated.json": "a Blind Nil bidder exchanges at most once per hand",
    "exchange-size.json": "an exchange puts away and takes in the same number of cards, "
    "at most blind_nil_exchange",
    "game-over.json": "no hand is played after the game has been won",
    "hand-unfinished.json": "only the last hand of a record may stop before its 13th trick",
    "play-first-lead.json": "with first_lead two_of_clubs, the player holding the two of clubs "
    "leads it to the first trick",
    "play-not-held.json": "a player can only play a card she holds",
    "play-revoke.json": "a player who holds the led suit must follow it",
    "play-spades-not-broken.json": "spades may not be led until broken, unless the leader holds "
    "only spades",
}


@pytest.mark.parametrize("name", sorted(RULE_BROKEN))
def test_an_invalid_fixture_names_the_rule_it_breaks(name: str) -> None:
    first = validate_bytes((INVALID / name).read_bytes()).problems[0]
    assert first.code.family is Family.RULES
    assert first.rule == RULE_BROKEN[name]


def test_every_fixture_of_the_rules_families_has_its_rule() -> None:
    rules = {
        name for name, expected in EXPECTED.items() if Code(expected["code"]).family is Family.RULES
    }
    assert rules == set(RULE_BROKEN)


def test_every_record_error_code_has_an_invalid_fixture() -> None:
    codes = {expected["code"] for expected in EXPECTED.values()}
    wanted = {code.value for code in Code if code.family in (Family.FORMAT, Family.RULES)}
    assert codes == wanted
    assert {path.name for path in INVALID.glob("*.json")} == set(EXPECTED) | {"EXPECTED.json"}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_invalid_fixture(name: str) -> None:
    expected = EXPECTED[name]
    report = validate_bytes((INVALID / name).read_bytes())
    assert not report.valid
    first = report.problems[0]
    assert first.code.value == expected["code"]
    assert first.pointer == expected["pointer"]
    assert first.place == expected["place"]
    assert first.message == expected["message"]

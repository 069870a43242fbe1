"""The format 1.1 conformance set of the independent reference (tests/conformance-1.1).

Every record in valid/ validates with every claim matching; every record in invalid/ is
rejected, at the place and for the rule the reference noticed first; and the 1.0 set keeps its
verdicts when its records are rewritten as 1.1. (The rescore/ folder is for what-if rescoring.)
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

import spades_replay
from spades_replay.errors import Code, FormatError
from spades_replay.replayer.validate import validate_bytes

from .conftest import CONFORMANCE, CONFORMANCE_1_1, SHARED

VALID = sorted((CONFORMANCE_1_1 / "valid").glob("*.json"))
INVALID = sorted(
    p for p in (CONFORMANCE_1_1 / "invalid").glob("*.json") if p.name != "EXPECTED.json"
)
EXPECTED = json.loads((CONFORMANCE_1_1 / "invalid" / "EXPECTED.json").read_text())

# What the reference noticed, as this project's code, JSON Pointer and place in words.
PLACES: dict[str, tuple[Code, str, str]] = {
    "four-player-bid-range.json": (Code.FORMAT_BID, "/hands/0/bids/3", ""),
    "four-player-blind-nil-deficit.json": (
        Code.BID_BLIND_NIL_DEFICIT,
        "/hands/0/bids/0",
        "hand 1, bid of seat 0 (Alex)",
    ),
    "four-player-blind-nil-disallowed.json": (
        Code.BID_BLIND_NIL_NOT_ALLOWED,
        "/hands/0/bids/0",
        "hand 1, bid of seat 0 (Alex)",
    ),
    "four-player-claim.json": (Code.CLAIM_SCORES, "/hands/0/result/scores", "hand 1, result"),
    "four-player-double-contract-claim.json": (
        Code.CLAIM_POINTS,
        "/hands/13/result/points",
        "hand 14, result",
    ),
    "four-player-duplicate-card.json": (
        Code.DEAL_DUPLICATE_CARD,
        "/hands/0/deal/1/0",
        "hand 1, deal card 1 (seat 1, Beth)",
    ),
    "four-player-early-spade-lead.json": (
        Code.PLAY_SPADES_NOT_BROKEN,
        "/hands/0/plays/4",
        "hand 1, trick 2, card 1 (seat 2, Charlie)",
    ),
    "four-player-exchange.json": (
        Code.EXCHANGE_PARTNER_NOT_HELD,
        "/hands/0/exchanges/0/in/0",
        "hand 1, exchange 1 (seat 0, Alex)",
    ),
    "four-player-first-lead.json": (
        Code.PLAY_FIRST_LEAD,
        "/hands/0/plays/0",
        "hand 1, trick 1, card 1 (seat 1, Beth)",
    ),
    "four-player-hand-after-win.json": (Code.GAME_OVER, "/hands/16", "hand 17"),
    "four-player-min-team-bid.json": (
        Code.BID_MIN_TEAM_BID,
        "/hands/0/bids/2",
        "hand 1, bid of seat 2 (Charlie)",
    ),
    "four-player-newer-minor.json": (Code.FORMAT_VERSION, "/version", ""),
    "four-player-nil-disallowed.json": (
        Code.BID_NIL_NOT_ALLOWED,
        "/hands/2/bids/3",
        "hand 3, bid of seat 3 (David)",
    ),
    "four-player-option-in-1.0.json": (Code.FORMAT_OPTION_VERSION, "/rules/nil_allowed", ""),
    "four-player-option-value.json": (Code.FORMAT_RANGE, "/rules/min_team_bid", ""),
    "four-player-play.json": (
        Code.PLAY_NOT_HELD,
        "/hands/0/plays/1",
        "hand 1, trick 1, card 2 (seat 2, Charlie)",
    ),
    "four-player-revoke.json": (
        Code.PLAY_REVOKE,
        "/hands/1/plays/1",
        "hand 2, trick 1, card 2 (seat 3, David)",
    ),
    "four-player-typo-key.json": (Code.FORMAT_UNKNOWN_KEY, "/playres", ""),
    "four-player-version.json": (Code.FORMAT_VERSION, "/version", ""),
    "four-player-winner-claim.json": (Code.CLAIM_WINNER, "/result/winner", "game result"),
    "two-player-bid-range.json": (Code.FORMAT_BID, "/hands/0/bids/1", ""),
    "two-player-blind-nil-deficit.json": (
        Code.BID_BLIND_NIL_DEFICIT,
        "/hands/0/bids/0",
        "hand 1, bid of seat 0 (Megan)",
    ),
    "two-player-blind-nil-disallowed.json": (
        Code.BID_BLIND_NIL_NOT_ALLOWED,
        "/hands/2/bids/1",
        "hand 3, bid of seat 1 (Drew)",
    ),
    "two-player-claim.json": (Code.CLAIM_SCORES, "/hands/0/result/scores", "hand 1, result"),
    "two-player-double-contract-claim.json": (
        Code.CLAIM_POINTS,
        "/hands/0/result/points",
        "hand 1, result",
    ),
    "two-player-draft-length.json": (Code.FORMAT_DRAFT, "/hands/0/draft", ""),
    "two-player-draft-letter.json": (Code.FORMAT_DRAFT, "/hands/0/draft", ""),
    "two-player-duplicate-card.json": (
        Code.DECK_DUPLICATE_CARD,
        "/hands/0/deck/6",
        "hand 1, deck card 7",
    ),
    "two-player-early-spade-lead.json": (
        Code.PLAY_SPADES_NOT_BROKEN,
        "/hands/0/plays/0",
        "hand 1, trick 1, card 1 (seat 1, Drew)",
    ),
    "two-player-exchange.json": (
        Code.EXCHANGE_NOT_IN_PILE,
        "/hands/2/exchanges/0/in/0",
        "hand 3, exchange 1 (seat 1, Drew)",
    ),
    "two-player-hand-after-win.json": (Code.GAME_OVER, "/hands/4", "hand 5"),
    "two-player-newer-minor.json": (Code.FORMAT_VERSION, "/version", ""),
    "two-player-nil-disallowed.json": (
        Code.BID_NIL_NOT_ALLOWED,
        "/hands/1/bids/1",
        "hand 2, bid of seat 1 (Drew)",
    ),
    "two-player-option-in-1.0.json": (Code.FORMAT_OPTION_VERSION, "/rules/nil_allowed", ""),
    "two-player-option-value.json": (Code.FORMAT_RANGE, "/rules/blind_nil_min_deficit", ""),
    "two-player-play.json": (
        Code.PLAY_NOT_HELD,
        "/hands/0/plays/2",
        "hand 1, trick 2, card 1 (seat 0, Megan)",
    ),
    "two-player-revoke.json": (
        Code.PLAY_REVOKE,
        "/hands/0/plays/1",
        "hand 1, trick 1, card 2 (seat 0, Megan)",
    ),
    "two-player-typo-key.json": (Code.FORMAT_UNKNOWN_KEY, "/playres", ""),
    "two-player-version.json": (Code.FORMAT_VERSION, "/version", ""),
    "two-player-winner-claim.json": (Code.CLAIM_WINNER, "/result/winner", "game result"),
}

OPTIONS_AWAY_FROM_DEFAULT = {
    "nil_allowed": False,
    "blind_nil_allowed": False,
    "spades_must_be_broken": False,
}


def test_the_set_is_complete() -> None:
    assert len(VALID) == 40
    assert {path.name for path in INVALID} == set(EXPECTED) == set(PLACES)


def test_the_valid_set_takes_every_option_away_from_its_default() -> None:
    """The set is worth running only if it exercises the options (README of the set)."""
    rules = [orjson.loads(path.read_bytes())["rules"] for path in VALID]
    for option, value in OPTIONS_AWAY_FROM_DEFAULT.items():
        assert any(r[option] == value for r in rules), option
    assert any(r["blind_nil_min_deficit"] is not None for r in rules)
    assert any(r["min_team_bid"] > 0 for r in rules)
    assert any(r["first_lead"] == "two_of_clubs" for r in rules)
    assert any(r["double_contract_from"] is not None for r in rules)


@pytest.mark.parametrize("path", VALID, ids=lambda path: path.name)
def test_valid_records_validate(path: Path) -> None:
    report = validate_bytes(path.read_bytes(), str(path))
    assert report.valid, [str(problem) for problem in report.problems]
    record = spades_replay.load(path)
    assert record.version == "1.1"
    replayed = spades_replay.replay(record)
    assert replayed.result.complete is (record.result is not None)
    if record.result is not None:
        assert replayed.result.winner == record.result.winner
        assert replayed.result.scores == record.result.scores


@pytest.mark.parametrize("path", INVALID, ids=lambda path: path.name)
def test_invalid_records_are_rejected_at_the_right_place(path: Path) -> None:
    report = validate_bytes(path.read_bytes(), str(path))
    assert not report.valid
    code, pointer, place = PLACES[path.name]
    first = report.problems[0]
    assert (first.code, first.pointer, first.place) == (code, pointer, place), str(first)


@pytest.mark.parametrize("path", INVALID, ids=lambda path: path.name)
def test_the_library_fails_fast_on_invalid_records(path: Path) -> None:
    with pytest.raises((FormatError, spades_replay.RulesError)):
        spades_replay.replay(spades_replay.load(path))


def test_messages_name_the_option_and_the_numbers() -> None:
    def first(name: str) -> str:
        report = validate_bytes((CONFORMANCE_1_1 / "invalid" / name).read_bytes())
        return report.problems[0].message

    assert first("four-player-min-team-bid.json") == (
        "bid 1: team 0 would bid 4, below min_team_bid 9: with her partner's 3 she must bid "
        "at least 6"
    )
    assert first("two-player-blind-nil-deficit.json") == (
        "declared Blind Nil at 0 to 0 (level), but blind_nil_min_deficit is 150: a side must "
        "be at least that many points behind"
    )
    assert "nil_allowed is false" in first("four-player-nil-disallowed.json")
    assert "blind_nil_allowed is false" in first("two-player-blind-nil-disallowed.json")
    assert "first_lead is two_of_clubs" in first("four-player-first-lead.json")
    lead = validate_bytes(
        (CONFORMANCE_1_1 / "invalid" / "four-player-first-lead.json").read_bytes()
    )
    assert lead.problems[0].legal == ("2C",)


OLD = [
    path
    for path in sorted((CONFORMANCE / "valid").glob("*.json"))
    + sorted(p for p in (CONFORMANCE / "invalid").glob("*.json") if p.name != "EXPECTED.json")
    if orjson.loads(path.read_bytes()).get("version") == "1.0"
]


def _as_1_1(data: bytes) -> bytes:
    """A 1.0 record rewritten as 1.1 (only its version changes: absent options default)."""
    value = orjson.loads(data)
    if isinstance(value, dict) and value.get("version") == "1.0":
        value["version"] = "1.1"
    return orjson.dumps(value)


def _verdict(data: bytes) -> tuple[bool, tuple[Code, str] | None]:
    report = validate_bytes(data)
    first = report.problems[0] if report.problems else None
    return report.valid, None if first is None else (first.code, first.pointer)


@pytest.mark.parametrize("path", OLD, ids=lambda path: path.name)
def test_the_1_0_set_keeps_its_verdicts_rewritten_as_1_1(path: Path) -> None:
    data = path.read_bytes()
    assert _verdict(_as_1_1(data)) == _verdict(data)


@pytest.mark.skipif(
    not (SHARED / "conformance-1.1").is_dir(), reason="the shared 1.1 set is not beside this"
)
def test_the_copy_matches_the_shared_set() -> None:
    """tests/conformance-1.1 is a copy of the shared set; this fails when they drift."""
    original = SHARED / "conformance-1.1"
    shared = {p.relative_to(original): p.read_bytes() for p in original.rglob("*") if p.is_file()}
    copy = {
        p.relative_to(CONFORMANCE_1_1): p.read_bytes()
        for p in CONFORMANCE_1_1.rglob("*")
        if p.is_file()
    }
    assert shared == copy

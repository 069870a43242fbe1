"""The conformance set of an independent reference implementation (tests/conformance).

Every record in valid/ validates with every claim matching; every record in invalid/ is
rejected, at the place and for the rule the reference noticed first.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import spades_replay
from spades_replay.errors import Code, FormatError
from spades_replay.replayer.validate import validate_bytes

from .conftest import CONFORMANCE, SHARED

VALID = sorted((CONFORMANCE / "valid").glob("*.json"))
INVALID = sorted(p for p in (CONFORMANCE / "invalid").glob("*.json") if p.name != "EXPECTED.json")
EXPECTED = json.loads((CONFORMANCE / "invalid" / "EXPECTED.json").read_text())

# What the reference noticed, as this project's code and JSON Pointer.
PLACES = {
    "four-player-bid-range.json": (Code.FORMAT_BID, "/hands/0/bids/1"),
    "four-player-claim.json": (Code.CLAIM_SCORES, "/hands/0/result/scores"),
    "four-player-duplicate-card.json": (Code.DEAL_DUPLICATE_CARD, "/hands/0/deal/1/0"),
    "four-player-early-spade-lead.json": (Code.PLAY_SPADES_NOT_BROKEN, "/hands/0/plays/0"),
    "four-player-exchange.json": (Code.EXCHANGE_PARTNER_NOT_HELD, "/hands/2/exchanges/0/in/0"),
    "four-player-hand-after-win.json": (Code.GAME_OVER, "/hands/9"),
    "four-player-play.json": (Code.PLAY_NOT_HELD, "/hands/0/plays/15"),
    "four-player-revoke.json": (Code.PLAY_REVOKE, "/hands/1/plays/1"),
    "four-player-typo-key.json": (Code.FORMAT_UNKNOWN_KEY, "/playres"),
    "four-player-version.json": (Code.FORMAT_VERSION, "/version"),
    "four-player-winner-claim.json": (Code.CLAIM_WINNER, "/result/winner"),
    "two-player-bid-range.json": (Code.FORMAT_BID, "/hands/0/bids/0"),
    "two-player-claim.json": (Code.CLAIM_SCORES, "/hands/0/result/scores"),
    "two-player-draft-length.json": (Code.FORMAT_DRAFT, "/hands/0/draft"),
    "two-player-draft-letter.json": (Code.FORMAT_DRAFT, "/hands/0/draft"),
    "two-player-duplicate-card.json": (Code.DECK_DUPLICATE_CARD, "/hands/0/deck/6"),
    "two-player-early-spade-lead.json": (Code.PLAY_SPADES_NOT_BROKEN, "/hands/1/plays/0"),
    "two-player-exchange.json": (Code.EXCHANGE_NOT_IN_PILE, "/hands/0/exchanges/0/in/0"),
    "two-player-hand-after-win.json": (Code.GAME_OVER, "/hands/4"),
    "two-player-play.json": (Code.PLAY_NOT_HELD, "/hands/0/plays/5"),
    "two-player-revoke.json": (Code.PLAY_REVOKE, "/hands/0/plays/1"),
    "two-player-typo-key.json": (Code.FORMAT_UNKNOWN_KEY, "/playres"),
    "two-player-version.json": (Code.FORMAT_VERSION, "/version"),
    "two-player-winner-claim.json": (Code.CLAIM_WINNER, "/result/winner"),
}


def test_the_set_is_complete() -> None:
    assert len(VALID) == 40
    assert {path.name for path in INVALID} == set(EXPECTED) == set(PLACES)


@pytest.mark.parametrize("path", VALID, ids=lambda path: path.name)
def test_valid_records_validate(path: Path) -> None:
    report = validate_bytes(path.read_bytes(), str(path))
    assert report.valid, [str(problem) for problem in report.problems]
    record = spades_replay.load(path)
    replayed = spades_replay.replay(record)
    assert replayed.result.complete is (record.result is not None)
    if record.result is not None:
        assert replayed.result.winner == record.result.winner
        assert replayed.result.scores == record.result.scores


@pytest.mark.parametrize("path", INVALID, ids=lambda path: path.name)
def test_invalid_records_are_rejected_at_the_right_place(path: Path) -> None:
    report = validate_bytes(path.read_bytes(), str(path))
    assert not report.valid
    code, pointer = PLACES[path.name]
    first = report.problems[0]
    assert (first.code, first.pointer) == (code, pointer), str(first)


@pytest.mark.parametrize("path", INVALID, ids=lambda path: path.name)
def test_the_library_fails_fast_on_invalid_records(path: Path) -> None:
    with pytest.raises((FormatError, spades_replay.RulesError)):
        spades_replay.replay(spades_replay.load(path))


def test_reference_messages_match_where_the_reference_is_specific() -> None:
    claim = validate_bytes((CONFORMANCE / "invalid" / "two-player-claim.json").read_bytes())
    assert claim.problems[0].message == "claims scores [-193, 43] but the rules give [-193, 42]"
    lead = validate_bytes(
        (CONFORMANCE / "invalid" / "two-player-early-spade-lead.json").read_bytes()
    )
    assert lead.problems[0].legal == tuple("3C 5C 4D JD KD AD 3H 9H QH".split())
    revoke = validate_bytes((CONFORMANCE / "invalid" / "four-player-revoke.json").read_bytes())
    assert revoke.problems[0].legal == ("6C", "AC")
    assert revoke.problems[0].place == "hand 2, trick 1, card 2 (seat 1, Beth)"


@pytest.mark.skipif(
    not (SHARED / "conformance").is_dir(), reason="the shared conformance set is not beside this"
)
def test_the_copy_matches_the_shared_set() -> None:
    """tests/conformance is a copy of the shared conformance set; this fails when they drift."""
    original = SHARED / "conformance"
    shared = {p.relative_to(original): p.read_bytes() for p in original.rglob("*") if p.is_file()}
    copy = {
        p.relative_to(CONFORMANCE): p.read_bytes() for p in CONFORMANCE.rglob("*") if p.is_file()
    }
    assert shared == copy

"""One game progression: the fast replay of a record (``engine.game.iter_hands``) and the
states a recorder or a viewer drives action by action (``engine.state.apply``, through
``drive_hand`` and ``Progress``) give the same verdict on every record, the invalid ones
included: the same first rules error, at the same place."""

from __future__ import annotations

from pathlib import Path

import pytest

from spades_replay.engine.actions import IllegalActionError
from spades_replay.engine.game import Progress
from spades_replay.engine.seats import Variant
from spades_replay.engine.setup import check_deal, check_deck
from spades_replay.engine.state import Phase, drive_hand, start_four_player, start_two_player
from spades_replay.errors import Code, Family, FormatError
from spades_replay.record import models
from spades_replay.record.io import loads
from spades_replay.record.problems import json_pointer
from spades_replay.replayer.convert import hand_actions_of, rules_of, variant_of
from spades_replay.replayer.validate import validate_bytes

from .conftest import CONFORMANCE, CONFORMANCE_1_1, FIXTURES

FOLDERS = [
    FIXTURES / "invalid",
    FIXTURES / "two-player",
    FIXTURES / "four-player",
    CONFORMANCE / "invalid",
    CONFORMANCE / "valid",
    CONFORMANCE_1_1 / "invalid",
    CONFORMANCE_1_1 / "valid",
]


def _well_formed(path: Path) -> bool:
    try:
        loads(path.read_bytes())
    except FormatError:
        return False
    return True


RECORDS = [
    path
    for folder in FOLDERS
    for path in sorted(folder.glob("*.json"))
    if path.name != "EXPECTED.json" and _well_formed(path)
]


def _driven(record: models.AnyRecord) -> tuple[Code, str] | None:
    """The first rules error of a record driven action by action, as a recorder would."""
    variant, rules = variant_of(record), rules_of(record.rules)
    progress = Progress(variant, rules, record.first_dealer)
    last = len(record.hands) - 1
    for index, hand in enumerate(record.hands):
        if progress.over:
            return Code.GAME_OVER, json_pointer(("hands", index))
        actions = hand_actions_of(hand)
        dealer = progress.dealer()
        try:
            if variant is Variant.TWO_PLAYER:
                assert actions.deck is not None
                check_deck(actions.deck)
                start = start_two_player(rules, dealer, actions.deck, progress.scores)
            else:
                assert actions.deal is not None
                start = start_four_player(rules, dealer, check_deal(actions.deal), progress.scores)
            state = start
            for _, state in drive_hand(start, actions):  # noqa: B007 (the last state is kept)
                pass
        except IllegalActionError as error:
            return error.code, json_pointer(("hands", index, *error.at))
        if state.phase is Phase.DONE:
            bids = tuple(bid for bid in state.bids if bid is not None)
            progress, _ = progress.after_hand(bids, state.tricks_won)
        elif index != last:
            return Code.HAND_UNFINISHED, json_pointer(("hands", index, "plays"))
    return None


def _replayed(path: Path) -> tuple[Code, str] | None:
    """The first rules error (claims aside) the validator finds."""
    report = validate_bytes(path.read_bytes())
    for problem in report.problems:
        if problem.code.family is Family.RULES and not problem.code.value.startswith("claim."):
            return problem.code, problem.pointer
    return None


def test_the_records_include_every_kind_of_rules_error() -> None:
    verdicts = {_replayed(path) for path in RECORDS}
    codes = {verdict[0] for verdict in verdicts if verdict is not None}
    assert {code for code in Code if code.family is Family.RULES and "claim" not in code} <= codes
    assert None in verdicts


@pytest.mark.parametrize("path", RECORDS, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_both_progressions_give_the_same_verdict(path: Path) -> None:
    assert _driven(loads(path.read_bytes())) == _replayed(path)

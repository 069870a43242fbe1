"""Wiring of the Validate page and of the Replay page's double-dummy table, in AppTest: the
records uploaded (or a store's invalid records) give the problems tables whose rows are the
validator's reports, the first problem of each the checked-in expectation of
fixtures/invalid; the card picked gives the table of every legal card with the tricks that
plain minimax over the engine's own states finds."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from streamlit.testing.v1 import AppTest

import spades_replay
from spades_replay.engine import state as engine
from spades_replay.engine.actions import PlayCard
from spades_replay.engine.cards import cards_of, parse_card
from spades_replay.replayer.validate import check_bytes
from spades_replay.store.ingest import ingest
from spades_replay.text import card_label

from .conftest import FIXTURES
from .support.apptest import ENTRY, open_app, run_app, tell
from .support.games import card_steps
from .support.solver import engine_tricks

pytestmark = pytest.mark.slow  # every test runs the app's pages

INVALID = FIXTURES / "invalid"
EXPECTED: dict[str, dict[str, str]] = json.loads((INVALID / "EXPECTED.json").read_text())
"""The first problem of each invalid fixture, checked in: code, pointer, place, message."""
COLUMNS = ["code", "place", "problem", "rule", "pointer"]


def _problems(data: bytes, name: str, line: int | None = None) -> list[list[str]]:
    """The validator's problems of one record, as the table's columns :data:`COLUMNS` show
    them; the first is the checked-in one when the record is an invalid fixture."""
    report, _ = check_bytes(data, name, line)
    rows = [
        [problem.code.value, problem.place, problem.message, problem.rule, problem.pointer]
        for problem in report.problems
    ]
    assert rows
    expected = EXPECTED.get(Path(name).name)
    if expected is not None and line is None:
        code, place, message, _, pointer = rows[0]
        assert (code, pointer, place, message) == (
            expected["code"],
            expected["pointer"],
            expected["place"],
            expected["message"],
        )
    return [[row[0], row[1], _as_shown(row[0], row[2]), *row[3:]] for row in rows]


CARD = re.compile(r"\b[2-9TJQKA][CDHS]\b")
"""A card as the engine writes one in a message."""


def _as_shown(code: str, message: str) -> str:
    """A message as the page shows it: the engine's cards (in the message of a rules
    problem) written as the dashboard writes cards; a format problem's text as it is."""
    if code.startswith(("format.", "io.")):
        return message
    return CARD.sub(lambda found: card_label(parse_card(found[0])), message)


def _shown(at: AppTest) -> list[Any]:
    """The problems tables shown, in order."""
    return [frame.value for frame in at.dataframe if "code" in frame.value.columns]


def _rows(frame: Any) -> list[list[str]]:
    return [list(row) for row in frame[COLUMNS].itertuples(index=False)]


def _upload(name: str) -> tuple[str, bytes, str]:
    return name, (INVALID / name).read_bytes(), "application/json"


def test_the_records_uploaded_give_the_validators_problems() -> None:
    at = open_app("validate")
    assert _shown(at) == []
    run_app(at.file_uploader(key="upload").set_value(_upload("bid-min-team-bid.json")))
    (table,) = _shown(at)
    data = (INVALID / "bid-min-team-bid.json").read_bytes()
    assert _rows(table) == _problems(data, "bid-min-team-bid.json")
    assert list(table["record"]) == ["bid-min-team-bid.json"]

    names = ["format-unknown-key.json", "play-spades-not-broken.json"]
    valid = (FIXTURES / "two-player" / "mercy.json").read_bytes()
    files = [_upload(name) for name in names] + [("mercy.json", valid, "application/json")]
    run_app(at.file_uploader(key="upload").set_value(files))
    tables = _shown(at)
    assert len(tables) == 2
    for table, name in zip(tables, names, strict=True):
        assert _rows(table) == _problems((INVALID / name).read_bytes(), name)
    assert len(tables[0]) == 2  # that record has two problems
    assert any(
        "mercy" in item.value and item.value.endswith(": 1 record(s), all valid.")
        for item in at.success
    )

    # a corpus: each invalid line's problems, named by its line
    lines = [valid, (INVALID / "claim-points.json").read_bytes(), valid]
    lines.append((INVALID / "bid-nil-not-allowed.json").read_bytes())
    corpus = b"\n".join(orjson.dumps(orjson.loads(line)) for line in lines) + b"\n"
    run_app(at.file_uploader(key="upload").set_value(("four.jsonl", corpus, "application/jsonl")))
    (table,) = _shown(at)
    expected = [
        row
        for number in (2, 4)
        for row in _problems(corpus.splitlines()[number - 1], "four.jsonl", number)
    ]
    assert _rows(table) == expected
    assert list(table["record"]) == ["four.jsonl:2", "four.jsonl:4"]


def test_a_stores_invalid_records_give_the_validators_problems(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = tmp_path / "store"
    ingest([INVALID], directory)
    monkeypatch.setattr(sys, "argv", [ENTRY, "--store", str(directory)])
    at = AppTest.from_file(ENTRY, default_timeout=120)
    at.switch_page("validate.py")
    at = run_app(at)
    (table,) = _shown(at)
    found: dict[str, list[list[str]]] = {}
    for record, row in zip(table["record"], _rows(table), strict=True):
        found.setdefault(Path(record).name, []).append(row)
    assert found == {
        name: _problems((INVALID / name).read_bytes(), name)
        for name in EXPECTED
        if (INVALID / name).is_file()
    }


GAME = FIXTURES / "two-player" / "standard-game.json"


def _values(replayed: spades_replay.Replay, number: int, step: int) -> dict[str, str]:
    """Every legal card before step ``step`` of hand ``number`` (a card played), with the
    final tricks of the mover's side if she plays it, both sides then playing perfectly:
    plain minimax over the engine's states."""
    before = replayed.hands[number - 1].timeline[step - 1].state
    mover = before.turn
    assert mover is not None
    variant = before.variant
    values = {}
    for card in cards_of(engine.legal_plays(before)):
        after = engine.apply(before, PlayCard(mover, card))
        won = sum(after.tricks_won[seat] for seat in variant.seats if variant.side_of(seat) == 0)
        side_0 = won + engine_tricks(after)
        values[card_label(card)] = str(side_0 if variant.side_of(mover) == 0 else 13 - side_0)
    return values


def test_the_card_picked_gives_the_minimax_values_of_every_legal_card() -> None:
    replayed = spades_replay.replay(spades_replay.load(GAME))
    game_id = replayed.game_id
    assert game_id is not None
    # the first page of a process loads the solver's compiled kernel: slow on a busy machine
    at = AppTest.from_file(ENTRY, default_timeout=120)
    at.query_params.update({"game": game_id, "hand": "1"})
    run_app(at)
    shown: list[dict[str, str]] = []
    # cards whose legal cards differ in value, played by either side, in two hands
    for number, card in ((1, 21), (1, 23), (7, 18)):
        step = card_steps(replayed.hands[number - 1])[card]
        tell(at, number, step)
        if not shown:  # the switch is there once a card is shown, and stays on
            run_app(at.toggle(key="alternatives").set_value(True))
        (table,) = [frame.value for frame in at.dataframe if "cost" in frame.value.columns]
        values = dict(zip(table["card"], table["tricks"], strict=True))
        assert values == _values(replayed, number, step)
        assert len(set(values.values())) > 1
        played = card_label(replayed.hands[number - 1].timeline[step].action.card)
        assert dict(zip(table["card"], table["note"], strict=True))[played].endswith("played")
        shown.append(values)
    assert shown[0] != shown[1] != shown[2]

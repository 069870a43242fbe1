"""The replay command's text, compared in full on a fixture (tests/expected/), and its trick
tables checked against the cards the record plays, counted apart: the highest spade takes a
trick, else the highest card of the suit led, and its player leads the next."""

from __future__ import annotations

import re

import orjson
import pytest

from spades_replay.cli import main

from .conftest import FIXTURES, ROOT

MERCY = FIXTURES / "two-player" / "mercy.json"
EXPECTED = ROOT / "tests" / "expected" / "replay-two-player-mercy.txt"
RANKS = "23456789TJQKA"
SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def _shown(card: str) -> str:
    return ("10" if card[0] == "T" else card[0]) + SUITS[card[1]]


def _winner(trick: list[str]) -> int:
    led = trick[0][1]
    trumps = [card for card in trick if card[1] == "S"]
    best = max(trumps or [c for c in trick if c[1] == led], key=lambda c: RANKS.index(c[0]))
    return trick.index(best)


def test_the_replay_text_of_a_fixture_in_full(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(MERCY)]) == 0
    out = capsys.readouterr().out
    assert out == EXPECTED.read_text(encoding="utf-8")


def test_every_trick_shown_is_the_record_s_cards_and_their_winner() -> None:
    record = orjson.loads(MERCY.read_bytes())
    names = [player["name"] for player in record["players"]]
    text = EXPECTED.read_text(encoding="utf-8")
    hands = re.split(r"^Hand \d+ ─+$", text, flags=re.MULTILINE)[1:]
    assert len(hands) == len(record["hands"])
    for shown, hand in zip(hands, record["hands"], strict=True):
        rows = re.findall(r"^ ?(\d+)  (\w+) +(.*?) {2,}(\w+) *$", shown, flags=re.MULTILINE)
        plays = hand["plays"]
        assert len(rows) == len(plays) // 2
        leader = rows[0][1]
        for number, (index, shown_leader, cards, winner) in enumerate(rows, start=1):
            trick = plays[2 * (number - 1) : 2 * number]
            seat = names.index(leader)
            order = [names[(seat + k) % 2] for k in range(2)]
            assert int(index) == number
            assert shown_leader == leader
            assert cards == "  ".join(
                f"{name} {_shown(card)}" for name, card in zip(order, trick, strict=True)
            )
            leader = order[_winner(trick)]
            assert winner == leader

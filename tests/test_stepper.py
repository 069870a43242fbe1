"""``replay --step``: the moves of the keys, the screen (every frame of a hand compared in full
on a fixture, and checked against the record's cards counted apart), and the real thing
through a pseudo-terminal (and its refusal without one)."""

from __future__ import annotations

import fcntl
import io
import os
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import orjson
import pytest
from rich.console import Console

import spades_replay
from spades_replay.cli.stepper import Stepper, frame
from spades_replay.engine.actions import Draw, PlayCard
from spades_replay.engine.cards import parse_card
from spades_replay.engine.state import drafted_cards
from spades_replay.text import card_label

from .conftest import FIXTURES, ROOT

FOUR = FIXTURES / "four-player" / "standard-game.json"


def _replay(path: Path = FOUR) -> spades_replay.Replay:
    return spades_replay.replay(spades_replay.load(path))


def test_the_keys_move_by_card_trick_and_hand() -> None:
    replay = _replay()
    stepper = Stepper(replay)
    hand = replay.hands[0]
    first_card = next(s.index for s in hand.timeline if isinstance(s.action, PlayCard))
    assert stepper.press("\x1b[C")
    assert stepper.step == 1
    assert stepper.press("h")
    assert stepper.press("h")
    assert stepper.step == 0
    stepper.press("j")
    assert stepper.step == first_card - 1  # the bids done, no card yet
    stepper.press("\x1b[B")
    assert stepper.step == first_card - 1 + 4  # the first trick complete
    assert len(hand.timeline[stepper.step].state.tricks) == 1
    stepper.press("k")
    assert stepper.step == first_card - 1
    for _ in range(100):
        stepper.press("j")
    assert stepper.step == stepper.last
    last = stepper.last
    stepper.press("l")  # past the end of a hand: the start of the next
    assert (stepper.hand, stepper.step) == (1, 0)
    stepper.press("h")  # before the start of a hand: the end of the previous one
    assert (stepper.hand, stepper.step) == (0, last)
    stepper.press("n")
    assert (stepper.hand, stepper.step) == (1, 0)
    stepper.press("p")
    stepper.press("p")
    assert (stepper.hand, stepper.step) == (0, 0)
    stepper.press("h")  # the first step of the game stays
    assert (stepper.hand, stepper.step) == (0, 0)
    assert stepper.press("x")  # unknown keys do nothing
    assert not stepper.press("q")


def _screen(stepper: Stepper) -> str:
    console = Console(width=120, color_system=None, record=True, file=io.StringIO())
    console.print(frame(stepper))
    return console.export_text()


def test_a_frame_shows_the_position() -> None:
    replay = _replay()
    stepper = Stepper(replay)
    text = _screen(stepper)
    assert "hand 1 of" in text
    assert "step 0 of" in text
    assert "Start: the cards are dealt" in text
    for player in replay.players:
        assert player.name in text
    stepper.press("j")
    stepper.press("j")
    text = _screen(stepper)
    trick = replay.hands[0].timeline[stepper.step].state.tricks[0]
    winner = replay.players[trick.winner].name
    assert "Trick 1:" in text
    assert f"won by {winner}" in text
    for _ in range(100):
        stepper.press("j")
    assert "Hand over:" in _screen(stepper)


def _read_until(fd: int, marker: bytes, seen: bytearray, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while marker not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"{marker!r} never shown; got {bytes(seen[-2000:])!r}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            assert chunk, f"the stepper ended before {marker!r}"
            seen.extend(chunk)


def test_stepping_through_a_pseudo_terminal() -> None:
    """The real command on a pty: keys move it, q quits with 0, the terminal is restored."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    before = termios.tcgetattr(slave)
    process = subprocess.Popen(
        [sys.executable, "-m", "spades_replay", "replay", str(FOUR), "--step"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env={**os.environ, "TERM": "xterm", "COLUMNS": "120", "LINES": "40"},
        start_new_session=True,
    )
    seen = bytearray()
    try:
        _read_until(master, b"step 0 of", seen)
        os.write(master, b"\x1b[C")
        _read_until(master, b"step 1 of", seen)
        os.write(master, b"j")
        os.write(master, b"j")
        _read_until(master, b"Trick 1:", seen)
        os.write(master, b"n")
        _read_until(master, b"hand 2 of", seen)
        os.write(master, b"q")
        assert process.wait(timeout=30) == 0
        assert termios.tcgetattr(slave) == before  # cbreak mode undone
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(slave)
        os.close(master)


def test_step_refuses_without_a_terminal() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "spades_replay", "replay", str(FOUR), "--step"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == b""
    assert b"--step is interactive and needs a terminal" in done.stderr


@pytest.mark.parametrize(
    ("extra", "message"),
    [(["--format", "json"], b"--format json prints the whole replay")],
)
def test_step_refuses_what_it_cannot_do(extra: list[str], message: bytes) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "spades_replay", "replay", str(FOUR), "--step", *extra],
        capture_output=True,
        check=False,
    )
    assert done.returncode == 2
    assert message in done.stderr


def test_every_kind_of_step_is_said_in_words() -> None:
    """Draft turns, Blind Nil, exchanges, bids and cards: no engine repr on the screen."""
    from spades_replay.engine.actions import Exchange

    for path in (
        FIXTURES / "two-player" / "blind-nil.json",
        FIXTURES / "four-player" / "blind-nil.json",
    ):
        replay = _replay(path)
        number = next(i for i, hand in enumerate(replay.hands) if hand.outcome.exchanges)
        stepper = Stepper(replay, number)
        kinds = set()
        for step in replay.hands[number].timeline:
            stepper.step = step.index
            line = _screen(stepper).splitlines()[1]
            kinds.add(type(step.action).__name__)
            assert "seat=" not in line
            assert "(" not in line or "Blind Nil" in line
            if isinstance(step.action, Exchange):
                assert "Blind Nil, puts away" in line or "exchanges no cards" in line
        assert {"Exchange", "PlaceBid", "PlayCard"} <= kinds


def test_one_card_notation_the_drawn_cards_and_a_footer_in_phrases() -> None:
    replay = _replay()
    stepper = Stepper(replay)
    stepper.step = next(s.index for s in replay.hands[0].timeline if isinstance(s.action, PlayCard))
    card = replay.hands[0].timeline[stepper.step].action
    assert isinstance(card, PlayCard)
    happened = _screen(stepper).splitlines()[1]
    assert happened.endswith(f"plays {card_label(card.card)}")
    console = Console(width=80, color_system=None, record=True, file=io.StringIO())
    console.print(frame(stepper, 80))
    footer = console.export_text().rstrip("\n").splitlines()[-2:]
    assert footer == [
        "→/l next card · ←/h previous · ↓/j next trick · ↑/k previous trick",
        "n/p next/previous hand · q quit",
    ]
    two = _replay(FIXTURES / "two-player" / "standard-game.json")
    stepper = Stepper(two)
    for step in two.hands[0].timeline[1:27]:
        assert isinstance(step.action, Draw)
        stepper.step = step.index
        kept, thrown = drafted_cards(two.hands[0].timeline[step.index - 1].state, step.state)
        happened = _screen(stepper).splitlines()[1]
        first, second = (kept, thrown) if step.action.keep else (thrown, kept)
        assert f"the top card, {card_label(first)}, and" in happened
        assert happened.endswith(f"the next, {card_label(second)}")


STEPPED = ROOT / "tests" / "expected" / "step-four-player-hand-1.txt"
"""Every frame of the first hand of the four-player sample, one after another (key l)."""
SHOWN_SUIT = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}
RANKS = "23456789TJQKA"


def _frames_of_the_first_hand() -> list[str]:
    stepper = Stepper(_replay())
    frames = [_screen(stepper)]
    while stepper.step < stepper.last:
        stepper.press("l")
        frames.append(_screen(stepper))
    return frames


def test_every_frame_of_a_hand_in_full() -> None:
    assert "\n".join(_frames_of_the_first_hand()) == STEPPED.read_text(encoding="utf-8")


def _card(shown: str) -> str:
    return ("T" if shown[:-1] == "10" else shown[:-1]) + SHOWN_SUIT[shown[-1]]


def test_every_frame_shown_is_the_record_s_cards_counted_apart() -> None:
    """Each frame's headline is the record's next card, played by the player the trick rule
    (highest spade, else highest of the suit led) makes next; each row shows what that seat
    was dealt, after the Blind Nil exchange, less what it has played; the tricks column counts
    the tricks won so far, and the last frame holds the record's bids and tricks."""
    record = orjson.loads(FOUR.read_bytes())
    names = [player["name"] for player in record["players"]]
    hand = record["hands"][0]
    held = [set(cards) for cards in hand["deal"]]
    for exchange in hand["exchanges"]:
        seat, partner = exchange["seat"], (exchange["seat"] + 2) % 4
        held[seat] = held[seat] - set(exchange["out"]) | set(exchange["in"])
        held[partner] = held[partner] - set(exchange["in"]) | set(exchange["out"])
    played: list[set[str]] = [set() for _ in names]
    won = [0] * 4
    leader = (record["first_dealer"] + 1) % 4
    trick: list[tuple[int, str]] = []
    plays = iter(hand["plays"])
    frames = _frames_of_the_first_hand()
    for text in frames:
        lines = text.splitlines()
        if ": plays " not in lines[1]:
            continue
        card = next(plays)
        seat = (leader + len(trick)) % 4
        assert lines[1] == f"{names[seat]}: plays {card_label(parse_card(card))}"
        trick.append((seat, card))
        played[seat].add(card)
        if len(trick) == 4:
            led = trick[0][1][1]
            best = max(
                trick,
                key=lambda play: (play[1][1] == "S", play[1][1] == led, RANKS.index(play[1][0])),
            )
            leader = best[0]
            won[leader] += 1
            trick = []
        rows = [line.split() for line in lines[3:7]]
        for row_seat, row in enumerate(rows):
            assert row[0] == str(row_seat)
            assert row[1] == names[row_seat]
            assert int(row[-1 - len(held[row_seat] - played[row_seat])]) == won[row_seat]
            shown = {
                _card(token) for token in row[len(row) - len(held[row_seat] - played[row_seat]) :]
            }
            assert shown == held[row_seat] - played[row_seat]
    assert next(plays, None) is None
    last = frames[-1].splitlines()
    assert won == hand["result"]["tricks"]
    bids = [" ".join(line.split()[2:-1]) for line in last[3:7]]
    assert bids == ["Blind Nil" if bid == "blind_nil" else str(bid) for bid in hand["bids"]]

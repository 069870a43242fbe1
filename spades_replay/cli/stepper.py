"""``replay --step``: step through a game in the terminal, card by card or trick by trick.

:class:`Stepper` is the position (hand and step of its timeline) and the moves the keys make;
:func:`frame` draws one position; :func:`run` reads keys from the terminal (with the
standard library's ``termios`` and ``tty``, in cbreak mode, restored on the way out) and
redraws until ``q``.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from spades_replay.cli.text import card_text, cards_text
from spades_replay.engine.actions import Draw, Exchange, PlayCard
from spades_replay.engine.scoring import bid_name
from spades_replay.engine.seats import Variant
from spades_replay.engine.state import Phase, drafted_cards
from spades_replay.replayer.replay import HandReplay, Replay, next_mark, previous_mark
from spades_replay.text import card_label, safe

KEYS: dict[str, str] = {
    "\x1b[C": "next",
    "l": "next",
    " ": "next",
    "\x1b[D": "previous",
    "h": "previous",
    "\x1b[B": "next trick",
    "j": "next trick",
    "\x1b[A": "previous trick",
    "k": "previous trick",
    "n": "next hand",
    "p": "previous hand",
    "q": "quit",
    "\x1b": "quit",
}
"""What each key does: arrows or h/j/k/l (and space) move, n/p change hand, q or Esc quits."""

HELP = (
    "→/l next card",
    "←/h previous",
    "↓/j next trick",
    "↑/k previous trick",
    "n/p next/previous hand",
    "q quit",
)
"""The keys, phrase by phrase: the footer wraps between phrases, never inside one."""

PHASES = {
    Phase.DRAFT: "draft",
    Phase.EXCHANGE: "Blind Nil exchange",
    Phase.BIDDING: "bidding",
    Phase.PLAY: "play",
    Phase.DONE: "hand over",
}


@dataclass
class Stepper:
    """Where the stepper stands in a replay: hand ``hand`` (0-based) at step ``step`` of its
    timeline (0: the deal, before any action)."""

    replay: Replay
    hand: int = 0
    step: int = 0

    @property
    def current(self) -> HandReplay:
        """The hand shown."""
        return self.replay.hands[self.hand]

    @property
    def last(self) -> int:
        """The last step of the hand shown."""
        return len(self.current.timeline) - 1

    def press(self, key: str) -> bool:
        """Make the move of ``key`` (unknown keys do nothing); ``False`` to quit."""
        move = KEYS.get(key)
        if move == "quit":
            return False
        if move == "next":
            if self.step < self.last:
                self.step += 1
            elif self.hand + 1 < len(self.replay.hands):  # on into the next hand
                self.hand, self.step = self.hand + 1, 0
        elif move == "previous":
            if self.step > 0:
                self.step -= 1
            elif self.hand > 0:  # back to the end of the previous hand
                self.hand -= 1
                self.step = self.last
        elif move == "next trick":
            self.step = next_mark(self.current.trick_marks, self.step, self.last)
        elif move == "previous trick":
            self.step = previous_mark(self.current.trick_marks, self.step)
        elif move == "next hand" and self.hand + 1 < len(self.replay.hands):
            self.hand, self.step = self.hand + 1, 0
        elif move == "previous hand" and self.hand > 0:
            self.hand, self.step = self.hand - 1, 0
        return True


def _name(replay: Replay, seat: int) -> str:
    return safe(replay.players[seat].name, 40)


def _happened(stepper: Stepper) -> Text:
    step = stepper.current.timeline[stepper.step]
    if step.action is None:
        if stepper.replay.variant is Variant.TWO_PLAYER:
            return Text("Start: the deck is shuffled, face down; the draft begins")
        return Text("Start: the cards are dealt")
    action = step.action
    who = Text(f"{_name(stepper.replay, action.seat)}: ")
    if isinstance(action, Exchange):
        source = "the pile" if stepper.replay.variant is Variant.TWO_PLAYER else "her partner"
        if not action.out:
            return who.append("Blind Nil, exchanges no cards")
        who.append("Blind Nil, puts away ")
        who.append(" ".join(card_label(card) for card in action.out))
        who.append(f" and takes from {source} ")
        return who.append(" ".join(card_label(card) for card in action.in_))
    if isinstance(action, PlayCard):
        return who.append("plays ").append_text(card_text(action.card))
    if isinstance(action, Draw):
        # every seat's cards are on the screen, so both cards of the turn may be said
        before = stepper.current.timeline[stepper.step - 1].state
        kept, thrown = drafted_cards(before, step.state)
        if action.keep:
            who.append("keeps the top card, ").append_text(card_text(kept))
            return who.append(", and discards the next, ").append_text(card_text(thrown))
        who.append("discards the top card, ").append_text(card_text(thrown))
        return who.append(", and keeps the next, ").append_text(card_text(kept))
    return who.append(str(action).replace(f"seat {action.seat} ", ""))


def help_lines(width: int) -> list[str]:
    """The keys' footer in lines of at most ``width`` characters, broken between phrases.

    >>> for line in help_lines(80):
    ...     print(line)
    →/l next card · ←/h previous · ↓/j next trick · ↑/k previous trick
    n/p next/previous hand · q quit
    """
    lines: list[str] = []
    for phrase in HELP:
        if lines and len(lines[-1]) + 3 + len(phrase) <= width:
            lines[-1] += " · " + phrase
        else:
            lines.append(phrase)
    return lines


def frame(stepper: Stepper, width: int = 80) -> RenderableType:
    """The screen of one position: where it is, what just happened, every seat's cards, bid
    and tricks, the trick on the table, and the keys (in lines of at most ``width``)."""
    replay, hand = stepper.replay, stepper.current
    state = hand.timeline[stepper.step].state
    title = Text(f"{safe(replay.game_id or 'game', 60)} · {replay.variant.value} · ", "bold")
    title.append(f"hand {hand.number} of {len(replay.hands)} · step {stepper.step} of ")
    title.append(f"{stepper.last} · {PHASES[state.phase]}")
    seats = Table(box=None, pad_edge=False)
    for column in ("seat", "player", "bid", "tricks", "cards"):
        seats.add_column(column)
    for seat, holding in enumerate(state.holdings):
        bid = state.bids[seat]
        seats.add_row(
            str(seat),
            _name(replay, seat),
            "-" if bid is None else bid_name(bid),
            str(state.tricks_won[seat]),
            cards_text(holding),
        )
    parts: list[RenderableType] = [title, _happened(stepper), seats]
    trick = state.trick
    leader = state.trick_leader
    shown = state.tricks[-1] if not trick and state.tricks else None
    if shown is not None:
        trick, leader = shown.cards, shown.leader
    if trick:
        line = Text(f"Trick {len(state.tricks) + (0 if shown else 1)}: ")
        for position, card in enumerate(trick):
            seat = (leader + position) % replay.variant.seat_count
            line.append(f"{_name(replay, seat)} ")
            line.append_text(card_text(card))
            line.append("  ")
        if shown is not None and shown.winner is not None:
            line.append(f"won by {_name(replay, shown.winner)}")
        parts.append(line)
    if state.phase is Phase.DONE and hand.scores is not None:
        parts.append(
            Text(
                "Hand over: "
                + ", ".join(
                    f"{safe(replay.side_name(side.side), 80)} {side.points:+d} (score {side.score})"
                    for side in hand.scores
                ),
                style="bold",
            )
        )
    parts.extend(Text(line, style="dim", no_wrap=True) for line in help_lines(width))
    return Group(*parts)


def keys_of(data: str) -> list[str]:
    r"""The key presses in what one read gave: arrows' escape sequences kept whole.

    >>> keys_of("jj\x1b[Cq\x1b")
    ['j', 'j', '\x1b[C', 'q', '\x1b']
    """
    keys = []
    index = 0
    while index < len(data):
        if data.startswith("\x1b[", index) and index + 2 < len(data):
            keys.append(data[index : index + 3])
            index += 3
        else:
            keys.append(data[index])
            index += 1
    return keys


def _read_keys(fd: int) -> list[str]:
    """The key presses waiting on the terminal (``q`` when it went away)."""
    data = os.read(fd, 64)
    return keys_of(data.decode("utf-8", "replace")) if data else ["q"]


def run(replay: Replay, console: Console, hand: int = 0) -> None:
    """Step through ``replay`` from hand ``hand`` (0-based) until the user quits. The
    caller checks that standard input and output are a terminal."""
    import termios
    import tty

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    stepper = Stepper(replay, hand)
    try:
        tty.setcbreak(fd)
        with console.screen(hide_cursor=True):
            while True:
                console.clear()
                console.print(frame(stepper, console.width))
                for key in _read_keys(fd):
                    if not stepper.press(key):
                        return
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)

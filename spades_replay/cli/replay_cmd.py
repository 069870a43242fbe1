"""``spades-replay replay FILE``: a game in the terminal, hand by hand and trick by trick."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from typing import Any

from rich.console import Console, Group
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from spades_replay.cli import stepper
from spades_replay.cli.common import (
    EXIT_INVALID,
    EXIT_OK,
    UsageError,
    add_game_arguments,
    load_game,
    pick_hands,
    stdout_console,
)
from spades_replay.cli.text import card_text, cards_text
from spades_replay.engine.bidding import bidding_order
from spades_replay.engine.rules import Rules
from spades_replay.engine.scoring import BLIND_NIL, bid_name
from spades_replay.engine.seats import Variant
from spades_replay.plumbing.corpus import STDIN
from spades_replay.replayer.replay import HandReplay, Replay
from spades_replay.text import option_value, safe, score_line, score_sheet


def register(commands: Any) -> None:
    """Add the command to the parser."""
    parser = commands.add_parser(
        "replay",
        description=(
            "Replay one game in the terminal: each seat's cards, the draft or deal, Blind Nil "
            "exchanges, bids, every trick with its leader and winner, the score table after "
            "each hand and the result. An invalid record is reported instead (exit 1)."
        ),
        epilog="Exit codes: 0 shown, 1 the record is invalid, 2 usage or I/O error.",
    )
    add_game_arguments(
        parser,
        hand_help="show only hand N (1-based); with --step, start at hand N",
        json_help="the replay as JSON (identical bytes every run)",
    )
    parser.add_argument(
        "--step",
        action="store_true",
        help="step through the game interactively in the terminal: arrows (or h/j/k/l) for "
        "the next or previous card and trick, n/p for the next or previous hand, q to quit",
    )
    parser.set_defaults(run=run)


def _player(replay: Replay, seat: int) -> str:
    return f"{safe(replay.players[seat].name, 60)} (seat {seat})"


def _header(replay: Replay) -> Text:
    text = Text()
    if replay.game_id:
        text.append(f"Game {safe(replay.game_id)}", style="bold")
        text.append(" · ")
    text.append(replay.variant.value)
    text.append(" · ")
    if replay.variant is Variant.TWO_PLAYER:
        text.append(f"{_player(replay, 0)} vs {_player(replay, 1)}")
    else:
        text.append(f"{replay.side_name(0)} (team 0) vs {replay.side_name(1)} (team 1)")
    standard = Rules()
    changed = " ".join(
        f"{name}={option_value(value)}"
        for name, value in replay.rules.as_dict().items()
        if value != getattr(standard, name)
    )
    text.append(f"\nrules: {changed or 'standard'} (target {replay.rules.target_score})")
    return text


def _holdings_table(replay: Replay, title: str, masks: tuple[int, ...]) -> Table:
    table = Table(title=title, title_justify="left", show_header=False, box=None, pad_edge=False)
    table.add_column("seat", style="bold", no_wrap=True)
    table.add_column("cards")
    for seat, mask in enumerate(masks):
        table.add_row(_player(replay, seat), cards_text(mask))
    return table


def _bids(replay: Replay, hand: HandReplay) -> Text:
    text = Text("Bids: ", style="bold")
    order = bidding_order(replay.variant, hand.outcome.dealer)
    for index, seat in enumerate(order):
        if index:
            text.append(" · ")
        bid = hand.outcome.bids[seat]
        text.append(f"{safe(replay.players[seat].name, 60)} ")
        text.append(bid_name(bid), style="bold magenta" if bid <= 0 else "bold")
    return text


def _exchanges(replay: Replay, hand: HandReplay) -> list[Text]:
    lines = []
    blind_seats = [seat for seat, bid in enumerate(hand.outcome.bids) if bid == BLIND_NIL]
    exchanged = {exchange.seat for exchange in hand.outcome.exchanges}
    for exchange in hand.outcome.exchanges:
        line = Text(f"Exchange: {_player(replay, exchange.seat)}, Blind Nil, ")
        if not exchange.out:
            line.append("exchanged no cards")
        else:
            source = "from the pile" if replay.variant is Variant.TWO_PLAYER else "from partner"
            line.append("put away ")
            for card in exchange.out:
                line.append_text(card_text(card))
                line.append(" ")
            line.append(f"and took {source} ")
            for card in exchange.in_:
                line.append_text(card_text(card))
                line.append(" ")
        lines.append(line)
    for seat in blind_seats:
        if seat not in exchanged:
            partner = replay.variant.partner(seat)
            reason = (
                "both partners bid Blind Nil: no exchange"
                if partner is not None and hand.outcome.bids[partner] == BLIND_NIL
                else "exchanged no cards"
            )
            lines.append(Text(f"Exchange: {_player(replay, seat)}, Blind Nil, {reason}"))
    return lines


def _tricks_table(replay: Replay, hand: HandReplay) -> Table:
    table = Table(title="Tricks", title_justify="left", box=None, pad_edge=False)
    table.add_column("#", justify="right")
    table.add_column("leader")
    table.add_column("cards in play order")
    table.add_column("winner")
    for trick in hand.outcome.play.tricks:
        cards = Text()
        for position, card in enumerate(trick.cards):
            if position:
                cards.append("  ")
            cards.append(f"{safe(replay.players[trick.seat_of(position)].name, 20)} ")
            cards.append_text(card_text(card))
        winner = safe(replay.players[trick.winner].name, 40) if trick.winner is not None else "…"
        table.add_row(str(trick.number), safe(replay.players[trick.leader].name, 40), cards, winner)
    return table


def _score_table(replay: Replay, hand: HandReplay) -> Table:
    table = Table(title="Score", title_justify="left", box=None, pad_edge=False)
    table.add_column("")
    for side in (0, 1):
        table.add_column(safe(replay.side_name(side), 60), justify="right")
    scores = hand.scores
    assert scores is not None
    for label, first, second in score_sheet(scores):
        table.add_row(label, first, second)
    return table


def render_hand(replay: Replay, hand: HandReplay) -> Group:
    """One hand, as the terminal shows it."""
    outcome = hand.outcome
    parts: list[Any] = [Rule(f"Hand {hand.number}", align="left")]
    first = bidding_order(replay.variant, outcome.dealer)[0]
    # the holder of 2C leads under first_lead two_of_clubs, whoever bids first
    turns = (
        f"{_player(replay, first)} bids first and leads"
        if first == outcome.leader
        else f"{_player(replay, first)} bids first, {_player(replay, outcome.leader)} leads"
    )
    if replay.variant is Variant.TWO_PLAYER:
        parts.append(Text(f"First player {_player(replay, outcome.dealer)}; {turns}"))
        parts.append(_holdings_table(replay, "Cards kept in the draft", outcome.dealt))
    else:
        parts.append(Text(f"Dealer {_player(replay, outcome.dealer)}; {turns}"))
        parts.append(_holdings_table(replay, "Cards dealt", outcome.dealt))
    # in the order they happen: two-player Blind Nil exchanges follow the draft and come
    # before the bids; four-player ones follow the bidding
    exchanges: list[Any] = list(_exchanges(replay, hand))
    if outcome.exchanges:
        exchanges.append(_holdings_table(replay, "Cards after the exchange", outcome.holdings))
    if replay.variant is Variant.TWO_PLAYER:
        parts.extend([*exchanges, _bids(replay, hand)])
    else:
        parts.extend([_bids(replay, hand), *exchanges])
    parts.append(_tricks_table(replay, hand))
    if hand.scores is not None:
        parts.append(_score_table(replay, hand))
    else:
        cards = len(hand.actions.plays)
        parts.append(
            Text(f"The record stops here, after {cards} card(s) of this hand.", style="yellow")
        )
    if outcome.end is not None and outcome.winner is not None:
        reason = "reached the target" if outcome.end == "target" else "won on the mercy rule"
        parts.append(
            Text(f"{safe(replay.side_name(outcome.winner), 120)} {reason}.", style="bold green")
        )
    return Group(*parts)


def _result(replay: Replay) -> Text:
    result = replay.result
    scores = score_line(result.scores, result.winner)
    if result.complete and result.winner is not None:
        return Text(
            f"Result: {safe(replay.side_name(result.winner), 120)} won {scores} "
            f"after {result.hands} hand(s) ({result.reason}).",
            style="bold green",
        )
    return Text(
        f"Result: unfinished after {result.hands} complete hand(s); scores {scores}.",
        style="bold yellow",
    )


def show(console: Console, replay: Replay, hand_number: int | None) -> None:
    """Print a replay, or only one of its hands (a usage error, before any output, if there
    is no such hand)."""
    hands = pick_hands(replay, hand_number)
    console.print(_header(replay))
    for hand in hands:
        console.print(render_hand(replay, hand))
    console.print(_result(replay))


def _check_terminal(arguments: argparse.Namespace) -> None:
    """``--step`` needs a terminal to read keys from and draw on."""
    if arguments.format == "json":
        raise UsageError("--step is interactive; --format json prints the whole replay")
    if arguments.file == STDIN:
        raise UsageError("--step reads keys from the terminal: give the record as a file, not -")
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError(
            "--step is interactive and needs a terminal for input and output; without --step, "
            "replay prints the whole game"
        )
    if importlib.util.find_spec("termios") is None:
        raise UsageError("--step needs a terminal with termios (Linux, macOS or WSL)")


def run(arguments: argparse.Namespace) -> int:
    """Replay one record and show it (or step through it, with ``--step``)."""
    if arguments.step:
        _check_terminal(arguments)
    console = stdout_console()
    replayed = load_game(arguments.file, arguments.game, console)
    if replayed is None:
        return EXIT_INVALID
    pick_hands(replayed, arguments.hand)  # no such hand: a usage error before any output
    if arguments.step:
        if not replayed.hands:
            raise UsageError("the game has no hand to step through")
        stepper.run(replayed, console, (arguments.hand or 1) - 1)
        return EXIT_OK
    if arguments.format == "json":
        sys.stdout.buffer.write(replayed.to_json(indent=True, hand=arguments.hand) + b"\n")
        sys.stdout.buffer.flush()
        return EXIT_OK
    show(console, replayed, arguments.hand)
    return EXIT_OK

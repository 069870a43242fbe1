"""How every table of the dashboard heads and formats its columns: one place, so that a
column reads the same on every page (docs/stats.md names the columns themselves).

Headers are for people (``Bags per hand``, never ``bags_per_hand``); rates are percentages
with one decimal (``57.3%``), drawn as bars from 0 to 100 %; each header has a line of help
where the name is not enough. A player's id is a link that opens her page (in a new tab).
The parts of a side's points take their labels from ``SCORE_PARTS``
(:mod:`spades_replay.engine.scoring`), where the score's parts are listed once.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import polars as pl
import streamlit as st

from spades_replay.engine.scoring import POINTS_PARTS
from spades_replay.text import safe

PERCENT_STEP = 0.001
"""The step of a rate (0 to 1) in a table: a percentage with one decimal (Streamlit writes
a percentage with two decimals fewer than its step has)."""


def _rate(header: str, tip: str | None = None) -> Any:
    """A rate: a bar from 0 to 100 %, written as a percentage with one decimal."""
    return st.column_config.ProgressColumn(
        header, format="percent", min_value=0.0, max_value=1.0, step=PERCENT_STEP, help=tip
    )


def _percent(header: str, tip: str) -> Any:
    """A rate without a bar, written as a percentage with one decimal."""
    return st.column_config.NumberColumn(header, help=tip, format="percent", step=PERCENT_STEP)


def _number(header: str, tip: str | None = None, shown: str | None = None) -> Any:
    return st.column_config.NumberColumn(header, help=tip, format=shown)


def _text(header: str, tip: str | None = None) -> Any:
    return st.column_config.TextColumn(header, help=tip)


PER_HAND = "%.2f"
SIDE_HAND = "a side's hand: one side's result in one hand (a hand has two)"

COLUMNS: dict[str, Any] = {
    "rank": _number("#", "by rating"),
    "player": _text("Player"),
    "player_key": st.column_config.LinkColumn(
        "Id",
        help="the record's player id, else her name: opens her page",
        display_text=r"player\?player=(.*)$",
    ),
    "variant": _text("Variant"),
    "rules": _text("Rules", "the rule set: its short label, spelled out under the table"),
    "game_id": _text("Game"),
    "hand": _number("Hand"),
    "side": _number("Side", "side 0 holds seat 0 (and 2), side 1 seat 1 (and 3)"),
    "players": _text("Players"),
    "games": _number("Games"),
    "complete_games": _number("Finished", "games with a winner"),
    "complete": _number("Finished", "games with a winner"),
    "finished": _number("Finished", "games with a winner"),
    "mercy_endings": _number("Mercy endings", "games ended by a side falling to the lose score"),
    "wins": _number("Wins"),
    "win_rate": _rate("Win rate", "wins / finished games"),
    "win_low": _percent("Win rate, 95 % low", "Wilson interval: the rate is very likely above"),
    "win_high": _percent("Win rate, 95 % high", "Wilson interval: the rate is very likely below"),
    "rating": _number("Rating", "mu - 3 sigma: a skill she very likely has at least", "%.2f"),
    "mu": _number("Skill (mu)", "the skill believed", "%.2f"),
    "sigma": _number("Uncertainty (sigma)", "how unsure the skill is", "%.2f"),
    "hands": _number("Hands", "complete hands"),
    "hands_per_game": _number("Hands per game", shown=PER_HAND),
    "points_per_hand": _number("Points per hand", "her side's points, per hand", PER_HAND),
    "points_per_side_hand": _number("Points per side and hand", SIDE_HAND, PER_HAND),
    "bids": _number("Number bids", "bids of a number of tricks (not Nil)"),
    "contracts": _number("Contracts", "sides' hands with a contract (a number bid)"),
    "exact": _number("Exact", "number bids made with no bag"),
    "over": _number("Over", "number bids made with bags"),
    "set": _number("Set", "number bids whose side missed its contract"),
    "sets": _number("Sets", "contracts missed"),
    "exact_rate": _rate("Exact bids", "made with no bag: a share of her number bids"),
    "over_rate": _rate("Over", "made with bags: a share of her number bids"),
    "set_rate": _rate("Set", "her side missed its contract: a share of the bids"),
    "bags_per_hand": _number("Bags per hand", "bags her side took, per hand", PER_HAND),
    "bags_per_side_hand": _number("Bags per side and hand", SIDE_HAND, PER_HAND),
    "bag_penalties": _number("Bag penalties", "times a side's bags reached the bag limit"),
    "bag_penalties_per_game": _number("Bag penalties per game", shown=PER_HAND),
    "nil_attempts": _number("Nil bids"),
    "nil_made": _number("Nil made"),
    "nil_rate": _rate("Nil success", "Nil bids made: no trick taken"),
    "blind_nil_attempts": _number("Blind Nil bids"),
    "blind_nil_made": _number("Blind Nil made"),
    "blind_nil_rate": _rate("Blind Nil success", "Blind Nil bids made: no trick taken"),
    "analysed_hands": _number("Hands analysed", "double dummy"),
    "capped_hands": _number("Capped hands", "stopped by the time cap: counted apart"),
    "costly_plays": _number("Costly cards", "cards that cost her side tricks, double dummy"),
    "tricks_lost": _number("Tricks lost", "by her misplays, double dummy"),
    "tricks_lost_per_hand": _number(
        "Tricks lost per hand", "double dummy, by her misplays", PER_HAND
    ),
    "partner": _text("Partner"),
    "opponent": _text("Opponent"),
    "kind": _text("Bid"),
    "made": st.column_config.CheckboxColumn("Made"),
    "contract": _number("Contract", "the side's number bids added up"),
    "tricks": _number("Tricks"),
    "score": _number("Score", "after the hand"),
    "bags": _number("Bag count", "after the hand, penalties taken off"),
    "wins_before": _number("Wins as played"),
    "win_rate_before": _rate("Win rate as played"),
    "wins_after": _number("Wins rescored"),
    "win_rate_after": _rate("Win rate rescored"),
    **{part.column: _number(f"{part.label.capitalize()} (points)") for part in POINTS_PARTS},
    "part": _text("Part", "a part of a side's points over the game"),
    "as_played": _text("As played"),
    "rescored": _text("Rescored"),
    "record": _text("Record", "the file, and the line of a corpus"),
    "code": _text("Code", "the error code (docs/errors.md lists them)"),
    "place": _text("Place", "where in the game, in the game's words"),
    "problem": _text("Problem"),
    "rule": _text("Rule", "the rule broken"),
    "legal": _text("Legal", "what the rules allowed there"),
    "pointer": _text("Pointer", "a JSON Pointer into the record"),
}
"""Every column the dashboard's tables show, by its name in the stats tables and metrics."""


def player_link(key: str) -> str:
    """The address of ``key``'s page, relative to the page shown: the Player page with her
    key in the address (``player?player=KEY``, the key percent-encoded)."""
    return "player?player=" + quote(key, safe="")


def linked(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` as a table shows it: a player's id (``player_key``) as her page's address."""
    if "player_key" not in frame.columns:
        return frame
    return frame.with_columns(pl.col("player_key").map_elements(player_link, pl.String))


def configured(frame: pl.DataFrame) -> dict[str, Any]:
    """The column configuration of ``frame``'s columns (those it has)."""
    return {name: COLUMNS[name] for name in frame.columns if name in COLUMNS}


def table(frame: pl.DataFrame, key: str, place: Any = None) -> None:
    """Show ``frame`` as a table with its columns configured, no index, as wide as its place
    (``place``: a column, say; the page when ``None``); its text as the select boxes show
    it, control and format characters escaped (a name's right-to-left override too)."""
    where = st if place is None else place
    shown = linked(escaped(frame))
    where.dataframe(shown, hide_index=True, column_config=configured(frame), key=key)


def escaped(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with every text cell that holds a character :func:`safe` escapes escaped
    (the others, nearly all, as they are).

    >>> escaped(pl.DataFrame({"player": ["Ann", "Eve\u202eliar"], "n": [1, 2]})).rows()
    [('Ann', 1), ('Eve\\\\u202eliar', 2)]
    """
    texts = [name for name, dtype in frame.schema.items() if dtype == pl.String]
    return frame.with_columns(
        pl.col(name).map_elements(lambda text: safe(text, len(text)), return_dtype=pl.String)
        for name in texts
        if frame.get_column(name).str.contains(r"[\p{C}\p{Zl}\p{Zp}]").any()
    )

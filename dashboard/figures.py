"""Every chart of the dashboard: pure functions from a stats table to a plotly figure.

No Streamlit here: each function takes polars frames with the columns of docs/stats.md (the
tables, or the metrics computed from them) and returns a ``plotly.graph_objects.Figure``, so
the tests read the figure's data directly. Each figure has a fixed number of traces whatever
the data, so that a browser test can count them. Names from records reach plotly escaped
(:func:`.markup.plot_text`).
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go  # type: ignore[import-untyped]
import polars as pl
from plotly.subplots import make_subplots  # type: ignore[import-untyped]

from spades_replay.engine.scoring import POINTS_PARTS
from spades_replay.replayer.rescore import Rescore
from spades_replay.stats.tables import Frame, short_rules_label

from .markup import plot_text

SIDE_COLOURS = ("#1f5fa8", "#c2452d")
"""Side 0 blue, side 1 red, in every game chart."""

PART_COLOURS = ("#4c78a8", "#f2b134", "#54a24b", "#b82e2e")
"""A colour for each part of a hand's points, in order (the total is a marker)."""
PARTS = tuple(
    (part.label, part.column, colour)
    for part, colour in zip(POINTS_PARTS[:-1], PART_COLOURS, strict=True)
)
"""The parts of a hand's points (docs/stats.md ``side_hands``): label, column, colour."""

LEGEND: dict[str, Any] = {
    "orientation": "h",
    "yref": "container",
    "yanchor": "bottom",
    "y": 0,
    "x": 0,
    "xanchor": "left",
}
"""Every legend sits at the foot of its figure, under the axis title: however many rows its
entries take, it grows away from the title at the top, never into it."""
_LAYOUT: dict[str, Any] = {
    "template": "plotly_white",
    "title": {"x": 0, "xanchor": "left"},
    "margin": {"l": 50, "r": 30, "t": 50, "b": 100},
    "legend": LEGEND,
    "hovermode": "x unified",
}
RATE_AXIS: dict[str, Any] = {"tickformat": ".0%", "range": [0, 1]}
"""The axis of a rate: 0 to 100 %."""


def _titled(figure: go.Figure, title: str, **layout: Any) -> None:
    """Lay out ``figure`` with the house layout, its ``title`` at the top left."""
    figure.update_layout(_LAYOUT, **layout)
    figure.update_layout(title={"text": title})


def _side(side_hands: pl.DataFrame, side: int) -> pl.DataFrame:
    return side_hands.filter(pl.col("side") == side).sort("hand")


def _side_name(side_hands: pl.DataFrame, side: int) -> str:
    rows = _side(side_hands, side)
    names = plot_text(rows.item(0, "players")) if rows.height else "no hands"
    return f"{names} (side {side})"


def _running(side_hands: pl.DataFrame, column: str, line: dict[str, str]) -> go.Figure:
    """A figure with one line per side: ``column`` after every hand, from 0 before hand 1."""
    figure = go.Figure()
    for side in (0, 1):
        rows = _side(side_hands, side)
        figure.add_trace(
            go.Scatter(
                x=[0, *rows.get_column("hand")],
                y=[0, *rows.get_column(column)],
                mode="lines+markers",
                name=_side_name(side_hands, side),
                line={"color": SIDE_COLOURS[side], **line},
            )
        )
    return figure


def running_scores(
    side_hands: pl.DataFrame, target: int, lose: int | None = None, marked: int | None = None
) -> go.Figure:
    """Each side's running score by hand (from 0 before hand 1), with the target line (and
    the mercy line when the rules have one), and a line at hand ``marked`` when given.
    ``side_hands``: the rows of one game."""
    figure = _running(side_hands, "score", {})
    figure.add_hline(
        y=target,
        line={"dash": "dash", "color": "#333"},
        annotation_text=f"target {target}",
        annotation_position="top left",
    )
    if lose is not None:
        figure.add_hline(
            y=lose,
            line={"dash": "dot", "color": "#b82e2e"},
            annotation_text=f"mercy {lose}",
            annotation_position="bottom left",
        )
    if marked is not None:
        figure.add_vline(
            x=marked,
            line={"color": "#999", "width": 1},
            annotation_text=f"hand {marked}",
            annotation_position="top right",
        )
    _titled(figure, "Running score", xaxis_title="hand", yaxis_title="score")
    figure.update_xaxes(dtick=1)
    return figure


def bags_by_hand(side_hands: pl.DataFrame, bag_limit: int) -> go.Figure:
    """Each side's bag count after every hand (penalties taken off), the bag limit, and one
    marker for every bag penalty, at the hand it was paid, labelled with its points."""
    figure = _running(side_hands, "bags", {"shape": "hv"})
    paid = side_hands.filter(pl.col("bag_penalties") > 0).sort("hand", "side")
    figure.add_trace(
        go.Scatter(
            x=paid.get_column("hand").to_list(),
            y=paid.get_column("bags").to_list(),
            mode="markers+text",
            name="bag penalty",
            text=[f"{points:+d}" for points in paid.get_column("penalty_points")],
            textposition="top center",
            marker={
                "symbol": "x",
                "size": 13,
                "color": [SIDE_COLOURS[side] for side in paid.get_column("side")],
                "line": {"width": 1, "color": "#000"},
            },
        )
    )
    figure.add_hline(
        y=bag_limit,
        line={"dash": "dot", "color": "#b82e2e"},
        annotation_text=f"bag limit {bag_limit}",
        annotation_position="top left",
    )
    _titled(figure, "Bags", xaxis_title="hand", yaxis_title="bag count")
    figure.update_xaxes(dtick=1)
    return figure


def points_by_part(side_hands: pl.DataFrame) -> go.Figure:
    """Each hand's points of each side (one panel per side, one above the other), split into
    contract, bags, Nil and penalties, with the hand's total as a marker."""
    titles = [_side_name(side_hands, side) for side in (0, 1)]
    figure = make_subplots(
        rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.12, subplot_titles=titles
    )
    for side in (0, 1):
        rows = _side(side_hands, side)
        hands = rows.get_column("hand").to_list()
        for label, column, colour in PARTS:
            figure.add_trace(
                go.Bar(
                    x=hands,
                    y=rows.get_column(column).to_list(),
                    name=label,
                    legendgroup=label,
                    showlegend=side == 0,
                    marker_color=colour,
                ),
                row=side + 1,
                col=1,
            )
        figure.add_trace(
            go.Scatter(
                x=hands,
                y=rows.get_column("points").to_list(),
                mode="markers",
                name="hand total",
                legendgroup="total",
                showlegend=side == 0,
                marker={"symbol": "diamond", "size": 9, "color": "#000"},
            ),
            row=side + 1,
            col=1,
        )
    _titled(figure, "Points by hand", barmode="relative", height=600)
    figure.update_layout(margin={"t": 90})
    figure.update_xaxes(dtick=1)
    figure.update_xaxes(title_text="hand", row=2, col=1)
    figure.update_yaxes(title_text="points")
    return figure


def player_labels(players: pl.DataFrame) -> list[str]:
    """One distinct label per row of the player metrics: the name, then the variant and
    rules when the frame mixes them, then the key when names still collide."""
    rows = players.select("player", "player_key", "variant", "rules").rows()
    labels = [name for name, _, _, _ in rows]
    if len(set(labels)) < len(labels):
        mixed = len({(variant, rules) for _, _, variant, rules in rows}) > 1
        if mixed:
            labels = [
                f"{name} · {variant} · {short_rules_label(rules)}"
                for name, _, variant, rules in rows
            ]
    if len(set(labels)) < len(labels):
        labels = [f"{label} ({key})" for label, (_, key, _, _) in zip(labels, rows, strict=True)]
    return [plot_text(label, 70) for label in labels]


def _player_layout(
    figure: go.Figure, players: pl.DataFrame, heading: str, bars: int = 1, **axis: Any
) -> None:
    """Lay out a per-player chart: one row of ``bars`` bars per player, top to bottom in the
    table's order, as tall as the players need (labels can be long: name, variant, rules)."""
    _titled(
        figure,
        heading,
        height=max(320, 120 + 24 * bars * players.height),
        hovermode="closest",
        xaxis=axis,
        yaxis={"autorange": "reversed", "automargin": True},
    )


SHORT_BAR = 0.25
"""A rate bar shorter than this share of the axis has its label beside it, not inside."""


def _rate_bar(
    players: pl.DataFrame, rate: str, made: str, tried: str, name: str, colour: str
) -> go.Bar:
    rates = [value if value is not None else 0 for value in players.get_column(rate).to_list()]
    return go.Bar(
        y=player_labels(players),
        x=rates,
        orientation="h",
        name=name,
        marker_color=colour,
        text=[
            f"{done}/{total}" if total else "-"
            for done, total in zip(players.get_column(made), players.get_column(tried), strict=True)
        ],
        # a short bar's label goes beside it: inside one of no width Plotly draws none
        textposition=["inside" if value >= SHORT_BAR else "outside" for value in rates],
        insidetextanchor="end",
        cliponaxis=False,
        hovertemplate="%{y}<br>%{x:.0%} (%{text})<extra>" + name + "</extra>",
    )


def nil_success(players: pl.DataFrame) -> go.Figure:
    """Nil and Blind Nil success rate per player (player metrics), each bar labelled with
    made/attempts; a player with no attempt has an empty bar marked "-". 0 to 100 %."""
    figure = go.Figure(
        [
            _rate_bar(players, "nil_rate", "nil_made", "nil_attempts", "Nil", "#54a24b"),
            _rate_bar(
                players,
                "blind_nil_rate",
                "blind_nil_made",
                "blind_nil_attempts",
                "Blind Nil",
                "#2d6a27",
            ),
        ]
    )
    figure.update_layout(barmode="group")
    _player_layout(
        figure, players, "Nil and Blind Nil success", bars=2, title="bids made", **RATE_AXIS
    )
    return figure


def bid_accuracy(players: pl.DataFrame) -> go.Figure:
    """How each player's number bids went: exact, over (made with bags) or set, as shares
    of her bids, stacked to 100%, each part labelled with its count."""
    labels = player_labels(players)
    figure = go.Figure()
    for name, column, colour in (
        ("exact", "exact", "#4c78a8"),
        ("over", "over", "#f2b134"),
        ("set", "set", "#b82e2e"),
    ):
        rates = players.get_column(f"{column}_rate").to_list()
        figure.add_trace(
            go.Bar(
                y=labels,
                x=[value if value is not None else 0 for value in rates],
                orientation="h",
                name=name,
                marker_color=colour,
                text=[str(count) for count in players.get_column(column)],
                textposition="inside",
                hovertemplate="%{y}<br>%{x:.0%} (%{text} bids)<extra>" + name + "</extra>",
            )
        )
    figure.update_layout(barmode="stack", legend_traceorder="normal")
    _player_layout(figure, players, "Bid accuracy", title="share of her number bids", **RATE_AXIS)
    return figure


def bags_per_hand(players: pl.DataFrame) -> go.Figure:
    """The bags her side took per hand, on average, for each player."""
    values = players.get_column("bags_per_hand").to_list()
    top = max((value for value in values if value is not None), default=0.0)
    figure = go.Figure(
        go.Bar(
            y=player_labels(players),
            x=values,
            orientation="h",
            name="bags per hand",
            marker_color="#f2b134",
            text=[f"{value:.2f}" for value in values],
            textposition="outside",
            cliponaxis=False,
        )
    )
    _player_layout(
        figure,
        players,
        "Bags per hand",
        title="bags her side took, per hand",
        range=[0, max(top, 0.5) * 1.2],  # room for the labels beside the longest bar
    )
    return figure


def win_rates(players: pl.DataFrame) -> go.Figure:
    """Each player's share of her complete games won, labelled wins/complete games."""
    figure = go.Figure(
        _rate_bar(players, "win_rate", "wins", "complete_games", "win rate", "#4c78a8")
    )
    _player_layout(figure, players, "Win rate", title="finished games won", **RATE_AXIS)
    return figure


def _tally(counts: pl.DataFrame, panel: str) -> dict[str, Any]:
    """A histogram's ``x``, ``y`` and ``histfunc`` for one panel of ``counts`` (see
    :func:`final_score_counts`): its distinct values and how often each occurs, summed into
    the bins. The browser bins a few hundred values instead of millions (a corpus's hand
    points), and the figure stays small on the wire."""
    rows = counts.filter(pl.col("panel") == panel).sort("value")
    return {
        "x": rows.get_column("value").shrink_dtype().to_numpy(),
        "y": rows.get_column("occurrences").shrink_dtype().to_numpy(),
        "histfunc": "sum",
    }


def _bins(counts: pl.DataFrame) -> dict[str, float]:
    """One set of bins for every panel: from the least value to the greatest of them all, in
    about 25 bins of a whole width, so that the panels' bars line up."""
    values = counts.get_column("value")
    low = int(values.min()) if values.len() else 0  # type: ignore[arg-type]
    high = int(values.max()) if values.len() else 1  # type: ignore[arg-type]
    size = max(1, -(-(high - low) // 25))
    start = low - low % size
    return {"start": start - 0.5, "end": high + size - 0.5, "size": size}


def _facets(
    title: str, counts: pl.DataFrame, panels: list[tuple[str, str]], x_title: str, y_title: str
) -> go.Figure:
    """Histograms side by side, one panel each (its name in ``counts``, its colour), on the
    same bins, x range and y axis, so that the panels compare at a glance and no bar hides
    another."""
    figure = make_subplots(
        rows=1,
        cols=len(panels),
        shared_yaxes=True,
        horizontal_spacing=0.06,
        subplot_titles=[name for name, _ in panels],
    )
    bins = _bins(counts.filter(pl.col("panel").is_in([name for name, _ in panels])))
    for column, (name, colour) in enumerate(panels, start=1):
        figure.add_trace(
            go.Histogram(
                **_tally(counts, name),
                name=name,
                marker_color=colour,
                showlegend=False,
                xbins=bins,
                autobinx=False,
            ),
            row=1,
            col=column,
        )
        figure.update_xaxes(
            title_text=x_title, range=[bins["start"], bins["end"]], row=1, col=column
        )
    figure.update_yaxes(title_text=y_title, row=1, col=1)
    _titled(figure, title, hovermode="closest", height=360, margin={"t": 80, "b": 50})
    return figure


def _counted(values: Frame) -> Frame:
    """How often each (``panel``, ``value``) occurs in ``values``."""
    return values.group_by("panel", "value").agg(pl.len().cast(pl.Int64).alias("occurrences"))


def final_score_counts(games: Frame) -> Frame:
    """How many complete games of ``games`` ended on each final score: a row per ``panel``
    (``winner`` or ``loser``) and ``value`` (the score), with its ``occurrences``. A query
    of its own, so that a store's millions of games are counted where they lie."""
    done = games.filter(pl.col("complete"))
    winner_zero = pl.col("winner") == 0
    sides = [
        done.select(
            pl.lit(panel).alias("panel"),
            pl.when(winner_zero).then(first).otherwise(second).alias("value"),
        )
        for panel, first, second in (
            ("winner", "score_0", "score_1"),
            ("loser", "score_1", "score_0"),
        )
    ]
    return _counted(pl.concat(sides))


def final_scores(counts: pl.DataFrame) -> go.Figure:
    """The distribution of final scores of complete games (:func:`final_score_counts`):
    winners and losers side by side."""
    return _facets(
        "Final scores of complete games",
        counts,
        [("winner", "#4c78a8"), ("loser", "#b82e2e")],
        "final score",
        "games",
    )


def hand_point_counts(side_hands: Frame) -> Frame:
    """How many sides' hands of ``side_hands`` scored each number of points: a row per
    ``panel`` (the variant) and ``value`` (the points), with its ``occurrences``."""
    return _counted(
        side_hands.select(pl.col("variant").alias("panel"), pl.col("points").alias("value"))
    )


def hand_points(counts: pl.DataFrame) -> go.Figure:
    """The distribution of a side's points in one hand (:func:`hand_point_counts`), one
    panel per variant."""
    return _facets(
        "Points of a side in one hand",
        counts,
        [("two-player", "#4c78a8"), ("four-player", "#f2b134")],
        "points in the hand",
        "sides' hands",
    )


def tricks_lost(players: pl.DataFrame) -> go.Figure:
    """The tricks each player's misplays cost her side per hand, double dummy (player
    metrics with the analysis columns), each bar labelled with the tricks lost and the hands
    analysed, and the capped hands, which are counted apart; a player with no hand analysed
    has an empty bar."""
    labels = []
    for lost, hands, capped in players.select(
        "tricks_lost", "analysed_hands", "capped_hands"
    ).iter_rows():
        label = f"{lost} in {hands} hand(s)" if hands else "no hand analysed"
        labels.append(f"{label}, {capped} capped" if capped else label)
    rates = players.get_column("tricks_lost_per_hand").to_list()
    top = max((rate for rate in rates if rate is not None), default=0.0)
    figure = go.Figure(
        go.Bar(
            y=player_labels(players),
            x=[value if value is not None else 0 for value in rates],
            orientation="h",
            name="tricks lost per hand",
            marker_color="#b82e2e",
            text=labels,
            textposition="outside",
            cliponaxis=False,
            hovertemplate="%{y}<br>%{x:.2f} a hand (%{text})<extra></extra>",
        )
    )
    _player_layout(
        figure,
        players,
        "Tricks lost by misplays per hand (double dummy)",
        title="tricks per hand",
        range=[0, max(top, 0.5) * 1.5],  # room for the labels beside the longest bar
    )
    return figure


WHATIF_DASH = ("solid", "dash")
"""As played (solid) and rescored (dashed), in the What-if charts."""


def whatif_scores(game: Rescore) -> go.Figure:
    """A game's running scores as played (solid) and rescored (dashed), each side in its
    colour, from 0 before hand 1; a star where each version of the game ends (none when it
    does not end within the hands played); the target lines of both rule sets. Always six
    traces: four lines, then the two end markers (as played, rescored)."""
    figure = go.Figure()
    outcomes = (("as played", game.original), ("rescored", game.rescored))
    for (label, outcome), dash in zip(outcomes, WHATIF_DASH, strict=True):
        scores = outcome.hand_scores
        for side in (0, 1):
            figure.add_trace(
                go.Scatter(
                    x=list(range(len(scores) + 1)),
                    y=[0, *(pair[side] for pair in scores)],
                    mode="lines+markers",
                    name=f"{plot_text(game.side_names[side], 60)} (side {side}), {label}",
                    line={"color": SIDE_COLOURS[side], "dash": dash},
                    marker={"size": 5},
                )
            )
    for label, outcome in outcomes:
        end = outcome.end_hand
        winner = outcome.winner
        figure.add_trace(
            go.Scatter(
                x=[] if end is None else [end],
                y=[] if end is None or winner is None else [outcome.scores[winner]],
                mode="markers+text",
                name=f"ends, {label}",
                text=[] if end is None else [f"ends: hand {end}"],
                textposition="top center",
                marker={
                    "symbol": "star",
                    "size": 16,
                    "color": "#333" if label == "as played" else "#f2b134",
                    "line": {"width": 1, "color": "#000"},
                },
            )
        )
    for option, dash, position in (
        ("target_score", "dash", "top left"),
        ("lose_score", "dot", "bottom left"),
    ):
        for line, text in _whatif_lines(game, option):
            figure.add_hline(
                y=line,
                line={"dash": dash, "color": "#333" if option == "target_score" else "#b82e2e"},
                annotation_text=text,
                annotation_position=position,
            )
    _titled(
        figure,
        "Running score: as played and rescored",
        xaxis_title="hand",
        yaxis_title="score",
        margin={**_LAYOUT["margin"], "b": 130},  # six long entries: two rows of legend
        height=540,
    )
    figure.update_xaxes(dtick=1)
    return figure


def _whatif_lines(game: Rescore, option: str) -> list[tuple[int, str]]:
    """The lines of ``option`` (``target_score`` or ``lose_score``) to draw: one when both
    rule sets agree, else one for each; none for a ``lose_score`` of ``None``."""
    word = "target" if option == "target_score" else "mercy"
    before = getattr(game.original.rules, option)
    after = getattr(game.rescored.rules, option)
    if before == after:
        return [] if before is None else [(before, f"{word} {before}")]
    lines = []
    if before is not None:
        lines.append((before, f"{word} {before} (as played)"))
    if after is not None:
        lines.append((after, f"{word} {after} (rescored)"))
    return lines


def whatif_labels(players: pl.DataFrame) -> list[str]:
    """One distinct label per player row: the name, with the key when names collide."""
    rows = players.select("player", "player_key").rows()
    names = [name for name, _ in rows]
    labels = [name if names.count(name) == 1 else f"{name} ({key})" for name, key in rows]
    return [plot_text(label, 70) for label in labels]


def whatif_win_rates(players: pl.DataFrame) -> go.Figure:
    """Each player's win rate as played and rescored, side by side, each bar labelled
    wins/games. ``players``: the rows of ``CorpusRescore.to_dict()["players"]``. Two traces."""
    labels = whatif_labels(players)
    games = players.get_column("games").to_list()
    figure = go.Figure()
    for when, colour in (("before", "#9ecae9"), ("after", "#1f5fa8")):
        name = "as played" if when == "before" else "rescored"
        wins = players.get_column(f"wins_{when}").to_list()
        figure.add_trace(
            go.Bar(
                y=labels,
                x=players.get_column(f"win_rate_{when}").to_list(),
                orientation="h",
                name=name,
                marker_color=colour,
                text=[f"{won}/{total}" for won, total in zip(wins, games, strict=True)],
                textposition="auto",
                insidetextanchor="end",
                cliponaxis=False,
                hovertemplate="%{y}<br>%{x:.0%} (%{text})<extra>" + name + "</extra>",
            )
        )
    _titled(
        figure,
        "Win rate as played and rescored",
        barmode="group",
        height=max(320, 120 + 48 * players.height),
        hovermode="closest",
        xaxis={"title": "games won", **RATE_AXIS},
        yaxis={"autorange": "reversed", "automargin": True},
    )
    return figure


def _board_labels(board: pl.DataFrame) -> list[str]:
    """One label per leaderboard row: the name, with the key when names collide."""
    rows = board.select("player", "player_key").rows()
    names = [name for name, _ in rows]
    if len(set(names)) < len(names):
        names = [f"{name} ({key})" for name, key in rows]
    return [plot_text(name, 60) for name in names]


def _board_layout(figure: go.Figure, board: pl.DataFrame, heading: str, **axis: Any) -> None:
    """A per-player chart of the leaderboard: the title above the plot, no legend (one
    trace), a row per player, best first."""
    figure.update_layout(
        template="plotly_white",
        title={"text": heading, "x": 0, "xanchor": "left"},
        margin={"l": 50, "r": 30, "t": 60, "b": 50},
        showlegend=False,
        height=max(300, 110 + 26 * board.height),
        hovermode="closest",
        xaxis=axis,
        yaxis={"autorange": "reversed", "automargin": True, "title": "player"},
    )


def ratings_chart(board: pl.DataFrame) -> go.Figure:
    """Each player's skill believed (``mu``, the dot) with its uncertainty (``mu`` ± 3
    ``sigma``, the bar); the rating ranked by is the bar's left end."""
    mu = board.get_column("mu").to_list()
    sigma = board.get_column("sigma").to_list()
    figure = go.Figure(
        go.Scatter(
            x=mu,
            y=_board_labels(board),
            mode="markers",
            marker={"color": "#1f5fa8", "size": 9},
            error_x={"type": "data", "array": [3 * s for s in sigma], "color": "#7fa7d6"},
            name="skill",
            hovertemplate="%{y}<br>mu %{x:.2f} ± %{error_x.array:.2f}<extra></extra>",
        )
    )
    _board_layout(figure, board, "Skill rating: mu with mu ± 3 sigma", title="skill (openskill mu)")
    return figure


def win_intervals(board: pl.DataFrame) -> go.Figure:
    """Each player's win rate (the dot) with its 95 % Wilson interval (the bar), 0 to 100 %."""
    rate = [value if value is not None else 0.0 for value in board.get_column("win_rate")]
    low = board.get_column("win_low").to_list()
    high = board.get_column("win_high").to_list()
    figure = go.Figure(
        go.Scatter(
            x=rate,
            y=_board_labels(board),
            mode="markers",
            marker={"color": "#4c78a8", "size": 9},
            error_x={
                "type": "data",
                "symmetric": False,
                "array": [h - r for h, r in zip(high, rate, strict=True)],
                "arrayminus": [r - lo for r, lo in zip(rate, low, strict=True)],
                "color": "#9bb7d4",
            },
            name="win rate",
            hovertemplate="%{y}<br>%{x:.0%}<extra></extra>",
        )
    )
    _board_layout(
        figure,
        board,
        "Win rate with its 95 % interval",
        title="games won",
        tickformat=".0%",
        range=[0, 1],
    )
    return figure

"""What-if from the tables: a corpus scored again under other scoring options without
replaying a game (docs/store.md, "What-if from the store").

The seat table holds every complete hand's bids and tricks; that is all scoring reads. The
hands are scored again in polars, every game at once: each side's contract, tricks and Nil
outcomes (:func:`prepare`, which does not depend on the options, so a page asking many
questions prepares them once), then the points part by part under each game's rules with
the changes, the running bags and their penalties, the running scores (totals within a game
without window functions: the running total of the column less its total before the game's
first row), and the first hand after which a side has won (a tie plays on). The answers are those of
:func:`spades_replay.replayer.rescore.rescore`, game by game (a test holds them equal):
:meth:`StoreRescore.game` gives the very :class:`~spades_replay.replayer.rescore.Rescore`.

Two things a record holds and the tables do not: a record without ``game_id`` has the
tables' ``game-N``; and a player's ``id`` is her key, so a player without one has her name.

>>> import tempfile
>>> from spades_replay.store.ingest import ingest
>>> from spades_replay.store.read import Store
>>> directory = tempfile.mkdtemp()
>>> _ = ingest(["fixtures/two-player/mercy.json"], directory)
>>> what_if = rescore_tables(Store.open(directory).tables(), {"target_score": 200})
>>> what_if.games.select("rescored_end_hand", "rescored_score_0", "rescored_score_1").row(0)
(4, 181, 208)
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import polars as pl

from spades_replay.engine.rules import SCORING_OPTIONS, Rules, RuleValue
from spades_replay.engine.scoring import SCORE_COLUMNS, NilOutcome, SideScore
from spades_replay.engine.seats import Variant
from spades_replay.replayer.replay import PlayerInfo
from spades_replay.replayer.rescore import (
    PARTS,
    CorpusRescore,
    Outcome,
    PlayerWins,
    Rescore,
    RescoreError,
    check_options,
    scoring_changes,
)
from spades_replay.stats.tables import Tables, rules_of_label

_SIDE_KEYS = ("game", "hand", "side")

_SCORE_COLUMNS = tuple(part.field for part in SCORE_COLUMNS if part.field != "side")
"""The fields of a scored side-hand (:data:`~spades_replay.engine.scoring.SCORE_COLUMNS`
but its side), as the frames here name them: the :class:`SideScore` field names."""

PART_COLUMNS = PARTS
"""The parts of a side's points, the last their total
(:data:`spades_replay.replayer.rescore.PARTS`)."""


def _in_game(column: str) -> pl.Expr:
    """The running total of ``column`` within each game, on rows sorted by game and hand
    whose ``start`` holds the row of their game's first hand: the total over all rows, less
    the total before the game's first row (no window, so quick on millions of rows)."""
    total = pl.col(column).cum_sum()
    return total - (total - pl.col(column)).gather(pl.col("start"))


@dataclass(frozen=True)
class Prepared:
    """What scoring reads of some tables, whatever the options (:func:`prepare`; a page that
    asks many questions of the same games prepares them once).

    ``blocks`` holds one frame per side with a row per complete hand, sorted by game and
    hand, so that row *i* of both is the same hand: the game's row in ``games``
    (``game_row``), the hand, the row of the game's first hand (``start``), whether the game
    is four-player, and the side's contract (number bids added), tricks, the tricks of its
    Nil bidders and its Nil and Blind Nil bids made and failed. ``last`` holds each game's
    last row in the blocks (null for a game without a complete hand). ``played`` is each
    game as played, as :class:`StoreRescore` ``games`` reports it; ``played_rows`` every
    side-hand as played (:data:`_SCORE_COLUMNS`); ``seats`` every game's players;
    ``nils`` every Nil and Blind Nil bid. ``scored`` holds the blocks' side-hands as played,
    row for row (their :data:`_SCORE_COLUMNS`): what the blocks score to when no option that
    scores a hand changes.
    """

    games: pl.DataFrame
    blocks: tuple[pl.DataFrame, pl.DataFrame]
    last: pl.Series
    scored: tuple[pl.DataFrame, pl.DataFrame]
    played: pl.DataFrame
    played_rows: pl.DataFrame
    seats: pl.DataFrame
    nils: pl.DataFrame


def _blocks(frame: pl.DataFrame, rows: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``frame`` (one row per side per hand) split by side, each sorted by game and hand,
    with ``game_row`` (from ``rows``: game, game_row) and ``start``."""
    sides = []
    for side in (0, 1):
        block = (
            frame.filter(pl.col("side") == side)
            .join(rows, on="game", how="inner")
            .sort("game_row", "hand")
        )
        opens = pl.col("game_row") != pl.col("game_row").shift(1).fill_null(-1)
        row = pl.int_range(pl.len(), dtype=pl.Int64)
        sides.append(block.with_columns(start=pl.when(opens).then(row).forward_fill()).drop("side"))
    return sides[0], sides[1]


def _game_totals(block: pl.DataFrame, at: pl.Series, columns: dict[str, str]) -> pl.DataFrame:
    """For each game, the totals of ``block``'s columns within the game up to row ``at``
    (null: 0), named by ``columns``: the running total at ``at`` less the running total
    before the game's first row (a gather per game, not per row)."""
    names = list(dict.fromkeys(columns.values()))
    running = block.lazy().select(pl.col(names).cum_sum()).collect()
    before = block["start"].gather(at) - 1  # the row before the game's first: -1 for none
    ends = running.select(pl.all().gather(at))
    starts = running.select(pl.when(before >= 0).then(pl.all().gather(before.clip(0))).otherwise(0))
    return (ends - starts).select(
        pl.col(column).fill_null(0).alias(name) for name, column in columns.items()
    )


def _played(
    games: pl.DataFrame, blocks: tuple[pl.DataFrame, pl.DataFrame], last: pl.Series
) -> pl.DataFrame:
    """Each game as played: final scores and each side's parts (from the side table), the
    winner, reason and end hand (from the games table)."""
    frame = games.select(
        played_winner="winner",
        played_reason="reason",
        played_end_hand=pl.when(pl.col("winner").is_not_null()).then(pl.col("hands")),
    )
    for side in (0, 1):
        columns = {f"played_score_{side}": "points"}
        columns.update({f"played_{part}_{side}": part for part in PART_COLUMNS})
        frame = frame.hstack(_game_totals(blocks[side], last, columns))
    return frame


def prepare(tables: Tables) -> Prepared:
    """What scoring reads of ``tables``, whatever the options."""
    games = tables.games
    rows = (
        games.select("game")
        .with_row_index("game_row")
        .with_columns(pl.col("game_row").cast(pl.Int64))
    )
    four = games.select("game", four=pl.col("variant") == Variant.FOUR_PLAYER.value)
    kind = pl.col("bid_kind")
    number = kind == "number"
    clean = pl.col("tricks") == 0
    facts = (
        tables.seat_hands.lazy()
        .group_by(_SIDE_KEYS)
        .agg(
            contract=pl.col("bid").filter(number).sum(),
            tricks=pl.col("tricks").sum(),
            nil_tricks=pl.col("tricks").filter(~number).sum(),
            nil_made=(kind == "nil").and_(clean).sum().cast(pl.Int64),
            nil_failed=(kind == "nil").and_(~clean).sum().cast(pl.Int64),
            blind_made=(kind == "blind_nil").and_(clean).sum().cast(pl.Int64),
            blind_failed=(kind == "blind_nil").and_(~clean).sum().cast(pl.Int64),
        )
        .join(four.lazy(), on="game", how="left")
        .collect()
    )
    blocks = _blocks(facts, rows)
    ends = blocks[0].with_row_index("at").group_by("game_row").agg(pl.col("at").max())
    last = (
        rows.join(ends, on="game_row", how="left", maintain_order="left")
        .get_column("at")
        .cast(pl.Int64)
    )
    played_sides = tables.side_hands.select(
        *_SIDE_KEYS,
        *(pl.col(part.column).alias(part.field) for part in SCORE_COLUMNS if part.field != "side"),
    )
    played_blocks = _blocks(played_sides, rows)
    seats = _seats(tables, rows)
    nils = tables.seat_hands.filter(kind != "number").select(
        "game",
        "hand",
        "side",
        "seat",
        blind=kind == "blind_nil",
        tricks="tricks",
        points="nil_points",
    )
    return Prepared(
        games,
        blocks,
        last,
        played_blocks,
        _played(games, played_blocks, last),
        played_sides.sort(_SIDE_KEYS),
        seats,
        nils,
    )


_PARAMS_SCHEMA: dict[str, Any] = {
    "rules": pl.String,
    "target": pl.Int64,
    "lose": pl.Int64,
    "bag_limit": pl.Int64,
    "bag_penalty": pl.Int64,
    "nil_bonus": pl.Int64,
    "blind_bonus": pl.Int64,
    "nil_bags_allowed": pl.Boolean,
    "help_partner": pl.Boolean,
    "double": pl.Int64,
}


def _rules_changed(games: pl.DataFrame, options: Mapping[str, RuleValue]) -> dict[str, Rules]:
    """Each rule set of ``games`` (by its label) with the ``options`` changed; a
    :class:`RescoreError` naming the first game whose rules refuse them."""
    changed: dict[str, Rules] = {}
    labels = games.group_by("rules", maintain_order=True).agg(
        pl.col("source").first(), pl.col("line").first()
    )
    for label, source, line in labels.iter_rows():
        try:
            changed[label] = scoring_changes(rules_of_label(label), options)
        except RescoreError as error:
            place = source if line is None else f"{source}:{line}"
            raise RescoreError(f"{place}: {error}") from None
    return changed


def _param_row(label: str, rules: Rules) -> tuple[Any, ...]:
    """The parameters of :data:`_PARAMS_SCHEMA` of one rule set."""
    return (
        label,
        rules.target_score,
        rules.lose_score,
        rules.bag_limit,
        rules.bag_penalty,
        rules.nil_bonus,
        rules.blind_nil_bonus,
        rules.failed_nil_tricks_count_as_bags,
        rules.failed_nil_tricks_help_partner,
        rules.double_contract_from,
    )


def _params(games: pl.DataFrame, changed: dict[str, Rules]) -> pl.DataFrame:
    """The scoring options of every game (a row per game, in order)."""
    rows = [_param_row(label, rules) for label, rules in changed.items()]
    by_label = pl.DataFrame(rows, schema=_PARAMS_SCHEMA, orient="row")
    return games.select("rules").join(by_label, on="rules", how="left", maintain_order="left")


ENDING = ("target", "lose")
"""The parameters that say where a game ends, not what a hand scores."""


def _hands_score_as_played(changed: dict[str, Rules]) -> bool:
    """Whether every hand scores under the ``changed`` rules (by label) as it did under its
    own: no parameter but :data:`ENDING` differs for any rule set. Then the hands' scores
    are those played, and only where the games end is worked out again."""
    names = list(_PARAMS_SCHEMA)
    kept = [index for index, name in enumerate(names) if name not in ENDING]
    for label, rules in changed.items():
        own, new = _param_row(label, rules_of_label(label)), _param_row(label, rules)
        if [own[index] for index in kept] != [new[index] for index in kept]:
            return False
    return True


def _scored(block: pl.DataFrame, params: pl.DataFrame) -> pl.DataFrame:
    """One side's hands (a block of :class:`Prepared`) scored under ``params`` (a row per
    game): every column of :data:`_SCORE_COLUMNS`, running bags and score within the game."""
    rows = block.hstack(params.drop("rules").select(pl.all().gather(block["game_row"])))
    contract = pl.col("contract")
    pooled = pl.col("help_partner") & pl.col("four")
    has_contract = contract > 0
    toward = (
        pl.when(pooled).then(pl.col("tricks")).otherwise(pl.col("tricks") - pl.col("nil_tricks"))
    )
    made = toward >= contract
    doubled = made & pl.col("double").is_not_null() & (contract >= pl.col("double"))
    limit = pl.col("bag_limit")
    running = pl.col("running_bags")
    return (
        rows.lazy()
        .with_columns(
            tricks_toward=pl.when(has_contract).then(toward).otherwise(0),
            made=pl.when(has_contract).then(made),
            contract_points=pl.when(~has_contract)
            .then(0)
            .when(doubled)
            .then(20 * contract)
            .when(made)
            .then(10 * contract)
            .otherwise(-10 * contract),
            overtricks=pl.when(has_contract & made).then(toward - contract).otherwise(0),
            nil_bags=pl.when(pl.col("nil_bags_allowed") & ~(has_contract & pooled))
            .then(pl.col("nil_tricks"))
            .otherwise(0),
            nil_points=(pl.col("nil_made") - pl.col("nil_failed")) * pl.col("nil_bonus")
            + (pl.col("blind_made") - pl.col("blind_failed")) * pl.col("blind_bonus"),
        )
        .with_columns(bag_points=pl.col("overtricks") + pl.col("nil_bags"))
        .with_columns(running_bags=_in_game("bag_points"))
        .with_columns(
            bag_penalties=running // limit - (running - pl.col("bag_points")) // limit,
            bags=running % limit,
        )
        .with_columns(penalty_points=-pl.col("bag_penalties") * pl.col("bag_penalty"))
        .with_columns(
            points=pl.col("contract_points")
            + pl.col("bag_points")
            + pl.col("nil_points")
            + pl.col("penalty_points")
        )
        .with_columns(score=_in_game("points"))
        .collect()
    )


def _ends(first: pl.DataFrame, second: pl.DataFrame, params: pl.DataFrame) -> pl.DataFrame:
    """Where each game ends, from both sides scored (rows aligned) and the games' ``params``:
    for every row, whether the game ended there (``end``) or before (``over``), the
    ``winner`` and ``reason``."""
    one, two = first["score"], second["score"]
    ending = params.select(ENDING).select(pl.all().gather(first["game_row"]))
    frame = first.select("game_row", "hand", "start").hstack(ending).with_columns(one=one, two=two)
    a, b = pl.col("one"), pl.col("two")
    target, lose = pl.col("target"), pl.col("lose")
    return (
        frame.with_columns(
            reason=pl.when(a == b)
            .then(None)
            .when((a >= target) | (b >= target))
            .then(pl.lit("target"))
            .when(lose.is_not_null() & ((a <= lose) | (b <= lose)))
            .then(pl.lit("mercy")),
            winner=pl.when(a > b).then(0).otherwise(1).cast(pl.Int64),
        )
        .with_columns(ended=pl.col("reason").is_not_null().cast(pl.Int64))
        .with_columns(count=_in_game("ended"))
        .with_columns(
            end=(pl.col("ended") == 1) & (pl.col("count") == 1),
            over=(pl.col("count") - pl.col("ended")) > 0,
        )
    )


@dataclass(frozen=True)
class StoreRescore:
    """A corpus scored again from its tables: ``games`` (one row per game, in order: the
    game as played and rescored, as ``rescore --format csv`` reports it), the ``summary``
    (as :class:`~spades_replay.replayer.rescore.CorpusRescore` counts it), and what
    :meth:`game` and :meth:`each` build any game's full
    :class:`~spades_replay.replayer.rescore.Rescore` from."""

    changes: dict[str, RuleValue]
    games: pl.DataFrame
    summary: CorpusRescore
    prepared: Prepared
    sides: tuple[pl.DataFrame, pl.DataFrame]
    rules: dict[str, Rules]

    def _rows(self, keep: pl.Expr) -> pl.DataFrame:
        """The rescored side-hands (up to each game's end) of the games ``keep`` selects,
        sorted by game, hand and side."""
        games = self.prepared.games.select("game").with_row_index("game_row")
        frames = [
            side.filter(~pl.col("over"))
            .join(games.with_columns(pl.col("game_row").cast(pl.Int64)), on="game_row")
            .filter(keep)
            .select("game", "hand", pl.lit(number, pl.Int64).alias("side"), *_SCORE_COLUMNS)
            for number, side in enumerate(self.sides)
        ]
        return pl.concat(frames).sort(_SIDE_KEYS)

    def _players(self) -> dict[int, tuple[PlayerInfo, ...]]:
        found: dict[int, list[PlayerInfo]] = {}
        seats = self.prepared.seats.sort("game", "seat")
        for game, key, name in seats.select("game", "player_key", "player").iter_rows():
            found.setdefault(game, []).append(PlayerInfo(name, None if key == name else key))
        return {game: tuple(players) for game, players in found.items()}

    def game(self, game: int) -> Rescore:
        """Game number ``game`` rescored, as :func:`~spades_replay.replayer.rescore.rescore`
        gives it."""
        this = pl.col("game") == game
        prepared = self.prepared
        return self._rescore(
            self.games.row(by_predicate=this, named=True),
            self._players()[game],
            prepared.played_rows.filter(this).rows(),
            self._rows(this).rows(),
            prepared.nils.filter(this).rows(),
        )

    def each(self, games: Collection[int] | None = None) -> Iterator[Rescore]:
        """Every game rescored (or those numbered in ``games``), in order, as :meth:`game`
        gives each, in one pass."""
        keep = pl.lit(True) if games is None else pl.col("game").is_in(list(games))
        prepared = self.prepared
        played = _by_game(prepared.played_rows.filter(keep).rows())
        rescored = _by_game(self._rows(keep).rows())
        nils = _by_game(prepared.nils.filter(keep).rows())
        players = self._players()
        for row in self.games.filter(keep).iter_rows(named=True):
            game = row["game"]
            yield self._rescore(
                row,
                players[game],
                played.get(game, []),
                rescored.get(game, []),
                nils.get(game, []),
            )

    def _rescore(
        self,
        row: dict[str, Any],
        players: tuple[PlayerInfo, ...],
        played: list[tuple[Any, ...]],
        rescored: list[tuple[Any, ...]],
        nils: list[tuple[Any, ...]],
    ) -> Rescore:
        label = row["rules"]
        return Rescore(
            row["game_id"],
            Variant(row["variant"]),
            players,
            (row["side_0"], row["side_1"]),
            dict(self.changes),
            row["hands_scored"],
            _outcome(played, nils, rules_of_label(label), row, None),
            _outcome(rescored, nils, self.rules[label], row, self.rules[label]),
        )


def _by_game(rows: list[tuple[Any, ...]]) -> dict[int, list[tuple[Any, ...]]]:
    """Rows (the game first) by game."""
    found: dict[int, list[tuple[Any, ...]]] = {}
    for row in rows:
        found.setdefault(row[0], []).append(row)
    return found


def _outcome(
    sides: list[tuple[Any, ...]],
    nils: list[tuple[Any, ...]],
    rules: Rules,
    row: dict[str, Any],
    rescored: Rules | None,
) -> Outcome:
    """One game's outcome from its scored side-hands (game, hand, side, then
    :data:`_SCORE_COLUMNS`) and its Nil bids (game, hand, side, seat, blind, tricks, points
    as played); ``rescored``: the rules that score the Nils again (``None``: as played)."""
    by_side: dict[tuple[int, int], list[NilOutcome]] = {}
    for _, hand, side, seat, blind, tricks, points in nils:
        if rescored is not None:
            bonus = rescored.blind_nil_bonus if blind else rescored.nil_bonus
            points = bonus if tricks == 0 else -bonus
        by_side.setdefault((hand, side), []).append(
            NilOutcome(seat, blind, tricks, tricks == 0, points)
        )
    hands: list[list[SideScore]] = []
    for values in sides:
        hand, side = values[1], values[2]
        fields = dict(zip(_SCORE_COLUMNS, values[3:], strict=True))
        score = SideScore(side=side, nils=tuple(by_side.get((hand, side), ())), **fields)
        if side == 0:
            hands.append([score])
        else:
            hands[-1].append(score)
    prefix = "played_" if rescored is None else "rescored_"
    return Outcome(
        rules,
        tuple((first, second) for first, second in hands),
        row[f"{prefix}winner"],
        row[f"{prefix}reason"],
    )


def _seats(tables: Tables, rows: pl.DataFrame) -> pl.DataFrame:
    """Every game's players (game_row, game, seat, side, player_key, player): from its first
    hand's seat rows (complete hands come first: only the last hand of a record may be
    unfinished), else, for a game without a complete hand, from the games table's lists."""
    columns = ("game", "seat", "side", "player_key", "player")
    seated = tables.seat_hands.filter(pl.col("hand") == 1).select(columns)
    found: dict[str, list[Any]] = {name: [] for name in columns}
    empty = tables.games.filter(~pl.col("game").is_in(seated["game"].implode()))
    for game, variant, names, keys in empty.select(
        "game", "variant", "players", "player_keys"
    ).iter_rows():
        kind = Variant(variant)
        split_names, split_keys = names.split(", "), keys.split(", ")
        if len(split_names) != kind.seat_count or len(split_keys) != kind.seat_count:
            raise RescoreError(
                f"game {game} has no complete hand and a player name with ', ' in it: its "
                "players cannot be told apart from the store; rescore its file instead"
            )
        for seat, (name, key) in enumerate(zip(split_names, split_keys, strict=True)):
            for column, value in zip(
                columns, (game, seat, kind.side_of(seat), key, name), strict=True
            ):
                found[column].append(value)
    extra = pl.DataFrame(found, schema=seated.schema)
    return pl.concat([seated, extra]).join(rows, on="game").sort("game_row", "seat")


def _summary(games: pl.DataFrame, seats: pl.DataFrame) -> CorpusRescore:
    """What :class:`CorpusRescore` counts, from the games' rows and players."""
    before, after = pl.col("played_end_hand"), pl.col("rescored_end_hand")
    counts = games.select(
        winner_changed=pl.col("winner_changed").sum(),
        ends_earlier=(before.is_not_null() & after.is_not_null() & (after < before)).sum(),
        no_longer_ends=(before.is_not_null() & after.is_null()).sum(),
        now_ends=(before.is_null() & after.is_not_null()).sum(),
    ).row(0, named=True)
    summary = CorpusRescore(
        games=games.height,
        winner_changed=int(counts["winner_changed"]),
        ends_earlier=int(counts["ends_earlier"]),
        no_longer_ends=int(counts["no_longer_ends"]),
        now_ends=int(counts["now_ends"]),
        changes=(games["score_change_0"].to_list(), games["score_change_1"].to_list()),
    )
    winners = games.select("played_winner", "rescored_winner")
    players = (
        seats.hstack(winners.select(pl.all().gather(seats["game_row"])))
        .group_by("player_key", maintain_order=True)
        .agg(
            pl.col("player").first(),
            games=pl.len(),
            before=(pl.col("side") == pl.col("played_winner")).fill_null(False).sum(),
            after=(pl.col("side") == pl.col("rescored_winner")).fill_null(False).sum(),
        )
    )
    for key, name, played, before_wins, after_wins in players.iter_rows():
        summary.players[key] = PlayerWins(key, name, played, before_wins, after_wins)
    return summary


def rescore_tables(
    tables: Tables,
    options: Mapping[str, RuleValue],
    *,
    prepared: Prepared | None = None,
) -> StoreRescore:
    """Every game of ``tables`` scored again with the scoring ``options`` changed (none:
    under its own rules). ``prepared`` (:func:`prepare` of the same tables) saves preparing
    them again. Raises :class:`RescoreError` as
    :func:`~spades_replay.replayer.rescore.rescore` does, naming the first game refused."""
    check_options(options)
    changes = {name: options[name] for name in SCORING_OPTIONS if name in options}
    games = tables.games
    changed = _rules_changed(games, changes)
    if prepared is None:
        prepared = prepare(tables)
    params = _params(games, changed)
    if _hands_score_as_played(changed):
        first, second = prepared.scored
    else:
        first, second = (_scored(block, params) for block in prepared.blocks)
    ends = _ends(first, second, params)
    at_end = ends.with_row_index("at").filter(pl.col("end"))
    per_game = (
        games.select("game")
        .with_row_index("game_row")
        .with_columns(pl.col("game_row").cast(pl.Int64))
        .join(
            at_end.select(
                "game_row",
                pl.col("at").cast(pl.Int64),
                rescored_winner="winner",
                rescored_reason="reason",
                rescored_end_hand="hand",
            ),
            on="game_row",
            how="left",
            maintain_order="left",
        )
    )
    final = per_game.with_columns(last=prepared.last).select(pl.coalesce("at", "last")).to_series()
    frame = games.select(
        "game",
        "source",
        "line",
        "game_id",
        "variant",
        "rules",
        "side_0",
        "side_1",
        hands_scored="hands",
    ).hstack(prepared.played)
    frame = frame.hstack(per_game.select("rescored_winner", "rescored_reason", "rescored_end_hand"))
    for side, scored in enumerate((first, second)):
        columns = {f"rescored_score_{side}": "points"}
        columns.update({f"rescored_{part}_{side}": part for part in PART_COLUMNS})
        frame = frame.hstack(_game_totals(scored, final, columns))
    frame = frame.select(
        *(name for name in frame.columns if not name.startswith(("played_", "rescored_"))),
        *(
            f"{when}_{name}"
            for when in ("played", "rescored")
            for name in (
                "score_0",
                "score_1",
                "winner",
                "reason",
                "end_hand",
                *(f"{part}_{side}" for side in (0, 1) for part in PART_COLUMNS),
            )
        ),
    ).with_columns(
        winner_changed=pl.col("played_winner").ne_missing(pl.col("rescored_winner")),
        score_change_0=pl.col("rescored_score_0") - pl.col("played_score_0"),
        score_change_1=pl.col("rescored_score_1") - pl.col("played_score_1"),
    )
    over = ends.select("over")
    sides = (first.hstack(over), second.hstack(over))
    return StoreRescore(changes, frame, _summary(frame, prepared.seats), prepared, sides, changed)

"""What-if from the tables: a corpus scored again under other scoring options without
replaying a game (docs/store.md, "What-if from the store").

The seat table holds every complete hand's bids and tricks; that is all scoring reads. The
hands are scored again in polars, every game at once: each side's contract, tricks and Nil
outcomes (:func:`side_facts`, which does not depend on the options, so a page asking many
questions computes it once), then the points part by part under each game's rules with the
changes, the running bags and their penalties, the running scores, and the first hand after
which a side has won (a tie plays on). The answers are those of
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

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import polars as pl

from spades_replay.engine.rules import SCORING_OPTIONS, Rules, RuleValue
from spades_replay.engine.scoring import NilOutcome, SideScore
from spades_replay.engine.seats import Variant
from spades_replay.replayer.replay import PlayerInfo
from spades_replay.replayer.rescore import (
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

_SCORE_COLUMNS = (
    "contract",
    "tricks",
    "tricks_toward",
    "made",
    "contract_points",
    "overtricks",
    "nil_bags",
    "bag_points",
    "nil_points",
    "bag_penalties",
    "penalty_points",
    "points",
    "score",
    "bags",
)
"""The columns of a scored side-hand, in the order of
:class:`~spades_replay.engine.scoring.SideScore` (after ``side``, before ``nils``)."""

PART_COLUMNS = ("contract_points", "bag_points", "nil_points", "penalty_points", "points")
"""The parts of a side's points, the last their total (as
:data:`spades_replay.replayer.rescore.PARTS`)."""


def side_facts(seat_hands: pl.DataFrame) -> pl.DataFrame:
    """What scoring reads of each side in each complete hand, whatever the options: the
    contract (number bids added), tricks, the tricks of its Nil bidders, and how many Nil and
    Blind Nil bids were made and failed. Sorted by game, hand and side."""
    kind = pl.col("bid_kind")
    number = kind == "number"
    clean = pl.col("tricks") == 0
    return (
        seat_hands.lazy()
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
        .sort(_SIDE_KEYS)
        .collect()
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


def _params(changed: dict[str, Rules]) -> pl.DataFrame:
    rows = [
        (
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
        for label, rules in changed.items()
    ]
    return pl.DataFrame(rows, schema=_PARAMS_SCHEMA, orient="row")


def score_sides(facts: pl.DataFrame, games: pl.DataFrame, params: pl.DataFrame) -> pl.DataFrame:
    """Every side-hand of ``facts`` scored under its game's rules (``params``, by rules
    label), with the running bags and scores, and the game's end: ``end_hand`` (null when no
    side wins), ``winner`` and ``reason``. Hands after the end are dropped."""
    per_game = games.select("game", "variant", "rules").join(params, on="rules", how="left")
    rows = facts.join(per_game, on="game", how="left", maintain_order="left")
    contract = pl.col("contract")
    pooled = pl.col("help_partner") & (pl.col("variant") == Variant.FOUR_PLAYER.value)
    has_contract = contract > 0
    toward = (
        pl.when(pooled).then(pl.col("tricks")).otherwise(pl.col("tricks") - pl.col("nil_tricks"))
    )
    made = toward >= contract
    doubled = made & pl.col("double").is_not_null() & (contract >= pl.col("double"))
    bag_points = pl.col("overtricks") + pl.col("nil_bags")
    running = pl.col("bag_points").cum_sum().over("game", "side")
    limit = pl.col("bag_limit")
    scored = (
        rows.with_columns(
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
        .with_columns(bag_points=bag_points)
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
        .with_columns(score=pl.col("points").cum_sum().over("game", "side"))
    )
    first = pl.col("score")
    second = pl.col("score_1")
    hands = (
        scored.filter(pl.col("side") == 0)
        .select("game", "hand", "score", "target", "lose")
        .join(
            scored.filter(pl.col("side") == 1).select("game", "hand", score_1="score"),
            on=("game", "hand"),
            how="left",
            maintain_order="left",
        )
        .with_columns(
            reason=pl.when(first == second)
            .then(None)
            .when((first >= pl.col("target")) | (second >= pl.col("target")))
            .then(pl.lit("target"))
            .when(
                pl.col("lose").is_not_null()
                & ((first <= pl.col("lose")) | (second <= pl.col("lose")))
            )
            .then(pl.lit("mercy")),
            winner=pl.when(first > second).then(0).otherwise(1).cast(pl.Int64),
        )
        .filter(pl.col("reason").is_not_null())
        .group_by("game")
        .agg(
            end_hand=pl.col("hand").min(),
            winner=pl.col("winner").sort_by("hand").first(),
            reason=pl.col("reason").sort_by("hand").first(),
        )
    )
    return (
        scored.join(hands, on="game", how="left", maintain_order="left")
        .filter(pl.col("end_hand").is_null() | (pl.col("hand") <= pl.col("end_hand")))
        .select(*_SIDE_KEYS, *_SCORE_COLUMNS, "end_hand", "winner", "reason")
    )


def _outcome_columns(
    sides: pl.DataFrame, games: pl.DataFrame, prefix: str, *, ends: pl.DataFrame
) -> pl.DataFrame:
    """One row per game of ``games``: the final scores, each side's parts, the winner,
    reason and end hand (from ``ends``), each column named with ``prefix``."""
    totals = sides.group_by("game", "side").agg(
        pl.col("score").last(), *(pl.col(part).sum() for part in PART_COLUMNS)
    )
    frame = games.select("game").join(ends, on="game", how="left", maintain_order="left")
    for side in (0, 1):
        own = totals.filter(pl.col("side") == side).select(
            "game",
            pl.col("score").alias(f"{prefix}score_{side}"),
            *(pl.col(part).alias(f"{prefix}{part}_{side}") for part in PART_COLUMNS),
        )
        frame = frame.join(own, on="game", how="left", maintain_order="left")
    filled = [
        pl.col(f"{prefix}{name}_{side}").fill_null(0)
        for side in (0, 1)
        for name in ("score", *PART_COLUMNS)
    ]
    return frame.with_columns(filled).rename(
        {name: f"{prefix}{name}" for name in ("winner", "reason", "end_hand")}
    )


@dataclass(frozen=True)
class StoreRescore:
    """A corpus scored again from its tables: ``games`` (one row per game, in order: the
    game as played and rescored, as ``rescore --format csv`` reports it), the ``summary``
    (as :class:`~spades_replay.replayer.rescore.CorpusRescore` counts it), and the scored
    hands from which :meth:`game` builds any game's full
    :class:`~spades_replay.replayer.rescore.Rescore`."""

    changes: dict[str, RuleValue]
    games: pl.DataFrame
    summary: CorpusRescore
    played: pl.DataFrame
    rescored: pl.DataFrame
    nils: pl.DataFrame
    seats: dict[int, tuple[PlayerInfo, ...]]
    rules: dict[str, Rules]

    def game(self, game: int) -> Rescore:
        """Game number ``game`` rescored, as :func:`~spades_replay.replayer.rescore.rescore`
        gives it."""
        this = pl.col("game") == game
        return self._rescore(
            self.games.row(by_predicate=this, named=True),
            self.played.filter(this).select(*_SIDE_KEYS, *_SCORE_COLUMNS).rows(),
            self.rescored.filter(this).select(*_SIDE_KEYS, *_SCORE_COLUMNS).rows(),
            self.nils.filter(this).rows(),
        )

    def each(self) -> Iterator[Rescore]:
        """Every game rescored, in order (as :meth:`game` gives each, in one pass)."""
        played = _by_game(self.played.select(*_SIDE_KEYS, *_SCORE_COLUMNS).rows())
        rescored = _by_game(self.rescored.select(*_SIDE_KEYS, *_SCORE_COLUMNS).rows())
        nils = _by_game(self.nils.rows())
        for row in self.games.iter_rows(named=True):
            game = row["game"]
            yield self._rescore(
                row, played.get(game, []), rescored.get(game, []), nils.get(game, [])
            )

    def _rescore(
        self,
        row: dict[str, Any],
        played: list[tuple[Any, ...]],
        rescored: list[tuple[Any, ...]],
        nils: list[tuple[Any, ...]],
    ) -> Rescore:
        label = row["rules"]
        return Rescore(
            row["game_id"],
            Variant(row["variant"]),
            self.seats[row["game"]],
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
        nils_of = tuple(by_side.get((hand, side), ()))
        score = SideScore._make((side, *values[3:11], nils_of, *values[11:]))
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


def _seats(tables: Tables) -> dict[int, tuple[PlayerInfo, ...]]:
    """Every game's players in seat order: from its first complete hand's seat rows, else
    (a game without one) from the games table's lists."""
    found: dict[int, list[PlayerInfo]] = {}
    first = tables.seat_hands.filter(pl.col("hand") == pl.col("hand").min().over("game"))
    for game, key, name in first.select("game", "player_key", "player").iter_rows():
        found.setdefault(game, []).append(PlayerInfo(name, None if key == name else key))
    seats = {game: tuple(players) for game, players in found.items()}
    for game, variant, names, keys in tables.games.select(
        "game", "variant", "players", "player_keys"
    ).iter_rows():
        if game in seats:
            continue
        split_names, split_keys = names.split(", "), keys.split(", ")
        count = Variant(variant).seat_count
        if len(split_names) != count or len(split_keys) != count:
            raise RescoreError(
                f"game {game} has no complete hand and a player name with ', ' in it: its "
                "players cannot be told apart from the store; rescore its file instead"
            )
        seats[game] = tuple(
            PlayerInfo(name, None if key == name else key)
            for name, key in zip(split_names, split_keys, strict=True)
        )
    return seats


def _summary(games: pl.DataFrame, seats: dict[int, tuple[PlayerInfo, ...]]) -> CorpusRescore:
    """What :class:`CorpusRescore` counts, from the games' rows."""
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
        changes=(
            games["score_change_0"].to_list(),
            games["score_change_1"].to_list(),
        ),
    )
    variants = games.select("game", "variant", "played_winner", "rescored_winner").iter_rows()
    for game, variant, won_before, won_after in variants:
        sides = Variant(variant).sides_seats
        winners_before = (
            {seats[game][seat].key for seat in sides[won_before]}
            if won_before is not None
            else set()
        )
        winners_after = (
            {seats[game][seat].key for seat in sides[won_after]} if won_after is not None else set()
        )
        for info in seats[game]:
            row = summary.players.setdefault(info.key, PlayerWins(info.key, info.name))
            row.games += 1
            row.wins_before += info.key in winners_before
            row.wins_after += info.key in winners_after
    return summary


def rescore_tables(
    tables: Tables,
    options: Mapping[str, RuleValue],
    *,
    facts: pl.DataFrame | None = None,
) -> StoreRescore:
    """Every game of ``tables`` scored again with the scoring ``options`` changed (none:
    under its own rules). ``facts`` (:func:`side_facts` of the same tables) saves computing
    them again. Raises :class:`RescoreError` as
    :func:`~spades_replay.replayer.rescore.rescore` does, naming the first game refused."""
    check_options(options)
    changes = {name: options[name] for name in SCORING_OPTIONS if name in options}
    games = tables.games
    changed = _rules_changed(games, changes)
    if facts is None:
        facts = side_facts(tables.seat_hands)
    rescored = score_sides(facts, games, _params(changed))
    played = tables.side_hands.select(
        *_SIDE_KEYS,
        *(
            pl.col("tricks_toward_contract" if name == "tricks_toward" else name).alias(name)
            for name in _SCORE_COLUMNS
        ),
    ).sort(_SIDE_KEYS)
    played_ends = games.select(
        "game",
        end_hand=pl.when(pl.col("winner").is_not_null()).then(pl.col("hands")),
        winner="winner",
        reason="reason",
    )
    rescored_ends = rescored.group_by("game").agg(
        pl.col("end_hand").first(), pl.col("winner").first(), pl.col("reason").first()
    )
    frame = (
        games.select(
            "game",
            "source",
            "line",
            "game_id",
            "variant",
            "rules",
            "side_0",
            "side_1",
            hands_scored="hands",
        )
        .join(
            _outcome_columns(played, games, "played_", ends=played_ends),
            on="game",
            maintain_order="left",
        )
        .join(
            _outcome_columns(rescored, games, "rescored_", ends=rescored_ends),
            on="game",
            maintain_order="left",
        )
        .with_columns(
            winner_changed=pl.col("played_winner").ne_missing(pl.col("rescored_winner")),
            score_change_0=pl.col("rescored_score_0") - pl.col("played_score_0"),
            score_change_1=pl.col("rescored_score_1") - pl.col("played_score_1"),
        )
    )
    seats = _seats(tables)
    nils = tables.seat_hands.filter(pl.col("bid_kind") != "number").select(
        "game",
        "hand",
        "side",
        "seat",
        blind=pl.col("bid_kind") == "blind_nil",
        tricks="tricks",
        points="nil_points",
    )
    return StoreRescore(
        changes, frame, _summary(frame, seats), played, rescored, nils, seats, changed
    )

"""A second, naive implementation of the stats metrics, straight from the records' JSON:
each seat's bid and tricks, each side's points as the record claims them, and the rules'
arithmetic spelled out in plain Python (docs/rules.md), then the metrics as loops and sums.
It shares no code with spades_replay.stats, so the two can only agree by being right."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

BLIND = "blind_nil"


@dataclass
class SideHand:
    """One side's figures in one complete hand."""

    points: int
    bags: int
    penalties: int
    contract: int
    made: bool | None


@dataclass
class SeatHand:
    """One seat's figures in one complete hand."""

    bid: int | str
    tricks: int
    side: int


@dataclass
class Game:
    """A record's facts, per hand and per side."""

    variant: str
    rules: dict[str, Any]
    players: list[dict[str, Any]]
    winner: int | None
    scores: list[int]
    hands: list[tuple[list[SeatHand], list[SideHand]]] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.winner is not None

    @property
    def reason(self) -> str | None:
        """How the game ended: a side reached the target, else one fell to the lose score."""
        if self.winner is None:
            return None
        return "target" if max(self.scores) >= self.rules["target_score"] else "mercy"


def side_of(seat: int, seats: int) -> int:
    """Side 0 or 1: the seat itself with two players, else seats 0 and 2 against 1 and 3."""
    return seat if seats == 2 else seat % 2


def game_of(record: dict[str, Any]) -> Game:
    """The facts of one record, each hand's bags and penalties worked out by hand from its
    bids and tricks, and checked against the record's running bag counts."""
    rules = record["rules"]
    assert rules["double_contract_from"] is None
    assert rules["min_team_bid"] == 0
    seats = len(record["players"])
    result = record.get("result") or {}
    game = Game(
        record["variant"], rules, record["players"], result.get("winner"), result.get("scores", [])
    )
    running = [0, 0]
    for hand in record["hands"]:
        claimed = hand.get("result")
        if claimed is None or "points" not in claimed:
            continue
        tricks = claimed["tricks"]
        seat_rows = [
            SeatHand(bid, tricks[seat], side_of(seat, seats))
            for seat, bid in enumerate(hand["bids"])
        ]
        side_rows = []
        for side in (0, 1):
            mine = [row for row in seat_rows if row.side == side]
            numbers = [row for row in mine if not _is_nil(row.bid)]
            nils = [row for row in mine if _is_nil(row.bid)]
            contract = sum(int(row.bid) for row in numbers)  # 0: no contract (all Nil)
            toward = sum(row.tricks for row in numbers)
            if rules["failed_nil_tricks_help_partner"]:
                toward += sum(row.tricks for row in nils)
            made = toward >= contract if numbers else None
            bags = toward - contract if made else 0
            if rules["failed_nil_tricks_count_as_bags"] and not (
                rules["failed_nil_tricks_help_partner"] and numbers
            ):
                bags += sum(row.tricks for row in nils)
            total = running[side] + bags
            penalties = total // rules["bag_limit"]
            running[side] = total - penalties * rules["bag_limit"]
            assert running[side] == claimed["bags"][side], "the naive bag count disagrees"
            side_rows.append(SideHand(claimed["points"][side], bags, penalties, contract, made))
        game.hands.append((seat_rows, side_rows))
    return game


def _is_nil(bid: int | str) -> bool:
    return bid == 0 or bid == BLIND


def _rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _penalties_and_nils(tally: dict[str, Any]) -> dict[str, Any]:
    """The bag penalty and Nil / Blind Nil columns, alike in the player and variant rows."""
    return {
        "bag_penalties": tally["bag_penalties"],
        "bag_penalties_per_game": tally["bag_penalties"] / tally["games"],
        "nil_attempts": tally["nil_attempts"],
        "nil_made": tally["nil_made"],
        "nil_rate": _rate(tally["nil_made"], tally["nil_attempts"]),
        "blind_nil_attempts": tally["blind_nil_attempts"],
        "blind_nil_made": tally["blind_nil_made"],
        "blind_nil_rate": _rate(tally["blind_nil_made"], tally["blind_nil_attempts"]),
    }


def player_rows(
    records: list[dict[str, Any]], rules_key: Callable[[dict[str, Any]], str]
) -> dict[tuple[str, str, str], dict[str, Any]]:
    """Every player metric, keyed by (player key, variant, ``rules_key`` of the rules)."""
    rows: dict[tuple[str, str, str], dict[str, Any]] = {}
    tallies: dict[tuple[str, str, str], dict[str, Any]] = defaultdict(
        lambda: defaultdict(int) | {"points": [], "bags": []}
    )
    for record in records:
        game = game_of(record)
        for seat, player in enumerate(game.players):
            key = (player.get("id") or player["name"], game.variant, rules_key(game.rules))
            side = side_of(seat, len(game.players))
            tally = tallies[key]
            tally["player"] = player["name"]
            if not game.hands:
                continue  # a game without a complete hand has no row of hers
            tally["games"] += 1
            tally["complete_games"] += game.complete
            tally["wins"] += game.winner == side
            for seat_rows, side_rows in game.hands:
                mine = seat_rows[seat]
                figures = side_rows[side]
                tally["hands"] += 1
                tally["points"].append(figures.points)
                tally["bags"].append(figures.bags)
                tally["bag_penalties"] += figures.penalties
                if mine.bid == BLIND or mine.bid == 0:
                    kind = "blind_nil" if mine.bid == BLIND else "nil"
                    tally[f"{kind}_attempts"] += 1
                    tally[f"{kind}_made"] += mine.tricks == 0
                else:
                    tally["bids"] += 1
                    if not figures.made:
                        tally["set"] += 1
                    elif _over(seat_rows, side, game.rules):
                        tally["over"] += 1
                    else:
                        tally["exact"] += 1
    for key, tally in tallies.items():
        if not tally["hands"]:
            continue
        rows[key] = {
            "player_key": key[0],
            "player": tally["player"],
            "variant": key[1],
            "games": tally["games"],
            "complete_games": tally["complete_games"],
            "wins": tally["wins"],
            "win_rate": _rate(tally["wins"], tally["complete_games"]),
            "hands": tally["hands"],
            "points_per_hand": sum(tally["points"]) / tally["hands"],
            "bids": tally["bids"],
            "exact": tally["exact"],
            "over": tally["over"],
            "set": tally["set"],
            "exact_rate": _rate(tally["exact"], tally["bids"]),
            "over_rate": _rate(tally["over"], tally["bids"]),
            "set_rate": _rate(tally["set"], tally["bids"]),
            "bags_per_hand": sum(tally["bags"]) / tally["hands"],
            **_penalties_and_nils(tally),
        }
    return rows


def _over(seat_rows: list[SeatHand], side: int, rules: dict[str, Any]) -> bool:
    """Whether a side that made its contract took more tricks toward it than it bid."""
    mine = [row for row in seat_rows if row.side == side]
    numbers = [row for row in mine if not _is_nil(row.bid)]
    toward = sum(row.tricks for row in numbers)
    if rules["failed_nil_tricks_help_partner"]:
        toward += sum(row.tricks for row in mine if _is_nil(row.bid))
    return toward > sum(int(row.bid) for row in numbers)


def variant_rows(
    records: list[dict[str, Any]], rules_key: Callable[[dict[str, Any]], str]
) -> dict[tuple[str, str], dict[str, Any]]:
    """Every variant metric, keyed by (variant, ``rules_key`` of the rules)."""
    tallies: dict[tuple[str, str], dict[str, Any]] = defaultdict(
        lambda: defaultdict(int) | {"points": [], "bags": []}
    )
    for record in records:
        game = game_of(record)
        tally = tallies[(game.variant, rules_key(game.rules))]
        tally["games"] += 1
        tally["complete"] += game.complete
        tally["hands"] += len(game.hands)
        tally["mercy_endings"] += game.reason == "mercy"
        for seat_rows, side_rows in game.hands:
            for figures in side_rows:
                tally["points"].append(figures.points)
                tally["bags"].append(figures.bags)
                tally["bag_penalties"] += figures.penalties
                tally["contracts"] += figures.made is not None
                tally["sets"] += figures.made is False
            for row in seat_rows:
                if row.bid == 0:
                    tally["nil_attempts"] += 1
                    tally["nil_made"] += row.tricks == 0
                elif row.bid == BLIND:
                    tally["blind_nil_attempts"] += 1
                    tally["blind_nil_made"] += row.tricks == 0
    rows = {}
    for key, tally in tallies.items():
        sides = len(tally["points"])
        rows[key] = {
            "variant": key[0],
            "games": tally["games"],
            "complete": tally["complete"],
            "mercy_endings": tally["mercy_endings"],
            "hands": tally["hands"],
            "hands_per_game": tally["hands"] / tally["games"],
            "points_per_side_hand": sum(tally["points"]) / sides if sides else None,
            "contracts": tally["contracts"],
            "sets": tally["sets"],
            "set_rate": _rate(tally["sets"], tally["contracts"]),
            "bags_per_side_hand": sum(tally["bags"]) / sides if sides else None,
            **_penalties_and_nils(tally),
        }
    return rows

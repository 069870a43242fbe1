"""The record mutator of the fuzz tests: fixtures cut short, then damaged by a Hypothesis
strategy (fields dropped, duplicated, swapped, retyped; cards swapped, dropped, duplicated; bad
drafts and bids; truncation; random bytes; other encodings; a BOM; huge numbers; NaN; deep
nesting; long strings), and, for most inputs, one action or claim changed to another
well-formed value (bids, exchanges, plays, draft turns, claims, options), so that the engine
judges it rather than the parser."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import orjson
from hypothesis import strategies as st

from ..conftest import FIXTURES

SOURCES = [
    FIXTURES / "two-player" / "blind-nil.json",
    FIXTURES / "two-player" / "unfinished.json",
    FIXTURES / "four-player" / "blind-nil.json",
    FIXTURES / "four-player" / "mercy.json",
]


WHOLE = FIXTURES / "four-player" / "mercy.json"
"""A short game kept whole, with its game claim, for the winner and final scores to change."""


def _shortened(path: Path) -> dict[str, Any]:
    """A fixture cut to its first three hands, or to its first hand with a Blind Nil exchange
    when that comes later (small inputs fuzz faster), without the game claim, which would no
    longer hold; :data:`WHOLE` is kept as it is."""
    data: dict[str, Any] = orjson.loads(path.read_bytes())
    if path == WHOLE:
        return data
    exchanges = [i for i, hand in enumerate(data["hands"]) if hand.get("exchanges")]
    data["hands"] = data["hands"][: max(3, exchanges[0] + 1 if exchanges else 0)]
    data.pop("result", None)
    return data


BASES = [_shortened(path) for path in SOURCES]
RAW = [orjson.dumps(base) for base in BASES]
CARD_LISTS = ("deck", "plays", "out", "in")

odd_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
    st.just("x" * 300_000),
    st.lists(st.integers(), max_size=5),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    st.sampled_from(["AS", "10H", "blind_nil", "nil", "KD" * 13, "", "\x00", "\u202e"]),
)


def paths_of(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside ``value`` (not descending into long card lists)."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(paths_of(item, (*prefix, key)))
    elif isinstance(value, list) and not (value and all(isinstance(x, str) for x in value)):
        for index, item in enumerate(value):
            found.extend(paths_of(item, (*prefix, index)))
    return found


def parent_and_key(data: Any, path: tuple[Any, ...]) -> tuple[Any, Any]:
    for part in path[:-1]:
        data = data[part]
    return data, path[-1]


def card_lists(value: Any) -> list[list[str]]:
    found: list[list[str]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key in CARD_LISTS and isinstance(item, list):
                found.append(item)
            elif key == "deal" and isinstance(item, list):
                found.extend(hand for hand in item if isinstance(hand, list))
            else:
                found.extend(card_lists(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(card_lists(item))
    return found


def hands_of(data: Any) -> list[dict[str, Any]]:
    """The hand objects of a (possibly already damaged) record."""
    hands = data.get("hands") if isinstance(data, dict) else None
    return [hand for hand in hands if isinstance(hand, dict)] if isinstance(hands, list) else []


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    base = draw(st.integers(0, len(BASES) - 1))
    data = copy.deepcopy(BASES[base])
    kind = draw(
        st.sampled_from(
            [
                "drop",
                "retype",
                "duplicate-field",
                "swap-fields",
                "cards",
                "draft",
                "bid",
                "truncate",
                "bytes",
                "encoding",
                "bom",
                "huge",
                "nan",
                "deep",
                "long",
                "extra-key",
                "several",
                # the rules' actions, weighted to be most of the inputs: each keeps the
                # record well formed, so that the engine, not the parser, judges it
                *RULE_KINDS * 5,
            ]
        )
    )
    rounds = draw(st.integers(2, 5)) if kind == "several" else 1
    kinds = (
        [
            draw(st.sampled_from(["drop", "retype", "cards", "swap-fields", "bid", *RULE_KINDS]))
            for _ in range(rounds)
        ]
        if kind == "several"
        else [kind]
    )
    for step in kinds:
        paths = [path for path in paths_of(data) if path]
        if step == "drop":
            parent, key = parent_and_key(data, draw(st.sampled_from(paths)))
            del parent[key]
        elif step == "retype":
            parent, key = parent_and_key(data, draw(st.sampled_from(paths)))
            parent[key] = draw(odd_values)
        elif step in ("duplicate-field", "swap-fields"):
            objects = [path for path in paths_of(data) if isinstance(_at(data, path), dict)]
            holder = _at(data, draw(st.sampled_from(objects)))
            if len(holder) >= 2:
                first, second = draw(
                    st.lists(st.sampled_from(sorted(holder)), min_size=2, max_size=2, unique=True)
                )
                if step == "swap-fields":
                    holder[first], holder[second] = holder[second], holder[first]
                else:
                    holder[second] = copy.deepcopy(holder[first])
        elif step == "cards":
            lists = [cards for cards in card_lists(data) if cards]
            if lists:
                cards = draw(st.sampled_from(lists))
                action = draw(st.sampled_from(["swap", "drop", "duplicate", "replace"]))
                i = draw(st.integers(0, len(cards) - 1))
                j = draw(st.integers(0, len(cards) - 1))
                if action == "swap":
                    cards[i], cards[j] = cards[j], cards[i]
                elif action == "drop":
                    del cards[i]
                elif action == "duplicate":
                    cards[j] = cards[i]
                else:
                    cards[i] = draw(st.text(max_size=3))
        elif step == "draft":
            hands = [h for h in hands_of(data) if "draft" in h]
            if hands:
                draw(st.sampled_from(hands))["draft"] = draw(st.text(alphabet="KDX k", max_size=30))
        elif step == "bid":
            hands = [h for h in hands_of(data) if "bids" in h]
            if hands:
                bids = draw(st.sampled_from(hands))["bids"]
                if isinstance(bids, list) and bids:
                    bids[draw(st.integers(0, len(bids) - 1))] = draw(
                        st.one_of(st.integers(-5, 20), st.sampled_from(["blind_nil", "nil", None]))
                    )
        elif step in RULE_KINDS:
            _rule_mutation(draw, data, step)
        elif step == "extra-key":
            objects = [path for path in paths_of(data) if isinstance(_at(data, path), dict)]
            holder = _at(data, draw(st.sampled_from(objects)))
            holder[draw(st.sampled_from(["x-note", "playres", "x-deep", "Format"]))] = draw(
                odd_values
            )
        elif step == "long":
            text = "é" * draw(st.sampled_from([201, 100_001, 2_000_000]))
            if draw(st.booleans()):
                if not isinstance(data.get("meta"), dict):
                    data["meta"] = {}
                data["meta"]["notes"] = text
            elif isinstance(data.get("players"), list) and isinstance(
                next(iter(data["players"]), None), dict
            ):
                data["players"][0]["name"] = text
    raw = json.dumps(data, ensure_ascii=False).encode()  # stdlib: any integer, as given
    if kind == "deep":
        depth = draw(st.sampled_from([40, 70, 2000, 100_000]))
        return b'{"x-deep":' + b"[" * depth + b"1" + b"]" * depth + b"," + raw[1:]
    if kind == "truncate":
        return raw[: draw(st.integers(0, len(raw)))]
    if kind == "bytes":
        return draw(st.binary(max_size=500))
    if kind == "encoding":
        text = raw.decode().replace('"Megan"', '"Mégan"').replace('"Alex"', '"Aléx"')
        return text.encode(draw(st.sampled_from(["utf-16", "latin-1", "utf-32", "cp1252"])))
    if kind == "bom":
        return b"\xef\xbb\xbf" + raw
    if kind == "huge":
        return raw.replace(b'"first_dealer":', b'"first_dealer":1' + b"0" * 30 + b',"x":', 1)
    if kind == "nan":
        return raw.replace(b'"target_score": 500', b'"target_score": NaN', 1).replace(
            b"[", b"[Infinity,", 1
        )
    return raw


RULE_KINDS = (
    "action-bid",
    "exchange",
    "exchange-entry",
    "both-blind",
    "cut",
    "play",
    "draft-turn",
    "claim",
    "game-claim",
    "option",
    "version",
)
"""Mutations of the actions and claims of a record, each with a well-formed value."""
CARDS = [rank + suit for suit in "CDHS" for rank in "23456789TJQKA"]
OPTIONS: dict[str, list[Any]] = {
    "nil_allowed": [False],
    "blind_nil_allowed": [False],
    "blind_nil_min_deficit": [0, 100, 500],
    "blind_nil_exchange": [0, 1, 2],
    "min_team_bid": [4, 9, 13],
    "first_lead": ["two_of_clubs"],
    "spades_must_be_broken": [False, True],
    "double_contract_from": [5, 10],
    "failed_nil_tricks_help_partner": [True],
    "target_score": [100, 200],
    "lose_score": [-100],
    "bag_limit": [1, 3],
}


def _rule_mutation(draw: st.DrawFn, data: dict[str, Any], kind: str) -> None:
    """Change one action, claim or option of the record to another well-formed value."""
    if kind == "game-claim":
        winner = draw(st.integers(0, 1))
        data["result"] = {
            "winner": winner,
            "scores": draw(st.lists(st.integers(-300, 600), min_size=2, max_size=2)),
        }
        return
    if kind == "version":
        data["version"] = "1.0"
        return
    hands = hands_of(data)
    if not hands:
        return
    hand = draw(st.sampled_from(hands))
    if kind == "action-bid" and isinstance(hand.get("bids"), list) and hand["bids"]:
        bids = hand["bids"]
        bids[draw(st.integers(0, len(bids) - 1))] = draw(
            st.one_of(st.integers(0, 13), st.just("blind_nil"))
        )
    elif kind == "exchange":
        lists = [cards for h in hands for cards in card_lists(h.get("exchanges")) if cards]
        if lists:
            cards = draw(st.sampled_from(lists))
            cards[draw(st.integers(0, len(cards) - 1))] = draw(st.sampled_from(CARDS))
    elif kind == "exchange-entry":
        entries = [h["exchanges"] for h in hands if isinstance(h.get("exchanges"), list)]
        if entries and entries[0]:
            chosen = draw(st.sampled_from(entries))
            if draw(st.booleans()) and len(chosen) > 1:
                chosen.reverse()
            else:
                chosen.append(copy.deepcopy(chosen[0]))
    elif kind == "both-blind" and isinstance(hand.get("exchanges"), list) and hand["exchanges"]:
        bids = hand.get("bids")
        if isinstance(bids, list):
            hand["bids"] = ["blind_nil"] * len(bids)
            entries = [entry for entry in hand["exchanges"] if isinstance(entry, dict)]
            taken = {entry.get("seat") for entry in entries}
            entries += [
                {"seat": s, "out": [], "in": []} for s in range(len(bids)) if s not in taken
            ]
            hand["exchanges"] = draw(st.permutations(entries))
    elif kind == "cut" and isinstance(hand.get("plays"), list) and hand["plays"]:
        hand["plays"] = hand["plays"][: draw(st.integers(0, len(hand["plays"]) - 1))]
        if draw(st.booleans()):
            hand.pop("result", None)
    elif kind == "play" and isinstance(hand.get("plays"), list) and hand["plays"]:
        plays = hand["plays"]
        i = draw(st.integers(0, len(plays) - 1))
        if draw(st.booleans()):
            j = draw(st.integers(max(0, i - 4), min(len(plays) - 1, i + 4)))
            plays[i], plays[j] = plays[j], plays[i]
        else:
            plays[i] = draw(st.sampled_from(CARDS))
    elif kind == "draft-turn" and isinstance(hand.get("draft"), str) and hand["draft"]:
        draft = hand["draft"]
        i = draw(st.integers(0, len(draft) - 1))
        hand["draft"] = draft[:i] + ("D" if draft[i] == "K" else "K") + draft[i + 1 :]
    elif kind == "claim" and isinstance(hand.get("result"), dict):
        claims = hand["result"]
        name = draw(st.sampled_from(sorted(claims)))
        values = claims[name]
        counts = [
            i
            for i, value in enumerate(values if isinstance(values, list) else [])
            if isinstance(value, int) and not isinstance(value, bool)
        ]
        if counts:
            i = draw(st.sampled_from(counts))
            values[i] = values[i] + draw(st.sampled_from([-10, -1, 1, 10]))
    elif kind == "option" and isinstance(data.get("rules"), dict):
        name = draw(st.sampled_from(sorted(OPTIONS)))
        data["rules"][name] = draw(st.sampled_from(OPTIONS[name]))


def _at(data: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        data = data[part]
    return data

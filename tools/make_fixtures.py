"""Regenerate fixtures/ from seeded simulations: ``./dev fixtures``.

Every valid fixture is the first simulated game (in seed order) that shows its event; every
invalid fixture is a valid one with a single mutation, and fixtures/invalid/EXPECTED.json
records the error the mutation must produce (checked here while generating, and by
tests/test_fixtures.py ever after). The output is deterministic: running this twice gives the
same bytes.
"""

from __future__ import annotations

import copy
import gzip
import random
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from spades_replay.engine.actions import PlayCard
from spades_replay.engine.bidding import bidding_order
from spades_replay.engine.cards import (
    CARD_BY_NAME,
    CARD_NAMES,
    DECK,
    SUIT_MASKS,
    cards_of,
    names_of,
)
from spades_replay.engine.rules import Rules
from spades_replay.engine.seats import Variant
from spades_replay.engine.state import Phase
from spades_replay.play.bots import next_action
from spades_replay.play.recorder import Recorder
from spades_replay.play.simulate import CorpusSpec, deal_of, roster, simulate_game, write_corpus
from spades_replay.record.io import dump, dumps, from_data, readable_json, to_data
from spades_replay.replayer.replay import Replay, replay
from spades_replay.replayer.validate import validate_bytes
from tests.support.events import game_events

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "fixtures"
TWO, FOUR = Variant.TWO_PLAYER, Variant.FOUR_PLAYER

# name, variant, rules, the events the game must show, what it illustrates
VALID: list[tuple[str, Variant, Rules, set[str], str]] = [
    (
        "standard-game",
        TWO,
        Rules(),
        {"won", "bag-penalty", "contract-set", "nil-made"},
        "a complete game to 500 with bag penalties, a set contract and a made Nil",
    ),
    ("nil-failed", TWO, Rules(), {"won", "nil-failed"}, "a Nil bidder who takes a trick"),
    (
        "blind-nil",
        TWO,
        Rules(),
        {"won", "blind-nil-made", "blind-nil-failed", "exchange"},
        "Blind Nil made and failed, with exchanges with the discard pile",
    ),
    (
        "both-past-target",
        TWO,
        Rules(),
        {"both-past-target"},
        "both players pass 500 in the last hand: the higher score wins",
    ),
    (
        "tie-plays-on",
        TWO,
        Rules(target_score=200),
        {"tie-plays-on", "won"},
        "the scores are tied past the target (200), so another hand is played",
    ),
    ("mercy", TWO, Rules(lose_score=-200), {"mercy"}, "a mercy loss at -200 (lose_score)"),
    (
        "house-rules",
        TWO,
        Rules(
            nil_allowed=False,
            blind_nil_min_deficit=100,
            spades_must_be_broken=False,
            double_contract_from=7,
        ),
        {"won", "double-contract"},
        "format 1.1 house rules: no Nil, Blind Nil only 100 behind, spades led at any time, "
        "contracts of 7 or more doubled",
    ),
    (
        "standard-game",
        FOUR,
        Rules(),
        {"won", "bag-penalty", "contract-set", "nil-made", "nil-failed"},
        "a complete partnership game to 500 with bag penalties, sets, Nil made and failed",
    ),
    (
        "house-rules",
        FOUR,
        Rules(
            blind_nil_allowed=False,
            min_team_bid=5,
            first_lead="two_of_clubs",
            double_contract_from=10,
        ),
        {"won", "double-contract", "nil-made"},
        "format 1.1 house rules: no Blind Nil, a team minimum of 5, the two of clubs leads, "
        "10 for 200",
    ),
    (
        "blind-nil",
        FOUR,
        Rules(),
        {"won", "blind-nil-made", "blind-nil-failed", "exchange"},
        "Blind Nil made and failed, with exchanges between partners",
    ),
    (
        "both-partners-nil",
        FOUR,
        Rules(),
        {"both-partners-nil", "won"},
        "both partners bid Nil in the same hand",
    ),
    (
        "both-past-target",
        FOUR,
        Rules(),
        {"both-past-target"},
        "both teams pass 500 in the last hand: the higher score wins",
    ),
    (
        "tie-plays-on",
        FOUR,
        Rules(target_score=150),
        {"tie-plays-on", "won"},
        "the scores are tied past the target (150), so another hand is played",
    ),
    ("mercy", FOUR, Rules(lose_score=-200), {"mercy"}, "a mercy loss at -200 (lose_score)"),
    (
        "pooled-nil",
        FOUR,
        Rules(failed_nil_tricks_help_partner=True, bag_limit=5, bag_penalty=50),
        {"won", "nil-failed", "bag-penalty"},
        "house rules: a failed Nil's tricks help her partner; 5 bags cost 50",
    ),
]


def find_game(
    variant: Variant, rules: Rules, wanted: set[str], game_id: str, taken: set[tuple[Any, ...]]
) -> Any:
    """The first seeded game, in seed order, that shows every wanted event and is not
    already a fixture (``taken`` holds the variant, rules and seed of those)."""
    for seed in range(100_000):
        if (variant, rules, seed) in taken:
            continue
        record = simulate_game(variant, seed=seed, rules=rules, game_id=game_id)
        if wanted <= game_events(replay(record)):
            taken.add((variant, rules, seed))
            return record
    raise SystemExit(f"no game with {wanted} in 100000 seeds")


def unfinished_game(variant: Variant, seed: int, stop_hand: int, stop_card: int) -> Any:
    """A game recorded until card ``stop_card`` of hand ``stop_hand``: an unfinished record."""
    rng = random.Random(seed)
    cast = roster(variant)
    recorder = Recorder(
        variant,
        [{"name": name, "id": f"{bot.name}-{name.lower()}"} for name, bot in cast],
        game_id=f"{variant.value}-unfinished",
        meta={"source": "spades-replay fixtures", "note": "the table closed mid-hand"},
    )
    bots = [bot for _, bot in cast]
    for hand in range(1, stop_hand + 1):
        deck = list(DECK)
        rng.shuffle(deck)
        if variant is TWO:
            recorder.start_hand(deck=deck)
        else:
            recorder.start_hand(deal=deal_of(deck, (hand - 1) % 4))
        while recorder.state.phase is not Phase.DONE:
            if hand == stop_hand and recorder.state.cards_played == stop_card:
                return recorder.record()
            recorder.act(next_action(recorder.state, bots, rng))
    raise SystemExit("the game ended before the stopping point")


# --- invalid fixtures ----------------------------------------------------------------------

Mutation = Callable[[dict[str, Any]], str]
"""Changes a record's data in place; returns the JSON Pointer of the expected error."""


def replayed(data: dict[str, Any]) -> Replay:
    """The replay of a record's data (the data must still be valid)."""
    return replay(from_data(data))


def holding_at(data: dict[str, Any], hand: int, index: int) -> tuple[int, int, int | None]:
    """(seat to play, her holding, the led suit) before play ``index`` of ``hand``."""
    steps = replayed(data).hands[hand].timeline
    plays = [step for step in steps if isinstance(step.action, PlayCard)]
    before = steps[steps.index(plays[index]) - 1].state
    assert before.turn is not None
    return before.turn, before.holdings[before.turn], before.led_suit


def revoke(data: dict[str, Any]) -> str:
    """A follower plays another suit while holding the led one (swapped with a later play)."""
    plays = data["hands"][0]["plays"]
    for index in range(len(plays)):
        _, holding, led = holding_at(data, 0, index)
        if led is None or not holding & SUIT_MASKS[led]:
            continue
        for later in range(index + 1, len(plays)):
            card = CARD_BY_NAME[plays[later]]
            if holding >> card & 1 and card // 13 != led:
                plays[index], plays[later] = plays[later], plays[index]
                return f"/hands/0/plays/{index}"
    raise SystemExit("no revoke found")


def early_spade(data: dict[str, Any]) -> str:
    """A leader leads a spade before spades are broken (swapped with a later play)."""
    plays = data["hands"][0]["plays"]
    _, holding, _ = holding_at(data, 0, 0)
    for later in range(1, len(plays)):
        card = CARD_BY_NAME[plays[later]]
        if holding >> card & 1 and card // 13 == 3:
            plays[0], plays[later] = plays[later], plays[0]
            return "/hands/0/plays/0"
    raise SystemExit("no spade to lead")


def not_held(data: dict[str, Any]) -> str:
    """A card played twice: the second time its player no longer holds it."""
    plays = data["hands"][0]["plays"]
    plays[2] = plays[0]
    return "/hands/0/plays/2"


def as_version_1_0(data: dict[str, Any]) -> str:
    """Label a 1.1 record (every option written) as version 1.0: its first 1.1 option is then
    out of place."""
    data["version"] = "1.0"
    return "/rules/nil_allowed"


def set_at(pointer: str, value: Any) -> Mutation:
    parts = [int(p) if p.isdigit() else p for p in pointer.strip("/").split("/")]

    def change(data: dict[str, Any]) -> str:
        target = data
        for part in parts[:-1]:
            target = target[part]
        target[parts[-1]] = value
        return pointer

    return change


def first_exchange_hand(data: dict[str, Any]) -> int:
    return next(i for i, hand in enumerate(data["hands"]) if hand.get("exchanges"))


def exchange_mutation(kind: str) -> Mutation:
    def change(data: dict[str, Any]) -> str:
        index = first_exchange_hand(data)
        hand = data["hands"][index]
        entry = hand["exchanges"][0]
        seat = entry["seat"]
        base = f"/hands/{index}/exchanges/0"
        if kind == "not-blind":
            other = next(s for s, bid in enumerate(hand["bids"]) if bid != "blind_nil")
            entry["seat"] = other
            return f"{base}/seat"
        if kind == "size":
            entry["in"] = entry["in"][:-1]
            return f"{base}/in"
        if kind == "duplicate":
            entry["out"][1] = entry["out"][0]
            return f"{base}/out/1"
        if kind == "repeated":
            hand["exchanges"].append(copy.deepcopy(entry))
            return f"/hands/{index}/exchanges/1/seat"
        if kind == "not-held":
            drafted = replayed(data).hands[index].outcome.dealt[seat]
            missing = next(c for c in range(52) if not drafted >> c & 1)
            entry["out"][0] = CARD_NAMES[missing]
            return f"{base}/out/0"
        if kind == "not-in-pile":
            held = replayed(data).hands[index].outcome.dealt[seat]
            entry["in"][0] = names_of(held).split()[-1]
            return f"{base}/in/0"
        if kind == "partner-not-held":
            dealt = replayed(data).hands[index].outcome.dealt
            mine = dealt[seat]
            entry["in"][0] = CARD_NAMES[cards_of(mine)[-1]]
            return f"{base}/in/0"
        if kind == "partner-blind":
            hand["bids"][seat ^ 2] = "blind_nil"
            return f"{base}/seat"
        raise SystemExit(f"unknown exchange mutation {kind}")

    return change


def order_mutation(data: dict[str, Any]) -> str:
    """Two-player, both Blind Nil: the first player's exchange listed before the second's."""
    index = first_exchange_hand(data)
    hand = data["hands"][index]
    entry = hand["exchanges"][0]
    first_player = (data["first_dealer"] + index) % 2
    other = 1 - entry["seat"]
    hand["bids"][other] = "blind_nil"
    empty = {"seat": other, "out": [], "in": []}
    if entry["seat"] == first_player:
        hand["exchanges"] = [entry, empty]
    else:
        hand["exchanges"] = [empty, entry]
    return f"/hands/{index}/exchanges/0/seat"


def _order(data: dict[str, Any], index: int) -> tuple[int, ...]:
    """The seats of hand ``index`` in bidding order."""
    variant = Variant(data["variant"])
    return bidding_order(variant, (data["first_dealer"] + index) % variant.seat_count)


def _declarations(data: dict[str, Any], index: int) -> tuple[int, ...]:
    """The seats of hand ``index`` in the order their Blind Nil is declared or bid."""
    order = _order(data, index)
    return order[::-1] if data["variant"] == "two-player" else order


def first_bid(value: Any, option: str, setting: Any) -> Mutation:
    """Set ``option`` so that the first bid of ``value`` in the game becomes illegal."""

    def change(data: dict[str, Any]) -> str:
        data["rules"][option] = setting
        for index, hand in enumerate(data["hands"]):
            seats = _declarations(data, index) if value == "blind_nil" else _order(data, index)
            for seat in seats:
                if hand["bids"][seat] == value:
                    return f"/hands/{index}/bids/{seat}"
        raise SystemExit(f"no bid {value} to make illegal")

    return change


def team_minimum(data: dict[str, Any]) -> str:
    """min_team_bid 13: the first team's second bid of hand 1 is short."""
    data["rules"]["min_team_bid"] = 13
    bids = data["hands"][0]["bids"]
    done: set[int] = set()
    for seat in _order(data, 0):
        if seat ^ 2 in done:
            pair = (bids[seat], bids[seat ^ 2])
            if not all(bid in (0, "blind_nil") for bid in pair):
                return f"/hands/0/bids/{seat}"
        done.add(seat)
    raise SystemExit("no team short of the minimum")


def two_of_clubs_first(data: dict[str, Any]) -> str:
    """first_lead two_of_clubs: the first hand whose first card is not 2C breaks it."""
    data["rules"]["first_lead"] = "two_of_clubs"
    index = next(i for i, hand in enumerate(data["hands"]) if hand["plays"][0] != "2C")
    return f"/hands/{index}/plays/0"


def unfinished_hand(data: dict[str, Any]) -> str:
    hand = data["hands"][0]
    hand["plays"] = hand["plays"][:10]
    del hand["result"]
    return "/hands/0/plays"


def after_win(data: dict[str, Any]) -> str:
    extra = copy.deepcopy(data["hands"][0])
    del extra["result"]
    data["hands"].append(extra)
    return f"/hands/{len(data['hands']) - 1}"


def claim(key: str, value: Any) -> Mutation:
    def change(data: dict[str, Any]) -> str:
        data["hands"][0]["result"][key] = value
        return f"/hands/0/result/{key}"

    return change


def game_not_over(data: dict[str, Any]) -> str:
    data["result"] = {"winner": 0, "scores": [0, 0]}
    return "/result"


def unfinished_claim(data: dict[str, Any]) -> str:
    data["hands"][-1]["result"] = {"tricks": [0, 0]}
    return f"/hands/{len(data['hands']) - 1}/result"


def winner_claim(data: dict[str, Any]) -> str:
    data["result"]["winner"] = 1 - data["result"]["winner"]
    return "/result/winner"


def final_scores(data: dict[str, Any]) -> str:
    data["result"]["scores"] = [data["result"]["scores"][0] + 1, data["result"]["scores"][1]]
    return "/result/scores"


def duplicate_deck(data: dict[str, Any]) -> str:
    deck = data["hands"][0]["deck"]
    deck[9] = deck[4]
    return "/hands/0/deck/9"


def duplicate_deal(data: dict[str, Any]) -> str:
    deal = data["hands"][0]["deal"]
    deal[2][3] = deal[1][5]
    return "/hands/0/deal/2/3"


def rename(old: str, new: str) -> Mutation:
    def change(data: dict[str, Any]) -> str:
        data[new] = data.pop(old)
        return f"/{new}"

    return change


def delete(pointer: str) -> Mutation:
    parts = [int(p) if p.isdigit() else p for p in pointer.strip("/").split("/")]

    def change(data: dict[str, Any]) -> str:
        target = data
        for part in parts[:-1]:
            target = target[part]
        del target[parts[-1]]
        return pointer

    return change


# file name, source fixture, mutation, expected code; raw-byte cases are handled apart
INVALID: list[tuple[str, str, Mutation, str]] = [
    (
        "format-not-a-record",
        "two-player/standard-game",
        set_at("/format", "spades"),
        "format.not-a-record",
    ),
    ("format-version", "two-player/standard-game", set_at("/version", "1.2"), "format.version"),
    (
        "bid-nil-not-allowed",
        "four-player/standard-game",
        first_bid(0, "nil_allowed", False),
        "bid.nil-not-allowed",
    ),
    (
        "bid-blind-nil-not-allowed",
        "four-player/blind-nil",
        first_bid("blind_nil", "blind_nil_allowed", False),
        "bid.blind-nil-not-allowed",
    ),
    (
        "bid-blind-nil-deficit",
        "two-player/blind-nil",
        first_bid("blind_nil", "blind_nil_min_deficit", 10_000),
        "bid.blind-nil-deficit",
    ),
    ("bid-min-team-bid", "four-player/standard-game", team_minimum, "bid.min-team-bid"),
    ("play-first-lead", "four-player/standard-game", two_of_clubs_first, "play.first-lead"),
    (
        "format-option-version",
        "four-player/standard-game",
        as_version_1_0,
        "format.option-version",
    ),
    (
        "format-variant",
        "two-player/standard-game",
        set_at("/variant", "three-player"),
        "format.variant",
    ),
    (
        "format-missing-key",
        "four-player/standard-game",
        delete("/hands/1/bids"),
        "format.missing-key",
    ),
    (
        "format-unknown-key",
        "two-player/standard-game",
        rename("players", "playres"),
        "format.unknown-key",
    ),
    ("format-type", "four-player/standard-game", set_at("/first_dealer", "2"), "format.type"),
    ("format-card", "two-player/standard-game", set_at("/hands/2/deck/7", "10H"), "format.card"),
    ("format-bid", "four-player/standard-game", set_at("/hands/0/bids/2", 14), "format.bid"),
    ("format-draft", "two-player/standard-game", set_at("/hands/0/draft", "KDKDX"), "format.draft"),
    (
        "format-count",
        "four-player/standard-game",
        set_at("/hands/0/deal/3", ["AS", "KS"]),
        "format.count",
    ),
    ("format-range", "two-player/standard-game", set_at("/rules/bag_limit", 0), "format.range"),
    ("format-value", "two-player/mercy", set_at("/rules/lose_score", 600), "format.value"),
    (
        "format-limit",
        "four-player/standard-game",
        set_at("/meta/notes", "x" * 100_001),
        "format.limit",
    ),
    ("deck-duplicate-card", "two-player/standard-game", duplicate_deck, "deck.duplicate-card"),
    ("deal-duplicate-card", "four-player/standard-game", duplicate_deal, "deal.duplicate-card"),
    (
        "exchange-not-blind-nil",
        "two-player/blind-nil",
        exchange_mutation("not-blind"),
        "exchange.not-blind-nil",
    ),
    (
        "exchange-repeated",
        "two-player/blind-nil",
        exchange_mutation("repeated"),
        "exchange.repeated",
    ),
    ("exchange-order", "two-player/blind-nil", order_mutation, "exchange.order"),
    (
        "exchange-partner-blind",
        "four-player/blind-nil",
        exchange_mutation("partner-blind"),
        "exchange.partner-blind",
    ),
    ("exchange-size", "four-player/blind-nil", exchange_mutation("size"), "exchange.size"),
    (
        "exchange-duplicate-card",
        "two-player/blind-nil",
        exchange_mutation("duplicate"),
        "exchange.duplicate-card",
    ),
    (
        "exchange-not-held",
        "four-player/blind-nil",
        exchange_mutation("not-held"),
        "exchange.not-held",
    ),
    (
        "exchange-not-in-pile",
        "two-player/blind-nil",
        exchange_mutation("not-in-pile"),
        "exchange.not-in-pile",
    ),
    (
        "exchange-partner-not-held",
        "four-player/blind-nil",
        exchange_mutation("partner-not-held"),
        "exchange.partner-not-held",
    ),
    ("play-not-held", "four-player/standard-game", not_held, "play.not-held"),
    ("play-revoke", "two-player/standard-game", revoke, "play.revoke"),
    ("play-spades-not-broken", "four-player/standard-game", early_spade, "play.spades-not-broken"),
    ("hand-unfinished", "two-player/standard-game", unfinished_hand, "hand.unfinished"),
    ("game-over", "four-player/standard-game", after_win, "game.over"),
    ("claim-tricks", "two-player/standard-game", claim("tricks", [13, 0]), "claim.tricks"),
    ("claim-points", "four-player/standard-game", claim("points", [1, 1]), "claim.points"),
    ("claim-scores", "two-player/standard-game", claim("scores", [1, 1]), "claim.scores"),
    ("claim-bags", "four-player/standard-game", claim("bags", [9, 9]), "claim.bags"),
    ("claim-unfinished-hand", "two-player/unfinished", unfinished_claim, "claim.unfinished-hand"),
    ("claim-game-not-over", "four-player/unfinished", game_not_over, "claim.game-not-over"),
    ("claim-winner", "two-player/standard-game", winner_claim, "claim.winner"),
    ("claim-final-scores", "four-player/standard-game", final_scores, "claim.final-scores"),
]

RAW: list[tuple[str, str, Callable[[bytes], bytes], str, str]] = [
    (
        "format-json",
        "two-player/standard-game",
        lambda raw: raw[: len(raw) // 2],
        "format.json",
        "",
    ),
    (
        "format-encoding",
        "four-player/standard-game",
        lambda raw: raw.replace(b'"Alex"', b'"Al\xe9x"', 1),
        "format.encoding",
        "",
    ),
    (
        "format-not-object",
        "two-player/standard-game",
        lambda raw: b"[" + raw.strip() + b"]",
        "format.not-object",
        "",
    ),
]


def write_invalid(sources: dict[str, bytes]) -> None:
    folder = OUT / "invalid"
    folder.mkdir()
    expected: dict[str, dict[str, str]] = {}

    def check(name: str, data: bytes, code: str, pointer: str) -> None:
        data = data if data.endswith(b"\n") else data + b"\n"
        report = validate_bytes(data)
        assert report.problems, name
        first = report.problems[0]
        if (first.code.value, first.pointer) != (code, pointer):
            raise SystemExit(f"{name}: expected {code} at {pointer!r}, got {first}")
        (folder / f"{name}.json").write_bytes(data)
        expected[f"{name}.json"] = {
            "code": code,
            "pointer": pointer,
            "place": first.place,
            "message": first.message,
        }

    for name, source, mutation, code in INVALID:
        data = orjson.loads(sources[source])
        pointer = mutation(data)
        check(name, readable_json(data), code, pointer)
    for name, source, damage, code, pointer in RAW:
        check(name, damage(sources[source]), code, pointer)
    (folder / "EXPECTED.json").write_bytes(
        orjson.dumps(dict(sorted(expected.items())), option=orjson.OPT_INDENT_2) + b"\n"
    )


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    sources: dict[str, bytes] = {}
    lines = [
        "# Fixtures",
        "",
        "Generated by `tools/make_fixtures.py` (deterministic: seeded "
        "simulations); tests/test_fixtures.py checks every claim below.",
        "",
    ]
    lines += ["| file | shows |", "| --- | --- |"]
    taken: set[tuple[Any, ...]] = set()
    for name, variant, rules, wanted, about in VALID:
        record = find_game(variant, rules, wanted, f"fixture-{variant.value}-{name}", taken)
        path = OUT / variant.value / f"{name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        dump(record, path)
        sources[f"{variant.value}/{name}"] = path.read_bytes()
        lines.append(f"| `{variant.value}/{name}.json` | {about} |")
        print(f"{path.relative_to(ROOT)}: seed {to_data(record)['meta']['seed']}", file=sys.stderr)
    for variant, seed, hand, card in ((TWO, 3, 3, 17), (FOUR, 5, 2, 30)):
        record = unfinished_game(variant, seed, hand, card)
        path = OUT / variant.value / "unfinished.json"
        dump(record, path)
        sources[f"{variant.value}/unfinished"] = path.read_bytes()
        lines.append(
            f"| `{variant.value}/unfinished.json` | a game that stops at card {card} of "
            f"hand {hand} |"
        )
    corpus = OUT / "corpus"
    corpus.mkdir()
    for variant, seed in ((TWO, 11), (FOUR, 12)):
        target = corpus / f"{variant.value}.jsonl"
        write_corpus(CorpusSpec(variant, 25, seed), target)
        lines.append(f"| `corpus/{variant.value}.jsonl` | 25 simulated games (seed {seed}) |")
    packed = corpus / "mixed.jsonl.gz"
    mixed = [
        dumps(simulate_game(v, seed=s, game_id=f"mixed-{i}"))
        for i, (v, s) in enumerate([(TWO, 101), (FOUR, 102), (TWO, 103), (FOUR, 104)])
    ]
    packed.write_bytes(gzip.compress(b"\n".join(mixed) + b"\n", mtime=0))
    lines.append("| `corpus/mixed.jsonl.gz` | both variants in one compressed corpus |")
    write_invalid(sources)
    lines.append(
        "| `invalid/*.json` | one record per error code, each a valid fixture with "
        "one mutation; `invalid/EXPECTED.json` gives the code, JSON Pointer, place "
        "and message each must produce (it is no record, so `validate fixtures/` reports it "
        "too). The dashboard opens on every folder here but `invalid/` by default |"
    )
    (OUT / "README.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

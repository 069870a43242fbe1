"""The scoring events of a replayed game, by name: what makes a game worth looking at.

>>> sorted(EVENTS)[:3]
['bag-penalty', 'blind-nil-failed', 'blind-nil-made']
"""

from __future__ import annotations

from spades_replay.engine.seats import Variant
from spades_replay.replayer.replay import Replay

EVENTS = {
    "nil-made": "a Nil bidder took no trick",
    "nil-failed": "a Nil bidder took a trick",
    "blind-nil-made": "a Blind Nil bidder took no trick",
    "blind-nil-failed": "a Blind Nil bidder took a trick",
    "both-partners-nil": "both partners bid Nil or Blind Nil in one hand (four-player)",
    "exchange": "a Blind Nil bidder exchanged cards",
    "contract-set": "a side took fewer tricks than its contract",
    "double-contract": "a side made a contract of double_contract_from tricks or more (20 a trick)",
    "bag-penalty": "a side's bags reached the limit and cost it points",
    "both-past-target": "the game ended with both sides at or above the target",
    "tie-plays-on": "the scores were tied when the game would have ended: another hand",
    "mercy": "the game ended because a side fell to lose_score",
    "won": "the game was won",
    "unfinished": "the record stops before the game was won",
}
"""Every event name, with what it means."""


def game_events(replay: Replay) -> frozenset[str]:
    """The events that happen in a replayed game."""
    found: set[str] = set()
    rules = replay.rules
    for hand in replay.hands:
        if hand.outcome.exchanges and any(swap.out for swap in hand.outcome.exchanges):
            found.add("exchange")
        if hand.scores is None:
            continue
        for side in hand.scores:
            for nil in side.nils:
                kind = "blind-nil" if nil.blind else "nil"
                found.add(f"{kind}-{'made' if nil.made else 'failed'}")
            if replay.variant is Variant.FOUR_PLAYER and len(side.nils) == 2:
                found.add("both-partners-nil")
            if side.made is False:
                found.add("contract-set")
            double = rules.double_contract_from
            if side.made and double is not None and side.contract >= double:
                found.add("double-contract")
            if side.bag_penalties:
                found.add("bag-penalty")
        scores = (hand.scores[0].score, hand.scores[1].score)
        lose = rules.lose_score
        reached = max(scores) >= rules.target_score or (lose is not None and min(scores) <= lose)
        if reached and scores[0] == scores[1]:
            found.add("tie-plays-on")
    result = replay.result
    if result.complete:
        found.add("won")
        if result.reason == "mercy":
            found.add("mercy")
        if min(result.scores) >= rules.target_score:
            found.add("both-past-target")
    else:
        found.add("unfinished")
    return frozenset(found)

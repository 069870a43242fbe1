"""Whole games between seeded bots, recorded: realistic corpora that validate by construction.

>>> from spades_replay.bots import RandomBot
>>> record = simulate_game("two-player", seed=7, bots=[RandomBot(), RandomBot()])
>>> record.variant, len(record.hands) > 0
('two-player', True)
>>> simulate_game("two-player", seed=7, bots=[RandomBot(), RandomBot()]) == record
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from spades_replay.bots import Bot, next_action
from spades_replay.engine.cards import DECK
from spades_replay.engine.rules import Rules
from spades_replay.engine.seats import Variant
from spades_replay.engine.state import Phase
from spades_replay.record import models
from spades_replay.recorder import Recorder

DEFAULT_NAMES = {
    Variant.TWO_PLAYER: ("Megan", "Drew"),
    Variant.FOUR_PLAYER: ("Alex", "Beth", "Charlie", "David"),
}
MAX_HANDS = 60
"""A game not won after this many hands is recorded unfinished."""


def deal_of(deck: Sequence[int], dealer: int) -> list[list[int]]:
    """Four-player: deal ``deck`` one card at a time, starting left of ``dealer``."""
    seats: list[list[int]] = [[], [], [], []]
    for index, card in enumerate(deck):
        seats[(dealer + 1 + index) % 4].append(card)
    return seats


def simulate_game(
    variant: str | Variant,
    *,
    seed: int,
    bots: Sequence[Bot],
    rules: Rules | None = None,
    players: Sequence[str] | None = None,
    game_id: str | None = None,
    max_hands: int = MAX_HANDS,
) -> models.AnyRecord:
    """Play one game between ``bots`` (one per seat) and return its record.

    Everything random (shuffles, first dealer, the bots' choices) comes from ``seed``.
    """
    kind = Variant(variant)
    rng = random.Random(seed)
    names = players or DEFAULT_NAMES[kind]
    recorder = Recorder(
        kind,
        [
            {"name": name, "id": f"{bot.name}-{name.lower()}"}
            for name, bot in zip(names, bots, strict=True)
        ],
        rules=rules or Rules(),
        first_dealer=rng.randrange(kind.seat_count),
        game_id=game_id or f"{kind.value}-{seed}",
        meta={"source": "spades-replay simulate", "seed": str(seed)},
    )
    seats = list(bots)
    while not recorder.game_over and recorder.hands_started < max_hands:
        deck = list(DECK)
        rng.shuffle(deck)
        if kind is Variant.TWO_PLAYER:
            recorder.start_hand(deck=deck)
        else:
            dealer = (recorder.first_dealer + recorder.hands_started) % 4
            recorder.start_hand(deal=deal_of(deck, dealer))
        while recorder.state.phase is not Phase.DONE:
            recorder.act(next_action(recorder.state, seats, rng))
    return recorder.record()

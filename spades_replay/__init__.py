"""spades-replay: validate, replay and analyse recorded games of Spades.

    game = spades_replay.load("game.json")      # format errors raise FormatError
    r = spades_replay.replay(game)             # rules errors raise RulesError
    for hand in r.hands:                       # hand by hand ...
        for step in hand.timeline:             # ... action by action
            print(step.action, step.trick)     # cards print as QH
    print(r.result.winner, r.result.scores)

The folders read like the data flow, lowest first (each imports only those below it):
:mod:`.errors`; the I/O plumbing (:mod:`.plumbing`); the record format (:mod:`.record`) and
the rules engine (:mod:`.engine`), which know nothing of each other; the replayer
(:mod:`.replayer`: where they meet, the fast verifier, replays, validation and what-if
rescoring); games being played (:mod:`.play`: the recorder, bots, self-play); double-dummy
analysis (:mod:`.analysis`) and other tools' games (:mod:`.interop`); corpus statistics
(:mod:`.stats`); the Parquet store (:mod:`.store`); and the command line (:mod:`.cli`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spades_replay.errors import (
        Code,
        FormatError,
        InputError,
        Problem,
        RecordError,
        RulesError,
        SpadesReplayError,
    )
    from spades_replay.record.io import dump, dumps, load, loads
    from spades_replay.record.models import FourPlayerRecord, TwoPlayerRecord
    from spades_replay.replayer.replay import (
        Card,
        GameResult,
        HandReplay,
        Replay,
        Step,
        check,
        hand_cards,
        replay,
    )
    from spades_replay.replayer.rescore import CorpusRescore, Rescore, RescoreError, rescore
    from spades_replay.replayer.validate import CorpusValidation, RecordReport, validate_bytes

__version__ = "0.1.0"

_HOMES = {
    "spades_replay.errors": (
        "Code",
        "FormatError",
        "InputError",
        "Problem",
        "RecordError",
        "RulesError",
        "SpadesReplayError",
    ),
    "spades_replay.record.io": ("dump", "dumps", "load", "loads"),
    "spades_replay.record.models": ("FourPlayerRecord", "TwoPlayerRecord"),
    "spades_replay.replayer.replay": (
        "Card",
        "GameResult",
        "HandReplay",
        "Replay",
        "Step",
        "check",
        "hand_cards",
        "replay",
    ),
    "spades_replay.replayer.rescore": ("CorpusRescore", "Rescore", "RescoreError", "rescore"),
    "spades_replay.replayer.validate": ("CorpusValidation", "RecordReport", "validate_bytes"),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}
"""The module each name of the API comes from. They are imported on first use (PEP 562), so
that importing a part of the package (the command line above all) does not import the
format's models and the engine before it needs them."""


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'spades_replay' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME})


__all__ = [
    "Card",
    "Code",
    "CorpusRescore",
    "CorpusValidation",
    "FormatError",
    "FourPlayerRecord",
    "GameResult",
    "HandReplay",
    "InputError",
    "Problem",
    "RecordError",
    "RecordReport",
    "Replay",
    "Rescore",
    "RescoreError",
    "RulesError",
    "SpadesReplayError",
    "Step",
    "TwoPlayerRecord",
    "__version__",
    "check",
    "dump",
    "dumps",
    "hand_cards",
    "load",
    "loads",
    "replay",
    "rescore",
    "validate_bytes",
]

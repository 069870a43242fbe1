"""spades-replay: validate, replay and analyse recorded games of Spades.

    game = spades_replay.load("game.json")      # format errors raise FormatError
    r = spades_replay.replay(game)             # rules errors raise RulesError
    for hand in r.hands:                       # hand by hand ...
        for step in hand.timeline:             # ... action by action
            print(step.action, step.trick)     # cards print as QH
    print(r.result.winner, r.result.scores)

The layers, lowest first (each imports only those below it): :mod:`.errors`; the record
format (:mod:`.record`) and the rules engine (:mod:`.engine`), which know nothing of each
other; :mod:`.convert`, where they meet; :mod:`.replay`; :mod:`.corpus` and :mod:`.validate`
(and beside it :mod:`.rescore`, what-if rescoring); and the command line (:mod:`.cli`).
"""

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
from spades_replay.replay import (
    Card,
    GameResult,
    HandReplay,
    Replay,
    Step,
    check,
    hand_cards,
    replay,
)
from spades_replay.rescore import CorpusRescore, Rescore, RescoreError, rescore
from spades_replay.validate import CorpusValidation, RecordReport, validate_bytes

__version__ = "0.1.0"

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

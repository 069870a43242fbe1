"""Error codes and the two error families, shared by every layer.

Every problem the toolkit reports has a stable :class:`Code`. Codes are grouped by family:
``format.*`` (the bytes do not make a record of format 1.0 or 1.1; found before any rule is
applied) and the rules families (``deck.*``, ``deal.*``, ``exchange.*``, ``play.*``, ``hand.*``,
``game.*``, ``claim.*``: the record is well-formed but breaks the rules or claims a result the
rules do not give). ``docs/errors.md`` documents each one; a test keeps the two in step.

A :class:`Problem` is plain data: the code, a message that quotes the input, the place as a JSON
Pointer and in the game's own words, the rule broken and what would have been legal.
"""

from __future__ import annotations

import enum
from typing import NamedTuple


class Family(enum.StrEnum):
    """The six families of problems, each the first part of its codes (docs/errors.md):
    ``format`` (the bytes are not a well-formed record) and ``rules`` (a well-formed record
    breaks a rule), the two a record can have; ``action`` (a recorder was asked for an action
    out of turn: never found in a record); ``io`` (a file could not be read at all);
    ``migrate`` (a record cannot be written at the version asked for); and ``store`` (a
    corpus store made by ``ingest`` is damaged)."""

    FORMAT = "format"
    RULES = "rules"
    ACTION = "action"
    IO = "io"
    MIGRATE = "migrate"
    STORE = "store"


class Code(enum.StrEnum):
    """Every stable error code. The value is what the tools print."""

    # input / output (not a verdict on a record: exit code 2)
    IO_NOT_FOUND = "io.not-found"
    IO_UNREADABLE = "io.unreadable"
    IO_COMPRESSION = "io.compression"
    IO_NOT_A_FILE = "io.not-a-file"
    IO_EXPANSION = "io.expansion"
    # format
    FORMAT_JSON = "format.json"
    FORMAT_ENCODING = "format.encoding"
    FORMAT_NOT_OBJECT = "format.not-object"
    FORMAT_NOT_A_RECORD = "format.not-a-record"
    FORMAT_VERSION = "format.version"
    FORMAT_OPTION_VERSION = "format.option-version"
    FORMAT_VARIANT = "format.variant"
    FORMAT_MISSING_KEY = "format.missing-key"
    FORMAT_UNKNOWN_KEY = "format.unknown-key"
    FORMAT_TYPE = "format.type"
    FORMAT_CARD = "format.card"
    FORMAT_BID = "format.bid"
    FORMAT_DRAFT = "format.draft"
    FORMAT_COUNT = "format.count"
    FORMAT_RANGE = "format.range"
    FORMAT_VALUE = "format.value"
    FORMAT_LIMIT = "format.limit"
    # rules: setting up a hand
    DECK_DUPLICATE_CARD = "deck.duplicate-card"
    DEAL_DUPLICATE_CARD = "deal.duplicate-card"
    EXCHANGE_NOT_BLIND_NIL = "exchange.not-blind-nil"
    EXCHANGE_REPEATED = "exchange.repeated"
    EXCHANGE_ORDER = "exchange.order"
    EXCHANGE_PARTNER_BLIND = "exchange.partner-blind"
    EXCHANGE_SIZE = "exchange.size"
    EXCHANGE_DUPLICATE_CARD = "exchange.duplicate-card"
    EXCHANGE_NOT_HELD = "exchange.not-held"
    EXCHANGE_NOT_IN_PILE = "exchange.not-in-pile"
    EXCHANGE_PARTNER_NOT_HELD = "exchange.partner-not-held"
    # rules: bidding (the options of format 1.1)
    BID_NIL_NOT_ALLOWED = "bid.nil-not-allowed"
    BID_BLIND_NIL_NOT_ALLOWED = "bid.blind-nil-not-allowed"
    BID_BLIND_NIL_DEFICIT = "bid.blind-nil-deficit"
    BID_MIN_TEAM_BID = "bid.min-team-bid"
    # rules: play
    PLAY_NOT_HELD = "play.not-held"
    PLAY_REVOKE = "play.revoke"
    PLAY_SPADES_NOT_BROKEN = "play.spades-not-broken"
    PLAY_FIRST_LEAD = "play.first-lead"
    # rules: the shape of the game
    HAND_UNFINISHED = "hand.unfinished"
    GAME_OVER = "game.over"
    # claims
    CLAIM_TRICKS = "claim.tricks"
    CLAIM_POINTS = "claim.points"
    CLAIM_SCORES = "claim.scores"
    CLAIM_BAGS = "claim.bags"
    CLAIM_UNFINISHED_HAND = "claim.unfinished-hand"
    CLAIM_GAME_NOT_OVER = "claim.game-not-over"
    CLAIM_WINNER = "claim.winner"
    CLAIM_FINAL_SCORES = "claim.final-scores"
    # actions driven one by one (the recorder API); a record cannot express these
    ACTION_OUT_OF_TURN = "action.out-of-turn"
    ACTION_WRONG_PHASE = "action.wrong-phase"
    ACTION_BAD_BID = "action.bad-bid"
    # writing a record in an older format version (migrate); reading never finds these
    MIGRATE_OPTION_LOST = "migrate.option-lost"
    # a corpus store (not a verdict on any record: exit code 2)
    STORE_DAMAGED = "store.damaged"

    @property
    def family(self) -> Family:
        """The family its prefix names; ``rules`` for the rules families."""
        head = self.value.split(".", 1)[0]
        if head == "format":
            return Family.FORMAT
        if head == "io":
            return Family.IO
        if head == "action":
            return Family.ACTION
        if head == "migrate":
            return Family.MIGRATE
        if head == "store":
            return Family.STORE
        return Family.RULES


class Problem(NamedTuple):
    """One thing wrong with one record (or one input), as plain data.

    ``pointer`` is a JSON Pointer into the record (``""`` is the whole record); ``place`` names
    the same spot in the game's words (``"hand 3, trick 5, card 2 (seat 1, Drew)"``) and is
    empty where the game has no words for it. ``source`` and ``line`` say which file and which
    line of a ``.jsonl`` corpus the record came from, when it came from one.
    """

    code: Code
    message: str
    pointer: str = ""
    place: str = ""
    rule: str = ""
    legal: tuple[str, ...] = ()
    hand: int | None = None
    trick: int | None = None
    card: int | None = None
    seat: int | None = None
    player: str | None = None
    source: str | None = None
    line: int | None = None

    @property
    def family(self) -> Family:
        """The family of the code."""
        return self.code.family

    def located(self, source: str | None, line: int | None = None) -> Problem:
        """The same problem, tagged with the file (and ``.jsonl`` line) its record came from.

        Built field by field rather than by :func:`dataclasses.replace`, which costs several
        times as much: every invalid record of a corpus is located once or twice."""
        return Problem(
            self.code,
            self.message,
            self.pointer,
            self.place,
            self.rule,
            self.legal,
            self.hand,
            self.trick,
            self.card,
            self.seat,
            self.player,
            source,
            line,
        )

    def __str__(self) -> str:
        where = self.place or (self.pointer and f"at {self.pointer}") or ""
        text = f"{where}: {self.message}" if where else self.message
        return f"{text} [{self.code}]"

    def to_dict(self) -> dict[str, object]:
        """The problem as JSON-ready data, with ``None`` fields left out."""
        data: dict[str, object] = {
            "code": self.code.value,
            "family": self.family.value,
            "message": self.message,
            "pointer": self.pointer,
        }
        if self.place:
            data["place"] = self.place
        if self.rule:
            data["rule"] = self.rule
        if self.legal:
            data["legal"] = list(self.legal)
        for name in ("hand", "trick", "card", "seat", "player", "source", "line"):
            value = getattr(self, name)
            if value is not None:
                data[name] = value
        return data


class SpadesReplayError(Exception):
    """The base of every error this package raises on purpose."""


class RecordError(SpadesReplayError):
    """A record is invalid: it carries every :class:`Problem` found (at least one)."""

    def __init__(self, problems: tuple[Problem, ...]) -> None:
        self.problems = problems
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(f"{first}{more}")

    @property
    def problem(self) -> Problem:
        """The first problem."""
        return self.problems[0]


class FormatError(RecordError):
    """The bytes are not a record of a format version this reader reads (JSON, schema, version)."""


class RulesError(RecordError):
    """The record is well-formed but breaks the rules or claims what the rules do not give."""


class InputError(SpadesReplayError):
    """A file or path could not be read at all (not a verdict on any record)."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        super().__init__(str(problem))

"""Formats 1.0 and 1.1 as pydantic v2 models: the single definition of what a record may hold.

Every model is frozen, forbids unknown keys except ``x-`` extensions (kept on round trip), and
takes JSON values strictly (no ``true`` for ``1``, no ``"3"`` for ``3``). Sequences are tuples.
The two variants are separate models chosen by the ``variant`` key (:data:`Record`).

A record keeps the version it was read with. Format 1.1 adds seven options to ``rules``
(:data:`OPTIONS_1_1`); in a ``"1.0"`` record they are a format error, and reading fills in their
defaults, which are the 1.0 rules. A ``"1.0"`` record is written back without them.

The options of ``rules`` are not listed here: each is declared once, in the engine's option
table (:data:`spades_replay.engine.rules.OPTIONS`, pure data), and :data:`RulesObject` (the
``rules`` object; the JSON Schema names it ``Rules``) has a field
for each row, with its type, range and default.

This module knows the format, not the rules: it checks shapes, types and ranges; whether the
actions are legal is for :mod:`spades_replay.engine`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, final

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    SerializerFunctionWrapHandler,
    Strict,
    TypeAdapter,
    ValidationInfo,
    create_model,
    field_validator,
    model_serializer,
)
from pydantic_core import PydanticCustomError

from spades_replay.engine.rules import OPTION, OPTIONS, Option, RuleValue, lose_score_problem
from spades_replay.plumbing.limits import DEFAULT_LIMITS, Limits
from spades_replay.record.header import FORMAT_NAME as FORMAT_NAME
from spades_replay.record.header import FORMAT_VERSION as FORMAT_VERSION
from spades_replay.record.header import KEY_ORDER as KEY_ORDER
from spades_replay.record.shape import CARD_NAMES as CARD_NAMES
from spades_replay.record.shape import EXTENSION_PREFIX, TEXT_CHARS, free_form_problem

VERSIONS = ("1.0", "1.1")
"""Every version this reader reads, oldest first (all of major version 1)."""
Version = Literal["1.0", "1.1"]
EXTENSION_PATTERN = f"^{EXTENSION_PREFIX}"


StrictBool = Annotated[bool, Strict()]
ExtensionKey = Annotated[str, Field(pattern=EXTENSION_PATTERN, max_length=TEXT_CHARS)]


def _limits(info: ValidationInfo) -> Limits:
    context = info.context
    if isinstance(context, dict):
        limits = context.get("limits")
        if isinstance(limits, Limits):
            return limits
    return DEFAULT_LIMITS


def _too_long(length: int, limit: int) -> PydanticCustomError:
    return PydanticCustomError(
        "limit_string",
        "a string of {length} characters exceeds the limit of {limit}",
        {"length": length, "limit": limit},
    )


def _check_free_form(value: JsonValue, info: ValidationInfo) -> JsonValue:
    """Bound the depth and the string lengths of a free-form value (an extension), and keep
    its numbers to those every JSON tool reads alike: finite, integers within 64 bits
    (:func:`~spades_replay.record.shape.free_form_problem` finds what is wrong)."""
    limits = _limits(info)
    problem = free_form_problem(value, limits)
    if problem is None:
        return value
    kind, item = problem
    if kind == "infinite":
        raise PydanticCustomError("number", "{value} is not a JSON number", {"value": item})
    if kind == "wide":
        raise PydanticCustomError(
            "number", "the integer {value} is beyond 64 bits", {"value": item}
        )
    if kind == "long":
        raise _too_long(len(item), limits.string_chars)
    raise PydanticCustomError(
        "limit_depth", "nesting deeper than the limit of {limit}", {"limit": limits.depth}
    )


def _check_text(value: str, info: ValidationInfo) -> str:
    limit = _limits(info).string_chars
    if len(value) > limit:
        raise _too_long(len(value), limit)
    return value


ExtensionValue = Annotated[JsonValue, AfterValidator(_check_free_form)]
MetaValue = Annotated[str, Strict(), AfterValidator(_check_text)]
Text = Annotated[str, Strict(), Field(min_length=1, max_length=TEXT_CHARS)]

CardName = Literal[CARD_NAMES]  # type: ignore[valid-type]
"""A card as a record writes it (``"QH"``); the engine's card is an int."""
CardNames = tuple[CardName, ...]
Seat2 = Annotated[int, Strict(), Field(ge=0, le=1)]
Seat4 = Annotated[int, Strict(), Field(ge=0, le=3)]
Side = Annotated[int, Strict(), Field(ge=0, le=1)]
Tricks = Annotated[int, Strict(), Field(ge=0, le=13)]
Bid = Annotated[int, Strict(), Field(ge=0, le=13)] | Literal["blind_nil"]
Draft = Annotated[
    str,
    Strict(),
    Field(
        pattern=r"^[KD]{26}$",
        description="One letter per draft turn: K kept the top card, D discarded it.",
    ),
]
Points = Annotated[int, Strict(), Field(ge=-10_000_000, le=10_000_000)]


def _extension_schema(schema: dict[str, Any]) -> None:
    schema["additionalProperties"] = False
    schema["patternProperties"] = {EXTENSION_PATTERN: {}}


class Model(BaseModel):
    """Frozen, strict, no unknown keys; ``x-`` keys are extensions, kept as they are."""

    model_config = ConfigDict(
        frozen=True,
        extra="allow",
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        json_schema_extra=_extension_schema,
        hide_input_in_errors=False,
        # each model's own validator is built on first use: loading goes through the one
        # adapter below, so a command that only loads records never builds them
        defer_build=True,
    )
    __pydantic_extra__: dict[ExtensionKey, ExtensionValue] = Field(init=False)

    @model_serializer(mode="wrap")
    def _canonical(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Fields in declaration order, then extensions sorted by key."""
        data: dict[str, Any] = handler(self)
        extra = self.__pydantic_extra__
        if not extra:
            return data
        ordered = {key: value for key, value in data.items() if key not in extra}
        ordered.update((key, data[key]) for key in sorted(extra) if key in data)
        return ordered


def _absent(value: object) -> bool:
    return value is None


def _empty(value: object) -> bool:
    return not value


def _annotation(row: Option) -> Any:
    """The type a record's ``rules`` object takes for one option of the table."""
    annotation: Any
    if row.kind == "bool":
        annotation = StrictBool
    elif row.kind == "word":
        annotation = Literal[row.choices]
    else:
        annotation = Annotated[int, Strict(), Field(ge=row.low, le=row.high)]
    return annotation | None if row.optional else annotation


def _lose_below_target(value: int | None, info: ValidationInfo) -> int | None:
    problem = lose_score_problem(info.data.get("target_score"), value)
    if problem is not None:
        raise ValueError(problem)
    return value


def _rules_model() -> type[Model]:
    """The model of a record's ``rules`` object: a field for each option of the table
    (:data:`~spades_replay.engine.rules.OPTIONS`), in its order, with its default."""
    fields: dict[str, Any] = {row.name: (_annotation(row), row.default) for row in OPTIONS}
    return create_model(
        "Rules",
        __base__=Model,
        __doc__="The house-rule options of docs/rules.md; absent options take their defaults.",
        __module__=__name__,
        __qualname__="RulesObject",
        __validators__={"_lose_below_target": field_validator("lose_score")(_lose_below_target)},
        **fields,
    )


if TYPE_CHECKING:

    class RulesObject(Model):
        """The house-rule options: a field for each option of the table."""

        def __getattr__(self, name: str) -> RuleValue: ...

else:
    RulesObject = _rules_model()


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(map(int, version.split(".")))


NEWER_OPTIONS: dict[str, tuple[str, ...]] = {
    version: tuple(row.name for row in OPTIONS if _version_key(row.since) > _version_key(version))
    for version in VERSIONS
}
"""For each version, the options added after it (in the table's order): a record of that
version may not hold them."""
OPTIONS_1_1 = NEWER_OPTIONS["1.0"]
"""The options format 1.1 added to ``rules``; a ``"1.0"`` record may not hold them."""


def options_off_default(rules: RulesObject, version: str = "1.0") -> tuple[str, ...]:
    """The options of ``rules`` that format ``version`` lacks and that differ from their
    defaults (the meaning of their absence): what a record would lose if written as
    ``version``."""
    return tuple(
        name for name in NEWER_OPTIONS[version] if getattr(rules, name) != OPTION[name].default
    )


class Player(Model):
    """A player: the name shown, and an optional stable id (stats group by it)."""

    name: Text
    id: Text | None = Field(default=None, exclude_if=_absent)


class HandClaim2(Model):
    """What the producer claims for a finished two-player hand; every claim present is checked."""

    tricks: tuple[Tricks, Tricks] | None = Field(default=None, exclude_if=_absent)
    points: tuple[Points, Points] | None = Field(default=None, exclude_if=_absent)
    scores: tuple[Points, Points] | None = Field(default=None, exclude_if=_absent)
    bags: tuple[Points, Points] | None = Field(default=None, exclude_if=_absent)


class HandClaim4(Model):
    """What the producer claims for a finished four-player hand; every claim present is checked."""

    tricks: tuple[Tricks, Tricks, Tricks, Tricks] | None = Field(default=None, exclude_if=_absent)
    points: tuple[Points, Points] | None = Field(default=None, exclude_if=_absent)
    scores: tuple[Points, Points] | None = Field(default=None, exclude_if=_absent)
    bags: tuple[Points, Points] | None = Field(default=None, exclude_if=_absent)


class Exchange2(Model):
    """A two-player Blind Nil exchange: the cards put away (out) and those drawn from the pile."""

    seat: Seat2
    out: Annotated[CardNames, Field(max_length=13)]
    in_: Annotated[CardNames, Field(alias="in", max_length=13)]


class Exchange4(Model):
    """A four-player Blind Nil exchange: what the bidder gave (out) and what her partner gave."""

    seat: Seat4
    out: Annotated[CardNames, Field(max_length=13)]
    in_: Annotated[CardNames, Field(alias="in", max_length=13)]


@final
class Hand2(Model):
    """A two-player hand: the deck (top first), the draft, bids, exchanges and card play."""

    deck: Annotated[CardNames, Field(min_length=52, max_length=52)]
    draft: Draft
    bids: tuple[Bid, Bid]
    exchanges: Annotated[tuple[Exchange2, ...], Field(max_length=2)] = Field(
        default=(), exclude_if=_empty
    )
    plays: Annotated[CardNames, Field(max_length=26)]
    result: HandClaim2 | None = Field(default=None, exclude_if=_absent)


Holding = Annotated[CardNames, Field(min_length=13, max_length=13)]


@final
class Hand4(Model):
    """A four-player hand: the deal by seat, bids, exchanges and card play."""

    deal: tuple[Holding, Holding, Holding, Holding]
    bids: tuple[Bid, Bid, Bid, Bid]
    exchanges: Annotated[tuple[Exchange4, ...], Field(max_length=4)] = Field(
        default=(), exclude_if=_empty
    )
    plays: Annotated[CardNames, Field(max_length=52)]
    result: HandClaim4 | None = Field(default=None, exclude_if=_absent)


class GameClaim(Model):
    """The outcome the producer claims for a game that was won."""

    winner: Side
    scores: tuple[Points, Points]


def _record_schema(schema: dict[str, Any]) -> None:
    """The shape of a record, plus the one rule between keys: a ``"1.0"`` record's ``rules``
    holds none of the 1.1 options."""
    _extension_schema(schema)
    schema["if"] = {"properties": {"version": {"const": "1.0"}}}
    schema["then"] = {
        "properties": {"rules": {"propertyNames": {"not": {"enum": list(OPTIONS_1_1)}}}}
    }


class RecordBase(Model):
    """What both variants share."""

    model_config = ConfigDict(json_schema_extra=_record_schema)

    format: Literal["spades-replay"]
    version: Version
    game_id: Text | None = Field(default=None, exclude_if=_absent)
    rules: RulesObject = Field(default_factory=RulesObject)
    players: tuple[Player, ...]
    meta: dict[Annotated[str, Strict(), Field(max_length=TEXT_CHARS)], MetaValue] = Field(
        default_factory=dict, exclude_if=_empty
    )
    result: GameClaim | None = Field(default=None, exclude_if=_absent)

    @field_validator("rules")
    @classmethod
    def _options_of_the_version(cls, value: RulesObject, info: ValidationInfo) -> RulesObject:
        """A record's rules hold only the options of its version (a ``"1.0"`` record none
        of the 1.1 options)."""
        version = info.data.get("version")
        newer = [
            name for name in NEWER_OPTIONS.get(str(version), ()) if name in value.model_fields_set
        ]
        if newer:
            since = OPTION[newer[0]].since
            raise PydanticCustomError(
                "option_version",
                "'{option}' is a format {since} option, not allowed in a version {version}"
                " record (set 'version' to '{since}', or run spades-replay migrate)",
                {"option": newer[0], "since": since, "version": version},
            )
        return value

    @model_serializer(mode="wrap")
    def _canonical(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Keys in the order of docs/format.md, then extensions; ``meta`` sorted by key. A
        record's rules leave out the options newer than its version (they hold their
        defaults)."""
        data: dict[str, Any] = handler(self)
        newer = NEWER_OPTIONS.get(str(data.get("version")), ())
        if newer and isinstance(data.get("rules"), dict):
            data["rules"] = {key: value for key, value in data["rules"].items() if key not in newer}
        ordered = {key: data[key] for key in KEY_ORDER if key in data}
        if "meta" in ordered:
            ordered["meta"] = dict(sorted(ordered["meta"].items()))
        ordered.update((key, data[key]) for key in sorted(data) if key not in ordered)
        return ordered


class TwoPlayerRecord(RecordBase):
    """A game of two-player Spades with the draft."""

    variant: Literal["two-player"]
    players: tuple[Player, Player]
    first_dealer: Seat2 = 0
    hands: tuple[Hand2, ...]


class FourPlayerRecord(RecordBase):
    """A game of four-player partnership Spades."""

    variant: Literal["four-player"]
    players: tuple[Player, Player, Player, Player]
    first_dealer: Seat4 = 0
    hands: tuple[Hand4, ...]


Record = Annotated[TwoPlayerRecord | FourPlayerRecord, Field(discriminator="variant")]
"""A game record (format 1.0 or 1.1) of either variant."""

AnyRecord = TwoPlayerRecord | FourPlayerRecord
AnyHand = Hand2 | Hand4

RECORD_ADAPTER: TypeAdapter[AnyRecord] = TypeAdapter(Record, config=ConfigDict(defer_build=True))
"""Validates a record (JSON text or a parsed JSON value). Built once, on its first use, not at
import: building it builds every model's schema, which a command that reads no record (a
query, a re-ingest of an unchanged store, any ``--help``) need not pay for."""

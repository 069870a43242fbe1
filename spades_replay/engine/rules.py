"""House rules as data: one frozen object with the defaults of docs/rules.md, and named presets.

Each field of :class:`Rules` is one house-rule option, declared once with everything known
about it (:func:`option`): its type (the annotation), default, range or choices, whether it
scores the actions or shapes what is legal, the variants it applies to, its short label, the
format version that added it, and a line saying what it does. :data:`OPTIONS` reads that
table back as :class:`Option` rows; the record's models, the JSON Schema, rescoring, the
command line's ``--rule``, the dashboard's What-if widgets and the stats' rule labels are all
built from it.

>>> Rules().target_score
500
>>> Rules(target_score=300)
Rules(target_score=300)
>>> PRESETS["mercy"].lose_score
-200
>>> OPTION["bag_limit"].problem(0)
"'bag_limit' must be at least 1, got 0"
>>> not_an_option("frist_lead")
"'frist_lead' is not an option (did you mean 'first_lead'?)"
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, NamedTuple, cast

from spades_replay.engine.seats import Variant

LEFT_OF_DEALER = "left_of_dealer"
TWO_OF_CLUBS = "two_of_clubs"

RuleValue = int | bool | str | None
"""The value of one option."""

Kind = Literal["int", "bool", "word"]
"""What an option holds: a whole number, true or false, or one of some words."""


class Effect(enum.Enum):
    """What an option does to a game: decide when it ends, score its hands (both only score
    the actions: a what-if rescoring may change them), or shape what was legal."""

    ENDS = "ends"
    SCORES = "scores"
    SHAPES = "shapes"


BOTH = (Variant.TWO_PLAYER, Variant.FOUR_PLAYER)
FOUR = (Variant.FOUR_PLAYER,)


class Option(NamedTuple):
    """One row of the option table: a house-rule option and everything said about it.

    ``low`` and ``high`` bound a whole number; ``choices`` are the words a word option takes.
    ``optional``: ``None`` is a value too (the rule is off). ``since`` is the format version
    that added the option. ``short`` writes a value in a few characters (``{}`` stands for a
    number); ``words`` overrides it for some values (``True``, ``False``, ``None``, a choice).
    ``title`` names the option for people, ``text`` says what it does; ``switch`` is the
    words that turn an optional option on, ``offered`` the value then offered, ``step`` how
    far one step of a number goes (the dashboard's widgets).
    """

    name: str
    kind: Kind
    optional: bool
    default: RuleValue
    effect: Effect
    variants: tuple[Variant, ...]
    since: str
    title: str
    text: str
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()
    short: str = ""
    words: Mapping[RuleValue, str] = MappingProxyType({})
    step: int = 1
    switch: str = ""
    offered: int | None = None

    @property
    def scoring(self) -> bool:
        """Whether the option only scores the actions, never judges them."""
        return self.effect is not Effect.SHAPES

    def short_label(self, value: RuleValue) -> str:
        """``value`` in a few characters, for tables and charts.

        >>> OPTION["lose_score"].short_label(-200), OPTION["lose_score"].short_label(None)
        ('lose-200', 'no-lose')
        """
        if value in self.words:
            return self.words[value]
        return self.short.format(value)

    def expected(self) -> str:
        """What the option takes, in words: ``a whole number from 1 to 13, or null``."""
        if self.kind == "bool":
            wanted = "true or false"
        elif self.kind == "word":
            *others, last = (repr(choice) for choice in self.choices)
            wanted = f"{', '.join(others)} or {last}"
        elif self.high is None:
            wanted = f"a whole number of at least {self.low}"
        else:
            wanted = f"a whole number from {self.low} to {self.high}"
        return f"{wanted}, or null" if self.optional else wanted

    def problem(self, value: object) -> str | None:
        """Why ``value`` is not a value of this option, or ``None`` when it is one."""
        if value is None and self.optional:
            return None
        name = f"'{self.name}'"
        if self.kind == "bool":
            if isinstance(value, bool):
                return None
        elif self.kind == "word":
            if value in self.choices:
                return None
        elif isinstance(value, int) and not isinstance(value, bool):
            if self.low is not None and value < self.low:
                return f"{name} must be at least {self.low}, got {value}"
            if self.high is not None and value > self.high:
                return f"{name} must be at most {self.high}, got {value}"
            return None
        return f"{name} must be {self.expected()}, got {_shown(value)}"


def _shown(value: object) -> str:
    """A value as a message quotes it: JSON's words, and long text cut short."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list | tuple):
        return f"an array of {len(value)}"
    text = repr(value)
    return text if len(text) <= _SHOWN_LIMIT else text[: _SHOWN_LIMIT - 5] + "...'"


_SHOWN_LIMIT = 60


def option(
    default: Any,
    effect: Effect,
    since: str,
    title: str,
    text: str,
    *,
    variants: tuple[Variant, ...] = BOTH,
    low: int | None = None,
    high: int | None = None,
    choices: tuple[str, ...] = (),
    short: str = "",
    words: Mapping[RuleValue, str] | None = None,
    step: int = 1,
    switch: str = "",
    offered: int | None = None,
) -> Any:
    """A field of :class:`Rules`: the option's default, with the rest of its row (the name
    and the type come from the field)."""
    row = {
        "effect": effect,
        "since": since,
        "title": title,
        "text": text,
        "variants": variants,
        "low": low,
        "high": high,
        "choices": choices,
        "short": short,
        "words": dict(words or {}),
        "step": step,
        "switch": switch,
        "offered": offered,
    }
    return dataclasses.field(default=default, metadata={"option": row})


@dataclass(frozen=True, slots=True)
class Rules:
    """Every house-rule option of docs/rules.md ("House rules"), with its default: the option
    table.

    The field names are the keys of a record's ``rules`` object, in the order a record
    writes them; a new option goes at the end.
    """

    target_score: int = option(
        500, Effect.ENDS, "1.0", "Target score",
        "after a hand, a side at or above this score wins (the higher score, if both are)",
        low=1, high=100_000, short="to{}", step=50,
    )  # fmt: skip
    bag_limit: int = option(
        10, Effect.SCORES, "1.0", "Bag limit",
        "each time a side's bags reach this many, it pays the bag penalty",
        low=1, high=1_000, short="bags{}",
    )  # fmt: skip
    bag_penalty: int = option(
        100, Effect.SCORES, "1.0", "Bag penalty",
        "the points a side loses each time its bags reach the bag limit",
        low=0, high=100_000, short="bagpen{}", step=10,
    )  # fmt: skip
    nil_bonus: int = option(
        100, Effect.SCORES, "1.0", "Nil bonus",
        "the points a made Nil wins, and a failed one loses",
        low=0, high=100_000, short="nil{}", step=10,
    )  # fmt: skip
    blind_nil_bonus: int = option(
        200, Effect.SCORES, "1.0", "Blind Nil bonus",
        "the points a made Blind Nil wins, and a failed one loses",
        low=0, high=100_000, short="bnil{}", step=10,
    )  # fmt: skip
    blind_nil_exchange: int = option(
        3, Effect.SHAPES, "1.0", "Blind Nil exchange",
        "how many cards a Blind Nil bidder may exchange, at most",
        low=0, high=13, short="swap{}",
    )  # fmt: skip
    failed_nil_tricks_count_as_bags: bool = option(
        True, Effect.SCORES, "1.0", "A failed Nil's tricks count as bags",
        "the tricks a failed Nil bidder wins count as bags for her side",
        words={True: "nilbags", False: "no-nilbags"},
    )  # fmt: skip
    failed_nil_tricks_help_partner: bool = option(
        False, Effect.SCORES, "1.0", "A failed Nil's tricks help her partner",
        "the tricks a failed Nil bidder wins count toward her partner's bid",
        variants=FOUR, words={True: "pooled", False: "unpooled"},
    )  # fmt: skip
    lose_score: int | None = option(
        None, Effect.ENDS, "1.0", "Lose score",
        "after a hand, a side at or below this score loses (null: never)",
        low=-100_000, high=100_000, short="lose{}", words={None: "no-lose"}, step=50,
        switch="Mercy rule: a side at the lose score loses", offered=-200,
    )  # fmt: skip
    nil_allowed: bool = option(
        True, Effect.SHAPES, "1.1", "Nil allowed",
        "whether a bid of 0 (Nil) is legal",
        words={True: "nil-ok", False: "no-nil"},
    )  # fmt: skip
    blind_nil_allowed: bool = option(
        True, Effect.SHAPES, "1.1", "Blind Nil allowed",
        "whether Blind Nil may be declared",
        words={True: "bnil-ok", False: "no-bnil"},
    )  # fmt: skip
    blind_nil_min_deficit: int | None = option(
        None, Effect.SHAPES, "1.1", "Blind Nil deficit",
        "Blind Nil only for a side at least this many points behind (null: always)",
        low=0, high=100_000, short="bnil-down{}", words={None: "bnil-any"},
    )  # fmt: skip
    min_team_bid: int = option(
        0, Effect.SHAPES, "1.1", "Minimum team bid",
        "a team's numeric bids must add up to at least this",
        variants=FOUR, low=0, high=13, short="min{}",
    )  # fmt: skip
    first_lead: str = option(
        LEFT_OF_DEALER, Effect.SHAPES, "1.1", "First lead",
        "who leads the first trick: left of the dealer, or the holder of the two of clubs",
        variants=FOUR, choices=(LEFT_OF_DEALER, TWO_OF_CLUBS),
        words={LEFT_OF_DEALER: "left-leads", TWO_OF_CLUBS: "2C-leads"},
    )  # fmt: skip
    spades_must_be_broken: bool = option(
        True, Effect.SHAPES, "1.1", "Spades must be broken",
        "whether a spade may be led only once spades are broken",
        words={True: "break-spades", False: "spades-any"},
    )  # fmt: skip
    double_contract_from: int | None = option(
        None, Effect.SCORES, "1.1", "Contract of at least (tricks)",
        "a made contract of at least this many tricks scores 20 a trick (null: never)",
        low=1, high=13, short="double{}", words={None: "no-double"},
        switch="Doubled contracts: 20 a trick from", offered=10,
    )  # fmt: skip

    def __repr__(self) -> str:
        changed = [
            f"{field.name}={getattr(self, field.name)!r}"
            for field in dataclasses.fields(self)
            if getattr(self, field.name) != field.default
        ]
        return f"Rules({', '.join(changed)})"

    def as_dict(self) -> dict[str, RuleValue]:
        """Every option, resolved, in declaration order."""
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}

    def replace(self, **changes: RuleValue) -> Rules:
        """A copy with some options changed."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


_KINDS: dict[str, tuple[Kind, bool]] = {
    "int": ("int", False),
    "int | None": ("int", True),
    "bool": ("bool", False),
    "str": ("word", False),
}
"""The annotations an option's field may have: what it holds, and whether null is a value."""


def _row(field: dataclasses.Field[Any]) -> Option:
    kind, optional = _KINDS[str(field.type)]
    default = cast("RuleValue", field.default)
    return Option(field.name, kind, optional, default, **field.metadata["option"])


OPTIONS: tuple[Option, ...] = tuple(map(_row, dataclasses.fields(Rules)))
"""The option table, in the order of :class:`Rules` (a record's order)."""
OPTION: dict[str, Option] = {row.name: row for row in OPTIONS}
"""Each option's row by name."""

SCORING_OPTIONS = tuple(
    row.name for effect in (Effect.ENDS, Effect.SCORES) for row in OPTIONS if row.effect is effect
)
"""The options that only score the actions, never judge them: what a what-if rescoring may
change (docs/rules.md), those that end the game first. Every other option shapes what was
legal."""


def not_an_option(name: str, listed: Iterable[str] = OPTION, which: str = "the options") -> str:
    """What to say of ``name`` when it names no option: the nearest option if it looks
    misspelt, else the ``listed`` ones (``which`` says what they are).

    >>> not_an_option("colour", ("target_score", "lose_score"), "the scoring options")
    "'colour' is not an option; the scoring options are target_score, lose_score"
    """
    import difflib  # only here: asked only for a misspelt option

    near = difflib.get_close_matches(name, OPTION, n=1)
    if near:
        return f"{_shown(name)} is not an option (did you mean '{near[0]}'?)"
    return f"{_shown(name)} is not an option; {which} are {', '.join(listed)}"


def lose_score_problem(target_score: object, lose_score: object) -> str | None:
    """Why ``lose_score`` cannot go with ``target_score`` (it must be below it), or ``None``."""
    if isinstance(lose_score, int) and isinstance(target_score, int) and lose_score >= target_score:
        return f"lose_score ({lose_score}) must be below target_score ({target_score})"
    return None


def options_problem(options: Mapping[str, object]) -> str | None:
    """The first reason ``options`` are not a rules object's options (an unknown name, a value
    out of its range, ``lose_score`` not below ``target_score``), or ``None``."""
    for name, value in options.items():
        row = OPTION.get(name)
        problem = not_an_option(name) if row is None else row.problem(value)
        if problem is not None:
            return problem
    return lose_score_problem(
        options.get("target_score", OPTION["target_score"].default), options.get("lose_score")
    )


STANDARD = Rules()

PRESETS: dict[str, Rules] = {
    "standard": STANDARD,
    "pooled-nil": Rules(failed_nil_tricks_help_partner=True),
    "mercy": Rules(lose_score=-200),
    "short": Rules(target_score=250),
}
"""Named rule sets: ``standard`` is the defaults of docs/rules.md; ``pooled-nil`` counts a
failed Nil bidder's tricks toward her partner's bid (as many apps do); ``mercy`` ends the game
for a side at -200; ``short`` plays to 250."""

"""House rules as data: one frozen object with the defaults of RULES.md, and named presets.

>>> Rules().target_score
500
>>> Rules(target_score=300)
Rules(target_score=300)
>>> PRESETS["mercy"].lose_score
-200
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

LEFT_OF_DEALER = "left_of_dealer"
TWO_OF_CLUBS = "two_of_clubs"
FIRST_LEADS = (LEFT_OF_DEALER, TWO_OF_CLUBS)
"""The values of ``first_lead``: who leads the first trick of a four-player hand."""

RuleValue = int | bool | str | None
"""The value of one option."""

SCORING_OPTIONS = (
    "target_score",
    "lose_score",
    "bag_limit",
    "bag_penalty",
    "nil_bonus",
    "blind_nil_bonus",
    "failed_nil_tricks_count_as_bags",
    "failed_nil_tricks_help_partner",
    "double_contract_from",
)
"""The options that only score the actions, never judge them: what a what-if rescoring may
change (docs/rules.md). Every other option shapes what was legal."""


@dataclass(frozen=True, slots=True)
class Rules:
    """Every house-rule option of RULES.md, with its default.

    The field names are the keys of a record's ``rules`` object.
    """

    target_score: int = 500
    bag_limit: int = 10
    bag_penalty: int = 100
    nil_bonus: int = 100
    blind_nil_bonus: int = 200
    blind_nil_exchange: int = 3
    failed_nil_tricks_count_as_bags: bool = True
    failed_nil_tricks_help_partner: bool = False
    lose_score: int | None = None
    nil_allowed: bool = True
    blind_nil_allowed: bool = True
    blind_nil_min_deficit: int | None = None
    min_team_bid: int = 0
    first_lead: str = LEFT_OF_DEALER
    spades_must_be_broken: bool = True
    double_contract_from: int | None = None

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


STANDARD = Rules()

PRESETS: dict[str, Rules] = {
    "standard": STANDARD,
    "pooled-nil": Rules(failed_nil_tricks_help_partner=True),
    "mercy": Rules(lose_score=-200),
    "short": Rules(target_score=250),
}
"""Named rule sets: ``standard`` is RULES.md's defaults; ``pooled-nil`` counts a failed Nil
bidder's tricks toward her partner's bid (as many apps do); ``mercy`` ends the game for a side
at -200; ``short`` plays to 250."""

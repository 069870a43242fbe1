"""The actions of a hand, and what the engine raises when one breaks a rule.

Actions, each naming the seat that takes it: :class:`DeclareBlindNil` (two-player, before the
seat's first draft turn), :class:`Draw` (one draft turn), :class:`Exchange` (a Blind Nil
exchange, possibly of no cards), :class:`PlaceBid` and :class:`PlayCard`.
:func:`spades_replay.engine.state.apply` takes them one at a time.

The engine speaks of actions in a record by their address within one hand: a tuple such as
``("plays", 17)``, ``("exchanges", 0, "in", 2)`` or ``("deal", 2, 7)`` (the list of actions and
the indexes within it). The replay layer adds the hand, the player's name and the JSON Pointer.

>>> str(PlaceBid(1, 4)), str(PlayCard(0, 51))
('seat 1 bids 4', 'seat 0 plays AS')
"""

from __future__ import annotations

from dataclasses import dataclass

from spades_replay.engine.cards import CARD_NAMES, Card
from spades_replay.engine.scoring import Bid, bid_name
from spades_replay.engine.seats import Seat
from spades_replay.errors import Code, SpadesReplayError

ActionPath = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Exchange:
    """A Blind Nil exchange: what ``seat`` put away (``out``) and took in (``in_``)."""

    seat: Seat
    out: tuple[Card, ...]
    in_: tuple[Card, ...]

    def __str__(self) -> str:
        given = " ".join(CARD_NAMES[card] for card in self.out) or "nothing"
        taken = " ".join(CARD_NAMES[card] for card in self.in_) or "nothing"
        return f"seat {self.seat} gives {given} and takes {taken}"


@dataclass(frozen=True, slots=True)
class DeclareBlindNil:
    """Two-player: ``seat`` declares Blind Nil before taking her first card of the draft."""

    seat: Seat

    def __str__(self) -> str:
        return f"seat {self.seat} declares Blind Nil"


@dataclass(frozen=True, slots=True)
class Draw:
    """Two-player: ``seat`` takes her draft turn, keeping the top card or the next one."""

    seat: Seat
    keep: bool

    def __str__(self) -> str:
        return f"seat {self.seat} {'keeps' if self.keep else 'discards'} the top card"


@dataclass(frozen=True, slots=True)
class PlaceBid:
    """``seat`` bids: 1..13 tricks, 0 for Nil, -1 (:data:`BLIND_NIL`) for Blind Nil."""

    seat: Seat
    bid: Bid

    def __str__(self) -> str:
        return f"seat {self.seat} bids {bid_name(self.bid)}"


@dataclass(frozen=True, slots=True)
class PlayCard:
    """``seat`` plays ``card`` to the current trick."""

    seat: Seat
    card: Card

    def __str__(self) -> str:
        return f"seat {self.seat} plays {CARD_NAMES[self.card]}"


Action = DeclareBlindNil | Draw | Exchange | PlaceBid | PlayCard
"""Any action of a hand."""


class IllegalActionError(SpadesReplayError):
    """An action that the rules do not allow, with why and what would have been legal.

    ``legal`` holds what would have been allowed instead, in notation (cards, usually).
    ``trick`` and ``position`` (both 1-based) are set for card plays.
    """

    def __init__(
        self,
        code: Code,
        message: str,
        rule: str,
        *,
        at: ActionPath,
        seat: Seat | None = None,
        legal: tuple[str, ...] = (),
        trick: int | None = None,
        position: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule = rule
        self.at = at
        self.seat = seat
        self.legal = legal
        self.trick = trick
        self.position = position

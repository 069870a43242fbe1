"""What the engine raises when an action breaks a rule.

The engine speaks of actions by their address within one hand: a tuple such as
``("plays", 17)``, ``("exchanges", 0, "in", 2)`` or ``("deal", 2, 7)`` (the list of actions and
the indexes within it). The replay layer adds the hand, the player's name and the JSON Pointer.
"""

from __future__ import annotations

from spades_replay.engine.seats import Seat
from spades_replay.errors import Code, SpadesReplayError

ActionPath = tuple[str | int, ...]


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

    def relocated(self, at: ActionPath) -> IllegalActionError:
        """The same error, addressed to another action (the record's own index of it)."""
        return IllegalActionError(
            self.code,
            self.message,
            self.rule,
            at=at,
            seat=self.seat,
            legal=self.legal,
            trick=self.trick,
            position=self.position,
        )

"""Seats, sides and the two variants, with the arithmetic of turn order.

Seats are 0-based ints in clockwise order. A *side* is what scores: the player herself in
two-player, the partnership in four-player (team 0 = seats 0 and 2, team 1 = seats 1 and 3).

>>> Variant.FOUR_PLAYER.next_seat(3)
0
>>> Variant.FOUR_PLAYER.partner(1)
3
>>> Variant.FOUR_PLAYER.seats_from(2)
(2, 3, 0, 1)
>>> Variant.TWO_PLAYER.side_of(1), Variant.FOUR_PLAYER.side_of(3)
(1, 1)
"""

from __future__ import annotations

import enum

Seat = int
Side = int


class Variant(enum.StrEnum):
    """The two variants of docs/rules.md; the value is the record's ``variant`` string."""

    TWO_PLAYER = "two-player"
    FOUR_PLAYER = "four-player"

    seat_count: int
    """2 or 4."""
    seats: tuple[Seat, ...]
    """Every seat, in order."""
    cards_per_hand: int
    """How many cards are played in a complete hand: 26 or 52."""

    sides_seats: tuple[tuple[Seat, ...], tuple[Seat, ...]]
    """The seats of each side."""

    def __init__(self, value: str) -> None:
        # plain attributes, not properties: the replay reads them in its inner loops
        self.seat_count = 2 if value == "two-player" else 4
        self.seats = tuple(range(self.seat_count))
        self.cards_per_hand = 13 * self.seat_count
        self.sides_seats = ((0,), (1,)) if self.seat_count == 2 else ((0, 2), (1, 3))
        self._orders = tuple(
            tuple((start + i) % self.seat_count for i in self.seats) for start in self.seats
        )

    def __repr__(self) -> str:
        return f"Variant({self.value!r})"

    def next_seat(self, seat: Seat) -> Seat:
        """The seat after ``seat`` in turn order (clockwise)."""
        return (seat + 1) % self.seat_count

    def seats_from(self, start: Seat) -> tuple[Seat, ...]:
        """Every seat in turn order, beginning with ``start``."""
        return self._orders[start]

    def side_of(self, seat: Seat) -> Side:
        """The side (scoring unit) of ``seat``."""
        return seat if self is Variant.TWO_PLAYER else seat % 2

    def side_seats(self, side: Side) -> tuple[Seat, ...]:
        """The seats of ``side``."""
        return self.sides_seats[side]

    def partner(self, seat: Seat) -> Seat | None:
        """The partner of ``seat`` in four-player; ``None`` in two-player."""
        return None if self is Variant.TWO_PLAYER else seat ^ 2

    def side_name(self, side: Side) -> str:
        """How the game names a side: ``"seat 1"`` or ``"team 1"``."""
        return f"{'seat' if self is Variant.TWO_PLAYER else 'team'} {side}"

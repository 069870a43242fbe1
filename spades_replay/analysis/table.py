"""The solver's transposition table: proved bounds at trick starts, by partition search.

A result proved at a trick start is stored with the cards it depended on ("winning ranks", as
bridge solvers say): for each suit, how many of the top unplayed cards mattered and who holds
them. It then holds for every position with the same key (each hand's length in each suit,
the leader, whether spades are broken) and the same holders of those top cards, whoever holds
the lower cards. Ranks are relative: cards adjacent among those still in play are the same
card. Clubs, diamonds and hearts play alike, so they are sorted into a canonical order.

>>> signatures = Signatures(2)
>>> key, slots = signatures.signature([0b11, 1 << 13, 0, 0], leader=0, broken=False)
>>> table = TranspositionTable(2)
>>> table.store(key, slots, rel=0, target=1, result=True, left=2)
>>> table.find(key, slots, 1)
1
>>> table.find(key, slots, 2)
-1
"""

from __future__ import annotations

from spades_replay.engine.seats import Seat
from spades_replay.engine.tricks import FIRST_SPADE

__all__ = ["Key", "Signatures", "Slot", "TranspositionTable", "ranks_down"]

Slot = tuple[int, int, int]
"""One suit of a position as the table sees it: (owners from the top, present ranks, suit)."""
Key = tuple[int, ...]
"""What a stored result must match exactly: each suit's lengths per hand, the leader and
whether spades are broken."""
Entries = dict[tuple[int, ...], dict[tuple[int, ...], tuple[int, int]]]
"""The results stored under one key: {top cards counted per suit: {their owners: (low, high)}}."""

_RANKS_DOWN: list[tuple[int, ...] | None] = [None] * 8192


def ranks_down(present: int) -> tuple[int, ...]:
    """The ranks in a 13-bit suit mask, highest first (cached)."""
    ranks = _RANKS_DOWN[present]
    if ranks is None:
        ranks = tuple(rank for rank in range(12, -1, -1) if present >> rank & 1)
        _RANKS_DOWN[present] = ranks
    return ranks


def _digit(seat_count: int) -> int:
    """Bits per owner in an owner pattern."""
    return 1 if seat_count == 2 else 2


class Signatures:
    """Turns the solver's suits (per suit, each seat's ranks at bit ``rank + 13 * seat``)
    into a table key and slots, caching each suit's (lengths, owners, present ranks)."""

    __slots__ = ("_digit", "_info_of", "_n")

    def __init__(self, seat_count: int) -> None:
        self._n = seat_count
        self._digit = _digit(seat_count)
        self._info_of: dict[int, tuple[int, int, int]] = {}

    def _info(self, chunk: int) -> tuple[int, int, int]:
        """(lengths, owners, present ranks) of one suit from its owner chunk (cached)."""
        info = self._info_of.get(chunk)
        if info is not None:
            return info
        n = self._n
        lengths = 0
        present = 0
        for seat in range(n):
            part = chunk >> (13 * seat) & 0x1FFF
            present |= part
            lengths = lengths << 4 | part.bit_count()
        owners = 0
        for place, rank in enumerate(ranks_down(present)):
            for seat in range(n):
                if chunk >> (rank + 13 * seat) & 1:
                    owners |= seat << (self._digit * place)
                    break
        info = (lengths, owners, present)
        self._info_of[chunk] = info
        return info

    def signature(
        self, suits: list[int], leader: Seat, broken: bool
    ) -> tuple[Key, tuple[Slot, ...]]:
        """The table key of the trick start (suit lengths of every hand, the leader, spades
        broken) and its suits in key order: clubs, diamonds and hearts play alike, so they
        are sorted."""
        known = self._info_of
        a = known.get(suits[0]) or self._info(suits[0])
        b = known.get(suits[1]) or self._info(suits[1])
        c = known.get(suits[2]) or self._info(suits[2])
        d = known.get(suits[3]) or self._info(suits[3])
        sa, sb, sc = 0, 1, 2
        if a > b:
            a, b, sa, sb = b, a, sb, sa
        if b > c:
            b, c, sb, sc = c, b, sc, sb
            if a > b:
                a, b, sa, sb = b, a, sb, sa
        key = (a[0], b[0], c[0], d[0], leader, broken)
        return key, ((a[1], a[2], sa), (b[1], b[2], sb), (c[1], c[2], sc), (d[1], d[2], 3))


class TranspositionTable:
    """Proved bounds on side 0's tricks (or a yes/no, stored as a bound on 1) by key and top
    cards. Entries under one key are grouped by how many top cards of each suit they need,
    so each group costs one lookup of a position's top cards."""

    __slots__ = ("_entries", "_top_masks")

    def __init__(self, seat_count: int) -> None:
        digit = _digit(seat_count)
        self._top_masks = tuple((1 << (digit * count)) - 1 for count in range(14))
        self._entries: dict[Key, Entries] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        """Forget every stored result."""
        self._entries.clear()

    def find(self, key: Key, slots: tuple[Slot, ...], target: int) -> int:
        """-1 when no stored result decides ``target`` here; otherwise the answer in bit 0
        and, above it, the cards it depended on (each suit's lowest such card)."""
        entries = self._entries.get(key)
        if entries is None:
            return -1
        masks = self._top_masks
        (oa, pa, sa), (ob, pb, sb), (oc, pc, sc), (od, pd, _) = slots
        for counts, bounds in entries.items():
            ka, kb, kc, kd = counts
            found = bounds.get((oa & masks[ka], ob & masks[kb], oc & masks[kc], od & masks[kd]))
            if found is None:
                continue
            low, high = found
            if low < target <= high:
                continue
            rel = 0
            if ka:
                rel |= 1 << (13 * sa + ranks_down(pa)[ka - 1])
            if kb:
                rel |= 1 << (13 * sb + ranks_down(pb)[kb - 1])
            if kc:
                rel |= 1 << (13 * sc + ranks_down(pc)[kc - 1])
            if kd:
                rel |= 1 << (FIRST_SPADE + ranks_down(pd)[kd - 1])
            return rel << 1 | (low >= target)
        return -1

    def store(
        self,
        key: Key,
        slots: tuple[Slot, ...],
        rel: int,
        target: int,
        result: bool,
        left: int,
    ) -> None:
        """Keep a proved bound with the top cards it depended on (``rel``: for each suit, its
        lowest card that mattered)."""
        counts = []
        tops = []
        masks = self._top_masks
        for owners, present, suit in slots:
            part = rel >> (13 * suit) & 0x1FFF
            count = (present >> ((part & -part).bit_length() - 1)).bit_count() if part else 0
            counts.append(count)
            tops.append(owners & masks[count])
        entries = self._entries.get(key)
        if entries is None:
            entries = self._entries[key] = {}
        bounds = entries.get(tuple(counts))
        if bounds is None:
            bounds = entries[tuple(counts)] = {}
        pattern = tuple(tops)
        low, high = bounds.get(pattern, (0, left))
        bounds[pattern] = (max(low, target), high) if result else (low, min(high, target - 1))

"""The compiled search kernel: the pure-Python solver's search, compiled with numba.

The same method as :mod:`.solver` (null-window alpha-beta over bitmask holdings, partition
search in a transposition table at trick starts, equivalent cards, the same move order and
bounds), written in the subset of Python that numba compiles to machine code. The pure-Python
solver stays the reference: a test makes the two agree on thousands of random positions, and
the exhaustive cross-check runs on both.

Everything here works on plain int64 values and arrays:

- ``state``: the scalars of a search (:data:`REL` ... :data:`TABLE_ID`);
- ``hands``: each seat's cards (bit ``card``); ``suits``: per suit, each seat's ranks at bit
  ``rank + 13 * seat``; ``side0`` and ``wants``: per seat, 1 when it is on side 0 / when it
  plays for a ``True`` answer (side 0 in the trick search, the defence in the Nil search);
- the table: ``heads`` maps a key to its first group of "top cards counted per suit",
  ``links`` chains the groups, ``bounds`` maps (key, counts, owners of those top cards) to a
  proved ``low | high << 8`` on side 0's tricks (the Nil search stores a yes/no as a bound
  on 1). The trick search and each seat's Nil search keep apart by the table id in the key.

A search runs within a node budget (``state[BUDGET]``): past it, it sets ``state[TIMEOUT]``
and unwinds without storing anything, and the caller reads the clock and starts again; the
bounds stored before make the new start cheap.

Importing this module needs numba (the optional extra ``fast``); compiled code is cached on
disk beside the module, so only the first run on a machine compiles.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba import types
from numba.typed import Dict, List

__all__ = [
    "BUDGET",
    "NIL",
    "NIL_PARTNER",
    "NIL_SEAT",
    "NODES",
    "REL",
    "SEATS",
    "STATE_SIZE",
    "TABLE_ID",
    "TIMEOUT",
    "new_table",
    "search",
]

REL = 0
"""The cards the last answer depended on (each suit's lowest such card)."""
NODES = 1
"""Trick-start nodes searched so far."""
BUDGET = 2
"""The node count at which the search gives up (sets :data:`TIMEOUT`)."""
TIMEOUT = 3
"""1 when the search ran out of budget."""
NIL = 4
"""1 for the Nil search, 0 for the trick search."""
NIL_SEAT = 5
NIL_PARTNER = 6
"""The Nil bidder's partner, -1 in two-player."""
SEATS = 7
TABLE_ID = 8
"""0 for the trick search, 1 + seat for a seat's Nil search."""
STATE_SIZE = 9

_PLIES = 64
"""Rows of the move buffers: one per card played below the root, and some to spare."""

_FIRST_SPADE = 39
_FULL = (1 << 52) - 1
_NON_SPADES = (1 << 39) - 1
_SUIT_STARTS = 1 | 1 << 13 | 1 << 26 | 1 << 39
_SUIT_MASK = np.array([0x1FFF << (13 * suit) for suit in range(4)], dtype=np.int64)
_DISCARD = np.array(
    [card % 13 + (13 if card >= _FIRST_SPADE else 0) for card in range(52)], dtype=np.int64
)
_ABOVE = np.array(
    [(0x1FFF << (13 * (card // 13))) & ~((2 << card) - 1) for card in range(52)], dtype=np.int64
)

_jit = numba.njit(cache=True, nogil=True)

_KEY = types.UniTuple(types.int64, 2)  # type: ignore[no-untyped-call]
_BOUND_KEY = types.UniTuple(types.int64, 5)  # type: ignore[no-untyped-call]


def new_table() -> tuple[Any, Any, Any]:
    """An empty table: (heads, links, bounds)."""
    heads = Dict.empty(key_type=_KEY, value_type=types.int64)
    links = List.empty_list(types.int64)
    bounds = Dict.empty(key_type=_BOUND_KEY, value_type=types.int64)
    return heads, links, bounds


@_jit
def _popcount(x: int) -> int:
    x = x - ((x >> 1) & 0x5555555555555)
    x = (x & 0x3333333333333) + ((x >> 2) & 0x3333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


@_jit
def _bitlen(x: int) -> int:
    n = 0
    if x >> 32:
        n += 32
        x >>= 32
    if x >> 16:
        n += 16
        x >>= 16
    if x >> 8:
        n += 8
        x >>= 8
    if x >> 4:
        n += 4
        x >>= 4
    if x >> 2:
        n += 2
        x >>= 2
    if x >> 1:
        n += 1
        x >>= 1
    return n + x


@_jit
def _beats(card: int, best: int) -> bool:
    return card > best and (card >= _FIRST_SPADE or card // 13 == best // 13)


@_jit
def _legal(hand: int, led: int, broken: bool) -> int:
    """The engine's rule (:func:`~spades_replay.engine.tricks.legal_plays`); ``led`` -1 for
    a lead."""
    if led < 0:
        if broken or not hand & _NON_SPADES:
            return hand
        return hand & _NON_SPADES
    following = hand & _SUIT_MASK[led]
    return following if following else hand


@_jit
def _representatives(legal: int, gone: int) -> int:
    """One card per group of equivalent cards (see :func:`.position.representatives`)."""
    runs = legal | gone
    starts = runs & ~((runs << 1) & ~_SUIT_STARTS)
    return (starts & legal) | ((gone + (starts & gone)) & legal)


@_jit
def _whole_groups(depended: int, chosen: int, legal: int, gone: int) -> int:
    """See :func:`.position.whole_groups`; ``chosen`` is the mask of the searched cards."""
    runs = legal | gone
    while chosen:
        card = _bitlen(chosen) - 1
        chosen ^= 1 << card
        suit = _SUIT_MASK[card // 13]
        pinned = depended & suit
        lowest = pinned & -pinned
        if not pinned or lowest <= 1 << card:
            continue
        above = runs >> card
        length = _bitlen((above + 1) & ~above) - 1
        if legal & (((1 << length) - 1) << card) & suit >= lowest:
            depended |= 1 << card
    return depended


@_jit
def _sort(moves: Any, keys: Any, count: int) -> None:
    """Sort ``moves[:count]`` by ``keys[:count]`` (stable insertion sort)."""
    for i in range(1, count):
        move = moves[i]
        key = keys[i]
        j = i - 1
        while j >= 0 and keys[j] > key:
            moves[j + 1] = moves[j]
            keys[j + 1] = keys[j]
            j -= 1
        moves[j + 1] = move
        keys[j + 1] = key


@_jit
def _lead_order(
    moves: Any, keys: Any, count: int, hand: int, first: int, second: int, gone: int
) -> None:
    """See :func:`.ordering.lead_order`; ``second`` is -1 in two-player."""
    others = _FULL & ~gone & ~hand
    for i in range(count):
        card = moves[i]
        mask = _SUIT_MASK[card // 13]
        ruffed = False
        if first >> _FIRST_SPADE and not first & mask:
            ruffed = True
        if second >= 0 and second >> _FIRST_SPADE and not second & mask:
            ruffed = True
        if card < _FIRST_SPADE and ruffed:
            rank = 2000
        elif others & _ABOVE[card]:
            length = _popcount(first & mask)
            if second >= 0:
                length = max(length, _popcount(second & mask))
            rank = 1000 + 100 * length
        else:
            rank = 0
        keys[i] = (rank + _DISCARD[card]) * 64 + card
    _sort(moves, keys, count)


@_jit
def _follow_order(
    moves: Any, keys: Any, count: int, following: int, best: int, partner_wins: bool
) -> None:
    """See :func:`.ordering.follow_order`; ``moves`` come in card order."""
    if following:
        if partner_wins or best // 13 != moves[0] // 13:
            return
        split = 0
        while split < count and moves[split] < best:
            split += 1
        if split == 0:
            return
        for i in range(count):
            keys[i] = moves[i]
        for i in range(count):
            moves[i] = keys[(i + split) % count]
        return
    for i in range(count):
        card = moves[i]
        keys[i] = _DISCARD[card] * 64 + card
        if not partner_wins and not _beats(card, best):
            keys[i] += 64 * 64
    _sort(moves, keys, count)


@_jit
def _nil_order(moves: Any, keys: Any, count: int, role: int, best: int) -> None:
    """See :func:`.ordering.nil_order`."""
    for i in range(count):
        card = moves[i]
        if role == 0:
            if _beats(card, best):
                keys[i] = 10000 + _DISCARD[card] * 64 + card
            else:
                keys[i] = (63 - _DISCARD[card]) * 64 + card
        elif role == 1:
            keys[i] = (63 - _DISCARD[card]) * 64 + card
        else:
            keys[i] = _DISCARD[card] * 64 + card
    _sort(moves, keys, count)


@_jit
def _last_trick(state: Any, hands: Any, leader: int) -> int:
    """The winner of the last trick, setting the card it depended on."""
    n = state[SEATS]
    best = _bitlen(hands[leader]) - 1
    best_seat = leader
    contested = False
    for offset in range(1, n):
        seat = (leader + offset) % n
        card = _bitlen(hands[seat]) - 1
        if card // 13 == best // 13:
            contested = True
            if card > best:
                best = card
                best_seat = seat
        elif card >= _FIRST_SPADE:
            best = card
            best_seat = seat
            contested = False
    state[REL] = (1 << best) if contested else 0
    return best_seat


@_jit
def _quick_tricks(state: Any, hands: Any, leader: int) -> tuple[int, int]:
    """See :meth:`.solver.Solver._quick_tricks`: (tricks, cards they depended on)."""
    n = state[SEATS]
    hand = hands[leader]
    if n == 2:
        first = hands[1 - leader]
        second = 0
        partner = 0
    else:
        first = hands[(leader + 1) % 4]
        second = hands[(leader + 3) % 4]
        partner = hands[(leader + 2) % 4]
    others = partner | first | second
    first_ruffs = first >> _FIRST_SPADE != 0
    second_ruffs = second >> _FIRST_SPADE != 0
    opponent_top = max(_bitlen(first >> _FIRST_SPADE), _bitlen(second >> _FIRST_SPADE))
    quick = 0
    depended = 0
    for suit in range(3):
        mask = _SUIT_MASK[suit]
        mine = hand & mask
        if not mine:
            continue
        theirs = others & mask
        run = _popcount(mine >> _bitlen(theirs))
        if first_ruffs:
            run = min(run, _popcount(first & mask))
        if second_ruffs:
            run = min(run, _popcount(second & mask))
        if run:
            quick += run
            if theirs:
                depended |= 1 << (_bitlen(theirs) - 1)
    if partner:
        quick = min(quick, _popcount(partner & _NON_SPADES) + 1)
    own = _popcount(hand >> (_FIRST_SPADE + opponent_top))
    if own and opponent_top:
        depended |= 1 << (_FIRST_SPADE - 1 + opponent_top)
    return quick + own, depended


@_jit
def _suit_info(chunk: int, n: int, digit: int) -> tuple[int, int, int]:
    """(lengths, owners from the top, present ranks) of one suit's owner chunk."""
    lengths = 0
    present = 0
    for seat in range(n):
        part = (chunk >> (13 * seat)) & 0x1FFF
        present |= part
        lengths = (lengths << 4) | _popcount(part)
    owners = 0
    place = 0
    for rank in range(12, -1, -1):
        if present >> rank & 1:
            for seat in range(n):
                if chunk >> (rank + 13 * seat) & 1:
                    owners |= seat << (digit * place)
                    break
            place += 1
    return lengths, owners, present


@_jit
def _greater(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    if a[0] != b[0]:
        return a[0] > b[0]
    if a[1] != b[1]:
        return a[1] > b[1]
    return a[2] > b[2]


@_jit
def _signature(state: Any, suits: Any, leader: int, broken: bool, slots: Any) -> tuple[int, int]:
    """The table key (k1, k2) of the trick start; ``slots`` (4 x 3) gets each suit in key
    order as (owners, present, suit): clubs, diamonds and hearts are sorted."""
    n = state[SEATS]
    digit = 1 if n == 2 else 2
    a = _suit_info(suits[0], n, digit)
    b = _suit_info(suits[1], n, digit)
    c = _suit_info(suits[2], n, digit)
    d = _suit_info(suits[3], n, digit)
    sa, sb, sc = 0, 1, 2
    if _greater(a, b):
        a, b, sa, sb = b, a, sb, sa
    if _greater(b, c):
        b, c, sb, sc = c, b, sc, sb
        if _greater(a, b):
            a, b, sa, sb = b, a, sb, sa
    slots[0, 0], slots[0, 1], slots[0, 2] = a[1], a[2], sa
    slots[1, 0], slots[1, 1], slots[1, 2] = b[1], b[2], sb
    slots[2, 0], slots[2, 1], slots[2, 2] = c[1], c[2], sc
    slots[3, 0], slots[3, 1], slots[3, 2] = d[1], d[2], 3
    k1 = a[0] | (b[0] << 16) | (c[0] << 32)
    k2 = d[0] | (leader << 16) | (int(broken) << 18) | (state[TABLE_ID] << 19)
    return k1, k2


@_jit
def _tops(slots: Any, counts: int, digit: int) -> tuple[int, int]:
    """The owners of the counted top cards, two suits to a number."""
    first = 0
    second = 0
    for slot in range(4):
        count = (counts >> (4 * slot)) & 0xF
        owners = slots[slot, 0] & ((1 << (digit * count)) - 1)
        if slot < 2:
            first |= owners << (26 * slot)
        else:
            second |= owners << (26 * (slot - 2))
    return first, second


@_jit
def _kth_rank(present: int, count: int) -> int:
    """The rank of the ``count``-th present card from the top."""
    for rank in range(12, -1, -1):
        if present >> rank & 1:
            count -= 1
            if count == 0:
                return rank
    return 0


@_jit
def _find(
    state: Any,
    heads: Any,
    links: Any,
    bounds: Any,
    k1: int,
    k2: int,
    slots: Any,
    target: int,
) -> int:
    """-1, or the decided answer in bit 0 and the cards it depended on above it."""
    link = -1
    if (k1, k2) in heads:
        link = heads[(k1, k2)]
    digit = 1 if state[SEATS] == 2 else 2
    while link >= 0:
        counts = links[link + 1]
        link = links[link]
        top_a, top_b = _tops(slots, counts, digit)
        entry = (k1, k2, counts, top_a, top_b)
        if entry not in bounds:
            continue
        found = bounds[entry]
        low = found & 0xFF
        high = found >> 8
        if low < target <= high:
            continue
        rel = 0
        for slot in range(4):
            count = (counts >> (4 * slot)) & 0xF
            if count:
                rel |= 1 << (13 * slots[slot, 2] + _kth_rank(slots[slot, 1], count))
        return (rel << 1) | (1 if low >= target else 0)
    return -1


@_jit
def _store(
    state: Any,
    heads: Any,
    links: Any,
    bounds: Any,
    k1: int,
    k2: int,
    slots: Any,
    rel: int,
    target: int,
    result: bool,
    left: int,
) -> None:
    """Keep a proved bound with the top cards it depended on."""
    counts = 0
    for slot in range(4):
        part = (rel >> (13 * slots[slot, 2])) & 0x1FFF
        if part:
            low = _bitlen(part & -part) - 1
            counts |= _popcount(slots[slot, 1] >> low) << (4 * slot)
    digit = 1 if state[SEATS] == 2 else 2
    top_a, top_b = _tops(slots, counts, digit)
    key = (k1, k2, counts, top_a, top_b)
    if key not in bounds:
        low, high = 0, left
        head = -1
        if (k1, k2) in heads:
            head = heads[(k1, k2)]
        known = False
        link = head
        while link >= 0:
            if links[link + 1] == counts:
                known = True
                break
            link = links[link]
        if not known:
            heads[(k1, k2)] = len(links)
            links.append(head)
            links.append(counts)
    else:
        found = bounds[key]
        low, high = found & 0xFF, found >> 8
    if result:
        low = max(low, target)
    else:
        high = min(high, target - 1)
    bounds[key] = low | (high << 8)


@_jit
def search(
    state: Any,
    hands: Any,
    suits: Any,
    side0: Any,
    wants: Any,
    buffers: Any,
    heads: Any,
    links: Any,
    bounds: Any,
    seat: int,
    position: int,
    led: int,
    best: int,
    best_seat: int,
    contested: bool,
    broken: bool,
    target: int,
    left: int,
    table: int,
    gone: int,
    ply: int,
) -> bool:
    """A card of the trick in progress (a trick start when ``position`` is 0): does the side
    that wants ``True`` get it? Sets ``state[REL]``. ``buffers`` holds, per ply, the moves
    (row ``2 * ply``) and sort keys (``2 * ply + 1``); ``slots`` (4 x 3) follow at the end."""
    n = state[SEATS]
    nil = state[NIL] != 0
    k1 = 0
    k2 = 0
    slots = buffers[2 * _PLIES + 4 * ply : 2 * _PLIES + 4 * ply + 4, :3]
    if position == 0:
        if not nil:
            if target <= 0 or target > left:
                state[REL] = 0
                return target <= 0
            if left == 1:
                return bool(side0[_last_trick(state, hands, seat)] != 0)
            if n == 2:
                mine = hands[0] >> _FIRST_SPADE
                theirs = hands[1] >> _FIRST_SPADE
                top0 = _bitlen(mine)
                top1 = _bitlen(theirs)
                sure0 = _popcount(mine >> top1)
                sure1 = _popcount(theirs >> top0)
            else:
                first = hands[0] >> _FIRST_SPADE
                second = hands[1] >> _FIRST_SPADE
                third = hands[2] >> _FIRST_SPADE
                fourth = hands[3] >> _FIRST_SPADE
                top0 = _bitlen(first | third)
                top1 = _bitlen(second | fourth)
                sure0 = max(_popcount(first >> top1), _popcount(third >> top1))
                sure1 = max(_popcount(second >> top0), _popcount(fourth >> top0))
            if sure0 >= target:
                state[REL] = (1 << (_FIRST_SPADE - 1 + top1)) if top1 else 0
                return True
            if left - sure1 < target:
                state[REL] = (1 << (_FIRST_SPADE - 1 + top0)) if top0 else 0
                return False
        else:
            if left == 0:
                state[REL] = 0
                return False
            if left == 1:
                return bool(_last_trick(state, hands, seat) == state[NIL_SEAT])
            nil_seat = state[NIL_SEAT]
            her_spades = hands[nil_seat] >> _FIRST_SPADE
            if her_spades:
                others = 0
                for other in range(n):
                    if other != nil_seat:
                        others |= hands[other]
                their_top = _bitlen(others >> _FIRST_SPADE)
                if _bitlen(her_spades) > their_top:
                    state[REL] = (1 << (_FIRST_SPADE + their_top - 1)) if their_top else 0
                    return True
        k1, k2 = _signature(state, suits, seat, broken, slots)
        found = _find(state, heads, links, bounds, k1, k2, slots, target)
        if found >= 0:
            state[REL] = found >> 1
            return (found & 1) != 0
        if not nil:
            quick, quick_rel = _quick_tricks(state, hands, seat)
            if side0[seat]:
                if quick >= target:
                    state[REL] = quick_rel
                    return True
            elif left - quick < target:
                state[REL] = quick_rel
                return False
        state[NODES] += 1
        if state[NODES] > state[BUDGET]:
            state[TIMEOUT] = 1
            return False
    hand = hands[seat]
    legal = _legal(hand, led if position else -1, broken)
    chosen = _representatives(legal, gone)
    moves = buffers[2 * ply]
    keys = buffers[2 * ply + 1]
    count = 0
    rest = chosen
    while rest:
        low = rest & -rest
        moves[count] = _bitlen(low) - 1
        count += 1
        rest ^= low
    if count > 1:
        if nil:
            if seat == state[NIL_SEAT] and position:
                _nil_order(moves, keys, count, 0, best)
            else:
                _nil_order(moves, keys, count, 1 if seat == state[NIL_PARTNER] else 2, best)
        elif position == 0:
            if n == 4:
                _lead_order(
                    moves, keys, count, hand, hands[(seat + 1) % 4], hands[(seat + 3) % 4], gone
                )
            else:
                _lead_order(moves, keys, count, hand, hands[1 - seat], -1, gone)
        else:
            _follow_order(
                moves,
                keys,
                count,
                hand & _SUIT_MASK[led],
                best,
                side0[best_seat] == side0[seat],
            )
    wanting = wants[seat] != 0
    # typed values, not literals, for the recursive calls: a literal argument would compile a
    # second version of this function, and numba's disk cache breaks on mutually recursive
    # versions
    zero = ply - ply
    none = zero - 1
    false = zero != zero
    last = position == n - 1
    next_seat = (seat + 1) % n
    depended = 0
    outcome = not wanting
    for index in range(count):
        card = moves[index]
        hands[seat] = hand ^ (1 << card)
        suit = card // 13
        own = 1 << (card % 13 + 13 * seat)
        suits[suit] ^= own
        if position == 0:
            new_best, new_seat, new_contested = card, seat, False
        elif suit == best // 13:
            new_contested = True
            if card > best:
                new_best, new_seat = card, seat
            else:
                new_best, new_seat = best, best_seat
        elif card >= _FIRST_SPADE:
            new_best, new_seat, new_contested = card, seat, False
        else:
            new_best, new_seat, new_contested = best, best_seat, contested
        now_broken = broken or card >= _FIRST_SPADE
        if last:
            now_gone = gone | table | (1 << card)
            if not nil:
                result = search(
                    state, hands, suits, side0, wants, buffers, heads, links, bounds,
                    new_seat, zero, none, zero, new_seat, false, now_broken,
                    target - side0[new_seat], left - 1, zero, now_gone, ply + 1,
                )  # fmt: skip
            elif new_seat == state[NIL_SEAT]:
                result = True
                state[REL] = 0
            else:
                result = search(
                    state, hands, suits, side0, wants, buffers, heads, links, bounds,
                    new_seat, zero, none, zero, new_seat, false, now_broken,
                    target, left - 1, zero, now_gone, ply + 1,
                )  # fmt: skip
            rel = state[REL] | ((1 << new_best) if new_contested else 0)
        else:
            result = search(
                state, hands, suits, side0, wants, buffers, heads, links, bounds,
                next_seat, position + 1, suit if position == 0 else led, new_best, new_seat,
                new_contested, now_broken, target, left, table | (1 << card), gone, ply + 1,
            )  # fmt: skip
            rel = state[REL]
        hands[seat] = hand
        suits[suit] ^= own
        if state[TIMEOUT]:
            return False
        if result == wanting:
            state[REL] = rel
            outcome = wanting
            break
        depended |= rel
    if outcome != wanting:
        state[REL] = _whole_groups(depended, chosen, legal, gone)
    if position == 0:
        _store(state, heads, links, bounds, k1, k2, slots, state[REL], target, outcome, left)
    return outcome


def new_buffers() -> Any:
    """The per-ply scratch rows of :func:`search`."""
    return np.zeros((2 * _PLIES + 4 * _PLIES, 16), dtype=np.int64)

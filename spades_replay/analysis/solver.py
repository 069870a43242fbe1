"""A double-dummy solver for both variants: perfect play with every hand known.

A :class:`Position` is any moment of a hand's card play: what each seat still holds, the trick
in progress and who led it, whether spades are broken, and the tricks won so far. A
:class:`Solver` answers two questions about it, with both sides playing perfectly:

- **tricks**: the most tricks each side can take (:meth:`Solver.tricks`, one side's bound with
  :meth:`Solver.at_least`, and per card with :meth:`Solver.card_values`);
- **Nil**: whether the other side can force a Nil or Blind Nil bidder to win a trick, her
  partner (four-player) helping her avoid it (:meth:`Solver.nil_forced`).

The rules come from the engine (:func:`~spades_replay.engine.tricks.legal_plays`,
:func:`~spades_replay.engine.tricks.beats`). The search is null-window alpha-beta ("can side 0
take at least *t* more tricks?") driven MTD(f)-style to the exact value, over bitmask
holdings, with:

- a transposition table at trick starts, keyed on each hand's suit lengths, the leader and
  spades broken (clubs, diamonds and hearts are interchangeable, so they are sorted), whose
  entries keep only the top cards of each suit that the result depended on, by relative rank
  (partition search with "winning ranks", as bridge solvers do);
- equivalent-card pruning (cards adjacent among those still in play are one move);
- move ordering (safe masters first, then leads the opponents cannot ruff, cheapest winners);
- bounds without search: a spade above all the other side's spades wins its trick, and the
  leader's quick tricks in the side suits.

See docs/analysis.md for the method, its limits and its speed.

>>> from spades_replay.engine.cards import mask_of, parse_card as c
>>> from spades_replay.engine.seats import Variant
>>> position = Position(
...     Variant.TWO_PLAYER,
...     holdings=(mask_of([c("AH"), c("2S")]), mask_of([c("KH"), c("3C")])),
...     leader=1,
... )
>>> Solver(Variant.TWO_PLAYER).tricks(position)
(2, 0)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from spades_replay.engine.cards import (
    CARD_NAMES,
    FULL_DECK_MASK,
    NON_SPADES_MASK,
    SUIT_MASKS,
    Card,
    Suit,
    cards_of,
    names_of,
)
from spades_replay.engine.seats import Seat, Side, Variant
from spades_replay.engine.tricks import (
    FIRST_SPADE,
    beats,
    is_legal_play,
    legal_plays,
    trick_winner,
)

__all__ = [
    "Position",
    "SearchTimeoutError",
    "Solution",
    "Solver",
    "equivalent_cards",
    "solve",
]

_SUIT = tuple(card // 13 for card in range(52))
_RANK = tuple(card % 13 for card in range(52))
_DISCARD_ORDER = tuple(card % 13 + (13 if card >= FIRST_SPADE else 0) for card in range(52))
"""Cheapest first: low ranks before high ones, any side-suit card before a spade."""
_ABOVE = tuple(SUIT_MASKS[card // 13] & ~((2 << card) - 1) for card in range(52))
"""The cards of each card's suit that rank above it."""
_SIDE_SUIT_MASKS = SUIT_MASKS[:3]
_SUIT_STARTS = 1 | 1 << 13 | 1 << 26 | 1 << 39
"""The lowest card of each suit."""
_DEADLINE_CHECK = 255
"""The clock is read once every 256 trick-start nodes."""


class SearchTimeoutError(Exception):
    """A search ran past its deadline; every bound stored before it is still sound."""


@dataclass(frozen=True, slots=True)
class Position:
    """A moment of card play, for the solver.

    ``holdings`` are the cards each seat still holds (bitmasks); ``trick`` the cards already
    played to the trick in progress, in play order, beginning with ``leader``'s (empty when
    ``leader`` is about to lead); ``tricks_won`` the tricks each seat has won so far (all
    zero by default). Raises :class:`ValueError` for an impossible position.
    """

    variant: Variant
    holdings: tuple[int, ...]
    leader: Seat
    trick: tuple[Card, ...] = ()
    spades_broken: bool = False
    tricks_won: tuple[int, ...] = field(default=())

    def __post_init__(self) -> None:
        n = self.variant.seat_count
        if len(self.holdings) != n:
            raise ValueError(f"a {self.variant.value} position needs {n} holdings")
        if not self.tricks_won:
            object.__setattr__(self, "tricks_won", (0,) * n)
        if len(self.tricks_won) != n or min(self.tricks_won) < 0:
            raise ValueError(f"tricks_won needs {n} counts of 0 or more")
        if not 0 <= self.leader < n:
            raise ValueError(f"no seat {self.leader} in {self.variant.value}")
        if len(self.trick) >= n:
            raise ValueError(f"a trick in progress has at most {n - 1} cards")
        seen = 0
        for index, mask in enumerate(self.holdings):
            if mask < 0 or mask & ~FULL_DECK_MASK:
                raise ValueError(f"holding {index} is not a set of cards")
            if seen & mask:
                raise ValueError(f"{names_of(seen & mask)} held by two seats")
            seen |= mask
        for card in self.trick:
            if not 0 <= card < 52 or seen >> card & 1:
                raise ValueError(f"trick card {card!r} is not a free card")
            seen |= 1 << card
        if any(card >= FIRST_SPADE for card in self.trick) and not self.spades_broken:
            raise ValueError("a spade is in the trick, so spades are broken")
        counts = [mask.bit_count() for mask in self.holdings]
        left = counts[self.leader]
        for offset in range(n):
            seat = (self.leader + offset) % n
            expected = left + 1 if self.trick and offset >= len(self.trick) else left
            if counts[seat] != expected:
                raise ValueError(
                    f"seat {seat} holds {counts[seat]} card(s) but should hold {expected} "
                    f"(the leader holds {left}, {len(self.trick)} card(s) in the trick)"
                )
        if sum(self.tricks_won) + self.tricks_left > 13:
            raise ValueError("more than 13 tricks between those won and those left")

    @property
    def to_move(self) -> Seat:
        """The seat that plays next."""
        return (self.leader + len(self.trick)) % self.variant.seat_count

    @property
    def led(self) -> Suit | None:
        """The suit led to the trick in progress, or ``None`` when a lead is due."""
        return _SUIT[self.trick[0]] if self.trick else None

    @property
    def tricks_left(self) -> int:
        """Tricks still to be won, the one in progress included."""
        return self.holdings[self.to_move].bit_count()

    @property
    def side_tricks(self) -> tuple[int, int]:
        """Tricks won so far by each side."""
        won = [0, 0]
        for seat, count in enumerate(self.tricks_won):
            won[self.variant.side_of(seat)] += count
        return won[0], won[1]

    def legal_plays(self) -> int:
        """The bitmask of the cards the player to move may play."""
        return legal_plays(self.holdings[self.to_move], self.led, self.spades_broken)

    def play(self, card: Card) -> Position:
        """The position after the player to move plays ``card``; :class:`ValueError` if she
        may not."""
        seat = self.to_move
        holding = self.holdings[seat]
        if not 0 <= card < 52 or not is_legal_play(holding, card, self.led, self.spades_broken):
            name = CARD_NAMES[card] if 0 <= card < 52 else repr(card)
            raise ValueError(
                f"seat {seat} may not play {name} (legal: {names_of(self.legal_plays())})"
            )
        n = self.variant.seat_count
        holdings = list(self.holdings)
        holdings[seat] = holding & ~(1 << card)
        broken = self.spades_broken or card >= FIRST_SPADE
        trick = (*self.trick, card)
        if len(trick) < n:
            return Position(
                self.variant, tuple(holdings), self.leader, trick, broken, self.tricks_won
            )
        winner = trick_winner(trick, self.leader, n)
        won = list(self.tricks_won)
        won[winner] += 1
        return Position(self.variant, tuple(holdings), winner, (), broken, tuple(won))


def equivalent_cards(position: Position, card: Card) -> int:
    """The cards of the player to move that are equivalent to ``card``: same suit, with no
    card between them still in play (held by someone else or on the table). Playing any of
    them leads to the same result."""
    seat = position.to_move
    hand = position.holdings[seat]
    if not 0 <= card < 52 or not hand >> card & 1:
        raise ValueError(f"seat {seat} does not hold card {card!r}")
    in_play = 0
    for other, mask in enumerate(position.holdings):
        if other != seat:
            in_play |= mask
    for played in position.trick:
        in_play |= 1 << played
    suit = _SUIT[card]
    group = 1 << card
    for step in (-1, 1):
        neighbour = card + step
        while 0 <= neighbour < 52 and _SUIT[neighbour] == suit and not in_play >> neighbour & 1:
            group |= hand & (1 << neighbour)
            neighbour += step
    return group


@dataclass(frozen=True, slots=True)
class Solution:
    """What perfect play gives from a position.

    ``tricks`` are each side's final trick counts (those won so far plus the best from here),
    or ``None`` when the time cap ran out first; ``side0_bounds`` is the range proved for side
    0's final count (one value when exact). ``nodes`` counts the trick-start nodes searched.
    """

    tricks: tuple[int, int] | None
    side0_bounds: tuple[int, int]
    capped: bool
    nodes: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        """The solution as JSON-ready data."""
        return {
            "tricks": list(self.tricks) if self.tricks is not None else None,
            "side0_bounds": list(self.side0_bounds),
            "capped": self.capped,
            "nodes": self.nodes,
            "seconds": round(self.seconds, 6),
        }


_RANKS_DOWN: list[tuple[int, ...] | None] = [None] * 8192


def _ranks_down(present: int) -> tuple[int, ...]:
    """The ranks in a 13-bit suit mask, highest first (cached)."""
    ranks = _RANKS_DOWN[present]
    if ranks is None:
        ranks = tuple(rank for rank in range(12, -1, -1) if present >> rank & 1)
        _RANKS_DOWN[present] = ranks
    return ranks


def _representatives(legal: int, gone: int) -> list[Card]:
    """The legal cards worth trying, one per group of equivalent cards: the lowest card of
    each run of legal cards that only gone cards (played in earlier tricks) separate.

    ``legal`` is always whole suits of one hand, so a run is broken by another seat's card,
    a card on the table or the end of a suit. Gone cards at the bottom of a run are skipped
    by a carry: adding a run's lowest bit to the gone cards carries to its first legal card.
    """
    runs = legal | gone
    starts = runs & ~((runs << 1) & ~_SUIT_STARTS)
    chosen = (starts & legal) | ((gone + (starts & gone)) & legal)
    moves = []
    while chosen:
        low = chosen & -chosen
        moves.append(low.bit_length() - 1)
        chosen ^= low
    return moves


def _whole_groups(depended: int, moves: list[Card], legal: int, gone: int) -> int:
    """``depended`` (the cards a result depended on, as each suit's lowest such card) with
    no group of equivalent cards cut in two.

    Only one card of each group was searched; the result stands for the others because they
    are equivalent. That must stay true wherever the result is reused: if the top cards it
    depends on reached into a group but not down to its searched (lowest) card, a position
    matching on those top cards could split the group, so the searched card is added.
    """
    runs = legal | gone
    for card in sorted(moves, reverse=True):
        suit = SUIT_MASKS[_SUIT[card]]
        pinned = depended & suit
        lowest = pinned & -pinned
        if not pinned or lowest <= 1 << card:
            continue
        above = runs >> card
        length = ((above + 1) & ~above).bit_length() - 1
        if legal & (((1 << length) - 1) << card) & suit >= lowest:
            depended |= 1 << card
    return depended


def _follow_order(moves: list[Card], following: int, best: Card, partner_wins: bool) -> list[Card]:
    """Cards after the lead in the order to try them: the cheapest card that takes the lead,
    then the cheapest that does not; simply the cheapest first when her partner is winning.
    ``moves`` come in card order; ``following`` is non-zero when she follows suit, so they
    are all of one suit, ranked already."""
    if following:
        if partner_wins or best // 13 != moves[0] // 13:
            return moves
        split = 0
        while split < len(moves) and moves[split] < best:
            split += 1
        return moves[split:] + moves[:split] if split else moves
    moves.sort(key=_DISCARD_ORDER.__getitem__)
    if partner_wins:
        return moves
    winners = [card for card in moves if beats(card, best)]
    if winners and len(winners) < len(moves):
        return winners + [card for card in moves if not beats(card, best)]
    return moves


Slot = tuple[int, int, int]
"""One suit of a position as the table sees it: (owners from the top, present ranks, suit)."""
Entries = dict[tuple[int, ...], dict[tuple[int, ...], tuple[int, int]]]
"""The results stored under one key: {top cards counted per suit: {their owners: (low, high)}}."""
Table = dict[tuple[int, ...], Entries]
"""Transposition table: key (suit lengths, leader, spades broken) -> its entries."""


class Solver:
    """Double-dummy search for one variant, with transposition tables kept between calls.

    Reuse one solver for the positions of one deal (the positions along a played hand share
    most of their subtrees); :meth:`clear` forgets the tables. ``deadline`` is a
    :func:`time.monotonic` instant after which searches raise :class:`SearchTimeoutError`.

    The tables do partition search, as bridge solvers do: a result proved at a trick start
    is stored with the cards it depended on ("winning ranks"): for each suit, how many of
    the top unplayed cards mattered and who holds them. It then holds for every position
    with the same leader, the same suit lengths in every hand and the same holders of those
    top cards, whoever holds the lower cards.
    """

    def __init__(self, variant: Variant, *, deadline: float | None = None) -> None:
        self.variant = variant
        self.deadline = deadline
        n = variant.seat_count
        self._n = n
        self._digit = 1 if n == 2 else 2
        self._top_masks = tuple((1 << (self._digit * count)) - 1 for count in range(14))
        self._side0 = tuple(variant.side_of(seat) == 0 for seat in range(n))
        self._own_bits = tuple(
            tuple(1 << (_RANK[card] + 13 * seat) for card in range(52)) for seat in range(n)
        )
        self._hands = [0] * n
        self._suits = [0, 0, 0, 0]
        self._suit_info: dict[int, tuple[int, int, int]] = {}
        self._table: Table = {}
        self._nil_tables: dict[Seat, Table] = {}
        self._nil_table: Table = {}
        self._nil_seat = 0
        self._nil_partner = -1
        self._rel = 0
        self.nodes = 0

    def clear(self) -> None:
        """Forget every stored result (the tables grow with every position searched)."""
        self._table.clear()
        self._nil_tables.clear()

    # -- public questions ---------------------------------------------------------------

    def tricks(self, position: Position, guess: int | None = None) -> tuple[int, int]:
        """Each side's final trick count with perfect play from ``position``.

        ``guess`` (side 0's final count) speeds the search when it is close.
        """
        first = self.side0_tricks(position, guess)
        total = sum(position.tricks_won) + position.tricks_left
        return first, total - first

    def side0_tricks(
        self, position: Position, guess: int | None = None, *, proved: list[int] | None = None
    ) -> int:
        """Side 0's final trick count with perfect play from ``position``.

        The exact value is found by null-window tests ("at least *t*?") stepping from
        ``guess``. ``proved``, if given, is kept as the ``[low, high]`` range proved so far
        after every test, so it still says something if :class:`SearchTimeoutError` is
        raised.
        """
        self._check(position)
        base = position.side_tricks[0]
        low, high = 0, position.tricks_left
        if proved is not None:
            proved[:] = [base + low, base + high]
        step = (low + high + 1) // 2 if guess is None else guess - base
        while low < high:
            target = min(max(step, low + 1), high)
            if self._test(position, target):
                low = target
                step = target + 1
            else:
                high = target - 1
                step = target - 1
            if proved is not None:
                proved[:] = [base + low, base + high]
        return base + low

    def value(self, position: Position, side: Side, guess: int | None = None) -> int:
        """``side``'s final trick count with perfect play from ``position``."""
        total = sum(position.tricks_won) + position.tricks_left
        hint = None if guess is None else (guess if side == 0 else total - guess)
        first, second = self.tricks(position, hint)
        return first if side == 0 else second

    def at_least(self, position: Position, side: Side, count: int) -> bool:
        """Whether ``side`` can end the hand with at least ``count`` tricks (those won so
        far included) against best defence: one null-window search, cheaper than
        :meth:`tricks`."""
        self._check(position)
        total = sum(position.tricks_won) + position.tricks_left
        first = position.side_tricks[0]
        if side == 0:
            return self._test(position, count - first)
        return not self._test(position, total - count + 1 - first)

    def card_values(self, position: Position, guess: int | None = None) -> dict[Card, int]:
        """For every legal card of the player to move: her side's final trick count if she
        plays it and both sides then play perfectly. Equivalent cards share one search."""
        side = self.variant.side_of(position.to_move)
        values: dict[Card, int] = {}
        remaining = position.legal_plays()
        while remaining:
            card = (remaining & -remaining).bit_length() - 1
            group = equivalent_cards(position, card) & remaining
            value = self.value(position.play(card), side, guess)
            for equivalent in cards_of(group):
                values[equivalent] = value
            remaining &= ~group
            guess = value
        return values

    def nil_forced(self, position: Position, seat: Seat) -> bool:
        """Whether the side against ``seat`` can force her to win at least one more trick,
        however she (and her partner, in four-player) play."""
        self._check(position)
        if not 0 <= seat < self._n:
            raise ValueError(f"no seat {seat} in {self.variant.value}")
        self._nil_seat = seat
        partner = self.variant.partner(seat)
        self._nil_partner = -1 if partner is None else partner
        self._nil_table = self._nil_tables.setdefault(seat, {})
        gone, table, best, best_seat, contested = self._load(position)
        if not position.trick:
            return self._nil_start(
                position.leader, position.spades_broken, position.tricks_left, gone
            )
        return self._nil_card(
            position.to_move,
            len(position.trick),
            _SUIT[position.trick[0]],
            best,
            best_seat,
            contested,
            position.spades_broken,
            position.tricks_left,
            table,
            gone,
        )

    # -- positions, signatures and the tables -----------------------------------------------

    def _check(self, position: Position) -> None:
        if position.variant is not self.variant:
            raise ValueError(
                f"a {self.variant.value} solver cannot search a {position.variant.value} position"
            )

    def _load(self, position: Position) -> tuple[int, int, Card, Seat, bool]:
        """Set up the search for ``position``: (cards gone, cards on the table, the best
        card of the trick, its seat, whether it beat a card of its own suit)."""
        hands = self._hands
        suits = self._suits
        suits[:] = [0, 0, 0, 0]
        present = 0
        for seat, mask in enumerate(position.holdings):
            hands[seat] = mask
            present |= mask
            bits = self._own_bits[seat]
            for card in cards_of(mask):
                suits[_SUIT[card]] |= bits[card]
        table = 0
        best, best_seat, contested = 0, position.leader, False
        for index, card in enumerate(position.trick):
            table |= 1 << card
            if index == 0:
                best = card
            elif _SUIT[card] == _SUIT[best]:
                contested = True
                if card > best:
                    best, best_seat = card, (position.leader + index) % self._n
            elif card >= FIRST_SPADE:
                best, best_seat, contested = card, (position.leader + index) % self._n, False
        return FULL_DECK_MASK & ~present & ~table, table, best, best_seat, contested

    def _info(self, chunk: int) -> tuple[int, int, int]:
        """(lengths, owners, present ranks) of one suit from its owner chunk (cached)."""
        info = self._suit_info.get(chunk)
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
        for place, rank in enumerate(_ranks_down(present)):
            for seat in range(n):
                if chunk >> (rank + 13 * seat) & 1:
                    owners |= seat << (self._digit * place)
                    break
        info = (lengths, owners, present)
        self._suit_info[chunk] = info
        return info

    def _signature(self, leader: Seat, broken: bool) -> tuple[tuple[int, ...], tuple[Slot, ...]]:
        """The table key of the trick start (suit lengths of every hand, the leader, spades
        broken) and its suits in key order: clubs, diamonds and hearts play alike, so they
        are sorted."""
        suits = self._suits
        known = self._suit_info
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

    def _find(self, entries: Entries, slots: tuple[Slot, ...], target: int) -> bool | None:
        """Whether a stored result decides ``target`` here (setting the cards it depended
        on), or ``None``. Entries are grouped by how many top cards of each suit they
        need, so each group costs one lookup of this position's top cards."""
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
                rel |= 1 << (13 * sa + _ranks_down(pa)[ka - 1])
            if kb:
                rel |= 1 << (13 * sb + _ranks_down(pb)[kb - 1])
            if kc:
                rel |= 1 << (13 * sc + _ranks_down(pc)[kc - 1])
            if kd:
                rel |= 1 << (FIRST_SPADE + _ranks_down(pd)[kd - 1])
            self._rel = rel
            return low >= target
        return None

    def _store(
        self,
        table: Table,
        key: tuple[int, ...],
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
        entries = table.get(key)
        if entries is None:
            entries = table[key] = {}
        bounds = entries.get(tuple(counts))
        if bounds is None:
            bounds = entries[tuple(counts)] = {}
        pattern = tuple(tops)
        low, high = bounds.get(pattern, (0, left))
        bounds[pattern] = (max(low, target), high) if result else (low, min(high, target - 1))

    def _tick(self) -> None:
        """Count a node; read the clock now and then."""
        self.nodes += 1
        if (
            not self.nodes & _DEADLINE_CHECK
            and self.deadline is not None
            and time.monotonic() > self.deadline
        ):
            raise SearchTimeoutError

    def _last_trick(self, leader: Seat) -> Seat:
        """The winner of the last trick (one card left in every hand), setting the card it
        depended on: the winning card, when it beat one of its own suit."""
        hands = self._hands
        n = self._n
        best = hands[leader].bit_length() - 1
        best_seat = leader
        contested = False
        for offset in range(1, n):
            seat = (leader + offset) % n
            card = hands[seat].bit_length() - 1
            if _SUIT[card] == _SUIT[best]:
                contested = True
                if card > best:
                    best, best_seat = card, seat
            elif card >= FIRST_SPADE:
                best, best_seat, contested = card, seat, False
        self._rel = 1 << best if contested else 0
        return best_seat

    # -- tricks -------------------------------------------------------------------------

    def _test(self, position: Position, target: int) -> bool:
        """Whether side 0 can take at least ``target`` of the tricks left."""
        if target <= 0 or target > position.tricks_left:
            return target <= 0
        gone, table, best, best_seat, contested = self._load(position)
        if not position.trick:
            return self._start(
                position.leader, position.spades_broken, target, position.tricks_left, gone
            )
        return self._card(
            position.to_move,
            len(position.trick),
            _SUIT[position.trick[0]],
            best,
            best_seat,
            contested,
            position.spades_broken,
            target,
            position.tricks_left,
            table,
            gone,
        )

    def _quick_tricks(self, leader: Seat) -> tuple[int, int]:
        """Tricks the leader's side can take at once, with the cards the count depended on:
        she cashes her top cards in each side suit (as many as every opponent holding
        spades must follow, and no more than her partner's side-suit cards allow before he
        must ruff), and still has her spades above all the opponents' spades."""
        hands = self._hands
        hand = hands[leader]
        if self._n == 2:
            opponents: tuple[int, ...] = (hands[1 - leader],)
            partner = 0
        else:
            opponents = (hands[(leader + 1) % 4], hands[(leader + 3) % 4])
            partner = hands[(leader + 2) % 4]
        others = partner
        ruffers = []
        opponent_top = 0
        for opponent in opponents:
            others |= opponent
            if opponent >> FIRST_SPADE:
                ruffers.append(opponent)
                opponent_top = max(opponent_top, (opponent >> FIRST_SPADE).bit_length())
        quick = 0
        depended = 0
        for mask in _SIDE_SUIT_MASKS:
            mine = hand & mask
            if not mine:
                continue
            theirs = others & mask
            run = (mine >> theirs.bit_length()).bit_count()
            for ruffer in ruffers:
                run = min(run, (ruffer & mask).bit_count())
            if run:
                quick += run
                if theirs:
                    depended |= 1 << (theirs.bit_length() - 1)
        if partner:
            quick = min(quick, (partner & NON_SPADES_MASK).bit_count() + 1)
        own = (hand >> (FIRST_SPADE + opponent_top)).bit_count()
        if own and opponent_top:
            depended |= 1 << (FIRST_SPADE - 1 + opponent_top)
        return quick + own, depended

    def _start(self, leader: Seat, broken: bool, target: int, left: int, gone: int) -> bool:
        """Trick start: can side 0 take ``target`` of the ``left`` tricks? Sets the cards
        the answer depended on (:attr:`_rel`, each suit's lowest such card).

        In order: trivial targets, the last trick, the sure spades of either side, the
        table, the leader's quick tricks, and only then a search of the trick's cards, whose
        result goes to the table.
        """
        if target <= 0 or target > left:
            self._rel = 0
            return target <= 0
        if left == 1:
            return self._side0[self._last_trick(leader)]
        hands = self._hands
        if self._n == 2:
            mine = hands[0] >> FIRST_SPADE
            theirs = hands[1] >> FIRST_SPADE
            top0 = mine.bit_length()
            top1 = theirs.bit_length()
            sure0 = (mine >> top1).bit_count()
            sure1 = (theirs >> top0).bit_count()
        else:
            first = hands[0] >> FIRST_SPADE
            second = hands[1] >> FIRST_SPADE
            third = hands[2] >> FIRST_SPADE
            fourth = hands[3] >> FIRST_SPADE
            top0 = (first | third).bit_length()
            top1 = (second | fourth).bit_length()
            sure0 = (first >> top1).bit_count()
            other = (third >> top1).bit_count()
            if other > sure0:
                sure0 = other
            sure1 = (second >> top0).bit_count()
            other = (fourth >> top0).bit_count()
            if other > sure1:
                sure1 = other
        if sure0 >= target:
            # a spade above every spade of the other side wins the trick it is played to; a
            # side counts its better seat, as partners' top spades may fall together
            self._rel = 1 << (FIRST_SPADE - 1 + top1) if top1 else 0
            return True
        if left - sure1 < target:
            self._rel = 1 << (FIRST_SPADE - 1 + top0) if top0 else 0
            return False
        key, slots = self._signature(leader, broken)
        entries = self._table.get(key)
        if entries is not None:
            found = self._find(entries, slots, target)
            if found is not None:
                return found
        quick, quick_rel = self._quick_tricks(leader)
        if self._side0[leader]:
            if quick >= target:
                self._rel = quick_rel
                return True
        elif left - quick < target:
            self._rel = quick_rel
            return False
        self._tick()
        if self._n == 2:
            result = self._trick2(leader, broken, target, left, gone)
        else:
            result = self._card(leader, 0, 0, 0, leader, False, broken, target, left, 0, gone)
        self._store(self._table, key, slots, self._rel, target, result, left)
        return result

    @staticmethod
    def _lead_order(
        leads: list[Card], hand: int, opponents: tuple[int, ...], gone: int
    ) -> list[Card]:
        """Leads in the order to try them: masters (nothing higher left in their suit)
        that no opponent can ruff, then other leads no opponent can ruff, from the suits
        the opponents are shortest in, then leads into a ruff; cheapest first in each."""
        others = FULL_DECK_MASK & ~gone & ~hand
        ruffers = [opponent for opponent in opponents if opponent >> FIRST_SPADE]
        keyed = []
        for card in leads:
            mask = SUIT_MASKS[_SUIT[card]]
            if card < FIRST_SPADE and any(not ruffer & mask for ruffer in ruffers):
                rank = 2000
            elif others & _ABOVE[card]:
                rank = 1000 + 100 * max((opponent & mask).bit_count() for opponent in opponents)
            else:
                rank = 0
            keyed.append((rank + _DISCARD_ORDER[card], card))
        keyed.sort()
        return [card for _, card in keyed]

    def _trick2(self, leader: Seat, broken: bool, target: int, left: int, gone: int) -> bool:
        """A two-player trick from its lead: :meth:`_card` for both cards at once (the
        follower plays last, so her choice ends the trick)."""
        hands = self._hands
        suits = self._suits
        side0 = self._side0
        follower = 1 - leader
        lead_hand = hands[leader]
        follow_hand = hands[follower]
        lead_bits = self._own_bits[leader]
        follow_bits = self._own_bits[follower]
        lead_legal = legal_plays(lead_hand, None, broken)
        leads = _representatives(lead_legal, gone)
        if len(leads) > 1:
            leads = self._lead_order(leads, lead_hand, (follow_hand,), gone)
        leading = side0[leader]
        depended = 0
        for lead in leads:
            lead_bit = 1 << lead
            lead_suit = _SUIT[lead]
            hands[leader] = lead_hand ^ lead_bit
            suits[lead_suit] ^= lead_bits[lead]
            lead_broken = broken or lead >= FIRST_SPADE
            follow_legal = legal_plays(follow_hand, lead_suit, lead_broken)
            follows = _representatives(follow_legal, gone)
            if len(follows) > 1:
                follows = _follow_order(follows, follow_hand & SUIT_MASKS[lead_suit], lead, False)
            answered = 0
            outcome = leading
            for follow in follows:
                hands[follower] = follow_hand ^ (1 << follow)
                follow_suit = _SUIT[follow]
                suits[follow_suit] ^= follow_bits[follow]
                if beats(follow, lead):
                    winner, top = follower, follow
                else:
                    winner, top = leader, lead
                result = self._start(
                    winner,
                    lead_broken or follow >= FIRST_SPADE,
                    target - side0[winner],
                    left - 1,
                    gone | lead_bit | (1 << follow),
                )
                rel = self._rel | (1 << top if follow_suit == lead_suit else 0)
                hands[follower] = follow_hand
                suits[follow_suit] ^= follow_bits[follow]
                if result != leading:
                    outcome = result
                    answered = rel
                    break
                answered |= rel
            else:
                answered = _whole_groups(answered, follows, follow_legal, gone)
            hands[leader] = lead_hand
            suits[lead_suit] ^= lead_bits[lead]
            if outcome == leading:
                self._rel = answered
                return outcome
            depended |= answered
        self._rel = _whole_groups(depended, leads, lead_legal, gone)
        return not leading

    def _card(
        self,
        seat: Seat,
        position: int,
        led: Suit,
        best: Card,
        best_seat: Seat,
        contested: bool,
        broken: bool,
        target: int,
        left: int,
        table: int,
        gone: int,
    ) -> bool:
        """A card of the trick in progress: can side 0 still take ``target`` tricks?

        ``contested``: the best card so far beat a card of its own suit (so its rank
        matters). Sets the cards the answer depended on.
        """
        hands = self._hands
        hand = hands[seat]
        side0 = self._side0
        legal = legal_plays(hand, led if position else None, broken)
        moves = _representatives(legal, gone)
        if len(moves) > 1:
            if position == 0:
                moves = self._lead_order(
                    moves, hand, (hands[(seat + 1) % 4], hands[(seat + 3) % 4]), gone
                )
            else:
                moves = _follow_order(
                    moves, hand & SUIT_MASKS[led], best, side0[best_seat] == side0[seat]
                )
        maximizing = side0[seat]
        suits = self._suits
        own = self._own_bits[seat]
        last = position == self._n - 1
        next_seat = (seat + 1) % self._n
        depended = 0
        for card in moves:
            hands[seat] = hand ^ (1 << card)
            suit = _SUIT[card]
            suits[suit] ^= own[card]
            if position == 0:
                new_best, new_seat, new_contested = card, seat, False
            elif suit == _SUIT[best]:
                new_contested = True
                new_best, new_seat = (card, seat) if card > best else (best, best_seat)
            elif card >= FIRST_SPADE:
                new_best, new_seat, new_contested = card, seat, False
            else:
                new_best, new_seat, new_contested = best, best_seat, contested
            if last:
                result = self._start(
                    new_seat,
                    broken or card >= FIRST_SPADE,
                    target - side0[new_seat],
                    left - 1,
                    gone | table | (1 << card),
                )
                rel = self._rel | (1 << new_best if new_contested else 0)
            else:
                result = self._card(
                    next_seat,
                    position + 1,
                    suit if position == 0 else led,
                    new_best,
                    new_seat,
                    new_contested,
                    broken or card >= FIRST_SPADE,
                    target,
                    left,
                    table | (1 << card),
                    gone,
                )
                rel = self._rel
            hands[seat] = hand
            suits[suit] ^= own[card]
            if result == maximizing:
                self._rel = rel
                return result
            depended |= rel
        self._rel = _whole_groups(depended, moves, legal, gone)
        return not maximizing

    # -- Nil ----------------------------------------------------------------------------

    def _nil_start(self, leader: Seat, broken: bool, left: int, gone: int) -> bool:
        """Trick start: can the defence force the Nil seat to win one of ``left`` tricks?"""
        if left == 0:
            self._rel = 0
            return False
        if left == 1:
            return self._last_trick(leader) == self._nil_seat
        hands = self._hands
        nil = self._nil_seat
        her_spades = hands[nil] >> FIRST_SPADE
        if her_spades:
            others = 0
            for seat in range(self._n):
                if seat != nil:
                    others |= hands[seat]
            their_top = (others >> FIRST_SPADE).bit_length()
            if her_spades.bit_length() > their_top:
                # her top spade beats every other spade: it wins whenever she plays it
                self._rel = 1 << (FIRST_SPADE + their_top - 1) if their_top else 0
                return True
        key, slots = self._signature(leader, broken)
        entries = self._nil_table.get(key)
        if entries is not None:
            found = self._find(entries, slots, 1)
            if found is not None:
                return found
        self._tick()
        result = self._nil_card(leader, 0, 0, 0, leader, False, broken, left, 0, gone)
        self._store(self._nil_table, key, slots, self._rel, 1, result, left)
        return result

    def _nil_card(
        self,
        seat: Seat,
        position: int,
        led: Suit,
        best: Card,
        best_seat: Seat,
        contested: bool,
        broken: bool,
        left: int,
        table: int,
        gone: int,
    ) -> bool:
        """A card of the trick in progress: can the defence still force the Nil seat?"""
        hands = self._hands
        hand = hands[seat]
        nil = self._nil_seat
        legal = legal_plays(hand, led if position else None, broken)
        moves = _representatives(legal, gone)
        if len(moves) > 1:
            if seat == nil and position:
                # her highest card that does not take the lead, then her cheapest that does
                ducks = [c for c in moves if not beats(c, best)]
                moves = sorted(ducks, key=_DISCARD_ORDER.__getitem__, reverse=True) + sorted(
                    (c for c in moves if c not in ducks), key=_DISCARD_ORDER.__getitem__
                )
            elif seat == self._nil_partner:
                moves.sort(key=_DISCARD_ORDER.__getitem__, reverse=True)
            else:
                moves.sort(key=_DISCARD_ORDER.__getitem__)
        defending = seat != nil and seat != self._nil_partner
        suits = self._suits
        own = self._own_bits[seat]
        last = position == self._n - 1
        next_seat = (seat + 1) % self._n
        depended = 0
        for card in moves:
            hands[seat] = hand ^ (1 << card)
            suit = _SUIT[card]
            suits[suit] ^= own[card]
            if position == 0:
                new_best, new_seat, new_contested = card, seat, False
            elif suit == _SUIT[best]:
                new_contested = True
                new_best, new_seat = (card, seat) if card > best else (best, best_seat)
            elif card >= FIRST_SPADE:
                new_best, new_seat, new_contested = card, seat, False
            else:
                new_best, new_seat, new_contested = best, best_seat, contested
            if last:
                if new_seat == nil:
                    result = True
                    self._rel = 0
                else:
                    result = self._nil_start(
                        new_seat,
                        broken or card >= FIRST_SPADE,
                        left - 1,
                        gone | table | (1 << card),
                    )
                rel = self._rel | (1 << new_best if new_contested else 0)
            else:
                result = self._nil_card(
                    next_seat,
                    position + 1,
                    suit if position == 0 else led,
                    new_best,
                    new_seat,
                    new_contested,
                    broken or card >= FIRST_SPADE,
                    left,
                    table | (1 << card),
                    gone,
                )
                rel = self._rel
            hands[seat] = hand
            suits[suit] ^= own[card]
            if result == defending:
                self._rel = rel
                return result
            depended |= rel
        self._rel = _whole_groups(depended, moves, legal, gone)
        return not defending


def solve(position: Position, *, time_cap: float | None = None) -> Solution:
    """The most tricks each side can take from ``position``, within ``time_cap`` seconds if
    given (the result then says whether it was capped, with the bounds proved so far)."""
    started = time.monotonic()
    deadline = None if time_cap is None else started + time_cap
    solver = Solver(position.variant, deadline=deadline)
    proved = [0, 0]
    try:
        low = solver.side0_tricks(position, proved=proved)
    except SearchTimeoutError:
        return Solution(
            None, (proved[0], proved[1]), True, solver.nodes, time.monotonic() - started
        )
    total = sum(position.tricks_won) + position.tricks_left
    return Solution((low, total - low), (low, low), False, solver.nodes, time.monotonic() - started)

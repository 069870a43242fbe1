"""A double-dummy solver for both variants: perfect play with every hand known.

A :class:`~spades_replay.analysis.position.Position` is any moment of a hand's card play. A
:class:`Solver` answers two questions about it, with both sides playing perfectly:

- **tricks**: the most tricks each side can take (:meth:`Solver.tricks`, one side's bound with
  :meth:`Solver.at_least`, and per card with :meth:`Solver.card_values`);
- **Nil**: whether the other side can force a Nil or Blind Nil bidder to win a trick, her
  partner (four-player) helping her avoid it (:meth:`Solver.nil_forced`).

The rules come from the engine (:func:`~spades_replay.engine.tricks.legal_plays`,
:func:`~spades_replay.engine.tricks.beats`). The search is null-window alpha-beta ("can side 0
take at least *t* more tricks?") driven MTD(f)-style to the exact value, over bitmask
holdings, with:

- a transposition table at trick starts with partition search (:mod:`.table`);
- equivalent-card pruning (:mod:`.position`: cards adjacent among those still in play are one
  move);
- move ordering (:mod:`.ordering`);
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
from dataclasses import dataclass
from typing import Any

from spades_replay.analysis.ordering import follow_order, lead_order, nil_order
from spades_replay.analysis.position import (
    RANK_OF,
    SUIT_OF,
    Position,
    equivalent_cards,
    representatives,
    whole_groups,
)
from spades_replay.analysis.table import Signatures, TranspositionTable
from spades_replay.engine.cards import (
    FULL_DECK_MASK,
    NON_SPADES_MASK,
    SUIT_MASKS,
    Card,
    Suit,
    cards_of,
)
from spades_replay.engine.seats import Seat, Side, Variant
from spades_replay.engine.tricks import FIRST_SPADE, beats, legal_plays

__all__ = ["Position", "SearchTimeoutError", "Solution", "Solver", "equivalent_cards"]

_SIDE_SUIT_MASKS = SUIT_MASKS[:3]
DEADLINE_CHECK = 255
"""The clock is read once every 256 trick-start nodes."""


class SearchTimeoutError(Exception):
    """A search ran past its deadline; every bound stored before it is still sound."""


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


class Solver:
    """Double-dummy search for one variant, with transposition tables kept between calls.

    Reuse one solver for the positions of one deal (the positions along a played hand share
    most of their subtrees); :meth:`clear` forgets the tables. ``deadline`` is a
    :func:`time.monotonic` instant after which searches raise :class:`SearchTimeoutError`.

    One move loop (:meth:`_card`) serves both questions: in the trick search side 0 wants
    ``True`` (it can take the target), in the Nil search the defence does (it can force the
    Nil bidder to win a trick); only the move order and what a finished trick leads to differ.
    """

    def __init__(self, variant: Variant, *, deadline: float | None = None) -> None:
        self.variant = variant
        self.deadline = deadline
        n = variant.seat_count
        self._n = n
        self._side0 = tuple(variant.side_of(seat) == 0 for seat in range(n))
        self._own_bits = tuple(
            tuple(1 << (RANK_OF[card] + 13 * seat) for card in range(52)) for seat in range(n)
        )
        self._hands = [0] * n
        self._suits = [0, 0, 0, 0]
        self._signatures = Signatures(n)
        self._table = TranspositionTable(n)
        self._nil_tables: dict[Seat, TranspositionTable] = {}
        self._nil_table = self._table
        self._nil = False
        self._wants = self._side0
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
        return self._nil_test(position, seat)

    # -- the two questions from a position -----------------------------------------------

    def _check(self, position: Position) -> None:
        if position.variant is not self.variant:
            raise ValueError(
                f"a {self.variant.value} solver cannot search a {position.variant.value} position"
            )

    def _test(self, position: Position, target: int) -> bool:
        """Whether side 0 can take at least ``target`` of the tricks left."""
        if target <= 0 or target > position.tricks_left:
            return target <= 0
        if position.forced is not None:
            position = position.play(position.forced)
        self._nil = False
        self._wants = self._side0
        return self._search(position, target)

    def _nil_test(self, position: Position, seat: Seat) -> bool:
        """Whether the defence can force ``seat`` to win one of the tricks left."""
        if position.forced is not None:
            position = position.play(position.forced)
        self._nil = True
        self._nil_seat = seat
        partner = self.variant.partner(seat)
        self._nil_partner = -1 if partner is None else partner
        self._wants = tuple(other != seat and other != partner for other in range(self._n))
        table = self._nil_tables.get(seat)
        if table is None:
            table = self._nil_tables[seat] = TranspositionTable(self._n)
        self._nil_table = table
        return self._search(position, 1)

    def _search(self, position: Position, target: int) -> bool:
        gone, table, best, best_seat, contested = self._load(position)
        if not position.trick:
            return self._begin(
                position.leader, position.spades_broken, target, position.tricks_left, gone
            )
        return self._card(
            position.to_move,
            len(position.trick),
            SUIT_OF[position.trick[0]],
            best,
            best_seat,
            contested,
            position.spades_broken,
            target,
            position.tricks_left,
            table,
            gone,
        )

    def _begin(self, leader: Seat, broken: bool, target: int, left: int, gone: int) -> bool:
        """A trick start of the search under way."""
        if self._nil:
            return self._nil_start(leader, broken, left, gone)
        return self._start(leader, broken, target, left, gone)

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
                suits[SUIT_OF[card]] |= bits[card]
        table = 0
        best, best_seat, contested = 0, position.leader, False
        for index, card in enumerate(position.trick):
            table |= 1 << card
            if index == 0:
                best = card
            elif SUIT_OF[card] == SUIT_OF[best]:
                contested = True
                if card > best:
                    best, best_seat = card, (position.leader + index) % self._n
            elif card >= FIRST_SPADE:
                best, best_seat, contested = card, (position.leader + index) % self._n, False
        return FULL_DECK_MASK & ~present & ~table, table, best, best_seat, contested

    def _tick(self) -> None:
        """Count a node; read the clock now and then."""
        self.nodes += 1
        if (
            not self.nodes & DEADLINE_CHECK
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
            if SUIT_OF[card] == SUIT_OF[best]:
                contested = True
                if card > best:
                    best, best_seat = card, seat
            elif card >= FIRST_SPADE:
                best, best_seat, contested = card, seat, False
        self._rel = 1 << best if contested else 0
        return best_seat

    # -- tricks -------------------------------------------------------------------------

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
        key, slots = self._signatures.signature(self._suits, leader, broken)
        found = self._table.find(key, slots, target)
        if found >= 0:
            self._rel = found >> 1
            return bool(found & 1)
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
        self._table.store(key, slots, self._rel, target, result, left)
        return result

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
        leads = representatives(lead_legal, gone)
        if len(leads) > 1:
            leads = lead_order(leads, lead_hand, (follow_hand,), gone)
        leading = side0[leader]
        depended = 0
        for lead in leads:
            lead_bit = 1 << lead
            lead_suit = SUIT_OF[lead]
            hands[leader] = lead_hand ^ lead_bit
            suits[lead_suit] ^= lead_bits[lead]
            lead_broken = broken or lead >= FIRST_SPADE
            follow_legal = legal_plays(follow_hand, lead_suit, lead_broken)
            follows = representatives(follow_legal, gone)
            if len(follows) > 1:
                follows = follow_order(follows, follow_hand & SUIT_MASKS[lead_suit], lead, False)
            answered = 0
            outcome = leading
            for follow in follows:
                hands[follower] = follow_hand ^ (1 << follow)
                follow_suit = SUIT_OF[follow]
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
                answered = whole_groups(answered, follows, follow_legal, gone)
            hands[leader] = lead_hand
            suits[lead_suit] ^= lead_bits[lead]
            if outcome == leading:
                self._rel = answered
                return outcome
            depended |= answered
        self._rel = whole_groups(depended, leads, lead_legal, gone)
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
        """A card of the trick in progress: does the question's asker (side 0 in the trick
        search, the defence in the Nil search) get its way?

        ``contested``: the best card so far beat a card of its own suit (so its rank
        matters). Sets the cards the answer depended on.
        """
        hands = self._hands
        hand = hands[seat]
        legal = legal_plays(hand, led if position else None, broken)
        moves = representatives(legal, gone)
        nil = self._nil
        side0 = self._side0
        if len(moves) > 1:
            if nil:
                if seat == self._nil_seat and position:
                    moves = nil_order(moves, 0, best)
                else:
                    moves = nil_order(moves, 1 if seat == self._nil_partner else 2, best)
            elif position == 0:
                opponents = (
                    (hands[(seat + 1) % 4], hands[(seat + 3) % 4])
                    if self._n == 4
                    else (hands[1 - seat],)
                )
                moves = lead_order(moves, hand, opponents, gone)
            else:
                moves = follow_order(
                    moves, hand & SUIT_MASKS[led], best, side0[best_seat] == side0[seat]
                )
        wanting = self._wants[seat]
        suits = self._suits
        own = self._own_bits[seat]
        last = position == self._n - 1
        next_seat = (seat + 1) % self._n
        depended = 0
        for card in moves:
            hands[seat] = hand ^ (1 << card)
            suit = SUIT_OF[card]
            suits[suit] ^= own[card]
            if position == 0:
                new_best, new_seat, new_contested = card, seat, False
            elif suit == SUIT_OF[best]:
                new_contested = True
                new_best, new_seat = (card, seat) if card > best else (best, best_seat)
            elif card >= FIRST_SPADE:
                new_best, new_seat, new_contested = card, seat, False
            else:
                new_best, new_seat, new_contested = best, best_seat, contested
            if last:
                now_broken = broken or card >= FIRST_SPADE
                now_gone = gone | table | (1 << card)
                if not nil:
                    result = self._start(
                        new_seat, now_broken, target - side0[new_seat], left - 1, now_gone
                    )
                elif new_seat == self._nil_seat:
                    result = True
                    self._rel = 0
                else:
                    result = self._nil_start(new_seat, now_broken, left - 1, now_gone)
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
            if result == wanting:
                self._rel = rel
                return result
            depended |= rel
        self._rel = whole_groups(depended, moves, legal, gone)
        return not wanting

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
        key, slots = self._signatures.signature(self._suits, leader, broken)
        found = self._nil_table.find(key, slots, 1)
        if found >= 0:
            self._rel = found >> 1
            return bool(found & 1)
        self._tick()
        result = self._card(leader, 0, 0, 0, leader, False, broken, 1, left, 0, gone)
        self._nil_table.store(key, slots, self._rel, 1, result, left)
        return result

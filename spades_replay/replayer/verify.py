"""The fast verifier: an accept-only check of a parsed record, with the figures stats need.

:func:`verify` takes a record as parsed JSON (orjson's) that the shape check
(:func:`spades_replay.record.shape.accepts`) has accepted, so one the format's models accept,
and answers one question: is it clean (every action legal, every claim right)? If so it returns the
:class:`GameFigures` of the game (bids, tricks by seat, the engine's own side scores, the
result); if not, or wherever it is unsure, ``None``. It never explains: on ``None`` the
engine's :func:`spades_replay.replayer.replay.check` runs and says what is wrong, where, under which
rule and what was legal. So every problem a user sees comes from the engine, and the verifier
only has to be right when it says "clean" (a differential test holds the two equal on every
fixture, conformance record, simulated corpora and hundreds of thousands of mutated records).

How its pure-Python kernel stays fast (docs/performance.md has the figures):

- **No name-to-int pass**: its tables are keyed by the card names as the record writes them.
- **Deferred "was it held" test**: each seat's holding mask is XOR-ed with every card she plays
  and must end at 0. Thirteen plays XOR to a 13-card holding only when they are exactly that
  holding, once each; so for any record that passes, the running masks were the true holdings
  all along, and the follow-suit and spades tests made on them were exact.
- **Deck and deal checks without a Python loop**: a deal is valid when the bits of its
  cards (summed by ``sum``) add up to the full deck, which 52 single bits do only when they
  are distinct; a deck when the set of its 52 names has 52 members. The draft keeps its
  cards with ``compress`` over the deck, its selectors made from the draft string by two
  ``str.replace``.
- **Table-driven tricks, looked up in C**: a ``map`` of a dict's ``__getitem__`` over the
  ``zip`` of the plays gives, for each two-player trick (keyed by its two card names) or each
  half of a four-player trick (keyed by the suit led and two names), the cards' bits, the
  led-suit mask a card of another suit says its player no longer holds, and who wins (the
  strengths carry the position, so the stronger half names the winner); the Python loop only
  does the bit work. Spades-broken is tested only until the first trick that holds a spade.
- **Memoised scoring** with the engine's own :func:`~spades_replay.engine.scoring.score_side`,
  one memo per side, inline in the loop over hands; the running scores are plain ints.

The card work (holdings, the two-player draft, the trick loops) is done by a
:class:`Kernel`: the pure-Python functions here (:data:`PYTHON_KERNEL`, the reference), or
their counterparts in C (``_verify_kernel.c``, :data:`COMPILED_KERNEL`), built where the
install finds a C compiler and used by default then (:data:`KERNEL`). The two answer alike on
every input (tests/test_verify_kernels.py, and every differential check runs on both).

It knows every option of format 1.1. The bids are checked by the engine's own
:func:`~spades_replay.engine.bidding.bid_violation` (only under rules that restrict them: bids
are few), against the running scores before the hand; under ``first_lead: two_of_clubs`` the
engine's :func:`~spades_replay.engine.tricks.opening_leader` names the holder of 2C after any
exchange, who must lead it. Unfinished hands are left to the engine: the verifier answers
``None`` for them.

>>> import orjson, pathlib
>>> figures = verify(orjson.loads(pathlib.Path("fixtures/two-player/mercy.json").read_bytes()))
>>> figures.complete, figures.reason, figures.hands[0].tricks
(True, 'mercy', (8, 5))
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Callable, Sequence
from itertools import compress
from typing import Any, NamedTuple

from spades_replay.engine.bidding import bid_violation, bidding_order, rules_are_free
from spades_replay.engine.cards import FULL_DECK_MASK, NON_SPADES_MASK, SUIT_MASKS
from spades_replay.engine.rules import OPTIONS, Rules
from spades_replay.engine.scoring import BLIND_NIL, Bid, SideScore, end_reason, score_side
from spades_replay.engine.seats import Seat, Side, Variant
from spades_replay.engine.tricks import opening_card, opening_leader, spades_open
from spades_replay.record.shape import CARD_NAMES

__all__ = [
    "COMPILED_KERNEL",
    "KERNEL",
    "KERNEL_VARIABLE",
    "PYTHON_KERNEL",
    "GameFigures",
    "HandFigures",
    "Kernel",
    "rules_of_data",
    "verify",
]


class HandFigures(NamedTuple):
    """One hand as the engine scores it: the dealer (two-player: the first player), every
    seat's bid (engine bids: :data:`~spades_replay.engine.scoring.BLIND_NIL` is -1) and tricks
    won, and the two sides' scores (``None`` for an unfinished hand)."""

    dealer: Seat
    bids: tuple[Bid, ...]
    tricks: tuple[int, ...]
    scores: tuple[SideScore, SideScore] | None


class GameFigures(NamedTuple):
    """A clean game: its variant and rules, every hand's figures, and the result.

    ``complete`` is true when some hand decided the game (``winner`` and ``reason`` say how);
    ``scores`` and ``bags`` are the running totals after the last complete hand, and
    ``complete_hands`` counts complete hands.
    """

    variant: Variant
    rules: Rules
    hands: tuple[HandFigures, ...]
    complete: bool
    winner: Side | None
    reason: str | None
    scores: tuple[int, int]
    bags: tuple[int, int]
    complete_hands: int


BIT: dict[str, int] = {name: 1 << card for card, name in enumerate(CARD_NAMES)}
"""The bitmask of each card, by name."""


def _strengths(led: int) -> list[int]:
    """How strong each card is in a trick led in suit ``led``: a multiple of 4, so that adding
    the card's position in the trick keeps it unique and the trick's ``max`` names its
    winner (0 for a card that cannot win: neither a spade nor of the led suit)."""
    return [
        (100 + card - 39) * 4 if card >= 39 else (1 + card % 13) * 4 if card // 13 == led else 0
        for card in range(52)
    ]


def _must_not_hold(led: int) -> list[int]:
    """The led-suit mask that the player of each card must no longer hold."""
    return [0 if card // 13 == led else SUIT_MASKS[led] for card in range(52)]


_BITS = [1 << card for card in range(52)]
_STRENGTHS = [_strengths(led) for led in range(4)]
_MUST_NOT_HOLD = [_must_not_hold(led) for led in range(4)]

_Pairs = dict[tuple[str, str], tuple[int, int, int, int]]
_SecondHalves = dict[tuple[str, str, str], tuple[int, int, int, int, int]]


@functools.cache
def _trick_tables() -> tuple[_Pairs, _SecondHalves]:
    """The pure-Python kernel's trick tables, built on its first use (13,520 entries, some
    35 ms: a process on the compiled kernel never builds them).

    The first: a trick's first two cards (all of a two-player trick), keyed by their names:
    their bits, the mask the second player must no longer hold, and the stronger one's
    strength with its position (odd: the second card is stronger). The second: the last two
    cards of a four-player trick, keyed by the suit led and their names: the bit and the mask
    each player must no longer hold, and the stronger one's strength with its position."""
    pairs = {
        (name_a, name_b): (
            _BITS[a],
            _BITS[b],
            _MUST_NOT_HOLD[a // 13][b],
            max(_STRENGTHS[a // 13][a], _STRENGTHS[a // 13][b] + 1),
        )
        for a, name_a in enumerate(CARD_NAMES)
        for b, name_b in enumerate(CARD_NAMES)
    }
    second_halves = {
        (suit, name_c, name_d): (
            _BITS[c],
            must_not_hold[c],
            _BITS[d],
            must_not_hold[d],
            max(strengths[c] + 2, strengths[d] + 3),
        )
        for suit, strengths, must_not_hold in zip("CDHS", _STRENGTHS, _MUST_NOT_HOLD, strict=True)
        for c, name_c in enumerate(CARD_NAMES)
        for d, name_d in enumerate(CARD_NAMES)
    }
    return pairs, second_halves


_SUIT_OF: dict[str, str] = {name: name[1] for name in CARD_NAMES}
_BIDS: dict[int | str, Bid] = {**{bid: bid for bid in range(14)}, "blind_nil": BLIND_NIL}


def _selectors(draft: str) -> bytes:
    """The draft's turns as ``compress`` selectors over the deck: each turn keeps its first
    card (``K``: 1, 0) or its second (``D``: 0, 1)."""
    return draft.replace("K", "\x01\x00").replace("D", "\x00\x01").encode()


_CLAIMS = ("tricks", "points", "scores", "bags")
"""A hand's claims, in the order :func:`_claims_hold` takes them."""


def _claims_hold(claimed: tuple[Any, ...], found: tuple[Any, ...]) -> bool:
    """Whether every claim made (not ``None``) is what was found."""
    return all(claim is None or claim == value for claim, value in zip(claimed, found, strict=True))


def _bids_legal(
    variant: Variant, rules: Rules, dealer: Seat, bids: tuple[Bid, ...], scores: tuple[int, int]
) -> bool:
    """Whether the engine's :func:`~spades_replay.engine.bidding.bid_violation` finds every
    bid of a hand begun at ``scores`` legal, each made in bidding order. (The engine takes a
    two-player Blind Nil declaration before the other bid; only the team minimum depends on
    the order, and it has no effect in two-player.)"""
    made: list[Bid | None] = [None] * len(bids)
    for seat in bidding_order(variant, dealer):
        if bid_violation(variant, rules, seat, bids[seat], made, scores) is not None:
            return False
        made[seat] = bids[seat]
    return True


_OPTION_NAMES = tuple(row.name for row in OPTIONS)
_OPTION_DEFAULTS = tuple(row.default for row in OPTIONS)


@functools.lru_cache(maxsize=256)
def _rules(values: tuple[Any, ...]) -> Rules:
    return Rules(**dict(zip(_OPTION_NAMES, values, strict=True)))


def rules_of_data(rules: dict[str, Any] | None) -> Rules:
    """The engine's rules of a record's parsed ``rules`` object (absent: every default), as
    :func:`spades_replay.replayer.convert.rules_of` gives them from the models; the same
    object for the same options."""
    if rules is None:
        return _rules(_OPTION_DEFAULTS)
    return _rules(tuple(map(rules.get, _OPTION_NAMES, _OPTION_DEFAULTS)))


_MEMO_SIZE = 1 << 16
"""At most this many side scores are kept per rule set and side (then the memo starts
afresh)."""
_Memo = dict[tuple[int, ...], tuple[tuple[Any, ...], int, int]]
_MEMOS: dict[tuple[Variant, Rules], tuple[_Memo, _Memo]] = {}


def _memos(variant: Variant, rules: Rules) -> tuple[_Memo, _Memo]:
    """The side scores already worked out under ``rules``, for each side, by what
    :func:`_scored` reads."""
    memos = _MEMOS.get((variant, rules))
    if memos is None or len(memos[0]) > _MEMO_SIZE or len(memos[1]) > _MEMO_SIZE:
        if len(_MEMOS) > 64:
            _MEMOS.clear()
        memos = _MEMOS[(variant, rules)] = ({}, {})
    return memos


class _Setup(NamedTuple):
    """What :func:`verify` reads of a game's variant and rules before its first hand."""

    variant: Variant
    rules: Rules
    free: bool
    opening_name: str | None
    limit: int
    broken: bool
    target: int
    lose: int
    memos: tuple[_Memo, _Memo]


_SETUPS: dict[tuple[bool, tuple[Any, ...]], _Setup] = {}


def _setup(two: bool, options: dict[str, Any] | None) -> _Setup:
    """The setup of a game of the variant (``two``: two-player) under the parsed ``rules``
    object ``options``, made once per variant and rule set (a corpus repeats a few)."""
    values = (
        _OPTION_DEFAULTS
        if options is None
        else tuple(map(options.get, _OPTION_NAMES, _OPTION_DEFAULTS))
    )
    found = _SETUPS.get((two, values))
    if found is not None and len(found.memos[0]) <= _MEMO_SIZE >= len(found.memos[1]):
        return found
    rules = _rules(values)
    variant = Variant.TWO_PLAYER if two else Variant.FOUR_PLAYER
    opening = opening_card(variant, rules)
    lose = rules.lose_score
    if len(_SETUPS) > 64:
        _SETUPS.clear()
    found = _SETUPS[(two, values)] = _Setup(
        variant,
        rules,
        rules_are_free(rules),
        None if opening is None else CARD_NAMES[opening],
        rules.blind_nil_exchange,
        spades_open(rules, spades_broken=False),
        rules.target_score,
        -(1 << 62) if lose is None else lose,  # lower than any score a record can reach
        _memos(variant, rules),
    )
    return found


def _scored(
    memo: _Memo,
    key: tuple[int, ...],
    variant: Variant,
    rules: Rules,
    side: Side,
    bids: tuple[Bid, ...],
    tricks: tuple[int, ...],
    bags_before: int,
) -> tuple[tuple[Any, ...], int, int]:
    """The engine's :func:`~spades_replay.engine.scoring.score_side` of ``side``, memoised
    under ``key`` (the side's bids and tricks, and its bags before the hand: all it reads but
    the score before, which only shifts the running score): the fields of the side's score
    before its last two (the running score and bags, :data:`_TAIL`), the points of the hand,
    and the bags after it."""
    score = score_side(variant, rules, side, bids, tricks, score_before=0, bags_before=bags_before)
    found = memo[key] = (score[:_TAIL], score.points, score.bags)
    return found


_TAIL = SideScore._fields.index("score")
assert SideScore._fields[_TAIL:] == ("score", "bags"), "a side's score ends with score, bags"


_new_tuple = tuple.__new__
"""Builds a named tuple in C, without its ``__new__``."""


def _taken(exchange: dict[str, Any]) -> Any:
    """The cards an exchange takes in: its ``in`` (the models also read ``in_``)."""
    return exchange["in"] if "in" in exchange else exchange["in_"]


def _exchange2(
    exchanges: list[dict[str, Any]],
    bids: tuple[Bid, ...],
    holdings: list[int],
    first: Seat,
    limit: int,
) -> bool:
    """Apply a two-player hand's exchanges to ``holdings``; whether they are all legal."""
    pile = FULL_DECK_MASK & ~(holdings[0] | holdings[1])
    done = [False, False]
    for index, exchange in enumerate(exchanges):
        seat = exchange["seat"]
        out, taken = exchange["out"], _taken(exchange)
        if bids[seat] != BLIND_NIL or done[seat]:
            return False
        if seat == first and bids[1 - first] == BLIND_NIL and index == 0 and len(exchanges) > 1:
            return False
        if len(out) != len(taken) or len(out) > limit:
            return False
        if len(set(out)) != len(out) or len(set(taken)) != len(taken):
            return False
        out_mask = sum(map(BIT.__getitem__, out))
        in_mask = sum(map(BIT.__getitem__, taken))
        if out_mask & ~holdings[seat] or in_mask & ~pile:
            return False
        holdings[seat] = holdings[seat] & ~out_mask | in_mask
        pile = pile & ~in_mask | out_mask
        done[seat] = True
    return True


def _exchange4(
    exchanges: list[dict[str, Any]], bids: tuple[Bid, ...], holdings: list[int], limit: int
) -> bool:
    """Apply a four-player hand's exchanges to ``holdings``; whether they are all legal.

    Only a Blind Nil bidder whose partner did not bid Blind Nil exchanges, once, so the two
    holdings an exchange touches are still as dealt."""
    done = [False] * 4
    for exchange in exchanges:
        seat = exchange["seat"]
        partner = seat ^ 2
        out, taken = exchange["out"], _taken(exchange)
        if bids[seat] != BLIND_NIL or done[seat] or bids[partner] == BLIND_NIL:
            return False
        if len(out) != len(taken) or len(out) > limit:
            return False
        if len(set(out)) != len(out) or len(set(taken)) != len(taken):
            return False
        out_mask = sum(map(BIT.__getitem__, out))
        in_mask = sum(map(BIT.__getitem__, taken))
        if out_mask & ~holdings[seat] or in_mask & ~holdings[partner]:
            return False
        holdings[seat] = holdings[seat] & ~out_mask | in_mask
        holdings[partner] = holdings[partner] & ~in_mask | out_mask
        done[seat] = True
    return True


def _play2(
    plays: Sequence[str], lead: int, other: int, leader: Seat, broken: bool
) -> tuple[int, ...] | None:
    """Tricks won by each seat in a complete two-player hand, or ``None`` if a card is
    illegal. ``lead`` and ``other`` are the holdings of the player to lead, ``leader``, and of
    the other one; ``broken`` is whether spades may be led from the start.

    The tricks are looked up in C (a ``map`` over the pairs of plays), so the loop only does
    the bit work; a bit above :data:`NON_SPADES_MASK` is a spade's."""
    it = iter(plays)
    tricks = map(_trick_tables()[0].__getitem__, zip(it, it, strict=True))
    second = 0  # tricks won by seat 1: the leader (0 or 1) added up after every trick
    if not broken:
        for bit_a, bit_b, must_not_hold, strength in tricks:
            if bit_a > NON_SPADES_MASK and lead & NON_SPADES_MASK:
                return None
            lead ^= bit_a
            other ^= bit_b
            if other & must_not_hold:
                return None
            if strength & 1:
                lead, other = other, lead
                leader ^= 1
            second += leader
            if bit_a | bit_b > NON_SPADES_MASK:
                break
    for bit_a, bit_b, must_not_hold, strength in tricks:
        lead ^= bit_a
        other ^= bit_b
        if other & must_not_hold:
            return None
        if strength & 1:
            lead, other = other, lead
            leader ^= 1
        second += leader
    if lead | other:
        return None
    return 13 - second, second


def _play4(
    plays: Sequence[str], holdings: list[int], leader: Seat, broken: bool
) -> tuple[int, ...] | None:
    """Tricks won by each seat in a complete four-player hand, or ``None`` if a card is
    illegal. ``broken`` is whether spades may be led from the start.

    Each trick is looked up in C, in two halves (a ``map`` over the pairs of plays), so the
    loop only does the bit work; a bit above :data:`NON_SPADES_MASK` is a spade's."""
    won = [0, 0, 0, 0]
    others = NON_SPADES_MASK
    pairs, second_halves = _trick_tables()
    firsts = map(pairs.__getitem__, zip(plays[0::4], plays[1::4], strict=True))
    seconds = map(
        second_halves.__getitem__,
        zip(map(_SUIT_OF.__getitem__, plays[0::4]), plays[2::4], plays[3::4], strict=True),
    )
    tricks = zip(firsts, seconds, strict=True)
    # the holdings in turn order from the player to lead, rotated when the lead passes
    h0, h1, h2, h3 = holdings[leader:] + holdings[:leader]
    if not broken:
        for (bit_a, bit_b, not_b, first), (bit_c, not_c, bit_d, not_d, second) in tricks:
            if bit_a > others and h0 & others:
                return None
            h0 ^= bit_a
            h1 ^= bit_b
            h2 ^= bit_c
            h3 ^= bit_d
            if h1 & not_b or h2 & not_c or h3 & not_d:
                return None
            offset = (first if first > second else second) & 3
            if offset:
                if offset == 1:
                    h0, h1, h2, h3 = h1, h2, h3, h0
                elif offset == 2:
                    h0, h1, h2, h3 = h2, h3, h0, h1
                else:
                    h0, h1, h2, h3 = h3, h0, h1, h2
                leader = (leader + offset) & 3
            won[leader] += 1
            if bit_a | bit_b | bit_c | bit_d > others:
                break
    for (bit_a, bit_b, not_b, first), (bit_c, not_c, bit_d, not_d, second) in tricks:
        h0 ^= bit_a
        h1 ^= bit_b
        h2 ^= bit_c
        h3 ^= bit_d
        if h1 & not_b or h2 & not_c or h3 & not_d:
            return None
        offset = (first if first > second else second) & 3
        if offset:
            if offset == 1:
                h0, h1, h2, h3 = h1, h2, h3, h0
            elif offset == 2:
                h0, h1, h2, h3 = h2, h3, h0, h1
            else:
                h0, h1, h2, h3 = h3, h0, h1, h2
            leader = (leader + offset) & 3
        won[leader] += 1
    if h0 | h1 | h2 | h3:
        return None
    return tuple(won)


def _holding(cards: Sequence[str]) -> int:
    """The sum of the cards' bits: their holding, when they are distinct."""
    return sum(map(BIT.__getitem__, cards))


def _draft2(deck: Sequence[str], draft: str) -> tuple[int, int] | None:
    """The holdings of the first and of the second drafter of a two-player hand, or ``None``
    when the deck repeats a card."""
    if len(set(deck)) != len(deck):
        return None
    kept = list(compress(deck, _selectors(draft)))
    return _holding(kept[0::2]), _holding(kept[1::2])


class Kernel(NamedTuple):
    """The functions that do the verifier's card work: its pure-Python ones, or their
    compiled counterparts (``_verify_kernel.c``), which answer the same on every input."""

    name: str
    holding: Callable[[Sequence[str]], int]
    draft2: Callable[[Sequence[str], str], tuple[int, int] | None]
    play2: Callable[[Sequence[str], int, int, Seat, bool], tuple[int, ...] | None]
    play4: Callable[[Sequence[str], list[int], Seat, bool], tuple[int, ...] | None]


PYTHON_KERNEL = Kernel("python", _holding, _draft2, _play2, _play4)
"""The reference: the functions above."""


def _compiled_kernel() -> Kernel | None:
    """The compiled kernel, where the install built it (it needs a C compiler)."""
    try:
        # by name: import-linter reads a static import of it as one of the whole package
        compiled = importlib.import_module("spades_replay.replayer._verify_kernel")
    except ImportError:
        return None
    return Kernel("compiled", compiled.holding, compiled.draft2, compiled.play2, compiled.play4)


COMPILED_KERNEL = _compiled_kernel()
"""The compiled kernel, or ``None`` where it was not built."""
KERNEL_VARIABLE = "SPADES_VERIFY_KERNEL"
"""Set to ``python`` to verify with :data:`PYTHON_KERNEL` even where the compiled one is
built."""
KERNEL = (
    PYTHON_KERNEL
    if COMPILED_KERNEL is None or os.environ.get(KERNEL_VARIABLE, "").strip().lower() == "python"
    else COMPILED_KERNEL
)
"""The kernel :func:`verify` uses: the compiled one where it is built, unless
:data:`KERNEL_VARIABLE` says ``python``."""


def verify(
    record: dict[str, Any], kernel: Kernel | None = None, *, hands: bool = True
) -> GameFigures | None:
    """The figures of ``record`` (parsed JSON the shape check accepts) if it is clean (every
    action legal, every claim right), else ``None``: then
    :func:`spades_replay.replayer.replay.check` says why. ``None`` also when the record has
    an unfinished hand. ``kernel`` does the card work (default :data:`KERNEL`); every kernel
    gives the same answer. Without ``hands`` the figures hold no hand's (``hands`` is
    empty), for a caller that asks only for the verdict and the result: building each
    hand's figures is about a tenth of the verifier's time."""
    two = record["variant"] == "two-player"
    game = _setup(two, record.get("rules"))
    variant, rules, free, opening_name, limit, broken, target, lose, (memo0, memo1) = game
    count = 2 if two else 4
    bid_of = _BIDS.__getitem__
    _, holding, draft2, play2, play4 = kernel or KERNEL
    dealer: Seat = record.get("first_dealer", 0)
    score0 = score1 = bags0 = bags1 = 0
    decided = False
    winner: Side | None = None
    reason: str | None = None
    figures: list[HandFigures] = []
    for hand in record["hands"]:
        if decided:
            return None
        stated = hand["bids"]
        # the engine's bids: the record's, but Blind Nil as -1
        bids: tuple[Bid, ...] = (
            tuple(map(bid_of, stated)) if "blind_nil" in stated else tuple(stated)
        )
        if not free and not _bids_legal(variant, rules, dealer, bids, (score0, score1)):
            return None
        plays = hand["plays"]
        exchanges = hand.get("exchanges")
        if two:
            if len(plays) != 26:
                return None
            drafted = draft2(hand["deck"], hand["draft"])
            if drafted is None:
                return None
            # by seat: the first player (``dealer``) drafts first
            holdings = [drafted[1], drafted[0]] if dealer else list(drafted)
            if exchanges and not _exchange2(exchanges, bids, holdings, dealer, limit):
                return None
            tricks = play2(plays, holdings[1 - dealer], holdings[dealer], 1 - dealer, broken)
            if tricks is None:
                return None
            key0: tuple[int, ...] = (bids[0], tricks[0], bags0)
            key1: tuple[int, ...] = (bids[1], tricks[1], bags1)
        else:
            if len(plays) != 52:
                return None
            holdings = list(map(holding, hand["deal"]))
            if sum(holdings) != FULL_DECK_MASK:
                return None
            if exchanges and not _exchange4(exchanges, bids, holdings, limit):
                return None
            if opening_name is not None:
                if plays[0] != opening_name:
                    return None
                leader = opening_leader(variant, rules, dealer, holdings)
            else:
                leader = (dealer + 1) & 3
            tricks = play4(plays, holdings, leader, broken)
            if tricks is None:
                return None
            key0 = (bids[0], bids[2], tricks[0], tricks[2], bags0)
            key1 = (bids[1], bids[3], tricks[1], tricks[3], bags1)
        side0, points0, bags0 = memo0.get(key0) or _scored(
            memo0, key0, variant, rules, 0, bids, tricks, bags0
        )
        side1, points1, bags1 = memo1.get(key1) or _scored(
            memo1, key1, variant, rules, 1, bids, tricks, bags1
        )
        score0 += points0
        score1 += points1
        claim = hand.get("result")
        if claim is not None:
            # as the record writes them: lists
            found = ([*tricks], [points0, points1], [score0, score1], [bags0, bags1])
            claimed = tuple(map(claim.get, _CLAIMS))
            if claimed != found and not _claims_hold(claimed, found):
                return None
        if hands:
            sides = (
                _new_tuple(SideScore, (*side0, score0, bags0)),
                _new_tuple(SideScore, (*side1, score1, bags1)),
            )
            figures.append(_new_tuple(HandFigures, (dealer, bids, tricks, sides)))
        if score0 >= target or score1 >= target or score0 <= lose or score1 <= lose:
            reason = end_reason(rules, (score0, score1))
            if reason is not None:
                winner = 0 if score0 > score1 else 1
                decided = True
        dealer = dealer + 1 if dealer + 1 < count else 0
    scores = (score0, score1)
    game_claim = record.get("result")
    if game_claim is not None and (
        not decided or game_claim["winner"] != winner or game_claim["scores"] != [*scores]
    ):
        return None
    return GameFigures(
        variant,
        rules,
        tuple(figures),
        decided,
        winner,
        reason,
        scores,
        (bags0, bags1),
        len(record["hands"]),
    )

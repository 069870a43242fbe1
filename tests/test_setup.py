"""The draft, the deal and Blind Nil exchanges (docs/rules.md, "Two-player" and "Four-player")."""

from __future__ import annotations

import pytest

from spades_replay.engine.actions import Exchange, IllegalActionError
from spades_replay.engine.cards import DECK, FULL_DECK_MASK, mask_of, names_of, parse_card
from spades_replay.engine.setup import (
    DraftOutcome,
    check_deal,
    check_deck,
    check_subset,
    draft_hands,
    exchange_four_player,
    exchange_two_player,
    turn_seat,
)
from spades_replay.errors import Code


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_card(name) for name in text.split())


def test_draft_turns_alternate_from_the_first_player() -> None:
    assert [turn_seat(turn, 1) for turn in range(4)] == [1, 0, 1, 0]


def test_draft_keep_and_discard() -> None:
    # deck top first: 2C 3C | 4C 5C | ... ; first player 0 keeps the top card, second player
    # discards hers (so keeps the next card).
    draft = draft_hands(DECK, "KD" * 13, first=0)
    assert names_of(draft.holdings[0]).split()[:2] == ["2C", "6C"]
    assert names_of(draft.holdings[1]).split()[:2] == ["5C", "9C"]
    assert draft.holdings[0].bit_count() == draft.holdings[1].bit_count() == 13
    assert draft.discard.bit_count() == 26
    assert draft.holdings[0] | draft.holdings[1] | draft.discard == FULL_DECK_MASK


def test_deck_must_hold_each_card_once() -> None:
    deck = list(DECK)
    deck[40] = deck[3]
    with pytest.raises(IllegalActionError) as caught:
        check_deck(deck)
    assert caught.value.code is Code.DECK_DUPLICATE_CARD
    assert caught.value.at == ("deck", 40)


def test_deal_must_give_each_card_once() -> None:
    deal = [list(DECK[13 * seat : 13 * seat + 13]) for seat in range(4)]
    assert check_deal(deal) == tuple(mask_of(hand) for hand in deal)
    deal[2][5] = deal[0][0]
    with pytest.raises(IllegalActionError) as caught:
        check_deal(deal)
    assert caught.value.code is Code.DEAL_DUPLICATE_CARD
    assert caught.value.at == ("deal", 2, 5)


def two_player_draft() -> DraftOutcome:
    return DraftOutcome(
        (mask_of(cards("AS KS QS 2C")), mask_of(cards("3D 4D 5D 6D"))),
        mask_of(cards("2H 3H 4H 5H")),
    )


def test_two_player_exchange_swaps_with_the_pile() -> None:
    swap = Exchange(0, cards("AS KS"), cards("2H 3H"))
    after = exchange_two_player(two_player_draft(), [swap], [True, False], 0, 3)
    assert names_of(after.holdings[0]) == "2C 2H 3H QS"
    assert names_of(after.discard) == "4H 5H KS AS"


def test_two_player_both_blind_second_player_first() -> None:
    first_then_second = [
        Exchange(0, cards("2C"), cards("2H")),
        Exchange(1, cards("3D"), cards("3H")),
    ]
    with pytest.raises(IllegalActionError) as caught:
        exchange_two_player(two_player_draft(), first_then_second, [True, True], 0, 3)
    assert caught.value.code is Code.EXCHANGE_ORDER
    second_then_first = [first_then_second[1], first_then_second[0]]
    after = exchange_two_player(two_player_draft(), second_then_first, [True, True], 0, 3)
    assert names_of(after.holdings[1]) == "4D 5D 6D 3H"
    # the first player may take the card the second player just put away
    takes_back = [Exchange(1, cards("3D"), cards("3H")), Exchange(0, cards("2C"), cards("3D"))]
    after = exchange_two_player(two_player_draft(), takes_back, [True, True], 0, 3)
    assert names_of(after.holdings[0]) == "3D QS KS AS"


TWO_PLAYER_ERRORS = [
    (Exchange(1, cards("3D"), cards("2H")), [True, False], Code.EXCHANGE_NOT_BLIND_NIL),
    (Exchange(0, cards("AS KS"), cards("2H")), [True, False], Code.EXCHANGE_SIZE),
    (Exchange(0, cards("AS KS QS 2C"), cards("2H 3H 4H 5H")), [True, False], Code.EXCHANGE_SIZE),
    (Exchange(0, cards("AS AS"), cards("2H 3H")), [True, False], Code.EXCHANGE_DUPLICATE_CARD),
    (Exchange(0, cards("3D"), cards("2H")), [True, False], Code.EXCHANGE_NOT_HELD),
    (Exchange(0, cards("AS"), cards("JS")), [True, False], Code.EXCHANGE_NOT_IN_PILE),
]


@pytest.mark.parametrize(("swap", "blind", "code"), TWO_PLAYER_ERRORS)
def test_two_player_exchange_errors(swap: Exchange, blind: list[bool], code: Code) -> None:
    with pytest.raises(IllegalActionError) as caught:
        exchange_two_player(two_player_draft(), [swap], blind, 0, 3)
    assert caught.value.code is code


def test_two_player_exchange_once() -> None:
    twice = [Exchange(0, cards("AS"), cards("2H")), Exchange(0, cards("KS"), cards("3H"))]
    with pytest.raises(IllegalActionError) as caught:
        exchange_two_player(two_player_draft(), twice, [True, False], 0, 3)
    assert caught.value.code is Code.EXCHANGE_REPEATED


def four_player_deal() -> tuple[int, ...]:
    return tuple(mask_of(DECK[13 * seat : 13 * seat + 13]) for seat in range(4))


def test_four_player_exchange_with_partner() -> None:
    dealt = four_player_deal()
    swap = Exchange(1, cards("2D 3D 4D"), cards("2S 3S 4S"))
    after = exchange_four_player(dealt, [swap], [False, True, False, False], 3)
    assert names_of(after[1]).split()[-3:] == ["2S", "3S", "4S"]
    assert {"2D", "3D", "4D"} <= set(names_of(after[3]).split())
    assert after[0] == dealt[0]
    assert after[2] == dealt[2]


FOUR_PLAYER_ERRORS = [
    (
        Exchange(1, cards("2D"), cards("2S")),
        [False, True, False, True],
        Code.EXCHANGE_PARTNER_BLIND,
    ),
    (Exchange(1, cards("2C"), cards("2S")), [False, True, False, False], Code.EXCHANGE_NOT_HELD),
    (
        Exchange(1, cards("2D"), cards("2H")),
        [False, True, False, False],
        Code.EXCHANGE_PARTNER_NOT_HELD,
    ),
    (
        Exchange(0, cards("2C"), cards("2H")),
        [False, True, False, False],
        Code.EXCHANGE_NOT_BLIND_NIL,
    ),
]


@pytest.mark.parametrize(("swap", "blind", "code"), FOUR_PLAYER_ERRORS)
def test_four_player_exchange_errors(swap: Exchange, blind: list[bool], code: Code) -> None:
    with pytest.raises(IllegalActionError) as caught:
        exchange_four_player(four_player_deal(), [swap], blind, 3)
    assert caught.value.code is code


@pytest.mark.parametrize(
    ("limit", "size", "allowed"),
    [(3, 3, True), (1, 1, True), (1, 2, False), (0, 0, True), (0, 1, False)],
)
def test_option_blind_nil_exchange(limit: int, size: int, allowed: bool) -> None:
    """The option caps the exchange in both variants (fewer cards, or none, are allowed)."""
    two = Exchange(0, cards("AS KS QS")[:size], cards("2H 3H 4H")[:size])
    four = Exchange(1, cards("2D 3D 4D")[:size], cards("2S 3S 4S")[:size])
    for run in (
        lambda: exchange_two_player(two_player_draft(), [two], [True, False], 0, limit),
        lambda: exchange_four_player(
            four_player_deal(), [four], [False, True, False, False], limit
        ),
    ):
        if allowed:
            run()
        else:
            with pytest.raises(IllegalActionError) as caught:
                run()
            assert caught.value.code is Code.EXCHANGE_SIZE


def test_a_deck_or_deal_of_53_cards_with_one_twice_is_refused() -> None:
    deck = [*DECK, DECK[3]]
    with pytest.raises(IllegalActionError) as caught:
        check_deck(deck)
    assert (caught.value.code, caught.value.at) == (Code.DECK_DUPLICATE_CARD, ("deck", 52))
    deal = [list(DECK[13 * seat : 13 * seat + 13]) for seat in range(4)]
    deal[3].append(DECK[0])
    with pytest.raises(IllegalActionError) as caught:
        check_deal(deal)
    assert (caught.value.code, caught.value.at, caught.value.message) == (
        Code.DEAL_DUPLICATE_CARD,
        ("deal", 3, 13),
        "2C is dealt twice (seat 0 card 1, seat 3 card 14)",
    )


def test_a_deal_short_of_cards_but_with_none_twice_gives_each_seats_holding() -> None:
    """check_deal looks for repeats only (the count is the format's check)."""
    deal = [list(DECK[13 * seat : 13 * seat + 12]) for seat in range(4)]
    assert check_deal(deal) == tuple(mask_of(hand) for hand in deal)
    assert check_deal([[], cards("AS"), cards("2C 3C"), []]) == (0, 1 << 51, 0b11, 0)


def test_each_exchange_error_points_at_the_side_or_the_card_at_fault() -> None:
    for swap, at, message in (
        (
            Exchange(0, cards("AS KS"), cards("2H")),
            ("exchanges", 0, "in"),
            "puts away 2 card(s) and takes in 1; both must be the same number, at most 3",
        ),
        (
            Exchange(0, cards("AS KS QS 2C"), cards("2H 3H 4H 5H")),
            ("exchanges", 0, "out"),
            "puts away 4 card(s) and takes in 4; both must be the same number, at most 3",
        ),
        (
            Exchange(0, cards("AS AS"), cards("2H 3H")),
            ("exchanges", 0, "out", 1),
            "names AS twice in 'out'",
        ),
        (
            Exchange(0, cards("AS KS"), cards("2H 2H")),
            ("exchanges", 0, "in", 1),
            "names 2H twice in 'in'",
        ),
    ):
        with pytest.raises(IllegalActionError) as caught:
            exchange_two_player(two_player_draft(), [swap], [True, False], 0, 3)
        assert (caught.value.at, caught.value.message, caught.value.seat) == (at, message, 0)


def test_the_first_player_may_exchange_alone_when_both_bid_blind_nil() -> None:
    """The second player exchanges first; when she exchanges nothing, the first player's
    exchange is the only one recorded."""
    alone = [Exchange(0, cards("2C"), cards("2H"))]
    after = exchange_two_player(two_player_draft(), alone, [True, True], 0, 3)
    assert names_of(after.holdings[0]) == "2H QS KS AS"


def test_four_player_exchange_once() -> None:
    twice = [Exchange(1, cards("2D"), cards("2S")), Exchange(1, cards("3D"), cards("3S"))]
    with pytest.raises(IllegalActionError) as caught:
        exchange_four_player(four_player_deal(), twice, [False, True, False, False], 3)
    assert (caught.value.code, caught.value.at) == (
        Code.EXCHANGE_REPEATED,
        ("exchanges", 1, "seat"),
    )


def test_a_card_taken_from_an_empty_pool_is_refused_saying_the_pool_holds_nothing() -> None:
    with pytest.raises(IllegalActionError) as caught:
        check_subset(
            cards("2H"),
            0,
            Code.EXCHANGE_NOT_IN_PILE,
            "in the discard pile",
            "cards taken in come from the discard pile",
            at=("exchanges", 0, "in"),
            seat=1,
        )
    error = caught.value
    assert (error.message, error.at, error.legal, error.seat) == (
        "2H is not in the discard pile, which holds nothing",
        ("exchanges", 0, "in", 0),
        (),
        1,
    )

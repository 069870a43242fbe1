"""Play legality and trick-taking (docs/rules.md, "Both variants"), table-driven."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spades_replay.engine.actions import IllegalActionError
from spades_replay.engine.cards import (
    CLUBS,
    HEARTS,
    SPADES,
    cards_of,
    mask_of,
    names_of,
    parse_card,
)
from spades_replay.engine.rules import Rules
from spades_replay.engine.seats import Variant
from spades_replay.engine.tricks import (
    CLUB_TWO,
    beats,
    check_play,
    is_legal_play,
    legal_plays,
    opening_card,
    play_out,
    play_violation,
    strict_legal_plays,
    trick_winner,
)
from spades_replay.errors import Code


def hold(text: str) -> int:
    return mask_of(parse_card(name) for name in text.split())


# holding, led suit (None = leading), spades broken, card, violation
LEGALITY = [
    ("3C KC 7H 2S", CLUBS, False, "3C", None),
    ("3C KC 7H 2S", CLUBS, False, "KC", None),
    ("3C KC 7H 2S", CLUBS, False, "7H", Code.PLAY_REVOKE),
    ("3C KC 7H 2S", CLUBS, False, "2S", Code.PLAY_REVOKE),
    ("7H 2S", CLUBS, False, "2S", None),  # void: may trump
    ("7H 2S", CLUBS, False, "7H", None),  # void: may discard, trumping not required
    ("3C KC 7H 2S", None, False, "2S", Code.PLAY_SPADES_NOT_BROKEN),
    ("3C KC 7H 2S", None, True, "2S", None),
    ("2S 9S AS", None, False, "9S", None),  # only spades: may lead one
    ("3C KC 7H 2S", None, False, "7H", None),
    ("3C KC 7H", CLUBS, False, "AD", Code.PLAY_NOT_HELD),
    ("3C KC 7H", None, True, "AD", Code.PLAY_NOT_HELD),
    ("4S 5S", SPADES, True, "4S", None),
    ("4S 5H", SPADES, True, "5H", Code.PLAY_REVOKE),
]


@pytest.mark.parametrize(("holding", "led", "broken", "card", "violation"), LEGALITY)
def test_play_legality(
    holding: str, led: int | None, broken: bool, card: str, violation: Code | None
) -> None:
    mask = hold(holding)
    played = parse_card(card)
    assert play_violation(mask, played, led, broken) is violation
    assert is_legal_play(mask, played, led, broken) is (violation is None)
    legal = legal_plays(mask, led, broken)
    if violation is not Code.PLAY_NOT_HELD:
        assert bool(legal >> played & 1) is (violation is None)


LEGAL_SETS = [
    ("3C KC 7H 2S", CLUBS, False, "3C KC"),
    ("3C KC 7H 2S", HEARTS, False, "7H"),
    ("3C KC 2S", HEARTS, False, "3C KC 2S"),
    ("3C KC 7H 2S", None, False, "3C KC 7H"),
    ("3C KC 7H 2S", None, True, "3C KC 7H 2S"),
    ("2S 9S", None, False, "2S 9S"),
]


@pytest.mark.parametrize(("holding", "led", "broken", "expected"), LEGAL_SETS)
def test_legal_plays(holding: str, led: int | None, broken: bool, expected: str) -> None:
    assert names_of(legal_plays(hold(holding), led, broken)) == expected


# cards in play order, leader, seats, winner
WINNERS = [
    ("KH AH 2H 3H", 0, 4, 1),  # highest of the led suit
    ("KH AH 2S 3H", 0, 4, 2),  # any spade beats the led suit
    ("KH AH 2S 3S", 0, 4, 3),  # highest spade
    ("KH AC AD 2H", 0, 4, 0),  # off-suit aces never win
    ("KH AC AD 2H", 2, 4, 2),  # leader offset wraps round the table
    ("5D AS", 1, 2, 0),
    ("5D 6D", 0, 2, 1),
    ("5D 6C", 0, 2, 0),
    ("QS KS", 1, 2, 0),
]


@pytest.mark.parametrize(("cards", "leader", "seats", "winner"), WINNERS)
def test_trick_winner(cards: str, leader: int, seats: int, winner: int) -> None:
    played = [parse_card(name) for name in cards.split()]
    assert trick_winner(played, leader, seats) == winner


def test_rules_example_kelly_and_donna() -> None:
    """Kelly leads a heart. Donna has no hearts, so she may play a spade (and win the trick,
    which breaks spades) or a club or a diamond."""
    kelly = hold("9H 4C")
    donna = hold("2S 3C 4D")
    assert names_of(legal_plays(donna, HEARTS, False)) == "3C 4D 2S"
    outcome = play_out((kelly, donna), 0, [parse_card("9H"), parse_card("2S")])
    assert outcome.tricks[0].winner == 1
    assert outcome.spades_broken
    calm = play_out((kelly, donna), 0, [parse_card("9H"), parse_card("3C")])
    assert calm.tricks[0].winner == 0
    assert not calm.spades_broken


def test_rules_example_revoke_message() -> None:
    """The example of docs/errors.md: played 7H but must follow clubs (holds 3C, KC)."""
    with pytest.raises(IllegalActionError) as caught:
        check_play(
            hold("3C KC 7H"),
            parse_card("7H"),
            CLUBS,
            False,
            seat=1,
            at=("plays", 9),
            trick=5,
            position=2,
        )
    error = caught.value
    assert error.code is Code.PLAY_REVOKE
    assert error.message == "played 7H but must follow clubs (holds 3C, KC)"
    assert error.legal == ("3C", "KC")
    assert (error.trick, error.position, error.seat, error.at) == (5, 2, 1, ("plays", 9))


def test_play_out_stops_at_the_first_illegal_card() -> None:
    holdings = (hold("AC 2H"), hold("3C 4H"))
    with pytest.raises(IllegalActionError) as caught:
        play_out(holdings, 0, [parse_card("AC"), parse_card("4H")])
    assert caught.value.code is Code.PLAY_REVOKE
    assert caught.value.at == ("plays", 1)


def test_play_out_counts_tricks_and_leaders() -> None:
    holdings = (hold("AC 2H"), hold("3C 4H"))
    outcome = play_out(holdings, 1, [parse_card(c) for c in "3C AC 2H 4H".split()])
    assert [(t.leader, t.winner) for t in outcome.tricks] == [(1, 0), (0, 1)]
    assert outcome.tricks_won == (1, 1)
    assert outcome.holdings == (0, 0)
    partial = play_out(holdings, 1, [parse_card("3C")])
    assert partial.tricks[0].winner is None
    assert partial.tricks_won == (0, 0)


def reference_play_out(holdings: list[int], leader: int, plays: list[int]) -> object:
    """The card play replayed the slow, obvious way, one rule function per card."""
    count = len(holdings)
    held = list(holdings)
    won = [0] * count
    broken = False
    seat = leader
    trick: list[int] = []
    for index, card in enumerate(plays):
        led = trick[0] // 13 if trick else None
        violation = play_violation(held[seat], card, led, broken)
        if violation is not None:
            return ("refused", index, violation)
        held[seat] &= ~(1 << card)
        broken = broken or card >= 39
        trick.append(card)
        if len(trick) == count:
            winner = trick_winner(trick, (seat + 1) % count, count)
            won[winner] += 1
            seat = winner
            trick = []
        else:
            seat = (seat + 1) % count
    return (tuple(won), tuple(held), broken)


@given(
    seats=st.sampled_from([2, 4]),
    seed=st.integers(0, 2**32),
    mistakes=st.sampled_from([0.0, 0.05, 0.3]),
)
def test_play_out_agrees_with_the_rule_functions(seats: int, seed: int, mistakes: float) -> None:
    """play_out writes the rules inline for speed; on random plays, legal and not, it must
    refuse exactly what play_violation refuses, and otherwise count the same tricks."""
    rng = random.Random(seed)
    deck = list(range(52))
    rng.shuffle(deck)
    holdings = [mask_of(deck[13 * seat : 13 * seat + 13]) for seat in range(seats)]
    leader = rng.randrange(seats)
    plays: list[int] = []
    state_held = list(holdings)
    seat = leader
    trick: list[int] = []
    broken = False
    for _ in range(13 * seats):
        led = trick[0] // 13 if trick else None
        if rng.random() < mistakes:
            card = rng.randrange(52)
        else:
            card = rng.choice(cards_of(legal_plays(state_held[seat], led, broken)))
        plays.append(card)
        if play_violation(state_held[seat], card, led, broken) is not None:
            break
        state_held[seat] &= ~(1 << card)
        broken = broken or card >= 39
        trick.append(card)
        if len(trick) == seats:
            seat = trick_winner(trick, (seat + 1) % seats, seats)
            trick = []
        else:
            seat = (seat + 1) % seats
    expected = reference_play_out(holdings, leader, plays)
    if expected[0] == "refused":
        with pytest.raises(IllegalActionError) as caught:
            play_out(holdings, leader, plays)
        assert expected == ("refused", caught.value.at[1], caught.value.code)
        return
    outcome = play_out(holdings, leader, plays)
    assert expected == (outcome.tricks_won, outcome.holdings, outcome.spades_broken)
    assert sum(outcome.tricks_won) == len(outcome.winners) == len(plays) // seats


def test_the_opening_card_and_openspiels_strict_lead() -> None:
    clubs_lead = Rules(first_lead="two_of_clubs")
    assert opening_card(Variant.FOUR_PLAYER, clubs_lead) == CLUB_TWO
    assert opening_card(Variant.TWO_PLAYER, clubs_lead) is None  # four-player only
    assert opening_card(Variant.FOUR_PLAYER, Rules()) is None
    # spades never count as broken: a spade leads only from a hand of spades
    assert names_of(strict_legal_plays(hold("3C 2S"), None)) == "3C"
    assert names_of(strict_legal_plays(hold("2S 3S"), None)) == "2S 3S"
    assert names_of(strict_legal_plays(hold("3C 2S"), SPADES)) == "2S"
    assert names_of(strict_legal_plays(hold("3C 2S"), HEARTS)) == "3C 2S"


def test_a_card_never_beats_itself() -> None:
    assert not any(beats(card, card) for card in range(52))


def test_play_out_keeps_spades_closed_unless_told_they_are_free() -> None:
    holdings = (hold("2C 3S"), hold("3C 4S"))
    with pytest.raises(IllegalActionError) as caught:
        play_out(holdings, 0, [parse_card("3S")])
    assert (caught.value.code, caught.value.legal) == (Code.PLAY_SPADES_NOT_BROKEN, ("2C",))
    assert play_out(holdings, 0, [parse_card("3S")], spades_free=True).spades_broken is True
    assert play_out(holdings, 0, ()).spades_broken is False


def test_a_card_after_the_thirteenth_trick_is_one_she_does_not_hold() -> None:
    # seat 0 holds the clubs and leads each; seat 1, with only diamonds, throws one: seat 0
    # wins all 13 tricks and leads again, with nothing left
    clubs, diamonds = (
        cards_of(hold("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC")),
        cards_of(hold("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD")),
    )
    plays = [card for pair in zip(clubs, diamonds, strict=True) for card in pair]
    holdings = (mask_of(clubs), mask_of(diamonds))
    assert play_out(holdings, 0, plays).tricks_won == (13, 0)
    with pytest.raises(IllegalActionError) as caught:
        play_out(holdings, 0, [*plays, parse_card("AS")])
    error = caught.value
    assert (error.code, error.message, error.at, error.seat, error.trick, error.position) == (
        Code.PLAY_NOT_HELD,
        "played AS but does not hold it (holds nothing)",
        ("plays", 26),
        0,
        14,
        1,
    )

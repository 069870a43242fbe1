"""The engine's actions in the words the tools show them in (the stepper, the replay's
lines), an illegal action moved to the record's own place of it, and the small helpers the
interop and the rescoring ask of the engine: each against values written out by hand."""

from __future__ import annotations

import dataclasses

from spades_replay.engine.actions import Draw, IllegalActionError, PlaceBid, PlayCard
from spades_replay.engine.cards import mask_of, parse_card
from spades_replay.engine.rules import Rules
from spades_replay.engine.scoring import BLIND_NIL, NIL
from spades_replay.engine.seats import Variant
from spades_replay.engine.state import (
    Phase,
    apply,
    drafted_cards,
    legal_plays,
    start_four_player,
    start_two_player,
    strict_legal_plays,
)
from spades_replay.engine.tricks import Trick
from spades_replay.errors import Code


def _hold(text: str) -> int:
    return mask_of(parse_card(name) for name in text.split())


def test_each_action_says_who_does_what() -> None:
    assert str(Draw(0, True)) == "seat 0 keeps the top card"
    assert str(Draw(1, False)) == "seat 1 discards the top card"
    assert str(PlaceBid(2, 4)) == "seat 2 bids 4"
    assert str(PlaceBid(3, NIL)) == "seat 3 bids Nil"
    assert str(PlaceBid(1, BLIND_NIL)) == "seat 1 bids Blind Nil"
    assert str(PlayCard(0, parse_card("QS"))) == "seat 0 plays QS"


def test_an_illegal_action_moved_to_another_place_keeps_everything_else() -> None:
    error = IllegalActionError(
        Code.PLAY_REVOKE,
        "seat 2 must follow hearts",
        "follow suit",
        at=("hands", 0, "plays", 5),
        seat=2,
        legal=("AH", "2H"),
        trick=2,
        position=3,
    )
    moved = error.relocated(("exchanges", 1, "out"))
    assert str(moved) == "seat 2 must follow hearts"
    assert (moved.code, moved.message, moved.rule, moved.at) == (
        Code.PLAY_REVOKE,
        "seat 2 must follow hearts",
        "follow suit",
        ("exchanges", 1, "out"),
    )
    assert (moved.seat, moved.legal, moved.trick, moved.position) == (2, ("AH", "2H"), 2, 3)
    assert error.at == ("hands", 0, "plays", 5)


def test_a_draft_turn_names_the_card_kept_and_the_card_thrown() -> None:
    deck = [parse_card(name) for name in ("AS", "KH", "QD", "JC")]
    before = start_two_player(Rules(), 0, deck)
    kept = apply(before, Draw(0, True))
    assert drafted_cards(before, kept) == (parse_card("AS"), parse_card("KH"))
    thrown = apply(before, Draw(0, False))
    assert drafted_cards(before, thrown) == (parse_card("KH"), parse_card("AS"))


def test_the_strict_plays_never_lead_a_spade_from_a_hand_with_another_suit() -> None:
    deal = [_hold("AS KS 2H"), _hold("QS 3H"), _hold("JS 4H"), _hold("TS 5H")]
    state = start_four_player(Rules(), 3, deal)
    for seat in range(4):
        state = apply(state, PlaceBid(seat, 1))
    assert state.phase is Phase.PLAY
    assert state.turn == 0
    broken = dataclasses.replace(state, spades_broken=True)
    assert legal_plays(broken) == _hold("AS KS 2H")
    assert strict_legal_plays(broken) == _hold("2H")
    # following, and a leader who holds nothing but spades, play as always
    only_spades = dataclasses.replace(broken, holdings=(_hold("AS KS"), *deal[1:]))
    assert strict_legal_plays(only_spades) == _hold("AS KS")
    led = apply(broken, PlayCard(0, parse_card("2H")))
    assert strict_legal_plays(led) == legal_plays(led) == _hold("3H")
    assert strict_legal_plays(dataclasses.replace(led, turn=None)) == legal_plays(
        dataclasses.replace(led, turn=None)
    )


def test_sides_are_named_by_the_variant_and_trick_seats_follow_the_leader() -> None:
    assert Variant.TWO_PLAYER.side_name(1) == "seat 1"
    assert Variant.FOUR_PLAYER.side_name(0) == "team 0"
    trick = Trick(4, 3, (parse_card("2H"), parse_card("3H"), parse_card("4H")), None, 4)
    assert [trick.seat_of(position) for position in range(4)] == [3, 0, 1, 2]
    assert Trick(1, 1, (), None, 2).seat_of(1) == 0


def test_rules_show_only_the_options_they_change() -> None:
    assert repr(Rules()) == "Rules()"
    changed = Rules(target_score=300, nil_allowed=False, first_lead="two_of_clubs")
    assert repr(changed) == (
        "Rules(target_score=300, nil_allowed=False, first_lead='two_of_clubs')"
    )

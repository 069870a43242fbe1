"""The engine's actions in the words the tools show them in (the stepper, the replay's
lines), an illegal action moved to the record's own place of it, and the small helpers the
interop and the rescoring ask of the engine; then what ``apply`` and its batches answer to
an illegal action (the code, the words, the rule, the seat, the place, what was legal) and
the states they build on the way: each against values written out by hand."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from spades_replay.engine.actions import (
    Action,
    DeclareBlindNil,
    Draw,
    Exchange,
    IllegalActionError,
    PlaceBid,
    PlayCard,
)
from spades_replay.engine.cards import DECK, cards_of, mask_of, parse_card
from spades_replay.engine.game import HandActions, iter_hands
from spades_replay.engine.rules import Rules
from spades_replay.engine.scoring import BLIND_NIL, NIL
from spades_replay.engine.seats import Variant
from spades_replay.engine.state import (
    HandState,
    Phase,
    apply,
    apply_draws,
    apply_plays,
    can_declare_blind_nil,
    drafted_cards,
    drive_hand,
    exchange_limit,
    exchange_sources,
    legal_bids,
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
    exchange = Exchange(
        1, (parse_card("8S"), parse_card("JS")), (parse_card("2D"), parse_card("5H"))
    )
    assert str(exchange) == "seat 1 gives 8S JS and takes 2D 5H"


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


# -- the engine's answers to illegal actions: the code, the words, the rule, the seat, the place --

# each seat of a four-player deal holds every fourth card of the deck (2C 3C 4C 5C ... AS)
STRIPED = (
    "2C 6C TC AC 5D 9D KD 4H 8H QH 3S 7S JS",
    "3C 7C JC 2D 6D TD AD 5H 9H KH 4S 8S QS",
    "4C 8C QC 3D 7D JD 2H 6H TH AH 5S 9S KS",
    "5C 9C KC 4D 8D QD 3H 7H JH 2S 6S TS AS",
)
TURN = "each action is taken by the seat whose turn it is"
PHASE = "a hand goes: draft (two-player), exchanges, bidding, play"
BID = "a bid is a whole number from 0 to 13; Blind Nil is declared before seeing one's cards"


def _striped(
    dealer: int, rules: Rules | None = None, scores: tuple[int, int] = (0, 0)
) -> HandState:
    return start_four_player(rules or Rules(), dealer, [_hold(text) for text in STRIPED], scores)


def _bid_all(state: HandState, bids: dict[int, int]) -> HandState:
    while state.phase is Phase.BIDDING:
        assert state.turn is not None
        state = apply(state, PlaceBid(state.turn, bids[state.turn]))
    return state


def _played_out(state: HandState) -> list[HandState]:
    """Every state of the play, each card the lowest the seat to act may play."""
    states = [state]
    while state.phase is Phase.PLAY:
        assert state.turn is not None
        state = apply(state, PlayCard(state.turn, cards_of(legal_plays(state))[0]))
        states.append(state)
    return states


def _drafted(state: HandState) -> HandState:
    """A two-player hand after a draft where every seat keeps the top card."""
    return apply_draws(state, [True] * (26 - len(state.draft)))


def _told_in_full(step: Callable[[], object]) -> tuple[object, ...]:
    """What ``step``'s refusal tells: code, message, rule, seat, place, the legal choices,
    the trick and the card's position in it."""
    with pytest.raises(IllegalActionError) as caught:
        step()
    error = caught.value
    return (
        error.code,
        error.message,
        error.rule,
        error.seat,
        error.at,
        error.legal,
        error.trick,
        error.position,
    )


def _refusal(step: Callable[[], object]) -> tuple[object, ...]:
    """The refusal's code, message, rule, seat and place."""
    return _told_in_full(step)[:5]


def _refused(state: HandState, action: Action) -> tuple[object, ...]:
    return _refusal(lambda: apply(state, action))


def test_an_action_out_of_turn_or_out_of_its_phase_is_refused_in_words() -> None:
    bidding = _striped(dealer=0)  # seat 1, left of the dealer, bids first
    assert _refused(bidding, PlaceBid(2, 3)) == (
        Code.ACTION_OUT_OF_TURN,
        "seat 2 tries to bid but it is seat 1's turn",
        TURN,
        2,
        (),
    )
    for action, what in (
        (PlayCard(1, parse_card("3C")), "play a card"),
        (Draw(1, True), "take a draft turn"),
        (Exchange(1, (), ()), "exchange cards"),
    ):
        assert _refused(bidding, action) == (
            Code.ACTION_WRONG_PHASE,
            f"seat 1 tries to {what} during the bidding",
            PHASE,
            1,
            (),
        )
    done = _played_out(_bid_all(bidding, dict.fromkeys(range(4), 3)))[-1]
    assert done.phase is Phase.DONE
    assert done.turn is None
    assert _refused(done, PlaceBid(0, 3)) == (
        Code.ACTION_WRONG_PHASE,
        "seat 0 tries to bid, but the hand is over",
        PHASE,
        0,
        (),
    )
    # the batches ask as seat 0 once no seat is to act
    assert _refusal(lambda: apply_plays(done, [parse_card("2C")])) == (
        Code.ACTION_WRONG_PHASE,
        "seat 0 tries to play a card, but the hand is over",
        PHASE,
        0,
        (),
    )
    two = _drafted(start_two_player(Rules(), 1, DECK))
    two_done = _played_out(_bid_all(two, {0: 3, 1: 3}))[-1]
    assert _refusal(lambda: apply_draws(two_done, [True])) == (
        Code.ACTION_WRONG_PHASE,
        "seat 0 tries to take a draft turn, but the hand is over",
        PHASE,
        0,
        (),
    )
    # the batches ask the seat whose turn it is: in the bidding, cards are out of their phase
    assert _refusal(lambda: apply_plays(bidding, [parse_card("3C")])) == (
        Code.ACTION_WRONG_PHASE,
        "seat 1 tries to play a card during the bidding",
        PHASE,
        1,
        (),
    )


def test_a_bid_that_is_no_bid_is_refused_and_says_so() -> None:
    assert _refused(_striped(dealer=0), PlaceBid(1, 14)) == (
        Code.ACTION_BAD_BID,
        "seat 1 bids 14, which is not a bid",
        BID,
        1,
        (),
    )
    drafted = _drafted(start_two_player(Rules(), 0, DECK))
    assert (drafted.phase, drafted.turn) == (Phase.BIDDING, 1)
    assert _refused(drafted, PlaceBid(1, BLIND_NIL)) == (
        Code.ACTION_BAD_BID,
        "seat 1 bids -1, which is not a bid"
        " (in two-player, Blind Nil is declared before the draft)",
        BID,
        1,
        (),
    )


def test_blind_nil_is_declared_before_the_seats_first_draft_turn_and_only_in_two_player() -> None:
    four = _striped(dealer=0)
    assert not can_declare_blind_nil(four, 1)
    assert _refused(four, DeclareBlindNil(1)) == (
        Code.ACTION_WRONG_PHASE,
        "in four-player, Blind Nil is a bid made in turn (PlaceBid with BLIND_NIL)",
        PHASE,
        1,
        (),
    )
    start = start_two_player(Rules(), 0, DECK)  # seat 0 takes turns 0, 2, ...; seat 1 turns 1, 3
    assert can_declare_blind_nil(start, 0)
    assert can_declare_blind_nil(start, 1)
    one = apply(start, Draw(0, True))
    late = "can no longer declare Blind Nil (she has seen cards or already declared)"
    assert not can_declare_blind_nil(one, 0)
    assert _refused(one, DeclareBlindNil(0)) == (Code.ACTION_BAD_BID, f"seat 0 {late}", BID, 0, ())
    assert can_declare_blind_nil(one, 1)
    declared = apply(one, DeclareBlindNil(1))
    assert declared == dataclasses.replace(one, bids=(None, BLIND_NIL))
    assert _refused(declared, DeclareBlindNil(1)) == (
        Code.ACTION_BAD_BID,
        f"seat 1 {late}",
        BID,
        1,
        (),
    )
    two = apply(one, Draw(1, True))
    assert not can_declare_blind_nil(two, 1)
    assert _refused(two, DeclareBlindNil(1))[:2] == (Code.ACTION_BAD_BID, f"seat 1 {late}")


def test_the_bidding_changes_only_the_bids_and_the_turn_until_play() -> None:
    start = _striped(dealer=3)
    assert (start.turn, start.trick_leader) == (0, 0)
    assert _striped(dealer=1).trick_leader == 2
    assert [start_two_player(Rules(), dealer, DECK).trick_leader for dealer in (0, 1)] == [1, 0]
    assert legal_bids(start)[:3] == (BLIND_NIL, NIL, 1)
    assert exchange_sources(start) == (0, 0)
    after = apply(start, PlaceBid(0, 3))
    assert after == dataclasses.replace(start, bids=(3, None, None, None), turn=1)
    play = _bid_all(after, {1: 4, 2: NIL, 3: 2})
    assert play == dataclasses.replace(
        start, phase=Phase.PLAY, turn=0, trick_leader=0, bids=(3, 4, NIL, 2)
    )
    assert legal_bids(play) == ()
    assert exchange_sources(play) == (0, 0)
    drafted = _drafted(start_two_player(Rules(), 0, DECK))
    assert (drafted.deck, drafted.spades_broken, drafted.trick_leader) == (DECK, False, 1)


def test_partners_who_both_bid_blind_nil_exchange_nothing() -> None:
    start = _striped(dealer=3)  # seats bid 0, 1, 2, 3
    play = _bid_all(start, {0: BLIND_NIL, 1: 3, 2: BLIND_NIL, 3: 4})
    assert (play.phase, play.turn, play.exchanges) == (Phase.PLAY, 0, ())
    assert play.holdings == start.holdings


def test_a_four_player_exchange_takes_from_the_partners_hand_as_dealt() -> None:
    exchange = _bid_all(_striped(dealer=0), {1: BLIND_NIL, 2: 3, 3: 4, 0: 4})
    assert (exchange.phase, exchange.turn) == (Phase.EXCHANGE, 1)
    assert exchange_sources(exchange) == (_hold(STRIPED[1]), _hold(STRIPED[3]))
    assert exchange_limit(exchange) == 3
    assert _told_in_full(
        lambda: apply(exchange, Exchange(1, (parse_card("3C"),), (parse_card("2C"),)))
    )[:6] == (
        Code.EXCHANGE_PARTNER_NOT_HELD,
        f"2C is not in her partner's hand as dealt (seat 3), which holds {STRIPED[3]}",
        "the partner gives only cards she was dealt",
        1,
        ("exchanges", 0, "in", 0),
        tuple(STRIPED[3].split()),
    )
    done = apply(exchange, Exchange(1, (parse_card("3C"),), (parse_card("5C"),)))
    assert done.holdings == (
        _hold(STRIPED[0]),
        _hold(STRIPED[1].replace("3C", "5C")),
        _hold(STRIPED[2]),
        _hold(STRIPED[3].replace("5C", "3C")),
    )
    assert (done.phase, done.turn, done.discard) == (Phase.PLAY, 1, 0)


def test_a_two_player_exchange_swaps_with_the_discard_pile() -> None:
    declared = apply(start_two_player(Rules(), 0, DECK), DeclareBlindNil(1))
    # every seat keeps the top card: seat 0 keeps the deck's 1st, 5th, 9th ... cards, seat 1
    # its 3rd, 7th ...; the pile holds the others
    exchange = _drafted(declared)
    pile = _hold(STRIPED[1]) | _hold(STRIPED[3])
    assert exchange.holdings == (_hold(STRIPED[0]), _hold(STRIPED[2]))
    assert (exchange.phase, exchange.turn, exchange.discard) == (Phase.EXCHANGE, 1, pile)
    assert exchange_sources(exchange) == (_hold(STRIPED[2]), pile)
    assert _told_in_full(
        lambda: apply(exchange, Exchange(1, (parse_card("2C"),), (parse_card("3C"),)))
    )[:6] == (
        Code.EXCHANGE_NOT_HELD,
        f"2C is not in her hand, which holds {STRIPED[2]}",
        "a player gives only cards she holds",
        1,
        ("exchanges", 0, "out", 0),
        tuple(STRIPED[2].split()),
    )
    done = apply(exchange, Exchange(1, (parse_card("4C"),), (parse_card("3C"),)))
    assert done.holdings == (_hold(STRIPED[0]), _hold(STRIPED[2].replace("4C", "3C")))
    assert done.discard == pile & ~_hold("3C") | _hold("4C")
    assert (done.phase, done.turn) == (Phase.BIDDING, 0)
    # no more than she holds, whatever the rules' limit
    wide = _drafted(
        apply(start_two_player(Rules(blind_nil_exchange=20), 0, DECK), DeclareBlindNil(1))
    )
    assert exchange_limit(wide) == 13


def test_a_first_lead_other_than_2c_is_refused_card_by_card_and_in_a_batch() -> None:
    # dealer 1: seat 2 would lead, but seat 0 holds 2C
    play = _bid_all(_striped(1, Rules(first_lead="two_of_clubs")), dict.fromkeys(range(4), 3))
    assert (play.phase, play.turn) == (Phase.PLAY, 0)
    six = parse_card("6C")
    refused = (
        Code.PLAY_FIRST_LEAD,
        "led 6C, but she holds 2C and must lead it to the first trick (first_lead is two_of_clubs)",
        "with first_lead two_of_clubs, the player holding the two of clubs leads it to the first"
        " trick",
        0,
        ("plays", 0),
        ("2C",),
        1,
        1,
    )
    assert _told_in_full(lambda: apply(play, PlayCard(0, six))) == refused
    assert _told_in_full(lambda: apply_plays(play, [six, parse_card("3C")])) == refused


def test_a_spade_led_before_spades_are_broken_is_refused_in_a_batch() -> None:
    play = _bid_all(_striped(3), dict.fromkeys(range(4), 3))
    assert _told_in_full(lambda: apply_plays(play, [parse_card("3S")])) == (
        Code.PLAY_SPADES_NOT_BROKEN,
        "led 3S but spades are not broken and she holds other suits",
        "spades may not be led until broken, unless the leader holds only spades",
        0,
        ("plays", 0),
        tuple(STRIPED[0].split()[:10]),
        1,
        1,
    )


def test_an_illegal_card_says_which_trick_and_which_card_of_it() -> None:
    play = _bid_all(_striped(3), dict.fromkeys(range(4), 3))
    # trick 1: 2C 3C 4C 5C, won by seat 3 (5C); trick 2: seat 3 leads 9C, seat 0 plays 6C, and
    # seat 1, who holds 7C and JC, plays 2D
    cards = [parse_card(name) for name in "2C 3C 4C 5C 9C 6C 2D".split()]
    state = play
    for card in cards[:-1]:
        assert state.turn is not None
        state = apply(state, PlayCard(state.turn, card))
    assert (state.turn, len(state.tricks), state.trick_leader) == (1, 1, 3)
    revoke = (
        Code.PLAY_REVOKE,
        "played 2D but must follow clubs (holds 7C, JC)",
        "a player who holds the led suit must follow it",
        1,
        ("plays", 6),
        ("7C", "JC"),
        2,
        3,
    )
    assert _told_in_full(lambda: apply(state, PlayCard(1, cards[-1]))) == revoke
    assert _told_in_full(lambda: apply_plays(play, cards)) == revoke
    # a card not held, once spades are broken: every card she holds could be led
    broken = dataclasses.replace(play, spades_broken=True)
    assert _told_in_full(lambda: apply(broken, PlayCard(0, parse_card("AS")))) == (
        Code.PLAY_NOT_HELD,
        f"played AS but does not hold it (holds {STRIPED[0]})",
        "a player can only play a card she holds",
        0,
        ("plays", 0),
        tuple(STRIPED[0].split()),
        1,
        1,
    )


def test_the_running_scores_stay_with_the_hand_through_every_action() -> None:
    scores = (120, -40)
    play = _bid_all(_striped(3, scores=scores), dict.fromkeys(range(4), 3))
    states = _played_out(play)
    assert {state.scores for state in states} == {scores}
    cards = [card for trick in states[-1].tricks for card in trick.cards]
    assert len(cards) == 52
    assert apply_plays(play, cards) == states[-1]
    assert apply_plays(play, cards[:6]) == states[6]
    two = start_two_player(Rules(), 0, DECK, scores=(50, 20))
    assert apply_draws(two, [True] * 5).scores == (50, 20)
    assert _drafted(two).scores == (50, 20)


def test_a_draft_turn_later_in_the_draft_names_its_own_cards() -> None:
    # the first three turns keep 2C (seat 0), 4C (seat 1), 6C (seat 0); the fourth, seat 1's,
    # discards 8C and keeps 9C
    before = apply_draws(start_two_player(Rules(), 0, DECK), [True, True, True])
    after = apply(before, Draw(1, False))
    assert drafted_cards(before, after) == (parse_card("9C"), parse_card("8C"))


def test_the_strict_plays_let_a_follower_void_in_the_led_suit_trump() -> None:
    deal = [_hold("2H 3S"), _hold("2C 4S"), _hold("3H 5S"), _hold("4H 6S")]
    state = _bid_all(start_four_player(Rules(), 3, deal), dict.fromkeys(range(4), 1))
    led = apply(state, PlayCard(0, parse_card("2H")))
    assert strict_legal_plays(led) == legal_plays(led) == _hold("2C 4S")
    spade = apply(dataclasses.replace(state, spades_broken=True), PlayCard(0, parse_card("3S")))
    assert strict_legal_plays(spade) == legal_plays(spade) == _hold("4S")


def _driven_until_refused(
    state: HandState, actions: HandActions
) -> tuple[list[Action], IllegalActionError]:
    """The actions :func:`drive_hand` took, and the error it stopped at."""
    steps: list[Action] = []
    try:
        for action, _ in drive_hand(state, actions):
            steps.append(action)
    except IllegalActionError as error:
        return steps, error
    raise AssertionError(f"every action of {actions} was taken")


def test_a_recorded_exchange_refused_is_addressed_where_the_record_has_it() -> None:
    # seats 1 and 2 bid Blind Nil: seat 1 exchanges first, though recorded second, and takes
    # a card her partner (seat 3) was not dealt
    deal = tuple(tuple(parse_card(name) for name in text.split()) for text in STRIPED)
    actions = HandActions(
        bids=(4, BLIND_NIL, BLIND_NIL, 4),
        plays=(),
        exchanges=(
            Exchange(2, (parse_card("4C"),), (parse_card("2C"),)),
            Exchange(1, (parse_card("3C"),), (parse_card("2C"),)),
        ),
        deal=deal,
    )
    steps, error = _driven_until_refused(_striped(dealer=0), actions)
    assert steps == [PlaceBid(1, BLIND_NIL), PlaceBid(2, BLIND_NIL), PlaceBid(3, 4), PlaceBid(0, 4)]
    assert (error.code, error.seat, error.at) == (
        Code.EXCHANGE_PARTNER_NOT_HELD,
        1,
        ("exchanges", 1, "in", 0),
    )
    with pytest.raises(IllegalActionError) as replayed:
        list(iter_hands(Variant.FOUR_PLAYER, Rules(), 0, [actions]))
    assert (replayed.value.code, replayed.value.at) == (error.code, error.at)


def test_a_two_player_hand_without_its_draft_draws_nothing() -> None:
    actions = HandActions(bids=(3, 4), plays=(), deck=DECK, draft=None)
    steps, error = _driven_until_refused(start_two_player(Rules(), 0, DECK), actions)
    assert steps == []
    assert (error.code, error.message) == (
        Code.ACTION_WRONG_PHASE,
        "seat 1 tries to bid during the draft",
    )

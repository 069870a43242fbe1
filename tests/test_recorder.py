"""The recorder API: valid by construction, refusing illegal actions without side effects."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

import spades_replay
from spades_replay.engine.cards import CARD_NAMES
from spades_replay.engine.rules import Rules
from spades_replay.errors import Code, RulesError
from spades_replay.play.recorder import Recorder, RecorderError
from spades_replay.replayer.validate import CorpusValidation

from .conftest import ROOT

DECK = list(CARD_NAMES)


def shuffled(seed: int) -> list[str]:
    deck = list(DECK)
    random.Random(seed).shuffle(deck)
    return deck


def four_player(seed: int = 1) -> Recorder:
    rec = Recorder("four-player", ["Alex", "Beth", "Charlie", "David"], game_id="t")
    deck = shuffled(seed)
    rec.start_hand(deal=[deck[seat::4] for seat in range(4)])
    return rec


def test_readme_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"## Recording a game.*?```python\n(.*?)```", readme, flags=re.S)
    assert block is not None
    monkeypatch.chdir(tmp_path)
    exec(compile(block.group(1), "README.md", "exec"), {})
    validation = CorpusValidation([tmp_path / "games.jsonl"])
    assert list(validation) == []
    assert validation.summary.valid == 1


def test_turn_order_and_legal_queries() -> None:
    rec = four_player()
    assert rec.phase == "bidding"
    assert rec.turn == 1  # left of dealer 0
    assert rec.legal_bids()[0] == "blind_nil"
    assert rec.legal_plays() == ()
    for seat, bid in ((1, 3), (2, 0), (3, 4), (0, 4)):
        rec.bid(seat, bid)
    assert rec.phase == "play"
    assert rec.turn == 1
    assert set(rec.legal_plays()) <= set(rec.holding(1))


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    rec = four_player()
    before = rec.state
    with pytest.raises(RulesError) as caught:
        rec.bid(2, 3)  # seat 1 bids first
    assert caught.value.problem.code is Code.ACTION_OUT_OF_TURN
    assert rec.state is before
    for seat, bid in ((1, 3), (2, 3), (3, 3), (0, 3)):
        rec.bid(seat, bid)
    led = rec.legal_plays()[0]
    rec.play(1, led)
    seat = rec.turn
    assert seat is not None
    off_suit = [card for card in rec.holding(seat) if card[1] != led[1]]
    assert 0 < len(off_suit) < len(rec.holding(seat))  # seed 1: she can follow, and revoke
    state = rec.state
    with pytest.raises(RulesError) as caught:
        rec.play(seat, off_suit[0])
    assert caught.value.problem.code is Code.PLAY_REVOKE
    assert caught.value.problem.legal == rec.legal_plays()
    # located as the validator locates it in the record
    name = rec.players[seat]["name"]
    assert caught.value.problem.place == f"hand 1, trick 1, card 2 (seat {seat}, {name})"
    assert caught.value.problem.pointer == "/hands/0/plays/1"
    assert rec.state is state
    with pytest.raises(RulesError) as caught:
        rec.play(seat, led)  # already played
    assert caught.value.problem.code is Code.PLAY_NOT_HELD
    with pytest.raises(RulesError) as caught:
        rec.bid(seat, 3)  # the bidding is over
    assert caught.value.problem.code is Code.ACTION_WRONG_PHASE
    assert caught.value.problem.message == f"seat {seat} tries to bid during the play"
    assert rec.state is state


def test_a_card_played_during_the_bidding_is_in_the_wrong_phase() -> None:
    rec = four_player()
    before = rec.state
    with pytest.raises(RulesError) as caught:
        rec.play(1, rec.holding(1)[0])
    assert caught.value.problem.code is Code.ACTION_WRONG_PHASE
    assert caught.value.problem.message == "seat 1 tries to play a card during the bidding"
    assert rec.state is before


def test_two_player_blind_nil_and_exchange() -> None:
    rec = Recorder("two-player", ["Megan", "Drew"])
    rec.start_hand(deck=shuffled(3))
    assert rec.can_declare_blind_nil(0)
    rec.declare_blind_nil(0)
    with pytest.raises(RulesError):
        rec.declare_blind_nil(0)
    for _ in range(26):
        rec.draw(rec.turn or 0, keep=True)
    assert rec.phase == "exchange"
    give, take, most = rec.exchange_options()
    assert most == 3
    assert len(give) == 13
    assert len(take) == 26
    with pytest.raises(RulesError) as caught:
        rec.exchange(0, give[:2], take[:1])
    assert caught.value.problem.code is Code.EXCHANGE_SIZE
    rec.exchange(0, give[:2], take[:2])
    assert set(take[:2]) <= set(rec.holding(0))
    assert rec.phase == "bidding"
    assert rec.turn == 1
    assert rec.legal_bids() == tuple(range(14))
    with pytest.raises(RulesError) as caught:
        rec.bid(1, "blind_nil")
    assert caught.value.problem.code is Code.ACTION_BAD_BID
    rec.bid(1, 5)
    assert rec.phase == "play"
    record = rec.record()
    assert record.hands[0].bids == ("blind_nil", 5)
    assert record.hands[0].exchanges[0].in_ == tuple(take[:2])


def test_misuse_is_reported_clearly() -> None:
    with pytest.raises(RecorderError, match="needs 4 players"):
        Recorder("four-player", ["a", "b"])
    rec = Recorder("two-player", ["a", "b"])
    with pytest.raises(RecorderError, match="no hand has been started"):
        rec.play(0, "AS")
    with pytest.raises(RecorderError, match="52 cards"):
        rec.start_hand(deck=DECK[:50])
    with pytest.raises(RulesError) as caught:
        rec.start_hand(deck=[*DECK[:51], "2C"])
    assert caught.value.problem.code is Code.DECK_DUPLICATE_CARD
    rec.start_hand(deck=DECK)
    with pytest.raises(RecorderError, match="not a card"):
        rec.play(0, "ZZ")
    with pytest.raises(RecorderError, match="not finished"):
        rec.start_hand(deck=DECK)
    # the record's letters are not draft choices: "D" (discard) would read as keeping
    for keep in ("D", "K", 1, None):
        with pytest.raises(RecorderError, match="not a draft choice"):
            rec.draw(rec.turn, keep)  # type: ignore[arg-type]
        with pytest.raises(RecorderError, match="not a draft choice"):
            rec.draw_turns([True, keep])  # type: ignore[list-item]
    assert rec.state.draft == ""


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({"players": ["", "b"]}, "/players/0/name"),
        ({"players": ["a", "b"], "game_id": ""}, "/game_id"),
        ({"players": ["a", "b"], "rules": Rules(lose_score=600)}, "must be below target_score"),
        ({"players": ["a", "b"], "meta": {"k": 5}}, "/meta/k"),
        ({"players": ["a", "b"], "first_dealer": True}, "/first_dealer"),
        ({"players": [{"name": "a", "foo": "x"}, "b"]}, "unknown key 'foo'"),
    ],
)
def test_arguments_that_make_no_valid_record_are_refused_at_once(
    arguments: dict[str, Any], said: str
) -> None:
    """Not after a game played, when the record is written: the game would be lost."""
    with pytest.raises(RecorderError, match="the record these arguments make is not valid") as e:
        Recorder("two-player", **arguments)
    assert said in str(e.value)


def test_a_negative_bid_is_not_blind_nil() -> None:
    """The engine's -1 means Blind Nil; the recorder takes Blind Nil by name only."""
    rec = Recorder("four-player", ["a", "b", "c", "d"])
    rec.start_hand(deal=[DECK[seat::4] for seat in range(4)])
    for bid in (-1, -5, True):
        with pytest.raises(RecorderError, match="not a bid"):
            rec.bid(rec.turn, bid)
    assert rec.state.bids == (None, None, None, None)
    rec.bid(rec.turn, "blind_nil")
    assert -1 in rec.state.bids  # the engine's Blind Nil


def test_a_recorded_game_is_valid_and_claims_match(tmp_path: Path) -> None:
    rng = random.Random(5)
    rec = Recorder("two-player", ["Megan", "Drew"], game_id="g")
    while not rec.game_over and rec.hands_started < 40:
        rec.start_hand(deck=shuffled(rng.randrange(10**9)))
        while rec.phase == "draft":
            rec.draw(rec.turn or 0, keep=rng.random() < 0.6)
        while rec.phase == "bidding":
            rec.bid(rec.turn or 0, rng.randint(2, 6))
        while rec.phase == "play":
            rec.play(rec.turn or 0, rng.choice(rec.legal_plays()))
    record = rec.record()
    replayed = spades_replay.replay(record)
    assert replayed.result.scores == rec.scores
    assert replayed.result.bags == rec.bags
    assert replayed.result.winner == rec.winner
    corpus = tmp_path / "games.jsonl"
    rec.append_to(corpus)
    rec.append_to(corpus)
    lines = corpus.read_bytes().splitlines()
    assert len(lines) == 2
    assert spades_replay.loads(lines[1]) == record


def test_a_game_stopped_in_play_is_an_unfinished_record() -> None:
    rec = four_player()
    for bid in (3, 3, 3, 3):
        rec.bid(rec.turn or 0, bid)
    for _ in range(7):
        rec.play(rec.turn or 0, rec.legal_plays()[0])
    record = rec.record()
    assert len(record.hands[0].plays) == 7
    assert record.hands[0].result is None
    replayed = spades_replay.replay(record)
    assert not replayed.result.complete

"""OpenSpiel's ``spades`` game: its action histories to records, and four-player hands back.

An OpenSpiel game of ``spades`` is one hand, written as the list of its actions
(``state.history()``): 52 chance actions deal the cards to seats 0, 1, 2, 3 in turn; four bids,
``52 + bid`` (0 is Nil), seat 0 first; then up to 52 cards played, seat 0 leading the first
trick. A card is ``13 * suit + rank`` with suits clubs, diamonds, hearts, spades and ranks 2 to
ace, which is exactly this package's card number. OpenSpiel itself is never needed here.

Seat ``p`` of OpenSpiel is the seat ``(dealer + 1 + p) % 4`` of a record: an imported game has
``first_dealer`` 3 (so the seats are the same), and an exported hand is turned so that the
player left of its dealer becomes OpenSpiel's seat 0.

>>> deal = list(range(52))
>>> history = deal + [52 + 3, 52 + 3, 52 + 3, 52 + 3]
>>> record = from_history(history, game_id="demo")
>>> record.first_dealer, record.hands[0].deal[0][:3], record.hands[0].bids
(3, ('2C', '6C', 'TC'), (3, 3, 3, 3))
>>> to_history(record).history == tuple(history)
True
>>> from_history(deal[:51] + [0])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
spades_replay.interop.openspiel.HistoryError: action 51: deals 2C a second time (first ...
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import orjson

from spades_replay.engine.actions import PlayCard
from spades_replay.engine.cards import CARD_NAMES, NON_SPADES_MASK, cards_of, suit_name
from spades_replay.engine.rules import LEFT_OF_DEALER, Rules
from spades_replay.engine.scoring import BLIND_NIL
from spades_replay.engine.seats import Seat, Variant
from spades_replay.engine.state import HandState, strict_legal_plays
from spades_replay.errors import RulesError, SpadesReplayError
from spades_replay.play.recorder import Recorder, RecorderError
from spades_replay.plumbing.limits import DEFAULT_LIMITS, Limits
from spades_replay.record import models
from spades_replay.record.problems import number_text, quote
from spades_replay.replayer.replay import Replay, replay

DEAL_ACTIONS = 52
"""The chance actions that deal the cards: one per card, to seats 0, 1, 2, 3 in turn."""
BID_BASE = 52
"""The action of a bid is ``BID_BASE + bid``; a bid of 0 is Nil."""
BIDS_END = DEAL_ACTIONS + 4
"""The index of the first card played in a history."""
HISTORY_LENGTH = BIDS_END + 52
"""The length of the history of a finished game."""
FIRST_DEALER = 3
"""The ``first_dealer`` of an imported record: seat 3 deals, so seat 0 bids and leads first."""
SEAT_NAMES = ("North", "East", "South", "West")
"""OpenSpiel's names of its seats 0 to 3: the players of a game that names none."""
MAX_TEAM_BID = 13
"""OpenSpiel refuses a bid that takes the partners' bids together past 13."""

RULE_TEAM_BID = "OpenSpiel caps the two partners' bids together at 13"
RULE_SPADE_LEAD = (
    "OpenSpiel never counts spades as broken: a spade may be led only by a player who holds "
    "nothing but spades"
)


@dataclass(frozen=True, slots=True)
class Settings:
    """The parameters of OpenSpiel's ``spades`` game that bear on a record.

    ``win_threshold`` and ``mercy_threshold`` end an OpenSpiel game (a single hand) when a
    partnership's points for the hand reach them; they become ``target_score`` and
    ``lose_score`` (a ``mercy_threshold`` of 0 turns the mercy rule off, as in OpenSpiel, whose
    ``use_mercy_rule`` parameter has no effect). ``win_or_loss_bonus`` is added to the returns
    of the winner, and taken from those of a side that loses by the mercy rule: it is not part
    of the hand's points, see :meth:`returns`.
    """

    win_threshold: int = 500
    mercy_threshold: int = -350
    win_or_loss_bonus: int = 200

    def rules(self) -> Rules:
        """The rules of an imported game: OpenSpiel's scoring, with its game parameters."""
        return Rules(
            target_score=self.win_threshold,
            lose_score=self.mercy_threshold if self.mercy_threshold != 0 else None,
            failed_nil_tricks_help_partner=True,
            blind_nil_allowed=False,
        )

    def returns(self, points: Sequence[int]) -> tuple[int, int]:
        """OpenSpiel's returns of partnerships 0 and 1 for a finished hand worth ``points``.

        OpenSpiel judges its thresholds on the hand's points alone, partnership 0 first (whose
        bonus counts in partnership 1's comparison), and adds or takes the bonus:

        >>> Settings().returns((52, -40))
        (52, -40)
        >>> Settings(win_threshold=50).returns((52, -40))
        (252, -40)
        """
        scores = [points[0], points[1]]
        for side in (0, 1):
            other = scores[side ^ 1]
            if scores[side] >= self.win_threshold and scores[side] > other:
                scores[side] += self.win_or_loss_bonus
            elif (
                self.mercy_threshold != 0
                and scores[side] <= self.mercy_threshold
                and scores[side] < other
            ):
                scores[side] -= self.win_or_loss_bonus
        return scores[0], scores[1]


DEFAULT_SETTINGS = Settings()
"""OpenSpiel's defaults: win at 500, mercy at -350, a bonus of 200."""


class HistoryError(SpadesReplayError):
    """A history that is not a legal OpenSpiel ``spades`` game; ``index`` is the 0-based
    position of the offending action (``None`` when the history as a whole is wrong)."""

    def __init__(self, index: int | None, message: str) -> None:
        self.index = index
        self.message = message
        super().__init__(f"action {index}: {message}" if index is not None else message)


class UnsupportedError(SpadesReplayError):
    """A game or hand that OpenSpiel cannot play: ``rule`` names what OpenSpiel lacks, and
    ``hand`` the hand (1-based) when the refusal is about one hand."""

    def __init__(self, message: str, rule: str, hand: int | None = None) -> None:
        self.message = message
        self.rule = rule
        self.hand = hand
        where = f"hand {hand}: " if hand is not None else ""
        super().__init__(f"{where}{message} ({rule})")


PlayerLike = str | dict[str, str]


@dataclass(frozen=True, slots=True)
class GameInput:
    """One game of a file of histories: where it starts (1-based ``line``), its history, and
    the players and id a JSON Lines entry gives it; ``error`` says why an entry is not a
    history at all (its ``history`` is then empty)."""

    line: int
    history: tuple[object, ...]
    players: tuple[PlayerLike, ...] | None = None
    game_id: str | None = None
    error: str | None = None


ENTRY_KEYS = ("history", "players", "id")


def _entry(line: int, text: str) -> GameInput:
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as error:
        return GameInput(line, (), error=f"not valid JSON: {error}")
    if isinstance(value, list):
        return GameInput(line, tuple(value))
    if not isinstance(value, dict):
        return GameInput(line, (), error="a game is a JSON array of actions or an object")
    unknown = sorted(key for key in value if key not in ENTRY_KEYS)
    if unknown:
        return GameInput(
            line, (), error=f"unknown key {unknown[0]!r} (the keys are {', '.join(ENTRY_KEYS)})"
        )
    history = value.get("history")
    if not isinstance(history, list):
        return GameInput(line, (), error="'history' must be an array of actions")
    players = value.get("players")
    if players is not None and not (
        isinstance(players, list)
        and len(players) == 4
        and all(_is_player(player) for player in players)
    ):
        return GameInput(
            line,
            (),
            error="'players' must be 4 names, or objects with a 'name' and an optional 'id'",
        )
    game_id = value.get("id")
    if game_id is not None and not isinstance(game_id, str):
        return GameInput(line, (), error="'id' must be a string")
    return GameInput(line, tuple(history), None if players is None else tuple(players), game_id)


def _is_player(value: object) -> bool:
    if isinstance(value, str):
        return True
    return (
        isinstance(value, dict)
        and "name" in value
        and set(value) <= {"name", "id"}
        and all(isinstance(item, str) for item in value.values())
    )


def _depth(value: object) -> int:
    """How deeply arrays and objects nest in a JSON value (0 for a scalar)."""
    deepest = 0
    pending: list[tuple[object, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, list | dict):
            deepest = max(deepest, depth + 1)
            children = item.values() if isinstance(item, dict) else item
            pending.extend((child, depth + 1) for child in children)
    return deepest


def _limited(game: GameInput, limits: Limits) -> GameInput:
    """The game, or the error of an id or a player name longer than the limit."""
    names = [game.game_id or ""]
    for player in game.players or ():
        names.extend(player.values() if isinstance(player, dict) else [player])
    longest = max(len(name) for name in names)
    if longest > limits.string_chars:
        return GameInput(
            game.line,
            (),
            error=f"a string of {longest} characters exceeds the limit of {limits.string_chars}",
        )
    return game


def read_games(
    text: str | Iterable[str | None], limits: Limits = DEFAULT_LIMITS
) -> Iterator[GameInput]:
    """The games of a file of histories, in order: ``text`` is the whole text, or its lines
    in order (``None`` stands for a line longer than ``limits.record_bytes``, skipped
    unread). A line holds a JSON array of actions, or a JSON object ``{"history": [...],
    "players": [...], "id": "..."}``; lines holding one whole number each are the text of
    ``state.serialize()``, one game per run of such lines (games separated by blank lines).

    Each game is bounded as a record is (``limits``): a line, or a run of action lines, of
    at most ``record_bytes``; JSON nested at most ``depth`` deep; an id or a player name of
    at most ``string_chars``. A game over a limit is reported, and the next one is read.

    >>> [game.history for game in read_games('[1, 2]\\n\\n39\\n16\\n\\n7\\n')]
    [(1, 2), (39, 16), (7,)]
    """
    lines = text.splitlines() if isinstance(text, str) else text
    cap = limits.record_bytes
    block: list[int] = []
    block_line = 0
    block_bytes = 0
    over = False
    for number, raw in enumerate(lines, start=1):
        line = "" if raw is None else raw.strip()
        if raw is not None and line.isascii() and line.isdigit():
            if not block and not over:
                block_line = number
            block_bytes += len(line) + 1
            if block_bytes > cap and not over:
                over = True
                block = []
                yield GameInput(
                    block_line, (), error=f"a game of more than {cap} bytes exceeds the limit"
                )
            if not over:
                block.append(int(line))
            continue
        if block:
            yield GameInput(block_line, tuple(block))
        block, block_bytes, over = [], 0, False
        if raw is None:
            yield GameInput(number, (), error=f"a line of more than {cap} bytes exceeds the limit")
        elif not line:
            continue
        elif line.startswith(("[", "{")):
            yield _bounded(number, line, limits)
        else:
            yield GameInput(
                number,
                (),
                error="not a history: expected a JSON array, a JSON object or one action a line",
            )
    if block:
        yield GameInput(block_line, tuple(block))


def _bounded(number: int, line: str, limits: Limits) -> GameInput:
    if len(line.encode()) > limits.record_bytes:
        return GameInput(
            number, (), error=f"a line of more than {limits.record_bytes} bytes exceeds the limit"
        )
    game = _entry(number, line)
    if game.error is not None:
        return game
    if _depth(orjson.loads(line)) > limits.depth:
        return GameInput(number, (), error=f"nesting deeper than the limit of {limits.depth}")
    return _limited(game, limits)


def _names(mask: int) -> str:
    return " ".join(CARD_NAMES[card] for card in cards_of(mask))


def _check_actions(history: Sequence[object]) -> list[int]:
    """Every action an int in its phase's range, the deal complete and without repeats."""
    if len(history) > HISTORY_LENGTH:
        raise HistoryError(
            HISTORY_LENGTH,
            f"the game is over after {HISTORY_LENGTH} actions, but the history holds "
            f"{len(history)}",
        )
    actions: list[int] = []
    dealt_at: dict[int, int] = {}
    for index, action in enumerate(history):
        if not isinstance(action, int) or isinstance(action, bool):
            found = number_text(action) if isinstance(action, float) else quote(action)
            raise HistoryError(index, f"{found} is not an action (a whole number)")
        if DEAL_ACTIONS <= index < BIDS_END:
            if not BID_BASE <= action <= BID_BASE + 13:
                raise HistoryError(
                    index,
                    f"{action} is not a bid: bids are {BID_BASE} (Nil) to {BID_BASE + 13} (13)",
                )
        elif not 0 <= action < 52:
            what = "a card dealt" if index < DEAL_ACTIONS else "a card played"
            raise HistoryError(index, f"{action} is not {what}: cards are 0 to 51")
        if index < DEAL_ACTIONS:
            if action in dealt_at:
                raise HistoryError(
                    index,
                    f"deals {CARD_NAMES[action]} a second time "
                    f"(first dealt by action {dealt_at[action]})",
                )
            dealt_at[action] = index
        actions.append(action)
    if len(actions) < BIDS_END:
        phase = "deal" if len(actions) < DEAL_ACTIONS else "bidding"
        raise HistoryError(
            None,
            f"the history stops during the {phase}, after {len(actions)} actions: a record "
            f"needs the whole deal and the four bids ({BIDS_END} actions)",
        )
    return actions


def from_history(
    history: Sequence[object],
    *,
    players: Sequence[str | Mapping[str, str]] | None = None,
    game_id: str | None = None,
    settings: Settings = DEFAULT_SETTINGS,
    meta: Mapping[str, str] | None = None,
) -> models.FourPlayerRecord:
    """The record of one OpenSpiel ``spades`` game, from its history.

    ``players`` are OpenSpiel's seats 0 to 3 (names or ``{"name": ..., "id": ...}``; default
    North, East, South, West). The record has ``first_dealer`` 3, OpenSpiel's rules (see
    :meth:`Settings.rules`) and every claim filled in. A history that stops during the play
    gives a record whose hand is unfinished. Raises :class:`HistoryError` at the first action
    that OpenSpiel would not allow.
    """
    actions = _check_actions(history)
    try:
        recorder = Recorder(
            Variant.FOUR_PLAYER,
            list(players) if players is not None else list(SEAT_NAMES),
            rules=settings.rules(),
            first_dealer=FIRST_DEALER,
            game_id=game_id,
            meta=meta,
        )
    except RecorderError as error:
        raise HistoryError(None, str(error)) from None
    deal = [actions[seat:DEAL_ACTIONS:4] for seat in range(4)]
    recorder.start_hand(deal=deal)
    for index in range(DEAL_ACTIONS, len(actions)):
        action = actions[index]
        seat = recorder.turn
        assert seat is not None
        try:
            if index < BIDS_END:
                bid = action - BID_BASE
                partner = recorder.state.bids[seat ^ 2]
                if partner is not None and partner + bid > MAX_TEAM_BID:
                    raise HistoryError(
                        index,
                        f"seat {seat} bids {bid} after her partner's {partner}: "
                        f"{RULE_TEAM_BID} (at most {MAX_TEAM_BID - partner})",
                    )
                recorder.bid(seat, bid)
            else:
                _check_play(recorder.state, index, seat, action)
                recorder.play(seat, action)
        except RulesError as error:
            raise HistoryError(index, error.problem.message) from None
    record = recorder.record()
    assert isinstance(record, models.FourPlayerRecord)
    return record


def _check_play(state: HandState, index: int, seat: Seat, card: int) -> None:
    legal = strict_legal_plays(state)
    if legal >> card & 1:
        return
    holding = state.holdings[seat]
    name = CARD_NAMES[card]
    trick = len(state.tricks) + 1
    where = f"trick {trick}, seat {seat} plays {name}"
    if not holding >> card & 1:
        reason = "she does not hold it"
    elif state.trick:
        reason = f"she must follow {suit_name(state.trick[0] // 13)}"
    else:
        reason = RULE_SPADE_LEAD
    raise HistoryError(index, f"{where}, but {reason} (legal: {_names(legal)})")


@dataclass(frozen=True, slots=True)
class OpenSpielHand:
    """One hand of a record as an OpenSpiel game.

    ``seats[p]`` is the record's seat that plays OpenSpiel's seat ``p``, and ``players`` their
    names in OpenSpiel's order. ``scores_before`` are OpenSpiel's partnerships' running scores
    before the hand (what ``state.set_current_scores`` takes) and ``points`` their points for
    the hand (``None`` while unfinished), both in OpenSpiel's partnership order.
    """

    game_id: str | None
    hand: int
    history: tuple[int, ...]
    seats: tuple[Seat, Seat, Seat, Seat]
    players: tuple[str, str, str, str]
    scores_before: tuple[int, int]
    points: tuple[int, int] | None


RULE_OPTIONS: tuple[tuple[str, object, str], ...] = (
    (
        "failed_nil_tricks_help_partner",
        True,
        "OpenSpiel counts a failed Nil bidder's tricks toward her partner's bid",
    ),
    (
        "failed_nil_tricks_count_as_bags",
        True,
        "OpenSpiel counts the tricks of a failed Nil as bags",
    ),
    ("nil_bonus", 100, "OpenSpiel's Nil is worth 100"),
    ("bag_limit", 10, "OpenSpiel takes 100 points for every 10 bags"),
    ("bag_penalty", 100, "OpenSpiel takes 100 points for every 10 bags"),
    ("double_contract_from", None, "OpenSpiel scores every contract at 10 a trick"),
    ("first_lead", LEFT_OF_DEALER, "OpenSpiel's first trick is led left of the dealer"),
)
"""The options whose values OpenSpiel plays by, with what it does instead."""


def check_rules(variant: Variant, rules: Rules) -> None:
    """Raise :class:`UnsupportedError` when OpenSpiel cannot play a game of ``variant`` under
    ``rules`` (a rule it lacks); options that only end the game (``target_score``,
    ``lose_score``) and options that only forbid bids or plays are no obstacle."""
    if variant is not Variant.FOUR_PLAYER:
        raise UnsupportedError(
            "a two-player game cannot be exported",
            "OpenSpiel's spades is four-player partnership Spades only",
        )
    for option, needed, what in RULE_OPTIONS:
        value = getattr(rules, option)
        if value != needed:
            raise UnsupportedError(
                f"the game has {option} {quote(value)}, OpenSpiel plays {quote(needed)}", what
            )


def to_history(game: models.AnyRecord | Replay, hand: int = 1) -> OpenSpielHand:
    """Hand ``hand`` (1-based) of a game as an OpenSpiel history.

    ``game`` is a record (replayed first: :class:`~spades_replay.errors.RulesError` if it is
    invalid) or its :class:`~spades_replay.replayer.replay.Replay`.
    Raises :class:`UnsupportedError`,
    naming the rule, for a game or hand OpenSpiel cannot play: two-player, rules it lacks
    (:func:`check_rules`), Blind Nil, partners bidding more than 13 together, or a spade led
    while the leader held another suit.
    """
    replayed = game if isinstance(game, Replay) else replay(game)
    check_rules(replayed.variant, replayed.rules)
    if not 1 <= hand <= len(replayed.hands):
        raise ValueError(f"the game has {len(replayed.hands)} hand(s); there is no hand {hand}")
    played = replayed.hands[hand - 1]
    outcome = played.outcome
    seats = (
        (outcome.dealer + 1) % 4,
        (outcome.dealer + 2) % 4,
        (outcome.dealer + 3) % 4,
        outcome.dealer,
    )
    bids = played.actions.bids
    if BLIND_NIL in bids:
        seat = bids.index(BLIND_NIL)
        raise UnsupportedError(
            f"seat {seat} bids Blind Nil", "OpenSpiel has no Blind Nil", hand=hand
        )
    for seat in (0, 1):
        if bids[seat] + bids[seat + 2] > MAX_TEAM_BID:
            raise UnsupportedError(
                f"seats {seat} and {seat + 2} bid {bids[seat]} and {bids[seat + 2]}",
                RULE_TEAM_BID,
                hand=hand,
            )
    deal = played.actions.deal
    assert deal is not None
    steps = played.timeline
    for before, step in itertools.pairwise(steps):
        action = step.action
        if isinstance(action, PlayCard) and not strict_legal_plays(before.state) >> action.card & 1:
            trick = len(before.state.tricks) + 1
            holding = before.state.holdings[action.seat]
            others = _names(holding & NON_SPADES_MASK)
            raise UnsupportedError(
                f"trick {trick}: seat {action.seat} leads {CARD_NAMES[action.card]} "
                f"while holding {others}",
                RULE_SPADE_LEAD,
                hand=hand,
            )
    history = [deal[seat][position] for position in range(13) for seat in seats]
    history.extend(BID_BASE + bids[seat] for seat in seats)
    history.extend(played.actions.plays)
    turn = seats[0] % 2
    running = replayed.outcomes[hand - 2].scores if hand > 1 else None
    before_scores = (0, 0) if running is None else (running[0].score, running[1].score)
    scores = played.scores
    return OpenSpielHand(
        replayed.game_id,
        hand,
        tuple(history),
        seats,
        (
            replayed.players[seats[0]].name,
            replayed.players[seats[1]].name,
            replayed.players[seats[2]].name,
            replayed.players[seats[3]].name,
        ),
        (before_scores[turn], before_scores[turn ^ 1]),
        None if scores is None else (scores[turn].points, scores[turn ^ 1].points),
    )

"""Streamlit pieces the pages share: the context the sidebar builds, widget values shared
between pages, uploads, and the game picker.

Streamlit keeps a separate widget per page, even under the same key, so the game picked on
the Replay page would not be the one the Game charts page shows. The session keeps the
current game, hand, view and step, and the picker's search, under keys of its own:
:func:`sync` gives a widget that value before it is drawn (or its default, when the value is
not an option there), and :func:`keep`, its ``on_change`` callback, makes a value the user
picks the session's. The game picked is also kept in the address (:mod:`.urlstate`), and
stays listed in the picker whatever page of a large store's games the picker shows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import polars as pl
import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

from spades_replay.replayer.replay import Replay
from spades_replay.stats.tables import Tables

from . import store, urlstate
from .data import UPLOAD, UPLOAD_BYTES, GameRef, Loaded, Upload, replay_of
from .markup import md
from .selection import (
    Filters,
    excluding,
    game_labels,
    game_numbers,
    game_of_token,
    game_tokens,
    search,
)
from .store import StoreView

CONTEXT = "context"
OPENED = "opened uploads"
_SHARED = "shared: "
_NUMBER = "shared: game number"
"""Session key: the number (in the tables) of the game picked, beside its key."""


@dataclass(frozen=True)
class Context:
    """What the sidebar set up for the page of this run: the paths read, everything loaded,
    the filters and the tables they leave, and the uploads (by digest) games may come from;
    or the store shown (then ``view`` holds only the games that pass the filters: the hand
    tables are asked of the store, :mod:`.store`)."""

    paths: tuple[str, ...]
    loaded: Loaded
    filters: Filters
    view: Tables
    uploads: dict[str, Upload]
    store: StoreView | None = None


def current() -> Context:
    """The context of this run (the entry script builds it before any page runs)."""
    return cast(Context, st.session_state[CONTEXT])


def sync(key: str, options: Sequence[Any], default: Any) -> None:
    """Before drawing the widget ``key``: give it the session's value (``default`` when that
    value is not among ``options``). Always: the widget of another page under the same key
    may hold another value, and this page's own widget none yet."""
    value = st.session_state.get(_SHARED + key, default)
    if value not in options:
        value = default
        st.session_state[_SHARED + key] = value
    st.session_state[key] = value


def keep(key: str) -> None:
    """The ``on_change`` callback of a synced widget: the value picked becomes the session's."""
    st.session_state[_SHARED + key] = st.session_state[key]


def set_value(key: str, value: Any) -> None:
    """Set a synced widget's value (from a callback, which runs before the widget is drawn)."""
    st.session_state[key] = value
    st.session_state[_SHARED + key] = value


UPLOAD_FILES = 20
"""The most files one upload widget reads; the others are left unread, with a message."""
SESSION_UPLOAD_BYTES = 4 * UPLOAD_BYTES
"""The most bytes of uploads one session holds (both upload widgets, and the uploads opened
from the Validate page): beyond it, files are left unread, with a message."""
SIDEBAR_UPLOAD = "sidebar_upload"
"""The key of the sidebar's upload widget."""
UPLOAD_WIDGETS = (SIDEBAR_UPLOAD, "upload")
"""The keys of the upload widgets (the sidebar's, the Validate page's)."""
UPLOAD_TYPES = ["json", "jsonl", "ndjson", "gz"]
"""What the upload widgets take: records, corpora, and either gzip-compressed."""


def upload_of(file: UploadedFile) -> Upload:
    """An uploaded file, in memory; left unread when it is over the size cap."""
    if file.size > UPLOAD_BYTES:
        return Upload.too_big(file.name, file.size)
    return Upload.of(file.name, file.getvalue())


def _held_elsewhere(key: str) -> int:
    """The bytes of uploads the session holds outside the widget ``key``: the files of the
    other upload widget (all of them, read or not) and the uploads opened from Validate."""
    held = sum(upload.size for upload in opened_uploads().values())
    for other in UPLOAD_WIDGETS:
        if other != key:
            files = st.session_state.get(other) or []
            held += sum(file.size for file in files if isinstance(file, UploadedFile))
    return held


def admit(
    files: Sequence[UploadedFile] | None, key: str, warn: Callable[[str], object]
) -> list[Upload]:
    """The uploads of widget ``key`` that the session may hold: at most
    :data:`UPLOAD_FILES` files, and bytes up to :data:`SESSION_UPLOAD_BYTES` with those held
    elsewhere. Whatever is left unread is said to ``warn`` (the page's ``st.warning``, or
    the sidebar's notes)."""
    chosen = list(files or [])
    if len(chosen) > UPLOAD_FILES:
        warn(
            f"{len(chosen)} files in one upload: the first {UPLOAD_FILES} are read. Remove "
            "some to read the others."
        )
        chosen = chosen[:UPLOAD_FILES]
    held = _held_elsewhere(key)
    uploads = []
    for file in chosen:
        if held + file.size > SESSION_UPLOAD_BYTES:
            warn(
                f"**{md(file.name, 200)}** left unread: a session holds at most "
                f"{SESSION_UPLOAD_BYTES >> 20} MiB of uploads, and {held / 2**20:.1f} MiB "
                "are held. Remove some uploads to read it."
            )
            continue
        held += file.size
        uploads.append(upload_of(file))
    return uploads


def opened_uploads() -> dict[str, Upload]:
    """The uploads opened from the Validate page, by digest (they stay loaded)."""
    return cast(dict[str, Upload], st.session_state.setdefault(OPENED, {}))


def open_upload(upload: Upload, game_key: str) -> None:
    """Callback of "Open in Replay": load the upload with the rest, clear the filters (so the
    game is listed) and make its game the current one. The uploads opened before it are
    let go, oldest first, until the opened ones fit in :data:`SESSION_UPLOAD_BYTES`."""
    opened = opened_uploads()
    opened.pop(upload.digest, None)
    while opened and sum(item.size for item in opened.values()) + upload.size > (
        SESSION_UPLOAD_BYTES
    ):
        del opened[next(iter(opened))]
    opened[upload.digest] = upload
    for key in ("f_variant", "f_rules", "f_player"):
        st.session_state[key] = []
    set_value("game", game_key)
    st.session_state.pop(_NUMBER, None)
    _new_position()


_MOVES = "position moves"
"""Session key: how many times the position was set from elsewhere than the board."""


def moved() -> None:
    """The position was set from elsewhere than the board (a link, a new game): the board
    is to go there."""
    st.session_state[_MOVES] = moves() + 1


def moves() -> int:
    """How many times the position was set from elsewhere than the board."""
    return int(st.session_state.get(_MOVES, 0))


def _new_position() -> None:
    """A new game starts at its first hand, before the deal's first action."""
    set_value("hand", 1)
    set_value("step", 0)
    urlstate.drop("hand", "step")
    moved()


def _new_game(numbers: dict[str, int]) -> None:
    if st.session_state["game"] not in numbers:
        # the browser sent a label the picker no longer shows (spoiler-free switched while
        # the pick was on its way), which Streamlit hands on as it came: no game is picked,
        # and the next run draws the picker with the session's game
        return
    keep("game")
    st.session_state.pop(_UNKNOWN, None)
    st.session_state[_NUMBER] = numbers[st.session_state["game"]]
    _new_position()


@dataclass(frozen=True)
class Picked:
    """The game picked: its number in the tables, where it is, and its replay."""

    game: int
    ref: GameRef
    replay: Replay


_UNKNOWN = "link's unknown game"
"""Session key: the game an address named that is not among the games shown (said until
another game is picked)."""


def _arrived(context: Context, games: pl.DataFrame) -> None:
    """The game named by an address that just arrived, made the session's (with a warning
    when there is no such game among those the filters leave)."""
    token = urlstate.take("game")
    if token is not None:
        number = game_of_token(context.loaded.tables.games, token)
        if number is None or games.filter(pl.col("game") == number).height == 0:
            st.session_state[_UNKNOWN] = token
        else:
            st.session_state.pop(_UNKNOWN, None)
            set_value("game", context.loaded.ref(number).key)
            st.session_state[_NUMBER] = number
            return
    unknown = st.session_state.get(_UNKNOWN)
    if unknown is not None:
        st.warning(
            f"The link names the game {md(unknown, 120)}, which is not among the games shown."
        )


def _chosen(context: Context, games: pl.DataFrame) -> int | None:
    """The number of the game the session holds, when it is still among ``games``: the
    number kept beside its key, or for an upload just opened (its number was not known
    before it was loaded) the one found among the uploaded games."""
    key = st.session_state.get(_SHARED + "game")
    number = st.session_state.get(_NUMBER)
    if number is None and key is not None:
        number = _uploaded(context, games, key)
    if number is None or games.filter(pl.col("game") == number).height == 0:
        return None
    if context.loaded.ref(number).key != key:
        return None
    return int(number)


def _uploaded(context: Context, games: pl.DataFrame, key: str) -> int | None:
    """The number of the uploaded game ``key`` among ``games``. Uploads are numbered after
    every other game, so they are looked through from the last game back, and no further
    than the first game that is not an upload's."""
    for number in games.get_column("game").reverse():
        ref = context.loaded.ref(number)
        if ref.origin != UPLOAD:
            return None
        if ref.key == key:
            return int(number)
    return None


def open_game(context: Context, number: int) -> None:
    """Make game ``number`` (of the tables) the session's, at its first hand, for the
    Replay page to show: listed even where it is not on the picker's page."""
    set_value("game", context.loaded.ref(number).key)
    st.session_state[_NUMBER] = number
    _new_position()


def excluded(context: Context, nothing: str) -> str:
    """Why no game passes the sidebar's filters, after ``nothing`` ("No game to show"): the
    filter that excluded the last of them; or that no valid game is loaded at all."""
    if context.store is not None:
        directory, key = context.store.directory, context.store.key
        name = excluding(
            lambda step: len(store.game_numbers(directory, key, step)), context.filters
        )
    else:
        tables, seats = context.loaded.tables, context.loaded.seats
        name = excluding(lambda step: game_numbers(tables, seats, step).len(), context.filters)
    if name is None:
        return "No valid game is loaded: give paths or upload records in the sidebar."
    return (
        f"{nothing}: the {name} filter in the sidebar excluded every game the filters "
        "above it left. Widen it."
    )


def pick_game(context: Context) -> Picked | None:
    """The game picker (games that pass the filters); the replay of the game picked, or
    ``None`` (with a message) when there is none to show. The game the session holds stays
    listed, first, when the search or the page leaves it out. In spoiler-free mode (the
    Replay page's switch) the labels leave out how the games ended."""
    games = context.view.games
    if games.height == 0:
        st.info(excluded(context, "No game to show"))
        return None
    _arrived(context, games)
    chosen = _chosen(context, games)
    shown = _page_of(games)
    if shown.height == 0:
        st.info("No game matches the search.")
    if chosen is not None and shown.filter(pl.col("game") == chosen).height == 0:
        shown = pl.concat([games.filter(pl.col("game") == chosen), shown])
    if shown.height == 0:
        return None
    numbers = shown.get_column("game").to_list()
    refs = [context.loaded.ref(number) for number in numbers]
    keys = [ref.key for ref in refs]
    spoilers = not st.session_state.get(_SHARED + "spoiler_free", False)
    tokens = game_tokens(context.loaded.tables.games, numbers)
    names = game_labels(shown, spoilers=spoilers, names=tokens)
    labels = dict(zip(keys, names, strict=True))
    sync("game", keys, keys[0])
    key = st.selectbox(
        "Game",
        keys,
        key="game",
        format_func=labels.__getitem__,
        on_change=_new_game,
        args=(dict(zip(keys, numbers, strict=True)),),
    )
    index = keys.index(key)
    number = numbers[index]
    # the game shown is the session's, first one included, whatever the search shows next
    st.session_state[_SHARED + "game"] = key
    st.session_state[_NUMBER] = number
    urlstate.keep(game=tokens[index])
    ref = refs[index]
    st.caption(md(ref.where, 300))
    replay = replay_of(ref, context.uploads)
    if replay is None:
        st.error(f"{md(ref.where, 300)} could not be read again: it changed or went away.")
        return None
    return Picked(number, ref, replay)


PAGE = 100
"""How many games the game picker lists at once; above that, it searches and pages."""


def _page_of(games: pl.DataFrame) -> pl.DataFrame:
    """With more than :data:`PAGE` games, a search box (game id, player, file) and a page
    number, both shared by every page; the games of the page chosen."""
    if games.height <= PAGE:
        return games
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    st.session_state["game_search"] = st.session_state.get(_SHARED + "game_search", "")
    text = left.text_input(
        "Search games",
        key="game_search",
        placeholder="game id, player or file",
        on_change=keep,
        args=("game_search",),
    )
    found = search(games, text)
    pages = max(1, -(-found.height // PAGE))
    sync("game_page", range(1, pages + 1), 1)
    page = right.number_input(
        f"Page (of {pages})",
        min_value=1,
        max_value=pages,
        key="game_page",
        on_change=keep,
        args=("game_page",),
    )
    st.caption(f"{found.height} game(s) found; {PAGE} a page.")
    return found.slice((int(page) - 1) * PAGE, PAGE)


def game_rows(frame: pl.DataFrame, game: int) -> pl.DataFrame:
    """The rows of one game in a stats table."""
    return frame.filter(pl.col("game") == game)

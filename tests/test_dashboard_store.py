"""The dashboard on a store (``dashboard --store DIR``), run headless by Streamlit's AppTest:
it opens without replaying, re-reads the record it shows by its offset, pages and searches
the games, asks the store for the filtered stats, and lists the store's invalid records."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import sys
import threading
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pytest
import streamlit as st
from spades_replay.dashboard import selection, stats, whatif
from spades_replay.dashboard import store as store_page
from spades_replay.dashboard.markup import md
from spades_replay.dashboard.selection import Filters, excluding
from spades_replay.dashboard.store import game_numbers, manifest_key
from streamlit.testing.v1 import AppTest

from spades_replay.cli import main
from spades_replay.replayer import validate
from spades_replay.stats.metrics import player_metrics
from spades_replay.store.ingest import ingest
from spades_replay.store.read import Store

from .conftest import FIXTURES, INVALID_FIXTURES, ROOT, fixture_records
from .support.apptest import labelled

pytestmark = pytest.mark.slow  # every test runs the app's pages

INVALID = len(INVALID_FIXTURES)
VALID = fixture_records() - INVALID

ENTRY = str(ROOT / "dashboard" / "app.py")


def _run(runnable: Any) -> AppTest:
    at: AppTest = runnable.run()
    assert not at.exception, [exception.value for exception in at.exception]
    return at


def _app(store: Path, monkeypatch: pytest.MonkeyPatch, page: str | None = None) -> AppTest:
    monkeypatch.setattr(sys, "argv", [ENTRY, "--store", str(store)])
    at = AppTest.from_file(ENTRY, default_timeout=60)
    if page is not None:
        at.switch_page(f"{page}.py")
    return _run(at)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("dashboard") / "store"
    ingest([FIXTURES], directory)
    return directory


@pytest.fixture(scope="module")
def big_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of 250 games: more than one page of the game picker."""
    folder = tmp_path_factory.mktemp("big")
    lines = (FIXTURES / "corpus" / "four-player.jsonl").read_bytes()
    (folder / "many.jsonl").write_bytes(lines * 10)
    directory = folder / "store"
    ingest([folder / "many.jsonl"], directory)
    return directory


@pytest.mark.parametrize("damage", ["garbage part", "huge count", "counts beyond the parts"])
def test_a_damaged_store_is_reported_in_the_sidebar(
    store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    copy = tmp_path / "store"
    shutil.copytree(store, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    source = manifest["sources"][0]
    if damage == "garbage part":
        (copy / source["parts"]["games"][0]).write_bytes(b"no parquet" * 50)
    elif damage == "huge count":
        source.update(games=2**63, invalid=0, records=2**63)
    else:
        source.update(games=10**6, records=10**6 + source["invalid"])
    (copy / "manifest.json").write_text(json.dumps(manifest))
    at = _app(copy, monkeypatch)
    (error,) = at.sidebar.error
    assert error.value.startswith(md(f"cannot open the store {copy}: the store {copy} is damaged:"))
    assert error.value.endswith(md("--rebuild [store.damaged]"))


def test_the_replay_page_opens_on_a_store_without_replaying_the_corpus(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    st.cache_data.clear()  # a replay cached by an earlier test of this process is not read
    reads: list[str] = []
    real = validate.check_bytes

    def counted(data: bytes, *args: Any, **kwargs: Any) -> Any:
        reads.append(str(args[0] if args else kwargs.get("source")))
        return real(data, *args, **kwargs)

    monkeypatch.setattr("spades_replay.dashboard.data.check_bytes", counted)
    at = _app(store, monkeypatch)
    assert f"**{VALID}** valid game(s)" in at.sidebar.markdown[0].value
    assert f"{INVALID - 1} invalid record(s)" in at.sidebar.warning[0].value  # not EXPECTED.json
    assert at.selectbox(key="game").value is not None
    assert len(reads) == 1  # the one game shown, re-read by its offset
    first = Store.open(store).table("games").row(0, named=True)
    assert reads == [first["source"]]
    heading = f"**{md(first['game_id'], 120)}**"
    assert any(heading in element.value for element in at.main.markdown)


def test_a_store_game_is_replayed_from_its_offset(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = _app(store, monkeypatch)
    box = at.selectbox(key="game")
    games = Store.open(store).table("games")
    target = games.filter(games["source"].str.ends_with("two-player.jsonl")).row(3, named=True)
    key = next(option for option in box.options if target["game_id"] in option)
    at = _run(box.set_value(box.options[box.options.index(key)]))
    caption = " ".join(element.value for element in at.caption)
    assert md(f"{target['source']}:{target['line']}", 300) in caption


def test_the_picker_searches_and_pages_a_large_store(
    big_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = _app(big_store, monkeypatch)
    assert len(at.selectbox(key="game").options) == 100
    assert at.number_input(key="game_page").label == "Page (of 3)"
    at = _run(at.number_input(key="game_page").set_value(3))
    # the page's 50 games, and first the game picked, which stays listed
    options = at.selectbox(key="game").options
    assert len(options) == 51
    assert options[0].startswith("four-player-s12-000000 ")
    at = _run(at.text_input(key="game_search").input("s12-000007"))
    options = at.selectbox(key="game").options
    assert len(options) == 11
    assert all(option.startswith("four-player-s12-000007") for option in options[1:])
    at = _run(at.text_input(key="game_search").input("no such game"))
    assert at.info[0].value == "No game matches the search."
    assert len(at.selectbox(key="game").options) == 1


def test_corpus_stats_of_a_store_push_the_filters_down(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = _app(store, monkeypatch, "stats")
    assert at.metric[0].value == str(VALID)
    whole = Store.open(store).tables()
    players = next(frame.value for frame in at.dataframe if "complete_games" in frame.value)
    assert players.shape[0] == player_metrics(whole).height
    alex = whole.seat_hands.filter(player="Alex")["player_key"][0]
    assert any(option.startswith("Alex") for option in at.multiselect(key="f_player").options)
    at = _run(at.multiselect(key="f_variant").set_value(["two-player"]))
    assert at.metric[0].value == str(
        whole.games.filter(whole.games["variant"] == "two-player").height
    )
    # the player filter offers only the players of two-player games, asked of the store
    assert not any(option.startswith("Alex") for option in at.multiselect(key="f_player").options)
    directory, key = str(store), manifest_key(str(store))

    def count(filters: Filters) -> int:
        return len(game_numbers(directory, key, filters))

    assert excluding(count, Filters(("two-player",), (), (alex,))) == "player"
    assert excluding(count, Filters(("two-player",))) is None


def test_corpus_stats_of_a_store_count_the_uploads_after_its_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An upload beside a store is counted with the store's games: the whole store, and a
    filter that keeps the upload's variant (the uploads' tables joined to the store's
    queries)."""
    directory = tmp_path / "store"
    ingest([FIXTURES / "corpus" / "two-player.jsonl"], directory)
    stored = Store.open(directory).tables()
    upload = FIXTURES / "four-player" / "standard-game.json"
    at = _app(directory, monkeypatch, "stats")
    assert at.metric[0].value == str(stored.games.height)
    at = _run(
        at.file_uploader(key="sidebar_upload").set_value(
            ("game.json", upload.read_bytes(), "application/json")
        )
    )
    assert at.metric[0].value == str(stored.games.height + 1)
    players = next(frame.value for frame in at.dataframe if "complete_games" in frame.value)
    variants = set(players["variant"])
    assert variants == {"two-player", "four-player"}
    at = _run(at.multiselect(key="f_variant").set_value(["four-player"]))
    assert at.metric[0].value == "1"
    players = next(frame.value for frame in at.dataframe if "complete_games" in frame.value)
    assert players.shape[0] == 4


def test_the_players_of_a_store_are_those_of_all_its_seat_rows(tmp_path: Path) -> None:
    """The sidebar's players come from each game's first hand: the same rows (player, the
    name at her first game, variant and rule set) as grouping every seat row, on games with
    an unfinished last hand, of both variants, with a player renamed from game to game, and
    with players whose one game has one hand."""
    lines = (FIXTURES / "corpus" / "four-player.jsonl").read_bytes().splitlines()
    renamed = [
        line.replace(b'"name":"Alex"', f'"name":"Alex {number}"'.encode())
        for number, line in enumerate(lines)
    ]
    short = orjson.loads(lines[0])
    short["hands"] = short["hands"][:1]
    del short["result"]
    short["players"] = [{"name": f"Solo {seat}", "id": f"solo-{seat}"} for seat in range(4)]
    corpus = tmp_path / "renamed.jsonl"
    corpus.write_bytes(b"\n".join([*renamed, orjson.dumps(short)]) + b"\n")
    directory = tmp_path / "store"
    ingest([corpus, FIXTURES], directory)
    seats = Store.open(directory).tables().seat_hands
    assert seats.filter(pl.col("hand") > 1).height > 0
    expected = (
        seats.sort("game")
        .group_by("player_key", "variant", "rules")
        .agg(pl.col("player").first())
        .select("player_key", "player", "variant", "rules")
        .sort("player_key", "variant", "rules")
    )
    assert expected.filter(pl.col("player").str.starts_with("Alex ")).height > 0
    assert expected.filter(pl.col("player").str.starts_with("Solo ")).height == 4
    view = store_page.open_view(str(directory), manifest_key(str(directory)))
    assert view.players.equals(expected)


def test_corpus_stats_counted_in_the_store_are_those_of_its_tables_in_memory(
    store: Path,
) -> None:
    """Corpus stats counts a store's games with queries of its part files, never reading
    their rows into memory: under each filter, its figures (counts, games, player and
    variant tables, the charts' data) are those of the same games' tables in memory."""
    opened = Store.open(store)
    whole = opened.tables()
    seats = whole.seat_hands
    alex = seats.filter(player="Alex")["player_key"][0]
    rules = whole.games.get_column("rules")[0]
    for filters in (
        Filters(),
        Filters(("two-player",)),
        Filters((), (rules,)),
        Filters((), (), (alex,)),
        Filters(("four-player",), (), (alex,)),
    ):
        chosen = selection.apply(whole, seats, filters)
        games = chosen.games
        stored = stats.count(store_page.scans(opened, filters), filters, opened.collect)
        direct = stats.count(chosen.lazy(), filters, stats.in_memory)
        assert stored is not None, filters
        assert direct is not None, filters
        assert stored.numbers == direct.numbers == tuple(games["game"]), filters
        assert (stored.games, stored.complete, stored.hands, stored.four_hands) == (
            direct.games,
            direct.complete,
            direct.hands,
            direct.four_hands,
        )
        assert stored.players.equals(direct.players), filters
        assert stored.variants.equals(direct.variants), filters
        assert stored.charts.keys() == direct.charts.keys()
        for name, chart in stored.charts.items():
            assert chart.to_json() == direct.charts[name].to_json(), (filters, name)
    assert (
        stats.count(store_page.scans(opened, Filters(("no-such",))), Filters(), opened.collect)
        is None
    )


def test_the_manifest_is_checked_once_for_each_of_its_versions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every run of a page asks the manifest's digest; its checks (each part file among
    them) are made once per version of it: again after an ingest, and at every run while
    it is damaged."""
    from spades_replay.store.layout import MANIFEST, StoreError

    directory = tmp_path / "store"
    ingest([FIXTURES / "corpus" / "two-player.jsonl"], directory)
    checks: list[str] = []
    real = store_page.open_manifest

    def checking(folder: str) -> Any:
        checks.append(folder)
        return real(folder)

    monkeypatch.setattr(store_page, "open_manifest", checking)
    first = manifest_key(str(directory))
    assert manifest_key(str(directory)) == first
    assert checks == [str(directory)]
    ingest([FIXTURES / "corpus"], directory)
    second = manifest_key(str(directory))
    assert second != first
    assert manifest_key(str(directory)) == second
    assert len(checks) == 2
    manifest = directory / MANIFEST
    manifest.write_bytes(manifest.read_bytes().replace(b'"games"', b'"gamez"', 1))
    for _ in range(2):
        with pytest.raises(StoreError):
            manifest_key(str(directory))
    assert len(checks) == 4
    manifest.unlink()
    with pytest.raises(StoreError, match="is not a spades-replay store"):
        manifest_key(str(directory))


def _warning(at: AppTest) -> str:
    return " ".join(str(warning.value) for warning in at.warning)


def _recorded(monkeypatch: pytest.MonkeyPatch, name: str) -> list[Any]:
    """The second argument of each call of the store module's function ``name`` from now
    on, as they come: the filters of each read of the tables into memory (``read_tables``),
    the name of each piece of work started in the background (``in_background``)."""
    calls: list[Any] = []
    real = getattr(store_page, name)

    def recording(first: Any, second: Any) -> Any:
        calls.append(second)
        return real(first, second)

    monkeypatch.setattr(store_page, name, recording)
    return calls


def test_no_page_reads_more_games_than_the_memory_budget_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the tables of the games shown would take more than the dashboard's memory
    budget, nothing reads them into memory: What-if's preparation does not start in the
    background when the store opens, and What-if, the Leaderboard and the Player page say
    so and how to narrow them. Corpus stats counts them where they lie, and is drawn.
    Narrowed by a filter under the budget, a page is drawn."""
    directory = tmp_path / "store"
    ingest([FIXTURES / "corpus"], directory)
    games = Store.open(directory).table("games")
    two = games.filter(games["variant"] == "two-player").height
    assert two < games.height
    monkeypatch.setattr(store_page, "memory_budget", lambda: two * store_page.READ_BYTES_PER_GAME)
    reads = _recorded(monkeypatch, "read_tables")
    started = _recorded(monkeypatch, "in_background")
    _app(directory, monkeypatch)  # the Replay page, drawn
    assert started == ["corpus-stats"]
    for page in ("leaderboard", "player"):
        at = _app(directory, monkeypatch, page)
        assert f"The {games.height:,} games shown would take about" in _warning(at), page
        assert "Narrow them with the sidebar's filters" in _warning(at)
    at = _app(directory, monkeypatch, "whatif")
    at = _run(labelled(at.number_input, "Target score").set_value(300))
    assert f"The {games.height:,} games shown would take about" in _warning(at)
    at = _app(directory, monkeypatch, "stats")
    assert "games shown would take about" not in _warning(at)
    assert at.metric[0].value == str(games.height)
    assert reads == []
    assert started == ["corpus-stats"]
    at = _app(directory, monkeypatch, "leaderboard")
    at = _run(at.multiselect(key="f_variant").set_value(["two-player"]))
    assert not at.warning
    assert reads == [Filters(("two-player",))]


def test_the_memory_budget_is_half_the_machine_and_its_message_says_how_much(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert store_page.memory_budget() == physical // 2
    with monkeypatch.context() as patched:
        patched.delattr(os, "sysconf")
        assert store_page.memory_budget() == sys.maxsize
    monkeypatch.setattr(store_page, "memory_budget", lambda: 12 * 2**30)
    games = 12 * 2**30 // store_page.READ_BYTES_PER_GAME
    assert store_page.fits(games)
    assert not store_page.fits(games + 1)
    store_page.check_fits(games)
    with pytest.raises(store_page.TooLargeError) as caught:
        store_page.check_fits(1_000_000)
    assert str(caught.value).startswith(
        "The 1,000,000 games shown would take about 26.1 GB of memory to read for this page, "
        "over the dashboard's budget of 12.0 GB (half of this machine's memory)."
    )
    monkeypatch.setattr(store_page, "memory_budget", lambda: 10 * 2**20)
    with pytest.raises(store_page.TooLargeError, match=r"about 26\.7 MB .* budget of 10\.0 MB"):
        store_page.check_fits(1_000)


def test_only_what_if_reads_the_store_when_it_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Of the work started when the store opens, What-if's preparation reads its tables into
    memory, once; Corpus stats' count reads none: its queries keep their counts."""
    directory = tmp_path / "store"
    ingest([FIXTURES / "corpus"], directory)
    reads = _recorded(monkeypatch, "read_tables")
    _app(directory, monkeypatch)  # the Replay page
    key = manifest_key(str(directory))
    counted = stats._whole_store(str(directory), key).result(timeout=60)
    ready = whatif._whole_store(str(directory), key).result(timeout=60)
    games = Store.open(directory).table("games").height
    assert counted is not None
    assert counted.games == ready.tables.games.height == games
    assert reads == [Filters()]


def test_the_whole_store_is_counted_in_the_background_once_it_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = tmp_path / "store"
    ingest([FIXTURES / "corpus"], directory)
    calls: list[str] = []
    real = stats.count

    def counted(*args: Any) -> Any:
        thread = threading.current_thread()
        # a daemon thread: a server stopped while it counts does not wait for it
        calls.append(f"{thread.name}{' (daemon)' if thread.daemon else ''}")
        return real(*args)

    monkeypatch.setattr(stats, "count", counted)
    _app(directory, monkeypatch)  # the Replay page
    key = manifest_key(str(directory))
    whole = stats._whole_store(str(directory), key).result(timeout=60)
    assert whole is not None
    assert len(calls) == 1
    assert calls == ["corpus-stats (daemon)"]
    at = _app(directory, monkeypatch, "stats")
    assert len(calls) == 1  # the page shows what was counted in the background
    assert (
        at.metric[0].value == str(whole.games) == str(Store.open(directory).table("games").height)
    )
    _run(at.multiselect(key="f_variant").set_value(["four-player"]))
    assert len(calls) == 2  # a filter is counted in the page's run


def _record_of(game: dict[str, Any]) -> dict[str, Any]:
    """The record of a row of the games table, read from its source (at its line)."""
    path = Path(game["source"])
    data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    if game["line"] is not None:
        data = data.splitlines()[game["line"] - 1]
    record: dict[str, Any] = json.loads(data)
    return record


def test_the_charts_of_a_store_game(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = _app(store, monkeypatch, "charts")
    record = _record_of(Store.open(store).table("games").row(0, named=True))
    claims = [hand["result"] for hand in record["hands"] if "points" in hand.get("result", {})]
    assert claims
    scores, bags, _parts = (json.loads(chart.proto.spec) for chart in at.get("plotly_chart"))
    for side in (0, 1):
        assert scores["data"][side]["y"] == [0] + [claim["scores"][side] for claim in claims]
        assert bags["data"][side]["y"] == [0] + [claim["bags"][side] for claim in claims]
    sheet = next(frame.value for frame in at.dataframe if "hand" in frame.value.columns)
    expected = [
        (number, side, claim["points"][side], claim["scores"][side], claim["bags"][side])
        for number, claim in enumerate(claims, start=1)
        for side in (0, 1)
    ]
    shown = sheet[["hand", "side", "points", "score", "bags"]]
    assert [tuple(int(value) for value in row) for row in shown.itertuples(index=False)] == expected


def test_the_validate_page_lists_the_store_invalid_records(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = _app(store, monkeypatch, "validate")
    text = "\n".join(element.value for element in at.markdown)
    # EXPECTED.json, among the files of fixtures/invalid, is no record: named apart
    assert f"**{INVALID - 1}** of {VALID + INVALID - 1} record(s) are invalid" in text
    assert "EXPECTED" in at.info[0].value
    assert any("claim.bags" in element.value for element in at.error)


def test_a_missing_store_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", [ENTRY, "--store", str(tmp_path / "none")])
    at = AppTest.from_file(ENTRY, default_timeout=60).run()
    assert "no such store" in at.sidebar.error[0].value


def test_the_command_serves_a_store(
    store: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    served: list[list[str]] = []
    monkeypatch.setattr(
        "spades_replay.cli.dashboard_cmd.os.execve",
        lambda path, command, environment: served.append(command),
    )
    main(["dashboard", "--store", str(store)])
    assert served[0][-3:] == ["--", "--store", str(store)]
    assert main(["dashboard", "--store", str(store), "fixtures"]) == 2
    assert "not both" in capsys.readouterr().err
    assert main(["dashboard", "--store", str(store / "nothing")]) == 2
    assert "no such store" in capsys.readouterr().err


def test_the_command_reads_paths_into_a_cache_store_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(ROOT)
    served: list[list[str]] = []
    monkeypatch.setattr(
        "spades_replay.cli.dashboard_cmd.os.execve",
        lambda path, command, environment: served.append(command),
    )
    main(["dashboard", "fixtures/corpus", "--no-progress"])
    directory = Path(served[0][-1])
    assert served[0][-3:-1] == ["--", "--store"]
    assert directory.parent == tmp_path / "cache" / "spades-replay" / "stores"
    assert "54 game(s) (3 file(s) read, 0 unchanged)" in capsys.readouterr().err
    assert Store.open(directory).table("games").height == 54
    main(["dashboard", "fixtures/corpus", "--no-progress"])
    assert "(0 file(s) read, 3 unchanged)" in capsys.readouterr().err
    assert served[1] == served[0]
    main(["dashboard", "fixtures/corpus/two-player.jsonl", "--no-progress"])
    assert served[2][-1] != served[0][-1]


def test_a_store_of_relative_paths_is_shown_from_anywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    ingest(["fixtures/corpus/two-player.jsonl"], tmp_path / "store")
    monkeypatch.chdir(tmp_path)
    at = _app(tmp_path / "store", monkeypatch)
    assert not at.error
    caption = " ".join(element.value for element in at.caption)
    assert md(f"{FIXTURES / 'corpus' / 'two-player.jsonl'}:1", 300) in caption


def test_a_changed_file_is_not_shown_as_its_stored_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "games.jsonl"
    corpus.write_bytes((FIXTURES / "corpus" / "two-player.jsonl").read_bytes())
    ingest([corpus], tmp_path / "store")
    corpus.write_bytes(b"\n" + corpus.read_bytes())
    at = _app(tmp_path / "store", monkeypatch)
    assert "could not be read again" in at.error[0].value


def test_the_sidebar_shows_the_whole_store_path_and_no_expected_file_as_invalid(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The path wraps instead of being cut at the sidebar's edge, and EXPECTED.json (the
    verdicts beside fixtures/invalid's records, no record itself) is named apart, not
    counted among the invalid records."""
    at = _app(store, monkeypatch)
    (path,) = at.sidebar.text
    assert path.value == str(store)
    assert path.proto.wrap
    assert at.sidebar.warning[0].value == f"{INVALID - 1} invalid record(s) left out"
    assert any(
        "Not records" in item.value and "EXPECTED" in item.value for item in at.sidebar.caption
    )

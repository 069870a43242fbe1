"""The dashboard's data module outside a page: the scan of the paths (digests, problems),
the load of files and uploads together, the Validate page's check of an upload, the places
it reads a game again from (file, corpus line, store offset, upload), What-if's rescoring
and the double-dummy answers, each against the library function it stands for."""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import os
import random
import threading
import time
from functools import cache
from pathlib import Path

import orjson
import pytest
from spades_replay.dashboard import data

import spades_replay
from spades_replay.analysis import (
    HandAnalysis,
    analyze_hand,
    kernel_name,
    new_solver,
    position_before,
)
from spades_replay.errors import Code
from spades_replay.plumbing.limits import Limits
from spades_replay.replayer.replay import Replay
from spades_replay.replayer.rescore import CorpusRescore, rescore
from spades_replay.stats.collect import StatsCollection
from spades_replay.stats.double_dummy import HandList, analysis_table

from .conftest import FIXTURES, ROOT

MERCY = FIXTURES / "two-player" / "mercy.json"
CORPUS = FIXTURES / "corpus" / "two-player.jsonl"
ENTRY = str(ROOT / "dashboard" / "app.py")


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@cache
def _mercy() -> Replay:
    return spades_replay.replay(spades_replay.load(MERCY))


def _corpus_line(line: int) -> Replay:
    return spades_replay.replay(spades_replay.loads(CORPUS.read_bytes().splitlines()[line - 1]))


def test_the_scan_gives_each_file_its_digest_and_each_failure_its_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "b.json").write_bytes(MERCY.read_bytes())
    (folder / "a.jsonl").write_bytes(CORPUS.read_bytes())
    locked = tmp_path / "locked.json"
    locked.write_bytes(b"{}")
    digest = data._digest

    def failing_digest(path: str, size: int, mtime_ns: int) -> str:
        if path == str(locked):
            raise PermissionError(13, "Permission denied")
        return digest(path, size, mtime_ns)

    monkeypatch.setattr(data, "_digest", failing_digest)
    found = data.scan([str(folder), str(tmp_path / "gone.json"), str(locked)])
    assert found.files == (
        (str(folder / "a.jsonl"), _sha(CORPUS)),
        (str(folder / "b.json"), _sha(MERCY)),
    )
    gone, unreadable = found.problems
    assert (gone.code, gone.source) == (Code.IO_NOT_FOUND, str(tmp_path / "gone.json"))
    assert unreadable.code is Code.IO_UNREADABLE
    assert unreadable.source == str(locked)
    assert unreadable.message == f"cannot read {locked}: Permission denied"


def test_the_load_is_the_files_then_the_uploads_numbered_on(tmp_path: Path) -> None:
    upload = data.Upload.of("extra.json", MERCY.read_bytes())
    found = data.Scan(((str(CORPUS), _sha(CORPUS)),), (data.Problem(Code.IO_NOT_FOUND, "x"),))
    loaded = data.load(found, [upload])
    files = data.read_files(found.files)
    assert loaded.refs == (*files.refs, *data.read_upload(upload).refs)
    assert loaded.refs[-1].origin == data.UPLOAD
    assert loaded.tables.games.get_column("game").to_list() == list(range(len(files.refs) + 1))
    assert [problem.message for problem in loaded.problems] == ["x"]
    only_uploads = data.load(data.Scan((), ()), [upload])
    assert only_uploads.refs == data.read_upload(upload).refs
    nothing = data.load(data.Scan((), ()))
    assert (nothing.refs, nothing.records) == ((), 0)


def test_the_validate_page_checks_an_upload_as_the_reader_does() -> None:
    bad = (FIXTURES / "invalid" / "play-revoke.json").read_bytes()
    upload = data.Upload.of("bad.json", bad)
    checked = data.check_upload(upload)
    assert checked.refs == ()
    assert checked.records == 1
    (report,) = checked.invalid
    assert report.problems == data.read_upload(upload).invalid[0].problems
    assert report.problems[0].code is Code.PLAY_REVOKE


def test_the_expected_verdicts_beside_the_invalid_fixtures_are_no_records() -> None:
    loaded = data.read_files(
        [
            (str(FIXTURES / "invalid" / "EXPECTED.json"), "d1"),
            (str(FIXTURES / "invalid" / "play-revoke.json"), "d2"),
            (str(FIXTURES / "invalid" / "format-not-a-record.json"), "d3"),
        ]
    )
    assert len(loaded.invalid) == 3
    (expected,) = data.not_records(loaded.invalid)
    assert expected.source is not None
    assert expected.source.endswith("EXPECTED.json")
    assert data.not_records([]) == ()


def test_the_store_is_the_entry_scripts_store_argument(tmp_path: Path) -> None:
    assert data.store_path([ENTRY, "--store", "corpus.store"], ENTRY) == "corpus.store"
    assert data.store_path([ENTRY, "--store"], ENTRY) is None
    assert data.store_path([ENTRY, "--store", "a", "b"], ENTRY) is None
    assert data.store_path([ENTRY, "--stores", "a"], ENTRY) is None
    assert data.store_path(["other.py", "--store", "a"], ENTRY) is None
    assert data.store_path(["pytest", "-q", "x"], ENTRY) is None


def test_a_game_is_read_again_from_its_place(tmp_path: Path) -> None:
    """A game is replayed from its file, its corpus line, its byte offset in a store's
    source, or its upload; a file changed since, or an upload closed, gives ``None``."""
    whole = data.GameRef(data.FILE, str(MERCY), None, _sha(MERCY))
    assert data.replay_of(whole, {}) == _mercy()
    third = data.GameRef(data.FILE, str(CORPUS), 3, _sha(CORPUS))
    assert data.replay_of(third, {}) == _corpus_line(3)
    assert data.replay_of(data.GameRef(data.FILE, str(CORPUS), 99, _sha(CORPUS)), {}) is None
    lines = CORPUS.read_bytes().splitlines(keepends=True)
    offset = sum(len(line) for line in lines[:2])
    stat = CORPUS.stat()
    stamp = (stat.st_size, stat.st_mtime_ns)
    at_offset = data.GameRef(data.FILE, str(CORPUS), 3, _sha(CORPUS), offset, stamp)
    assert data.replay_of(at_offset, {}) == _corpus_line(3)
    # another stamp, but the same bytes: the digest is taken again, and agrees
    restamped = data.GameRef(data.FILE, str(CORPUS), 3, _sha(CORPUS), offset, (1, 1))
    assert data.replay_of(restamped, {}) == _corpus_line(3)
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(CORPUS.read_bytes())
    moved = data.GameRef(data.FILE, str(copy), 3, "an earlier digest", offset, (1, 1))
    assert data.replay_of(moved, {}) is None
    gone = data.GameRef(data.FILE, str(tmp_path / "gone.jsonl"), 3, "d", offset, stamp)
    assert data.replay_of(gone, {}) is None
    upload = data.Upload.of("games.jsonl", CORPUS.read_bytes())
    sent = data.GameRef(data.UPLOAD, "games.jsonl", 2, upload.digest)
    assert data.replay_of(sent, {upload.digest: upload}) == _corpus_line(2)
    assert data.replay_of(sent, {}) is None


def test_games_without_an_id_are_named_as_stats_names_them(tmp_path: Path) -> None:
    """Each file numbers its games without an id from 0, as ``stats`` and a store do, not
    the dashboard's count of the games loaded before them."""
    lines = [
        orjson.dumps({key: value for key, value in orjson.loads(line).items() if key != "game_id"})
        for line in CORPUS.read_bytes().splitlines()[:3]
    ]
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    first.write_bytes(b"\n".join(lines) + b"\n")
    second.write_bytes(b"\n".join(lines[:2]) + b"\n")
    loaded = data.read_files([(str(first), "a"), (str(second), "b")])
    collection = StatsCollection([first, second])
    assert list(collection) == []
    expected = ["game-0", "game-1", "game-2", "game-0", "game-1"]
    assert collection.tables().games["game_id"].to_list() == expected
    assert loaded.tables.games["game_id"].to_list() == expected


def test_a_ref_is_the_stores_answer_when_the_data_is_a_store() -> None:
    loaded = data.read_files([(str(MERCY), "d")])
    assert loaded.ref(0) == loaded.refs[0]
    asked: list[int] = []

    def where(game: int) -> data.GameRef:
        asked.append(game)
        return data.GameRef(data.FILE, f"store-{game}", None, "s")

    stored = data.Loaded(loaded.tables, loaded.seats, (), (), (), loaded.records, where=where)
    assert stored.ref(7).name == "store-7"
    assert asked == [7]


def test_what_if_rescores_every_game_shown() -> None:
    found = ((str(CORPUS), _sha(CORPUS)), (str(MERCY), _sha(MERCY)))
    loaded = data.read_files(found)
    changes: dict[str, data.RuleValue] = {"target_score": 200, "nil_bonus": 50}
    whatif = data.rescore_games(loaded, loaded.tables, {}, changes)
    replays = [data.replay_of(ref, {}) for ref in loaded.refs]
    expected = [rescore(replay, **changes) for replay in replays if replay is not None]
    assert [game for game, _ in whatif.games] == list(range(len(loaded.refs)))
    assert [figures for _, figures in whatif.games] == expected
    assert whatif.summary == CorpusRescore().extend(expected)
    assert (whatif.refused, whatif.unread) == ((), ())


def _work_left_out(analysis: HandAnalysis) -> HandAnalysis:
    """The analysis without the measures of its work (time taken, nodes searched)."""
    return dataclasses.replace(analysis, seconds=0.0, nodes=0)


def test_the_double_dummy_answers_are_the_solvers() -> None:
    ref = data.GameRef(data.FILE, str(MERCY), None, _sha(MERCY))
    hand = _mercy().hands[0]
    assert data.fast_solver() == (kernel_name() == "compiled")
    assert _work_left_out(data.hand_analysis(ref, hand, None)) == _work_left_out(analyze_hand(hand))
    index = 4
    expected = new_solver(hand.variant).card_values(position_before(hand, index))
    assert data.card_values(ref, hand, index, 60.0) == tuple(expected.items())
    assert len(expected) > 1


def test_the_background_gives_the_analysis_once_done() -> None:
    ref = data.GameRef(data.FILE, str(MERCY), None, _sha(MERCY))
    hands = _mercy().hands[:2]
    background = data.Background()
    background.KEPT = 1
    deadline = time.monotonic() + 300
    answers = []
    for hand in hands:
        while (answer := background.ask(ref, hand, None)) is None:
            assert time.monotonic() < deadline, "the background analysis never finished"
            time.sleep(0.05)
        answers.append(answer)
    assert [_work_left_out(answer) for answer in answers] == [
        _work_left_out(analyze_hand(hand)) for hand in hands
    ]


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="no thread priorities here")
def test_the_background_analysis_yields_the_cores_and_nothing_else_does() -> None:
    """The thread analysing hands in the background runs at a lower priority (its own nice
    value, never raised); the thread that asked keeps its own."""
    mine = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    background = data.Background()
    seen = background._pool.submit(
        lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    ).result(timeout=60)
    assert seen == max(mine, data.BACKGROUND_NICE)
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == mine


def test_the_bytes_expected_of_a_file_are_its_size_or_its_gzip_trailers(tmp_path: Path) -> None:
    plain = tmp_path / "games.jsonl"
    plain.write_bytes(b"0123456789")
    assert data.expected_bytes(str(plain)) == 10
    packed = tmp_path / "games.jsonl.gz"
    packed.write_bytes(gzip.compress(b"x" * 1000))
    assert data.expected_bytes(str(packed)) == 1000
    empty = tmp_path / "empty.jsonl.gz"
    empty.write_bytes(gzip.compress(b""))
    assert data.expected_bytes(str(empty)) == 1  # never 0: a progress bar divides by it
    short = tmp_path / "short.jsonl.gz"
    short.write_bytes(b"\x1f\x8b\x08")  # too short to hold a trailer: its size
    assert data.expected_bytes(str(short)) == 3
    trailer_only = tmp_path / "trailer.jsonl.gz"
    trailer_only.write_bytes((16).to_bytes(4, "little"))
    assert data.expected_bytes(str(trailer_only)) == 16


def test_the_progress_of_a_load_counts_toward_every_readable_file() -> None:
    heard: list[tuple[int, int, int]] = []
    files = [("/no/such.json", "d0"), (str(CORPUS), "d1"), (str(MERCY), "d2")]
    loaded = data.read_files(files, progress=lambda *figures: heard.append(figures))
    assert {total for _, total, _ in heard} == {CORPUS.stat().st_size + MERCY.stat().st_size}
    assert [records for _, _, records in heard] == list(range(1, loaded.records + 1))


def test_combined_loads_keep_every_part_renumbered(tmp_path: Path) -> None:
    bad = (FIXTURES / "invalid" / "play-revoke.json").read_bytes()
    parts = [
        data.read_files([(str(CORPUS), "d1")]),
        data.read_upload(data.Upload.of("bad.json", bad)),
        data.read_files([(str(MERCY), "d2"), ("/no/such.json", "d3")]),
        data.read_upload(data.Upload.of("mercy.json", MERCY.read_bytes())),
    ]
    told = data.Problem(Code.IO_NOT_FOUND, "told first")
    both = data.combine(parts, [told])
    counts = [len(part.refs) for part in parts]
    starts = [sum(counts[:n]) for n in range(len(parts))]
    assert both.records == sum(part.records for part in parts)
    assert both.invalid == parts[1].invalid
    assert [problem.message for problem in both.problems] == [
        "told first",
        *(problem.message for problem in parts[2].problems),
    ]
    for table in ("seat_hands", "side_hands", "games"):
        combined = getattr(both.tables, table)
        expected = [
            game + start
            for part, start in zip(parts, starts, strict=True)
            for game in getattr(part.tables, table).get_column("game").to_list()
        ]
        assert combined.get_column("game").to_list() == expected, table
    assert both.seats.get_column("game").to_list() == [
        game + start
        for part, start in zip(parts, starts, strict=True)
        for game in part.seats.get_column("game").to_list()
    ]
    one = data.combine([parts[0]])
    assert one is parts[0]
    alone = data.combine([parts[0]], [told])
    assert alone.problems == (told,)
    assert alone.refs == parts[0].refs


def test_the_app_takes_a_single_path_it_is_given() -> None:
    assert data.data_paths([ENTRY, "a.jsonl"], ENTRY) == ("a.jsonl",)


def test_games_are_read_again_from_uploads_and_corpus_lines(tmp_path: Path) -> None:
    upload = data.Upload.of("games.jsonl", CORPUS.read_bytes())
    copy = tmp_path / "games.jsonl"
    copy.write_bytes(CORPUS.read_bytes())
    games = [
        (0, data.GameRef(data.UPLOAD, "games.jsonl", 2, upload.digest)),
        (1, data.GameRef(data.FILE, str(copy), 3, "the digest of an earlier version")),
        (2, data.GameRef(data.FILE, str(CORPUS), 1, _sha(CORPUS))),
    ]
    found, unread = data.replays_of(games, {upload.digest: upload})
    assert found == {0: _corpus_line(2), 2: _corpus_line(1)}
    assert unread == (f"{copy}:3",)


def test_a_file_rewritten_since_it_was_read_is_not_read_again(tmp_path: Path) -> None:
    """The digest of a file is cached on its size and its modification time: a change of
    either takes it again, so an edited file is never taken for the one that was loaded."""
    first, second = CORPUS.read_bytes().splitlines(keepends=True)[:2]
    same_size = second[: len(first)].ljust(len(first), b" ")
    for name, edited in (("size.jsonl", first + first), ("time.jsonl", first + same_size)):
        path = tmp_path / name
        path.write_bytes(first + first)
        ref = data.GameRef(data.FILE, str(path), 1, _sha(path))
        assert data.replays_of([(0, ref)], {})[0] == {0: _corpus_line(1)}
        mtime = path.stat().st_mtime_ns
        if name == "size.jsonl":
            path.write_bytes(edited + b"\n")  # one byte more, the same modification time
            os.utime(path, ns=(mtime, mtime))
        else:
            path.write_bytes(edited)  # the same size, another modification time
            os.utime(path, ns=(mtime + 10**9, mtime + 10**9))
        assert data.replays_of([(0, ref)], {}) == ({}, (f"{path}:1",)), name


def test_each_game_read_keeps_its_origin_digest_id_and_seats() -> None:
    record = orjson.loads(MERCY.read_bytes())
    record["players"][0].pop("id", None)
    record["players"][1]["id"] = "player-one"
    upload = data.Upload.of("mixed.json", orjson.dumps(record))
    sent = data.read_upload(upload)
    assert [(ref.origin, ref.digest, ref.name) for ref in sent.refs] == [
        (data.UPLOAD, upload.digest, "mixed.json")
    ]
    assert sent.tables.games.get_column("game_id").to_list() == [record["game_id"]]
    assert sent.seats.rows() == [
        (0, 0, record["players"][0]["name"], record["players"][0]["name"]),
        (0, 1, record["players"][1]["name"], "player-one"),
    ]
    files = data.read_files([(str(CORPUS), "the corpus digest")])
    assert {(ref.origin, ref.digest) for ref in files.refs} == {(data.FILE, "the corpus digest")}
    bad = data.read_upload(data.Upload.of("bad.json", b"{oops"))
    assert [report.source for report in bad.invalid] == ["bad.json"]


def test_a_load_reads_under_the_limits_it_is_given(tmp_path: Path) -> None:
    record = orjson.loads(MERCY.read_bytes())
    record["meta"] = {"note": "a meta value of forty characters, no more"}
    path = tmp_path / "long.json"
    path.write_bytes(orjson.dumps(record))
    assert len(data.read_files([(str(path), "d")]).refs) == 1
    refused = data.read_files([(str(path), "d")], Limits(string_chars=20))
    assert refused.refs == ()
    assert refused.invalid[0].problems[0].code is Code.FORMAT_LIMIT


def test_an_upload_over_the_cap_is_named_and_left_unread() -> None:
    huge = data.Upload.too_big("huge.json", data.UPLOAD_BYTES + 1)
    assert (huge.name, huge.data, huge.size) == ("huge.json", b"", data.UPLOAD_BYTES + 1)
    assert huge.digest != data.Upload.too_big("other.json", data.UPLOAD_BYTES + 1).digest
    assert huge.digest != data.Upload.too_big("huge.json", data.UPLOAD_BYTES + 2).digest
    assert huge.digest == data.Upload.too_big("huge.json", data.UPLOAD_BYTES + 1).digest
    (problem,) = data.read_upload(huge).problems
    assert (problem.code, problem.source) == (Code.FORMAT_LIMIT, "huge.json")
    at_the_cap = data.Upload.of("blank.jsonl", b" " * data.UPLOAD_BYTES)
    read = data.read_upload(at_the_cap)
    assert (read.problems, read.invalid, read.records) == ((), (), 0)


def test_a_corpus_analysis_is_the_analysis_table_of_the_games_shown(tmp_path: Path) -> None:
    short = FIXTURES / "two-player" / "unfinished.json"
    copy = tmp_path / "copy.json"
    copy.write_bytes(short.read_bytes())
    loaded = data.read_files([(str(short), _sha(short)), (str(copy), _sha(copy))])
    copy.write_bytes(b"{}")  # changed since it was loaded
    found = data.corpus_analysis(loaded, loaded.tables, {}, time_cap=None, jobs=1)
    hands = HandList()
    hands.add(spades_replay.replay(spades_replay.load(short)), 0)
    expected = analysis_table(hands, loaded.tables.seat_hands)
    assert expected.height == 4  # the two complete hands, a row per seat
    assert found.table.equals(expected)
    assert found.unread == (str(copy),)


def test_an_upload_is_checked_again_when_its_name_or_its_bytes_differ() -> None:
    bad = (FIXTURES / "invalid" / "play-revoke.json").read_bytes()
    first = data.check_upload(data.Upload.of("first.json", bad))
    renamed = data.check_upload(data.Upload.of("second.json", bad))
    assert [report.source for report in (*first.invalid, *renamed.invalid)] == [
        "first.json",
        "second.json",
    ]
    good = data.check_upload(data.Upload.of("first.json", MERCY.read_bytes()))
    assert (len(good.refs), good.invalid) == (1, ())


def test_a_corpus_analysis_keeps_to_its_time_cap() -> None:
    four = FIXTURES / "four-player" / "tie-plays-on.json"
    loaded = data.read_files([(str(four), _sha(four))])
    found = data.corpus_analysis(loaded, loaded.tables, {}, time_cap=0.0, jobs=1)
    # no four-player hand is solved in no time: every one is capped
    assert found.table.height == loaded.tables.seat_hands.height > 0
    assert found.table.get_column("capped").all()


def test_the_scan_takes_a_digest_again_when_the_size_or_the_time_changes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "game.json"
    path.write_bytes(b"[1, 2]")
    assert data.scan([str(path)]).files == ((str(path), _sha(path)),)
    mtime = path.stat().st_mtime_ns
    path.write_bytes(b"[1, 2, 3]")  # another size, the same modification time
    os.utime(path, ns=(mtime, mtime))
    assert data.scan([str(path)]).files == ((str(path), _sha(path)),)
    path.write_bytes(b"[4, 5, 6]")  # the same size, another modification time
    os.utime(path, ns=(mtime + 10**9, mtime + 10**9))
    assert data.scan([str(path)]).files == ((str(path), _sha(path)),)


def test_the_background_analyses_one_hand_at_a_time_and_never_waits() -> None:
    four = spades_replay.replay(spades_replay.load(FIXTURES / "four-player" / "tie-plays-on.json"))
    ref = data.GameRef(data.FILE, "four.json", None, "d")
    background = data.Background()
    before = {thread.ident for thread in threading.enumerate()}
    # a four-player hand takes the search more than no time: the first answer is "not yet"
    assert background.ask(ref, four.hands[0], 1.0) is None
    assert background.ask(ref, four.hands[1], 1.0) is None
    started = [thread for thread in threading.enumerate() if thread.ident not in before]
    assert [thread.name.startswith("double-dummy") for thread in started] == [True]


def test_uploads_are_loaded_and_replayed_again_when_their_name_or_bytes_differ() -> None:
    bad = (FIXTURES / "invalid" / "play-revoke.json").read_bytes()
    nothing = data.Scan((), ())
    sources = [
        report.source
        for name in ("first.json", "second.json")
        for report in data.load(nothing, [data.Upload.of(name, bad)]).invalid
    ]
    assert sources == ["first.json", "second.json"]
    good = data.load(nothing, [data.Upload.of("first.json", MERCY.read_bytes())])
    assert len(good.refs) == 1
    lines = CORPUS.read_bytes().splitlines(keepends=True)
    for text, line in ((lines[0] + lines[1], 2), (lines[2] + lines[3], 4)):
        upload = data.Upload.of("games.jsonl", text)
        ref = data.GameRef(data.UPLOAD, "games.jsonl", 2, upload.digest)
        assert data.replay_of(ref, {upload.digest: upload}) == _corpus_line(line)


def test_a_gzip_corpus_is_read_under_the_expansion_limit_given(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl.gz"
    # blank lines (spaces and tabs) past the first mebibyte, which is always read: they
    # grow about eightfold, past the 2 allowed here but within the 100 allowed by default
    noise = random.Random(7)
    blank = b"".join(bytes(noise.choices(b" \t", k=127)) + b"\n" for _ in range(2**14))
    path.write_bytes(gzip.compress(MERCY.read_bytes().replace(b"\n", b"") + b"\n" + blank))
    assert len(blank) > 2**20
    loaded = data.read_files([(str(path), "d")], Limits(expansion=2))
    assert [problem.code for problem in loaded.problems] == [Code.IO_EXPANSION]


def test_what_if_rescores_uploaded_games() -> None:
    upload = data.Upload.of("games.jsonl", CORPUS.read_bytes())
    loaded = data.read_upload(upload)
    whatif = data.rescore_games(loaded, loaded.tables, {upload.digest: upload}, {})
    expected = [rescore(_corpus_line(ref.line or 0)) for ref in loaded.refs]
    assert [figures for _, figures in whatif.games] == expected
    assert whatif.unread == ()


def test_each_hand_of_each_game_and_version_has_its_own_analysis() -> None:
    """The analyses are cached on the game's line and digest and the hand's number: hands
    that share all but one of them are never taken for one another."""
    first, second = _corpus_line(1), _corpus_line(2)
    digest = _sha(CORPUS)
    one = data.GameRef(data.FILE, str(CORPUS), 1, digest)
    two = data.GameRef(data.FILE, str(CORPUS), 2, digest)
    rewritten = data.GameRef(data.FILE, str(CORPUS), 1, "the digest of a later version")
    cases = [
        (one, first.hands[0]),
        (one, first.hands[1]),
        (two, second.hands[0]),
        (rewritten, second.hands[0]),
    ]
    for ref, hand in cases:
        found = data.hand_analysis(ref, hand, None)
        assert _work_left_out(found) == _work_left_out(analyze_hand(hand))
        values = new_solver(hand.variant).card_values(position_before(hand, 2))
        assert data.card_values(ref, hand, 2, 60.0) == tuple(values.items())

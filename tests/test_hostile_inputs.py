"""Nothing the tool reads is ever harmed, and nothing it meets hangs it: an output that is
one of its inputs is refused, a device or FIFO is written directly or refused (never
replaced), walks read regular files only (a FIFO or ``/dev/zero`` is reported and skipped,
an unreadable directory too), machine text to a terminal is escaped, and every reader keeps
to the size limits. Every command here runs in a subprocess under a timeout: a hang fails."""

from __future__ import annotations

import gzip
import os
import pty
import select
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from spades_replay.errors import Code, InputError
from spades_replay.plumbing.corpus import Task, expand, read_task
from spades_replay.store.ingest import ingest

from .conftest import FIXTURES, ROOT

TIMEOUT = 120
"""Seconds any one command may take here: a walk that hangs on a FIFO fails the test."""

GAME = FIXTURES / "four-player" / "standard-game.json"
TWO = FIXTURES / "corpus" / "two-player.jsonl"


def cli(*arguments: str, **options: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "spades_replay", *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=TIMEOUT,
        **options,  # type: ignore[call-overload]
    )


@pytest.fixture
def game(tmp_path: Path) -> Path:
    copy = tmp_path / "g.json"
    shutil.copy(GAME, copy)
    return copy


# --- outputs onto inputs --------------------------------------------------------------------

WRITERS = {
    "stats": ["stats", "{input}", "-o", "{output}"],
    "ratings": ["ratings", "{input}", "-o", "{output}"],
    "rescore": ["rescore", "{input}", "--rule", "bag_limit=5", "-o", "{output}"],
    "export": ["export", "openspiel", "{input}", "-o", "{output}"],
}


@pytest.mark.parametrize("command", sorted(WRITERS))
@pytest.mark.parametrize("how", ["same path", "symlink", "hard link", "in a directory"])
def test_a_writer_refuses_to_overwrite_its_input(
    game: Path, tmp_path: Path, command: str, how: str
) -> None:
    before = game.read_bytes()
    source, output = str(game), str(game)
    if how == "symlink":
        (tmp_path / "link.json").symlink_to(game)
        output = str(tmp_path / "link.json")
    elif how == "hard link":
        os.link(game, tmp_path / "hard.json")
        output = str(tmp_path / "hard.json")
    elif how == "in a directory":
        source = str(tmp_path)
    words = [word.format(input=source, output=output) for word in WRITERS[command]]
    result = cli(*words)
    assert result.returncode == 2, result.stderr
    assert "would destroy what is read" in result.stderr
    assert game.read_bytes() == before


def test_import_refuses_to_overwrite_its_input(tmp_path: Path) -> None:
    histories = tmp_path / "games.jsonl"
    histories.write_text("[1, 2, 3]\n")
    result = cli("import", "openspiel", str(histories), "-o", str(histories))
    assert result.returncode == 2
    assert "would destroy what is read" in result.stderr
    assert histories.read_text() == "[1, 2, 3]\n"


@pytest.fixture
def store(tmp_path: Path) -> Path:
    directory = tmp_path / "store"
    ingest([TWO], directory)
    return directory


@pytest.mark.parametrize(
    "target", ["manifest.json", ".lock", "parts/old.csv", "parts/new.csv", "new.csv"]
)
def test_commands_on_a_store_refuse_to_write_inside_it(store: Path, target: str) -> None:
    """Whether the file is there (the manifest, an old output) or would be new."""
    manifest = (store / "manifest.json").read_bytes()
    output = store / target
    if target == "parts/old.csv":
        output.write_text("x")
    before = output.read_bytes() if output.exists() else None
    for words in (
        ["query", "--store", str(store), "SELECT 1 AS one", "-o", str(output)],
        ["stats", "--store", str(store), "-o", str(output)],
        ["rescore", "--store", str(store), "--rule", "bag_limit=5", "-o", str(output)],
        ["ratings", "--store", str(store), "-o", str(output)],
    ):
        result = cli(*words)
        assert result.returncode == 2, result.stderr
        assert "is inside the store" in result.stderr
        assert (output.read_bytes() if output.exists() else None) == before
    assert (store / "manifest.json").read_bytes() == manifest


def test_a_device_output_is_written_not_replaced(game: Path, tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    node = tmp_path / "null"
    os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    for words in (
        ["stats", str(game), "-o", str(node)],
        ["schema", "-o", str(node)],
        ["export", "openspiel", str(game), "-o", str(node)],
    ):
        result = cli(*words)
        assert result.returncode in (0, 1), result.stderr  # export refuses this game: 1
        assert stat.S_ISCHR(os.stat(node).st_mode)
    for words in (
        ["simulate", "--variant", "two-player", "--games", "1", "-o", str(node)],
        ["migrate", str(game), "-o", str(node)],
    ):
        result = cli(*words)
        assert result.returncode == 2
        assert "it is a character device" in result.stderr
        assert stat.S_ISCHR(os.stat(node).st_mode)


def test_a_fifo_output_is_written_through(game: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "out.csv"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    result = cli("stats", str(game), "--format", "csv", "-o", str(fifo))
    reader.join(TIMEOUT)
    assert result.returncode == 0, result.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert got[0].startswith(b"player")


# --- walks --------------------------------------------------------------------------------


@pytest.fixture
def fifo_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "d"
    folder.mkdir()
    shutil.copy(GAME, folder / "a.json")
    os.mkfifo(folder / "p.jsonl")
    return folder


@pytest.fixture
def zero_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "z"
    folder.mkdir()
    shutil.copy(GAME, folder / "a.json")
    (folder / "z.jsonl").symlink_to("/dev/zero")
    return folder


@pytest.mark.parametrize("folder", ["fifo_folder", "zero_folder"])
def test_walks_skip_what_is_not_a_regular_file(
    folder: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    path: Path = request.getfixturevalue(folder)
    skipped = "p.jsonl is a FIFO" if folder == "fifo_folder" else "z.jsonl is a character device"
    for words in (
        ["validate", str(path)],
        ["stats", str(path), "--format", "csv"],
        ["ingest", str(path), "--store", str(tmp_path / "store"), "--no-progress"],
        ["rescore", str(path), "--rule", "bag_limit=5", "--format", "csv"],
    ):
        result = cli(*words)
        assert result.returncode == 2, (words, result.stderr)
        assert skipped in result.stdout + result.stderr
        assert "[io.not-a-file]" in result.stdout + result.stderr
    validated = cli("validate", str(path), "--format", "json")
    assert orjson.loads(validated.stdout.splitlines()[-1])["summary"]["records"] == 1
    result = cli("migrate", str(path), "-o", str(tmp_path / "out"))
    assert result.returncode == 2
    assert skipped in result.stderr
    assert (tmp_path / "out" / "a.json").read_bytes() == (path / "a.json").read_bytes()


def test_a_fifo_named_directly_is_reported_as_what_it_is(fifo_folder: Path) -> None:
    fifo = str(fifo_folder / "p.jsonl")
    for words in (["validate", fifo], ["replay", fifo], ["stats", fifo]):
        result = cli(*words)
        assert result.returncode == 2
        assert "is a FIFO, not a regular file" in result.stdout + result.stderr
        assert "no such file" not in result.stdout + result.stderr


def test_reading_a_file_swapped_for_a_fifo_never_blocks(fifo_folder: Path) -> None:
    """A file found as a regular one and replaced by a FIFO before it is read is refused at
    opening, without waiting for a writer."""
    code = (
        "from spades_replay.plumbing.corpus import Task, read_task\n"
        "from spades_replay.errors import InputError\n"
        "import sys\n"
        "try:\n"
        "    list(read_task(Task(sys.argv[1], True)))\n"
        "except InputError as error:\n"
        "    print(error.problem.code)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(fifo_folder / "p.jsonl")],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
        cwd=ROOT,
    )
    assert result.stdout.strip() == "io.not-a-file"


def test_expand_reports_and_goes_on(fifo_folder: Path, zero_folder: Path) -> None:
    problems: list[object] = []
    found = list(expand([fifo_folder, zero_folder], on_problem=problems.append))
    assert found == [fifo_folder / "a.json", zero_folder / "a.json"]
    assert [problem.code for problem in problems] == [Code.IO_NOT_A_FILE] * 2  # type: ignore[attr-defined]
    with pytest.raises(InputError) as caught:
        list(expand([fifo_folder]))
    assert caught.value.problem.code is Code.IO_NOT_A_FILE
    with pytest.raises(InputError):
        list(read_task(Task(str(zero_folder / "z.jsonl"), True)))


def test_the_dashboards_scan_skips_a_fifo(fifo_folder: Path) -> None:
    code = (
        "import sys\n"
        "from spades_replay.dashboard.data import scan\n"
        "found = scan([sys.argv[1]])\n"
        "print(len(found.files), [p.code.value for p in found.problems])\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(fifo_folder)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
        cwd=ROOT,
    )
    assert result.stdout.strip() == "1 ['io.not-a-file']", result.stderr


def _nobody() -> list[str]:
    """The command prefix that runs as the unprivileged user ``nobody``; skip where this
    machine cannot drop privileges."""
    if os.geteuid() != 0:
        if os.access("/", os.W_OK):
            pytest.skip("not root, yet / is writable: permissions are not enforced here")
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("setpriv (util-linux) is not installed: cannot drop root privileges")
    return [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"]


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A temporary folder that an unprivileged user may enter."""
    folder = Path(tempfile.mkdtemp(prefix="spades-hostile-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        for root, dirs, _ in os.walk(folder):
            for name in dirs:
                (Path(root) / name).chmod(0o755)
        shutil.rmtree(folder)


def test_an_unreadable_directory_is_reported_not_skipped(shared_tmp: Path) -> None:
    prefix = _nobody()
    folder = shared_tmp / "u"
    (folder / "c").mkdir(parents=True)
    shutil.copy(GAME, folder / "a.json")
    shutil.copy(GAME, folder / "c" / "b.json")
    for path in (folder, folder / "a.json", folder / "c" / "b.json"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    (folder / "c").chmod(0)
    result = subprocess.run(
        [*prefix, sys.executable, "-m", "spades_replay", "validate", str(folder)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
        cwd=ROOT,
        env={**os.environ, "HOME": str(shared_tmp)},
    )
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"cannot read the directory {folder / 'c'}: Permission denied" in result.stderr
    assert "[io.unreadable]" in result.stderr
    assert "1 path(s) could not be read" in result.stdout


# --- terminal escapes -----------------------------------------------------------------------


def _hostile_game(folder: Path) -> Path:
    record = orjson.loads(GAME.read_bytes())
    record["players"][0]["name"] = (
        "Eve\x1b[2J\x1b]8;;https://evil.example\x07click\x1b]8;;\x07\u202eright"
    )
    path = folder / "evil.json"
    path.write_bytes(orjson.dumps(record))
    return path


def _on_terminal(*arguments: str) -> bytes:
    """What a command writes to standard output when that is a terminal."""
    main, secondary = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "spades_replay", *arguments],
        cwd=ROOT,
        stdout=secondary,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "COLUMNS": "200"},
    )
    os.close(secondary)
    output = b""
    while True:
        ready, _, _ = select.select([main], [], [], TIMEOUT)
        if not ready:
            process.kill()
            break
        try:
            chunk = os.read(main, 65536)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
    process.wait(TIMEOUT)
    os.close(main)
    return output


def test_csv_and_json_to_a_terminal_are_escaped(tmp_path: Path) -> None:
    evil = _hostile_game(tmp_path)
    store = tmp_path / "store"
    ingest([evil], store)
    for words in (
        ["stats", str(evil), "--format", "csv"],
        ["stats", str(evil), "--format", "json"],
        ["ratings", str(evil), "--format", "csv"],
        ["ratings", "--store", str(store), "--format", "json"],
        ["query", "--store", str(store), "SELECT player FROM seat_hands", "--format", "csv"],
        ["query", "--store", str(store), "SELECT player FROM seat_hands", "--format", "json"],
    ):
        shown = _on_terminal(*words)
        assert b"Eve" in shown, words
        assert b"\x1b" not in shown
        assert b"\x07" not in shown
        assert "\u202e".encode() not in shown  # a bidirectional override, raw even in JSON
        assert b"\\u202e" in shown
        assert b"Eve\\x1b[2J" in shown or b"Eve\\u001b[2J" in shown
        piped = cli(*words)
        assert piped.returncode == 0
        if "csv" in words:
            assert "Eve\x1b[2J" in piped.stdout  # byte-exact to a pipe


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_standard_output_is_a_usage_error(game: Path, tmp_path: Path) -> None:
    """Output that cannot be written (a full disk behind ``>``) is exit 2, said plainly:
    never a traceback, never the exit 1 of an invalid record."""
    store = tmp_path / "store"
    ingest([game], store)
    for words in (
        ["validate", str(game)],
        ["validate", str(game), "--format", "json"],
        ["stats", str(game), "--format", "csv"],
        ["ratings", str(game)],
        ["replay", str(game), "--format", "json"],
        ["schema"],
        ["query", "--store", str(store), "SELECT 1 AS one"],
    ):
        with open("/dev/full", "w") as full:
            result = subprocess.run(
                [sys.executable, "-m", "spades_replay", *words],
                cwd=ROOT,
                stdout=full,
                stderr=subprocess.PIPE,
                text=True,
                check=False,
                timeout=TIMEOUT,
            )
        assert result.returncode == 2, (words, result.stderr)
        assert "cannot write to standard output: No space left on device" in result.stderr
        assert "Traceback" not in result.stderr
        assert "Exception ignored" not in result.stderr


# --- limits and the smaller promises ---------------------------------------------------------

PEAK = """
import sys
from spades_replay.cli import main
code = main(sys.argv[1:])
# the peak of this program's own memory (ru_maxrss may carry the parent's over exec)
peak = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(code, peak.split()[1])
"""


def test_import_openspiel_keeps_to_the_limits(tmp_path: Path) -> None:
    """A compressed line of 256 MB of digits is skipped in pieces, never held: the import
    stays within a small fraction of it, and the games after it are still read (with the
    bound on decompression lifted: by default the file is refused as a bomb)."""
    bomb = tmp_path / "bomb.jsonl.gz"
    with gzip.open(bomb, "wb", compresslevel=6) as stream:
        stream.write(b"[")
        piece = b"1, " * (1 << 20)
        for _ in range(256 // 3):
            stream.write(piece)
        stream.write(b"1]\n")
        stream.write(b'{"history": [1], "id": "' + b"x" * 300 + b'"}\n')
        stream.write(b"[" * 80 + b"]" * 80 + b"\n")
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            PEAK,
            "import",
            "openspiel",
            str(bomb),
            "-o",
            str(tmp_path / "out.jsonl"),
            "--max-string",
            "200",
            "--max-depth",
            "64",
            "--max-expansion",
            "10000",
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
        cwd=ROOT,
    )
    code, peak_kib = result.stdout.split()[-2:]
    assert code == "1", result.stderr
    assert int(peak_kib) < 200 * 1024
    assert f":1: a line of more than {16 * 1024 * 1024} bytes exceeds the limit" in result.stderr
    assert ":2: a string of 300 characters exceeds the limit of 200" in result.stderr
    assert ":3: nesting deeper than the limit of 64" in result.stderr


def test_import_limits_a_run_of_action_lines(tmp_path: Path) -> None:
    histories = tmp_path / "games.txt"
    histories.write_text("1\n" * 600 + "\n[1, 2]\n")
    result = cli(
        "import", "openspiel", str(histories), "-o", str(tmp_path / "o.jsonl"),
        "--max-record-bytes", "1000",
    )  # fmt: skip
    assert result.returncode == 1
    assert ":1: a game of more than 1000 bytes exceeds the limit" in result.stderr
    assert ":602: " in result.stderr  # the next game is still read (and judged)


def test_migrate_in_place_keeps_owner_and_mode(game: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("giving a file to another user needs root")
    os.chown(game, 65534, 65534)
    game.chmod(0o640)
    result = cli("migrate", str(game), "--in-place", "--no-progress")
    assert result.returncode == 0, result.stderr
    found = game.stat()
    assert (found.st_uid, found.st_gid) == (65534, 65534)
    assert stat.S_IMODE(found.st_mode) == 0o640
    assert orjson.loads(game.read_bytes())["version"] == "1.1"


def test_replay_says_an_oversize_record_is_over_the_limit(tmp_path: Path) -> None:
    corpus = tmp_path / "big.jsonl"
    with corpus.open("wb") as stream:
        stream.write(b'{"padding": "' + b"x" * (17 * 1024 * 1024) + b'"}\n')
    result = cli("replay", str(corpus))
    assert result.returncode == 1
    assert "exceeds the size limit of 16777216 bytes" in result.stdout
    assert "[format.limit]" in result.stdout
    assert "empty" not in result.stdout


def test_query_writes_what_the_extension_names(store: Path, tmp_path: Path) -> None:
    for name, check in (
        ("x.json", lambda data: orjson.loads(data) == [{"games": 25}]),
        ("x.csv", lambda data: data == b"games\n25\n"),
        ("x.txt", lambda data: b"games" in data and b"25" in data and b"[" not in data),
    ):
        output = tmp_path / name
        result = cli(
            "query", "--store", str(store), "SELECT count(*) AS games FROM games", "-o", str(output)
        )
        assert result.returncode == 0, result.stderr
        assert check(output.read_bytes()), name
    result = cli("query", "--store", str(store), "SELECT 1", "-o", str(tmp_path / "x.xlsx"))
    assert result.returncode == 2
    assert "cannot tell the format" in result.stderr


def test_analyze_all_skips_a_fifo_of_its_folder_and_analyses_the_rest(tmp_path: Path) -> None:
    folder = tmp_path / "d"
    folder.mkdir()
    shutil.copy(FIXTURES / "two-player" / "mercy.json", folder / "a.json")
    os.mkfifo(folder / "p.jsonl")
    result = cli("analyze", str(folder), "--all", "--format", "json", "--no-progress")
    assert result.returncode == 2, result.stderr
    assert "p.jsonl is a FIFO" in result.stderr
    assert "[io.not-a-file]" in result.stderr
    (document,) = (orjson.loads(line) for line in result.stdout.splitlines())
    assert document["hands"]

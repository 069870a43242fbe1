"""``spades-replay dashboard [PATH...]``: the Streamlit dashboard on some records.

The command checks its arguments, then replaces itself with Streamlit's ``run`` (through
``python -m spades_replay.dashboard.serve``, which imports the pages first) on the
entry script of the installed ``spades_replay.dashboard`` package: headless (it prints the
address to open once the server listens on it, never before), bound to 127.0.0.1 unless
told otherwise, without usage statistics and without the developer menu (no "Deploy"
button).
PATHs are first read into a store kept in the user's cache directory (only new or changed
files are read again, so the second opening is as fast as a store's); the app is given
``--store DIR`` as the script's arguments.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import socket
import sys
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from spades_replay.cli.common import UsageError
from spades_replay.plumbing.corpus import sample_paths
from spades_replay.plumbing.limits import DEFAULT_LIMITS
from spades_replay.text import safe

EXTRAS = ("streamlit", "plotly")
INSTALL = "pip install 'spades-replay[dashboard]'"
DEFAULT_PORT = 8501
"""Streamlit's port, where it starts looking for a free one without --port."""
DEFAULT_ADDRESS = "127.0.0.1"


def register(commands: Any) -> None:
    """Add the command to the parser."""
    parser = commands.add_parser(
        "dashboard",
        description=(
            "Serve the dashboard on the records under the paths: step through replays, chart "
            "scores and bags, corpus stats, and validate uploads. Invalid records are reported "
            "in it, never counted. The paths are first read into a store in the user's cache "
            "directory (the next opening reads only new or changed files); --store DIR shows "
            "a store made by `ingest`. It prints the address to open in a browser (it opens "
            "none itself); Ctrl-C stops it."
        ),
        epilog=f"Needs the dashboard extra ({INSTALL}). Exit codes: 2 usage error (no such "
        "path, a missing extra), 130 interrupted; otherwise the server's own.",
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="record, corpus or directory (default in a checkout: the sample records of "
        "fixtures/, all but fixtures/invalid)",
    )
    parser.add_argument(
        "--store",
        metavar="DIR",
        help="show a store made by `ingest` instead of PATHs: opens at once, nothing replayed",
    )
    parser.add_argument(
        "--no-progress", action="store_true", help="never show the progress bar of the reading"
    )
    parser.add_argument(
        "--port",
        type=int,
        metavar="N",
        help=f"port (default {DEFAULT_PORT}, or the next free one after it; a port given "
        "here that is in use is an error)",
    )
    parser.add_argument(
        "--address",
        default=DEFAULT_ADDRESS,
        metavar="ADDR",
        help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 for all)",
    )
    parser.set_defaults(run=run)


def cache_store(paths: list[str]) -> Path:
    """Where the store of ``paths`` is kept: under the user's cache directory
    (``$XDG_CACHE_HOME``, else ``~/.cache``), ``spades-replay/stores/<key>``, the key a digest
    of the resolved paths in order."""
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    named = "\0".join(str(Path(path).resolve()) for path in paths)
    key = hashlib.sha256(named.encode()).hexdigest()[:20]
    return Path(root) / "spades-replay" / "stores" / key


def ingest_cache(paths: list[str], quiet: bool = False) -> str:
    """Bring the cache store of ``paths`` up to date (reading only new or changed files,
    under a progress bar) and return its directory."""
    from rich.text import Text

    from spades_replay.cli.common import console_for
    from spades_replay.cli.progress import Bar
    from spades_replay.store.ingest import ingest
    from spades_replay.store.layout import StoreError

    directory = cache_store(paths)
    err = console_for(sys.stderr)
    bar = Bar(
        "reading records into the cache store",
        counts="bytes",
        out=console_for(sys.stdout),
        err=err,
        text_on_stdout=False,
        enabled=not quiet,
    )
    try:
        with bar:
            report = ingest(paths, directory, wait=True, progress=bar.update)
    except StoreError as error:
        raise UsageError(f"{error} (the cache store of these paths: {directory})") from None
    except OSError as error:
        raise UsageError(f"cannot write the cache store {directory}: {error.strerror}") from None
    err.print(
        Text(
            f"spades-replay: {report.games} game(s) ({report.read} file(s) read, "
            f"{report.unchanged} unchanged) in the cache store {directory}"
        )
    )
    return str(directory)


def missing_extras() -> list[str]:
    """The packages of the dashboard extra that are not installed."""
    return [name for name in EXTRAS if find_spec(name) is None]


def entry_script() -> Path:
    """The dashboard's entry script, inside the installed package."""
    spec = find_spec("spades_replay.dashboard")
    if spec is None or not spec.submodule_search_locations:
        raise UsageError(f"the dashboard is not installed with spades-replay; {INSTALL}")
    return Path(next(iter(spec.submodule_search_locations))) / "app.py"


def data_paths(paths: list[str]) -> list[str]:
    """The paths to show: those given, which must exist, else the sample records of
    ``fixtures/`` when the current directory has one (a checkout): every folder of it but
    ``fixtures/invalid``, so that the default dashboard opens on valid games only."""
    for path in paths:
        if not os.path.exists(path):
            raise UsageError(f"no such file or directory: {path}")
    if paths:
        return paths
    if Path("fixtures").is_dir():
        return sample_paths(Path("fixtures"))
    raise UsageError(
        "no PATH given and no fixtures/ folder here; name the records to show: "
        "spades-replay dashboard PATH..."
    )


def port_free(address: str, port: int) -> bool:
    """Whether a server could listen on ``port`` of ``address`` now."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((address, port))
        except OSError:
            return False
    return True


def check_port(address: str, asked: int | None) -> None:
    """A port asked for must be one, and free now (Streamlit would stop on a busy one);
    without one, Streamlit takes the first free port from its default (8501) itself."""
    if asked is None:
        return
    if not 1 <= asked <= 65535:
        raise UsageError(f"--port must be from 1 to 65535, not {asked}")
    if not port_free(address, asked):
        raise UsageError(f"port {asked} on {address} is in use; choose another with --port")


UPLOAD_MEGABYTES = DEFAULT_LIMITS.record_bytes >> 20
"""The largest file the server takes in one upload, in MiB (Streamlit's ``maxUploadSize``):
the size limit of one record, as the upload widgets say, so that no request bypassing them
brings more."""


def streamlit_command(
    arguments: argparse.Namespace, paths: list[str], announcement: str
) -> list[str]:
    """The command line that serves the dashboard on ``paths`` (on ``arguments.port``, else
    the first free port from Streamlit's default) and prints ``announcement`` once it
    listens, ``{port}`` in it being the port."""
    port = [] if arguments.port is None else ["--server.port", str(arguments.port)]
    return [
        sys.executable,
        "-m",
        "spades_replay.dashboard.serve",
        "--announce",
        announcement,
        "run",
        str(entry_script()),
        "--server.headless",
        "true",
        "--server.address",
        arguments.address,
        *port,
        "--browser.gatherUsageStats",
        "false",
        "--client.toolbarMode",
        "minimal",
        "--logger.hideWelcomeMessage",
        "true",
        "--server.maxUploadSize",
        str(UPLOAD_MEGABYTES),
        # Streamlit runs a full garbage collection after every run of a page by default: on
        # a store of 100,000 games, 0.2 to 0.35 s each, twice per page opened, holding the
        # interpreter while the server should be sending the board and the page's scripts
        "--runner.postScriptGC",
        "false",
        "--",
        *paths,
    ]


def run(arguments: argparse.Namespace) -> int:
    """Check the arguments, then become the Streamlit server (this call does not return)."""
    missing = missing_extras()
    if missing:
        raise UsageError(f"the dashboard needs {' and '.join(missing)}: {INSTALL}")
    check_port(arguments.address, arguments.port)  # before anything is read
    if arguments.store is not None:
        if arguments.paths:
            raise UsageError("give PATHs or --store DIR, not both")
        from spades_replay.store.layout import StoreError, open_manifest

        try:
            open_manifest(arguments.store)
        except StoreError as error:
            raise UsageError(str(error)) from None
        paths = ["--store", arguments.store]
        shown = f"the store {arguments.store}"
    else:
        given = data_paths(arguments.paths)
        paths = ["--store", ingest_cache(given, arguments.no_progress)]
        shown = " ".join(given)
    host = "localhost" if arguments.address in ("0.0.0.0", "::") else arguments.address
    announcement = (
        f"spades-replay: the dashboard on {safe(shown, 500)}: open "
        f"http://{host}:{{port}}/ in a browser (Ctrl-C stops it)"
    )
    command = streamlit_command(arguments, paths, announcement)
    environment = dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, command, environment)

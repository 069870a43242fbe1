"""``spades-replay dashboard [PATH...]``: the Streamlit dashboard on some records.

The command checks its arguments, then replaces itself with ``python -m streamlit run`` on the
entry script of the installed ``spades_replay.dashboard`` package: headless (it prints the
address to open), bound to 127.0.0.1 unless told otherwise, without usage statistics and
without the developer menu (no "Deploy" button).
The paths reach the app as the script's arguments.
"""

from __future__ import annotations

import argparse
import os
import sys
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from spades_replay.cli.common import UsageError

EXTRAS = ("streamlit", "plotly")
INSTALL = "pip install 'spades-replay[dashboard]'"
DEFAULT_PORT = 8501
DEFAULT_ADDRESS = "127.0.0.1"


def register(commands: Any) -> None:
    """Add the command to the parser."""
    parser = commands.add_parser(
        "dashboard",
        help="open the dashboard (Streamlit) on some records",
        description=(
            "Serve the dashboard on the records under the paths: step through replays, chart "
            "scores and bags, corpus stats, and validate uploads. Invalid records are reported "
            "in it, never counted. Open the address it prints in a browser; Ctrl-C stops it."
        ),
        epilog=f"Needs the dashboard extra ({INSTALL}). Exit codes: 2 usage error (no such "
        "path, a missing extra), 130 interrupted; otherwise the server's own.",
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="record, corpus or directory (default: fixtures/ when run in a checkout)",
    )
    parser.add_argument(
        "--store",
        metavar="DIR",
        help="show a store made by `ingest` instead of PATHs: opens at once, nothing replayed",
    )
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, metavar="N", help="port (default 8501)"
    )
    parser.add_argument(
        "--address",
        default=DEFAULT_ADDRESS,
        metavar="ADDR",
        help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 for all)",
    )
    parser.set_defaults(run=run)


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
    """The paths to show: those given, which must exist, else ``fixtures`` when the current
    directory has one (a checkout)."""
    for path in paths:
        if not os.path.exists(path):
            raise UsageError(f"no such file or directory: {path}")
    if paths:
        return paths
    if Path("fixtures").is_dir():
        return ["fixtures"]
    raise UsageError(
        "no PATH given and no fixtures/ folder here; name the records to show: "
        "spades-replay dashboard PATH..."
    )


def streamlit_command(arguments: argparse.Namespace, paths: list[str]) -> list[str]:
    """The command line that serves the dashboard on ``paths``."""
    if not 0 < arguments.port < 65536:
        raise UsageError(f"--port must be from 1 to 65535, not {arguments.port}")
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(entry_script()),
        "--server.headless",
        "true",
        "--server.address",
        arguments.address,
        "--server.port",
        str(arguments.port),
        "--browser.gatherUsageStats",
        "false",
        "--client.toolbarMode",
        "minimal",
        "--",
        *paths,
    ]


def run(arguments: argparse.Namespace) -> int:
    """Check the arguments, then become the Streamlit server (this call does not return)."""
    missing = missing_extras()
    if missing:
        raise UsageError(f"the dashboard needs {' and '.join(missing)}: {INSTALL}")
    if arguments.store is not None:
        if arguments.paths:
            raise UsageError("give PATHs or --store DIR, not both")
        from spades_replay.store.layout import StoreError, open_manifest

        try:
            open_manifest(arguments.store)
        except StoreError as error:
            raise UsageError(str(error)) from None
        paths = ["--store", arguments.store]
    else:
        paths = data_paths(arguments.paths)
    command = streamlit_command(arguments, paths)
    environment = dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    print(f"spades-replay: the dashboard on {' '.join(paths)}", file=sys.stderr, flush=True)
    sys.stdout.flush()
    os.execve(sys.executable, command, environment)

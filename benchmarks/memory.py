"""Peak memory on hostile input: ``./dev bench memory [--quick] [--lines N] [--size BYTES]
[--commands C,...] [--parallel N] [--render] [--write-docs]``.

For each command that reads corpora (``validate``, ``stats``, ``ingest``, ``rescore``), with
``--jobs 1`` and ``--jobs 2``, the peak resident memory of the whole process tree (sampled
from /proc every 50 ms, and never below the main process's own high-water mark, VmHWM) on:

- a gzip bomb: ``--lines`` lines of ``{}`` (default 10,000,000: a 29 KB ``.jsonl.gz``;
  ``--quick``: 300,000), every one an invalid record, read whole (``--max-expansion`` lifted:
  the bound would stop it after its first MiB, which is measured apart, once);
- a valid corpus of at least ``--size`` bytes (default 1 GB; ``--quick``: 100 MB): the lines
  of the benchmark corpora of benchmarks/run.py repeated (simulating a gigabyte of games
  would take hours: ``simulate`` writes about 50 games a second),

side by side, with the wall time of each run. The limit: the bomb's peak at most the valid
corpus's, command by command. Results go to ``benchmarks/out/memory.json``; with
``--write-docs`` also to docs/reliability.md between its ``memory-bench`` markers.

A full run reads the bomb eight times: about an hour and a half on two free cores. The
default run is the full one; ``--quick`` takes a few minutes.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from pages import replace_block
from run import OUT, PEAK_OF_ONE, SEEDS, _tree_rss_kib, big_corpus, corpus, process_tree

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "reliability.md"
COMMANDS = ("validate", "stats", "ingest", "rescore")
LIFTED = str(1 << 30)
"""``--max-expansion`` for reading the whole bomb."""


def bomb(lines: int) -> Path:
    """A ``.jsonl.gz`` of ``lines`` lines of ``{}``, made once and kept in benchmarks/out/."""
    path = OUT / f"bomb-{lines}.jsonl.gz"
    if not path.exists():
        block = b"{}\n" * 100_000
        with gzip.open(path, "wb", compresslevel=9) as stream:
            for _ in range(lines // 100_000):
                stream.write(block)
            stream.write(b"{}\n" * (lines % 100_000))
    return path


def arguments(command: str, path: Path, jobs: int, store: Path) -> list[str]:
    """The command line of ``command`` on ``path``, its output thrown away."""
    common = ["--no-progress", "--jobs", str(jobs), "--max-expansion", LIFTED]
    if command == "validate":
        return ["validate", "--quiet", *common, str(path)]
    if command == "stats":
        return ["stats", *common, str(path)]
    if command == "ingest":
        return ["ingest", *common, "--store", str(store), str(path)]
    return ["rescore", "--rule", "target_score=300", *common, str(path)]


def tree_rss_kib(root: int) -> int:
    """The resident memory of a process and all its descendants (:func:`run.process_tree`:
    a few files where a scan of every process of the machine, :func:`run._tree_rss_kib`, the
    fallback, costs hundreds, 20 times a second, for hours)."""
    total = 0
    try:
        for pid in process_tree(root):
            with contextlib.suppress(FileNotFoundError, ProcessLookupError):
                status = Path(f"/proc/{pid}/status").read_text()
                found = re.search(r"^VmRSS:\s+(\d+)", status, re.M)
                total += int(found.group(1)) if found else 0
    except PermissionError:
        return _tree_rss_kib(root)
    return total


def peak(argv: list[str]) -> dict[str, Any]:
    """Run one command; its exit code, wall time and peak memory (MB, the process tree).
    Its standard error goes to a file: a command that reports every invalid record would
    fill a pipe nobody reads until it ends."""
    start = time.perf_counter()
    sample = tree_rss_kib if os.path.exists(f"/proc/{os.getpid()}/task") else _tree_rss_kib
    with tempfile.TemporaryFile() as said:
        process = subprocess.Popen(
            [sys.executable, "-c", PEAK_OF_ONE, *argv],
            stdout=subprocess.DEVNULL,
            stderr=said,
        )
        highest = 0
        while process.poll() is None:
            highest = max(highest, sample(process.pid))
            time.sleep(0.05)
        seconds = time.perf_counter() - start
        said.seek(max(0, os.fstat(said.fileno()).st_size - 4096))
        tail = said.read().decode(errors="replace").split("\n")
    words = " ".join(tail).split()
    own = int(words[-1]) if words and words[-1].isdigit() else 0
    lines = [line for line in tail if line.strip()]
    return {
        "code": process.returncode,
        "seconds": seconds,
        "peak_mb": max(highest, own) / 1024,
        "said": lines[-2:-1],
    }


def measure(
    lines: int, size: int, commands: list[str], save: Path, parallel: int = 1
) -> dict[str, Any]:
    """Each of ``commands`` on the bomb and on the valid corpus, with each number of jobs,
    ``parallel`` runs at a time (each run's peak is its own process tree's, whatever else
    runs; its time is not); the results so far saved to ``save`` after each run, so that a
    run stopped early keeps what it measured."""
    games = 200 if size < 1_000_000_000 else 2000
    sources = [corpus(variant, games, seed) for variant, seed in SEEDS.items()]
    valid = big_corpus(sources, size)
    hostile = bomb(lines)
    results: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%d %H:%M"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}",
        "bomb": {"lines": lines, "bytes": hostile.stat().st_size},
        "valid": {"bytes": valid.stat().st_size},
        "parallel": parallel,
        "runs": [],
    }
    rows = {
        (command, jobs): {"command": command, "jobs": jobs}
        for command in commands
        for jobs in (1, 2)
    }
    results["runs"] = list(rows.values())
    with tempfile.TemporaryDirectory() as scratch, ThreadPoolExecutor(parallel) as pool:
        started = {}
        for (command, jobs), row in rows.items():
            for name, path in (("bomb", hostile), ("valid", valid)):
                store = Path(scratch) / f"{command}-{jobs}-{name}"
                run = pool.submit(peak, arguments(command, path, jobs, store))
                started[run] = (row, name)
        for run in as_completed(started):
            row, name = started[run]
            row[name] = run.result()
            print(
                f"{row['command']} --jobs {row['jobs']} on the {name}: "
                f"{row[name]['peak_mb']:.0f} MB, {row[name]['seconds']:.0f} s "
                f"(exit {row[name]['code']})",
                file=sys.stderr,
                flush=True,
            )
            save.write_text(json.dumps(results, indent=2) + "\n")
    bounded = ["validate", "--quiet", "--no-progress", str(hostile)]
    results["bounded"] = peak(bounded)
    return results


def markdown(results: dict[str, Any]) -> str:
    """The results as the table of docs/reliability.md."""
    bomb_ = results["bomb"]
    lines = [
        f"Run on {results['when']} ({results['machine']}): the bomb is {bomb_['lines']:,} "
        f"lines of `{{}}` in a {bomb_['bytes']:,}-byte `.jsonl.gz`, read whole "
        f"(`--max-expansion` lifted); the valid corpus is {results['valid']['bytes'] / 1e6:,.0f} "
        "MB of simulated games, repeated. Peak resident memory of all the processes of the "
        "command"
        + (
            f" ({results['parallel']} runs at a time: each peak is its own run's, the times "
            "are those of runs sharing the cores)."
            if results.get("parallel", 1) > 1
            else "."
        ),
        "",
        "| command | jobs | bomb: peak | bomb: time | valid: peak | valid: time | bomb <= valid |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    order = {command: index for index, command in enumerate(COMMANDS)}
    for row in sorted(results["runs"], key=lambda row: (order[row["command"]], row["jobs"])):
        hostile, valid = row.get("bomb"), row.get("valid")
        cells = [
            f"{side['peak_mb']:.0f} MB | {side['seconds']:.0f} s"
            if side is not None
            else "not measured | -"
            for side in (hostile, valid)
        ]
        met = (
            "-"
            if hostile is None or valid is None
            else "yes"
            if hostile["peak_mb"] <= valid["peak_mb"]
            else "no"
        )
        lines.append(f"| `{row['command']}` | {row['jobs']} | {cells[0]} | {cells[1]} | {met} |")
    bounded = results.get("bounded")
    if bounded is None:
        return "\n".join(lines)
    outcome = (
        "reads the bomb's first MiB, then stops with `io.expansion`"
        if bounded["code"] == 2
        else "reads the whole bomb (it is within the MiB always read)"
    )
    lines += [
        "",
        f"With the default `--max-expansion` (100), `validate` {outcome} (exit "
        f"{bounded['code']}) after {bounded['seconds']:.0f} s, at {bounded['peak_mb']:.0f} MB.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a 300,000-line bomb, 100 MB")
    parser.add_argument("--lines", type=int, help="the bomb's lines")
    parser.add_argument("--size", type=int, help="the valid corpus's bytes, at least")
    parser.add_argument(
        "--commands",
        default=",".join(COMMANDS),
        help=f"the commands to measure, in this order (default {','.join(COMMANDS)})",
    )
    parser.add_argument(
        "--parallel",
        type=int,
        default=1,
        help="runs at a time (default 1): peaks stay each run's own, times grow",
    )
    parser.add_argument(
        "--render",
        action="store_true",
        help="measure nothing: render the results saved in benchmarks/out/memory.json (a run "
        "stopped early keeps the rows it finished there)",
    )
    parser.add_argument(
        "--write-docs", action="store_true", help="put the results in docs/reliability.md"
    )
    options = parser.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    OUT.mkdir(parents=True, exist_ok=True)
    lines = options.lines or (300_000 if options.quick else 10_000_000)
    size = options.size or (100_000_000 if options.quick else 1_000_000_000)
    commands = options.commands.split(",")
    unknown = sorted(set(commands) - set(COMMANDS))
    if unknown:
        parser.error(f"--commands: not a command it measures: {', '.join(unknown)}")
    save = OUT / "memory.json"
    if options.render:
        results = json.loads(save.read_text())
    else:
        results = measure(lines, size, commands, save, options.parallel)
        save.write_text(json.dumps(results, indent=2) + "\n")
    text = markdown(results)
    print(text)
    if options.write_docs:
        replace_block(DOCS, "memory-bench", text)


if __name__ == "__main__":
    main()

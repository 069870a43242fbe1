"""Fault injection for writers: count every write, fsync and rename of files under a
directory, and fail one of them (a full disk: half the bytes written, then ``ENOSPC``) or
crash the process there (``os._exit``: no cleanup runs, as under SIGKILL or a power cut).

A writer is crash-safe when, failed or crashed at any of these steps, the old state
survives whole and nothing partial sits under a final name. The operations are intercepted
in ``os`` and in ``open`` themselves, so a writer that bypasses the atomic helpers is
counted (and caught) too.

The crash mode runs in a child process: ``python -m tests.support.faults ROOT N CODE``
runs the Python statements ``CODE`` with the ``N``-th operation under ``ROOT`` crashing.
"""

from __future__ import annotations

import builtins
import errno
import io
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CRASHED = 86
"""The exit status of a process crashed by the injector."""

_WRITING = ("w", "a", "x", "+")


@dataclass(frozen=True)
class Operation:
    """One intercepted step: ``kind`` is write, fsync or rename; ``path`` the file written or
    synced, or the rename's target."""

    kind: str
    path: str


def _fd_path(fd: int) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return ""


class _Writing:
    """A file open for writing whose every ``write`` is an operation."""

    def __init__(self, faults: Faults, stream: Any, path: str) -> None:
        self._faults = faults
        self._stream = stream
        self._path = path

    def write(self, data: Any) -> int:
        if self._faults.step("write", self._path):
            written = self._stream.write(data[: len(data) // 2])
            self._stream.flush()
            self._faults.fail(written)
        result: int = self._stream.write(data)
        return result

    def __enter__(self) -> _Writing:
        self._stream.__enter__()
        return self

    def __exit__(self, *exc: object) -> Any:
        return self._stream.__exit__(*exc)

    def __iter__(self) -> Any:
        return iter(self._stream)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@dataclass
class Faults:
    """Count the operations on files under ``root``; make operation ``fail_at`` (0-based)
    fail with ``ENOSPC``, or with ``crash``, end the process there."""

    root: Path
    fail_at: int | None = None
    crash: bool = False
    seen: list[Operation] = field(default_factory=list)
    _saved: list[tuple[Any, str, Any]] = field(default_factory=list)

    def step(self, kind: str, path: str) -> bool:
        """Count an operation; whether it is the one to fail."""
        if not path or not Path(path).resolve().is_relative_to(self.root.resolve()):
            return False
        self.seen.append(Operation(kind, path))
        return len(self.seen) - 1 == self.fail_at

    def fail(self, written: int = 0) -> None:
        """Fail the current operation (after ``written`` bytes of it)."""
        if self.crash:
            os._exit(CRASHED)
        raise OSError(errno.ENOSPC, f"injected fault after {written} bytes", self.seen[-1].path)

    def _patch(self, owner: Any, name: str, replacement: Callable[..., Any]) -> None:
        self._saved.append((owner, name, getattr(owner, name)))
        setattr(owner, name, replacement)

    def __enter__(self) -> Faults:
        fsync, replace, rename = os.fsync, os.replace, os.rename
        fdopen, open_ = os.fdopen, io.open

        def checked_fsync(fd: int) -> None:
            if self.step("fsync", _fd_path(fd)):
                self.fail()
            fsync(fd)

        def moving(original: Callable[..., None]) -> Callable[..., None]:
            def move(source: Any, target: Any, *args: Any, **kwargs: Any) -> None:
                if self.step("rename", os.fspath(target)):
                    self.fail()
                original(source, target, *args, **kwargs)

            return move

        def wrapped(stream: Any, mode: str) -> Any:
            if not any(flag in mode for flag in _WRITING):
                return stream
            name = stream.name
            path = _fd_path(name) if isinstance(name, int) else os.path.abspath(name)
            return _Writing(self, stream, path)

        def checked_fdopen(fd: int, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
            return wrapped(fdopen(fd, mode, *args, **kwargs), mode)

        def checked_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
            return wrapped(open_(file, mode, *args, **kwargs), mode)

        self._patch(os, "fsync", checked_fsync)
        self._patch(os, "replace", moving(replace))
        self._patch(os, "rename", moving(rename))
        self._patch(os, "fdopen", checked_fdopen)
        self._patch(io, "open", checked_open)
        self._patch(builtins, "open", checked_open)
        return self

    def __exit__(self, *exc: object) -> None:
        while self._saved:
            owner, name, original = self._saved.pop()
            setattr(owner, name, original)


def partial_files(root: Path) -> list[Path]:
    """The temporary files an atomic write leaves only when it crashes."""
    return sorted(path for path in root.rglob("*.partial") if path.is_file())


def main() -> None:
    """Run ``CODE`` with operation ``N`` under ``ROOT`` crashing the process."""
    root, index, code = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with Faults(Path(root), fail_at=index, crash=True):
        exec(code, {"__name__": "__faulted__"})


if __name__ == "__main__":
    main()

"""Atomic file writes: a reader sees the old file or the whole new one, never a part.

>>> import pathlib, tempfile
>>> target = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
>>> with atomic_writer(target) as stream:
...     _ = stream.write(b"hello")
>>> target.read_bytes()
b'hello'
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """Write ``path`` through a temporary file beside it, renamed into place on success.

    If the block raises (or the process is interrupted), the temporary file is removed and
    ``path`` is left as it was. A file replaced keeps its permissions, and its owner and
    group where the process may give them.
    """
    target = Path(path)
    directory = target.parent
    import tempfile  # only here: a command that writes nothing never imports it

    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=directory)
    try:
        _keep_owner(fd, target)
        os.fchmod(fd, _mode_for(target))
        with os.fdopen(fd, "wb") as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def _keep_owner(fd: int, target: Path) -> None:
    """Give the new file the owner and group of the file it replaces, where the process may
    (root may; another user can only keep its own): rewriting a file in place as root must
    not leave it root's."""
    try:
        found = target.stat()
    except FileNotFoundError:
        return
    with contextlib.suppress(PermissionError):
        os.fchown(fd, found.st_uid, found.st_gid)


def _mode_for(target: Path) -> int:
    """The permissions the file would have been given by a plain ``open``: those of the file
    it replaces, else the usual ones under the process's umask (mkstemp's are private)."""
    try:
        return target.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace the contents of ``path`` with ``data``, atomically."""
    with atomic_writer(path) as stream:
        stream.write(data)

"""Output off a terminal without rich: what a command prints to a pipe or a file, byte for byte
as rich prints it there, without importing rich (a tenth of a command's start).

Off a terminal rich draws no style and no progress bar, and the commands' consoles never
wrap (:func:`spades_replay.cli.common.console_for`), so a line of text is its characters and
a newline. :func:`console` gives a :class:`PlainConsole` where rich would see no terminal,
and rich's console elsewhere; :func:`text` makes the text each one prints. Untrusted text is
made safe (:func:`spades_replay.text.safe`) before it gets here, as for rich.

>>> import io
>>> stream = io.StringIO()
>>> out = PlainConsole(stream)
>>> line = text(out, "fixtures/bad.json", style="bold")
>>> line.append(": invalid", style="bold red")
>>> out.print(line)
>>> stream.getvalue()
'fixtures/bad.json: invalid\\n'
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Protocol, TextIO

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text


class Printer(Protocol):
    """What the commands print through: rich's console, or a :class:`PlainConsole`."""

    @property
    def is_terminal(self) -> bool:
        """Whether it draws styles (and may show a progress bar)."""

    def print(self, *objects: Any) -> None:
        """Print each object, then a newline."""


class PlainText:
    """The part of rich's ``Text`` the commands use, for a :class:`PlainConsole`: text built
    by appending; the styles are taken and dropped (off a terminal rich draws none)."""

    def __init__(self, text: str = "", style: str = "") -> None:
        self.plain = text

    def append(self, text: str, style: str | None = None) -> None:
        """Add ``text`` at the end."""
        self.plain += text

    def __str__(self) -> str:
        return self.plain


class PlainConsole:
    """Prints lines to a stream as rich's console does off a terminal (flushed after each
    print, as rich does)."""

    is_terminal = False

    def __init__(self, file: TextIO) -> None:
        self.file = file

    def print(self, *objects: Any) -> None:
        """Print the objects, separated by spaces, then a newline."""
        self.file.write(" ".join(map(str, objects)) + "\n")
        self.file.flush()


def sees_terminal(stream: TextIO) -> bool:
    """Whether rich takes ``stream`` for a terminal, and so draws styles and progress bars
    on it: ``TTY_COMPATIBLE`` (1 or 0) says so, else ``FORCE_COLOR`` (set and not empty),
    else whether the stream is a terminal."""
    compatible = os.environ.get("TTY_COMPATIBLE", "")
    if compatible in ("0", "1"):
        return compatible == "1"
    force = os.environ.get("FORCE_COLOR")
    if force is not None:
        return force != ""
    try:
        return stream.isatty()
    except ValueError:  # a closed stream
        return False


def console(stream: TextIO) -> Console | PlainConsole:
    """The console for a command's output on ``stream``: rich's
    (:func:`~spades_replay.cli.common.console_for`) where rich sees a terminal, else a
    :class:`PlainConsole`, which needs no rich."""
    if not sees_terminal(stream):
        return PlainConsole(stream)
    from spades_replay.cli.common import console_for

    return console_for(stream)


def text(printer: Printer, content: str = "", style: str = "") -> Text | PlainText:
    """Text for ``printer`` to print: rich's ``Text`` for rich's console, a
    :class:`PlainText` for a :class:`PlainConsole`."""
    if isinstance(printer, PlainConsole):
        return PlainText(content, style)
    from rich.text import Text

    return Text(content, style=style)

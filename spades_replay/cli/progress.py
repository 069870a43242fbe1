"""One progress bar for every command: transient, and shown only where it cannot mix into
machine output (stdout when that is a terminal showing text, else stderr when that is a
terminal, else nowhere). rich's progress bar is imported only where one is shown."""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Generic, Literal, TypeVar, cast

if TYPE_CHECKING:
    from rich.progress import Progress as RichProgress
    from rich.progress import ProgressColumn, TaskID

    from spades_replay.cli.plain import Printer

Out = TypeVar("Out", bound="Printer")


def bar_console(out: Out, err: Out, *, text_on_stdout: bool) -> Out | None:
    """Where a progress bar may go without mixing into machine output."""
    if out.is_terminal and text_on_stdout:
        return out
    if err.is_terminal and not out.is_terminal:
        return err
    return None


class Bar(Generic[Out]):
    """A progress bar counting ``bytes`` read or ``items`` done, or nothing at all when
    ``enabled`` is false or no terminal can show it. Use it as a context manager, pass
    :meth:`update` as the progress callback, and print through :attr:`out`, which is the
    bar's own console when they share stdout (so text scrolls above the bar)."""

    def __init__(
        self,
        description: str,
        *,
        counts: Literal["bytes", "items"],
        out: Out,
        err: Out,
        text_on_stdout: bool,
        enabled: bool = True,
        total: int | None = None,
    ) -> None:
        where = bar_console(out, err, text_on_stdout=text_on_stdout) if enabled else None
        self.out = out
        self._progress: RichProgress | None = None
        self._task: TaskID | None = None
        if where is None:
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            MofNCompleteColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.progress import Progress as RichProgress

        assert isinstance(where, Console), "a bar is drawn on a terminal, by rich"
        columns: tuple[ProgressColumn, ...] = (
            (BarColumn(), DownloadColumn(), TimeRemainingColumn())
            if counts == "bytes"
            else (BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        )
        self._progress = RichProgress(
            "[progress.description]{task.description}",
            *columns,
            console=where,
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._task = self._progress.add_task(description, total=total)
        if where is out:
            self.out = cast("Out", self._progress.console)

    def update(self, done: int, total: int | None = None) -> None:
        """Show ``done`` out of ``total`` (the total stays as it was when not given)."""
        if self._progress is not None and self._task is not None:
            if total is None:
                self._progress.update(self._task, completed=done)
            else:
                self._progress.update(self._task, completed=done, total=total)

    def __enter__(self) -> Bar[Out]:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._progress is not None:
            self._progress.stop()

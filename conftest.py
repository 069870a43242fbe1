"""The doctests of the package's modules (``--doctest-modules``) where an optional extra is
missing: a module that cannot be imported without its extra is skipped, saying which extra it
needs, instead of failing the collection."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
NEEDS_EXTRA = {
    ROOT / "spades_replay" / "analysis" / "kernel.py": ("fast", ("numba", "numpy")),
    ROOT / "spades_replay" / "analysis" / "compiled.py": ("fast", ("numba", "numpy")),
}
"""The modules that import an optional extra's packages: the extra, and those packages."""


def _missing(modules: tuple[str, ...]) -> str | None:
    """The first of ``modules`` that cannot be imported here, or ``None``."""
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:
            return name
    return None


class NeedsExtra(pytest.File):
    """A module whose optional extra is missing: collecting it skips, saying why."""

    reason = ""

    def collect(self) -> Iterator[pytest.Item]:
        pytest.skip(self.reason)


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> object:
    collected = yield
    needs = NEEDS_EXTRA.get(file_path.resolve())
    if needs is None:
        return collected
    extra, modules = needs
    missing = _missing(modules)
    if missing is None:
        return collected
    skipped = NeedsExtra.from_parent(parent, path=file_path)
    skipped.reason = f"{file_path.name} needs the {extra} extra ({missing} is not installed)"
    return [skipped]

"""Shared paths and helpers for the test suite."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from spades_replay.replayer.verify import COMPILED_KERNEL, KERNEL, PYTHON_KERNEL, Kernel

pytest_plugins = ["tests.support.browser"]
"""The browser tests' fixtures (server, chromium, browser)."""

ROOT = Path(__file__).resolve().parents[1]
CONFORMANCE = ROOT / "tests" / "conformance"
CONFORMANCE_1_1 = ROOT / "tests" / "conformance-1.1"
SHARED = next(
    (folder / "shared" for folder in ROOT.parents if (folder / "shared" / "conformance").is_dir()),
    ROOT.parent / "shared",
)
"""The shared originals of the conformance sets, where they sit beside this checkout."""
FIXTURES = ROOT / "fixtures"
INVALID_FIXTURES = tuple(sorted((FIXTURES / "invalid").glob("*.json")))
"""The files of fixtures/invalid: one broken record per error code, and EXPECTED.json (not a
record: the verdicts the others must get). Tests count from these, never a hard-coded number."""


PYSPIEL_REASON = (
    "open-spiel is not installed: pip install 'spades-replay[openspiel]' to run the proofs "
    "against the real OpenSpiel"
)
"""Why the proofs against the real OpenSpiel skip where it is missing (and, under CI, fail)."""


def other_verifier_kernels() -> list[Kernel]:
    """The fast verifier's kernels built here (the compiled one needs a C compiler at
    install) other than its default one: every differential check of the verifier runs on
    the default kernel, then on each of these."""
    return [kernel for kernel in (PYTHON_KERNEL, COMPILED_KERNEL) if kernel not in (None, KERNEL)]


def fixture_records() -> int:
    """How many records fixtures/ holds (files, and the lines of its corpora)."""
    from spades_replay.replayer.validate import CorpusValidation

    validation = CorpusValidation([FIXTURES])
    list(validation)
    return validation.summary.records


settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "long", deadline=None, max_examples=2000, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("default")


@pytest.fixture
def conformance() -> Path:
    """The conformance records of the independent reference implementation."""
    return CONFORMANCE


OPTIONAL_PARTS = {
    "chromium": "Debian's chromium",
    "playwright": "playwright",
    "numba": "numba",
    "pyspiel": "open-spiel (pyspiel)",
    "open-spiel": "open-spiel (pyspiel)",
    "distributed": "dask distributed",
    "c compiler": "the C compiler (the compiled kernel)",
}
"""The optional parts a test skips without, by a word of its skip reason, and their names."""


def missing_part(reason: str) -> str | None:
    """The optional part a skip's reason says is missing, or ``None`` (a skip for another
    reason: not root, the shared originals not beside the checkout)."""
    text = reason.lower()
    return next((name for word, name in OPTIONAL_PARTS.items() if word in text), None)


def _fail_in_ci(report: Any) -> None:
    """Under ``CI=true``, a skip for a missing optional part is a failure naming the part:
    CI installs every part, so a skip there means one failed to install."""
    if (
        os.environ.get("CI") != "true"
        or not report.skipped
        or not isinstance(report.longrepr, tuple)
    ):
        return
    reason = str(report.longrepr[2])
    part = missing_part(reason)
    if part is not None:
        report.outcome = "failed"
        report.longrepr = f"CI=true and {part} is missing, so this test would skip: {reason}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    _fail_in_ci(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Any:
    report = yield
    _fail_in_ci(report)
    return report

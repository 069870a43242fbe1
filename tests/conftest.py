"""Shared paths and helpers for the test suite."""

from __future__ import annotations

from pathlib import Path

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

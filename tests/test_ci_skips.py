"""Under ``CI=true`` a test that would skip for a missing optional part fails, naming it;
a skip for another reason stays a skip."""

from __future__ import annotations

import pytest

from .conftest import PYSPIEL_REASON, _fail_in_ci, missing_part
from .support.browser import CHROMIUM

BROWSER_REASON = f"BROWSER TESTS SKIPPED: no Debian chromium at {CHROMIUM} (apt-get install)"


@pytest.mark.parametrize(
    ("reason", "part"),
    [
        (BROWSER_REASON, "Debian's chromium"),
        ("could not import 'playwright.sync_api': No module named", "playwright"),
        ("could not import 'numba': No module named 'numba'", "numba"),
        (PYSPIEL_REASON, "open-spiel (pyspiel)"),
        ("could not import 'distributed': No module named 'distributed'", "dask distributed"),
        (
            "the compiled kernel is not built here (no C compiler)",
            "the C compiler (the compiled kernel)",
        ),
        ("making a device node needs root", None),
        ("the shared originals are not beside this checkout", None),
    ],
)
def test_each_optional_part_is_named_from_its_skip(reason: str, part: str | None) -> None:
    assert missing_part(reason) == part


def _skipped(reason: str) -> pytest.TestReport:
    return pytest.TestReport(
        "tests/test_x.py::test_x",
        ("tests/test_x.py", 1, "test_x"),
        {},
        "skipped",
        ("tests/test_x.py", 1, f"Skipped: {reason}"),
        "call",
    )


def test_a_skip_for_a_missing_part_fails_only_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    numba = "could not import 'numba': No module named 'numba'"
    monkeypatch.delenv("CI", raising=False)
    report = _skipped(numba)
    _fail_in_ci(report)
    assert report.skipped
    monkeypatch.setenv("CI", "true")
    _fail_in_ci(report)
    assert report.failed
    assert str(report.longrepr).startswith("CI=true and numba is missing")
    root = _skipped("making a device node needs root")
    _fail_in_ci(root)
    assert root.skipped

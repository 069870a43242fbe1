"""The documentation says what the code does: every error code, the format's examples."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest

from spades_replay.errors import Code
from spades_replay.replayer.validate import validate_bytes

from .conftest import ROOT

ERRORS = (ROOT / "docs" / "errors.md").read_text()
FORMAT = (ROOT / "docs" / "format.md").read_text()


def test_every_code_is_documented_and_every_documented_code_exists() -> None:
    documented = set(re.findall(r"^\| `([a-z]+\.[a-z-]+)` \|", ERRORS, flags=re.MULTILINE))
    assert documented == {code.value for code in Code}


@pytest.mark.parametrize("variant", ["two-player", "four-player"])
def test_format_examples_are_complete_valid_records(variant: str) -> None:
    match = re.search(rf"<!-- example: {variant} -->\n```json\n(.*?)```", FORMAT, flags=re.S)
    assert match is not None
    data = match.group(1).encode()
    report = validate_bytes(data)
    assert report.valid, [str(problem) for problem in report.problems]
    assert report.complete
    assert orjson.loads(data)["variant"] == variant


def test_every_local_link_in_the_docs_resolves() -> None:
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#]+?)(?:#[^)]*)?\)", page.read_text()):
            if target.startswith(("http://", "https://")):
                continue
            assert (page.parent / target).exists(), f"{page.name}: {target}"


def _pages() -> list[Path]:
    """The project's own pages (the conformance sets' READMEs are copies, kept verbatim)."""
    return [
        ROOT / "README.md",
        ROOT / "DEVELOPERS.md",
        ROOT / "fixtures" / "README.md",
        *sorted((ROOT / "docs").glob("*.md")),
    ]


@pytest.mark.parametrize("page", _pages(), ids=lambda page: str(page.relative_to(ROOT)))
def test_the_docs_stand_alone(page: Path) -> None:
    """No page points outside the repository: to a brief, its RULES.md or FORMAT-v1.md, or
    an issue number. docs/rules.md is the rule book, docs/format.md the format."""
    text = page.read_text()
    for pattern in (r"(?i)\bbrief\b", r"\bRULES\.md\b", r"FORMAT-v1", r"(?i)\bissue\b"):
        found = re.search(pattern, text)
        assert found is None, f"{page.name}: {found.group(0)!r} at {found.start()}"

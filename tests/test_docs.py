"""The documentation says what the code does: every error code, the format's examples."""

from __future__ import annotations

import re

import orjson
import pytest

from spades_replay.errors import Code
from spades_replay.validate import validate_bytes

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


@pytest.mark.parametrize("page", ["rules.md", "format.md", "cli.md", "errors.md"])
def test_the_rule_book_and_the_format_stand_alone(page: str) -> None:
    """The project's own pages are its rule book and format: they point to nothing outside."""
    text = (ROOT / "docs" / page).read_text()
    for outside in ("brief", "RULES.md", "FORMAT-v1", "issue "):
        assert outside not in text, f"{page} mentions {outside!r}"

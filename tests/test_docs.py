"""The documentation says what the code does: every error code, the format's examples; and
the docs, docstrings and comments point only inside the repository."""

from __future__ import annotations

import ast
import io
import re
import tokenize
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
    """No page points outside the repository: to the notes the project was asked for in, the
    rule and format documents that came with them, or an issue number. docs/rules.md is the
    rule book, docs/format.md the format."""
    text = page.read_text()
    for pattern in (r"(?i)\bbrief\b", r"\bRULES\.md\b", r"FORMAT-v1", r"(?i)\bissue\b"):
        found = re.search(pattern, text)
        assert found is None, f"{page.name}: {found.group(0)!r} at {found.start()}"


OUTSIDE = (
    re.compile(r"(?i)\bbrief\b"),
    re.compile(r"\bRULES\.md\b"),
    re.compile(r"FORMAT-v1"),
    re.compile(r"\.\./shared"),
    re.compile(r"(?i)\bissues?\s*#?\d+"),
    re.compile(r"(?<![\w&/])#\d+\b"),
)
"""What points outside the repository: the notes the project was asked for in, the rule and
format documents that came with them, the folder they sit in, an issue number."""
CODE = sorted(
    path
    for folder in ("spades_replay", "dashboard", "tests", "tools", "benchmarks")
    for path in (ROOT / folder).rglob("*.py")
    if "conformance" not in path.parts
)


def _prose_of_python(path: Path) -> list[tuple[int, str]]:
    """The docstrings (of modules, classes, functions and attributes, and those given as
    ``__doc__=``) and comments of a Python file, each with its line."""
    source = path.read_text()
    found = [
        (node.lineno, node.value.value)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Expr | ast.keyword)
        and (isinstance(node, ast.Expr) or node.arg == "__doc__")
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    ]
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    found += [(token.start[0], token.string) for token in tokens if token.type == tokenize.COMMENT]
    return found


def _prose_of_c(path: Path) -> list[tuple[int, str]]:
    """The comments of a C file, each with its line."""
    source = path.read_text()
    return [
        (source.count("\n", 0, match.start()) + 1, match.group(0))
        for match in re.finditer(r"/\*.*?\*/|//[^\n]*", source, flags=re.S)
    ]


def _prose() -> list[tuple[str, int, str]]:
    found = [(path, *item) for path in CODE for item in _prose_of_python(path)]
    found += [
        (path, *item)
        for path in sorted(ROOT.glob("spades_replay/**/*.c"))
        for item in _prose_of_c(path)
    ]
    return [(str(path.relative_to(ROOT)), line, text) for path, line, text in found]


PROSE = _prose()


def test_the_scan_reads_docstrings_and_comments() -> None:
    files = {name for name, _, _ in PROSE}
    assert "spades_replay/errors.py" in files
    assert "spades_replay/replayer/_verify_kernel.c" in files
    assert any("docs/rules.md" in text for _, _, text in PROSE)
    assert any(text.startswith("#") for _, _, text in PROSE)


def test_docstrings_and_comments_point_inside_the_repository() -> None:
    """Docstrings and comments name docs/rules.md and docs/format.md, never a document or an
    issue outside the repository."""
    for name, line, text in PROSE:
        for pattern in OUTSIDE:
            found = pattern.search(text)
            assert found is None, f"{name}:{line}: {found.group(0)!r}"


def test_the_docs_that_docstrings_and_comments_name_exist() -> None:
    """A page of docs/ named in a docstring or comment exists, and so does the section named
    beside it in quotes (``docs/rules.md, "Both variants"``)."""
    for name, line, text in PROSE:
        for page, after_comma, in_brackets in re.findall(
            r"docs/([\w-]+\.md)(?:, \"([^\"]+)\"| \(\"([^\"]+)\")?", text
        ):
            path = ROOT / "docs" / page
            assert path.is_file(), f"{name}:{line}: docs/{page}"
            section = after_comma or in_brackets
            if section:
                headings = re.findall(r"^#+ (.+)$", path.read_text(), flags=re.MULTILINE)
                assert any(h.startswith(section) for h in headings), f"{name}:{line}: {section}"

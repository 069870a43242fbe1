"""How the benchmarks write their figures into the docs: between a page's markers."""

from __future__ import annotations

from pathlib import Path


def replace_block(page: Path, name: str, text: str) -> None:
    """Replace what lies between ``<!-- name:start -->`` and ``<!-- name:end -->`` in
    ``page`` with ``text``; stop with a message when the page has no such markers."""
    doc = page.read_text()
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    if start not in doc or end not in doc:
        raise SystemExit(f"{page} has no {start} ... {end} markers")
    head, rest = doc.split(start, 1)
    _, tail = rest.split(end, 1)
    page.write_text(f"{head}{start}\n{text}\n{end}{tail}")

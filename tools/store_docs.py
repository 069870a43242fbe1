"""Rewrite the answers of docs/store.md's worked questions: ``.venv/bin/python
tools/store_docs.py``.

Each ```sql block of the page is run with ``spades-replay query`` on a store of fixtures/
(ingested from the checkout, as the page says), and the ```text block after it is replaced
by what the query prints. tests/test_store.py checks that the page and the queries agree; run
this after a change that moves the fixtures or the tables, then read the diff.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "store.md"
PAIR = re.compile(r"(```sql\n)(.*?)(```\s*```text\n)(.*?)(```)", re.DOTALL)


def main() -> int:
    from spades_replay.cli import main as cli
    from spades_replay.store.ingest import ingest

    os.chdir(ROOT)
    with tempfile.TemporaryDirectory() as scratch:
        store = Path(scratch) / "store"
        ingest(["fixtures"], store)
        output = Path(scratch) / "answer.txt"

        def answer(match: re.Match[str]) -> str:
            sql = match.group(2)
            if cli(["query", "--store", str(store), sql, "-o", str(output)]) != 0:
                raise SystemExit(f"this query failed:\n{sql}")
            text = output.read_text()
            return f"{match.group(1)}{sql}{match.group(3)}{text}{match.group(5)}"

        page = PAIR.sub(answer, PAGE.read_text())
    PAGE.write_text(page)
    print(f"rewrote the answers of {PAGE.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

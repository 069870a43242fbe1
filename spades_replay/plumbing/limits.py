"""Size limits on untrusted input, documented in docs/reliability.md.

Records come from other people's software. These caps keep a hostile or broken file from
exhausting memory or time; exceeding one is a ``format.limit`` problem, never a crash. The
format itself bounds everything else (names, card lists, bids), so only the free-form parts
need limits of their own: ``meta`` values and ``x-`` extensions.

>>> Limits().record_bytes
16777216
"""

from __future__ import annotations

from typing import NamedTuple


class Limits(NamedTuple):
    """The caps, all configurable.

    ``record_bytes``: the size of one record file, or of one line of a ``.jsonl`` corpus
    (after decompression). ``depth``: how deeply arrays and objects may nest inside a ``meta``
    value or an extension. ``string_chars``: the length of one ``meta`` value or of a string
    inside an extension. ``expansion``: how many times its compressed size a ``.gz`` input
    (a file, standard input, an upload) may grow to once decompressed; its first
    :data:`EXPANSION_ALLOWANCE` bytes are always read, so that small files are never refused.
    """

    record_bytes: int = 16 * 1024 * 1024
    depth: int = 64
    string_chars: int = 100_000
    expansion: int = 100


EXPANSION_ALLOWANCE = 1024 * 1024
"""The decompressed bytes of a ``.gz`` input always read, whatever its expansion."""

DEFAULT_LIMITS = Limits()

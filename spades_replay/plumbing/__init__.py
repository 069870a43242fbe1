"""The I/O plumbing under every command: nothing here knows the game.

:mod:`.limits` (the bounds on input sizes), :mod:`.corpus` (reading records from files,
folders, ``.jsonl`` and ``.gz`` corpora and standard input), :mod:`.atomic` (writes that leave
the old file or the new one, never a mix), :mod:`.parallel` (ordered worker pools with a clean
Ctrl-C) and :mod:`.cluster` (the same work on a Dask cluster).
"""

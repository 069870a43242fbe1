"""The corpus store: a directory of Parquet tables that holds a corpus validated once.

``ingest`` (:func:`spades_replay.store.ingest.ingest`) validates every record under some
paths once and writes the tables ``games``, ``side_hands``, ``seat_hands`` (and
``seat_analysis`` with the double-dummy analysis), ``records`` (where every record starts)
and ``problems`` (every problem of every invalid record), one set of part files per file
read, listed by ``manifest.json``. Re-ingesting reads only new or changed files; a run
killed at any moment leaves the store as it was before or as it is after.

Reading: :class:`~spades_replay.store.layout.Store` opens a store (refusing another
``store_version``), :mod:`spades_replay.store.read` gives the stats tables exactly as
``stats PATH`` builds them, and :mod:`spades_replay.store.sql` runs read-only SQL over the
tables with DuckDB. docs/store.md describes the layout and the tables.
"""

"""``python -m spades_replay``: the same as the ``spades-replay`` command."""

from spades_replay.cli import entry

entry()

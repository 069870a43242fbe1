"""``python -m spades_replay``: the same as the ``spades-replay`` command."""

import sys

from spades_replay.cli import main

sys.exit(main())

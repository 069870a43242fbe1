"""spades-replay: validate, replay and analyse recorded games of Spades."""

__version__ = "0.1.0"

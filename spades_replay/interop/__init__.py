"""Bringing games in from other tools' formats and sending ours out to them.

:mod:`spades_replay.interop.openspiel` reads and writes the action histories of OpenSpiel's
``spades`` game. None of it needs OpenSpiel itself.
"""

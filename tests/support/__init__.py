"""Helpers that several test modules share: conftest holds paths and fixtures, these modules
hold code (game events, exhaustive search, AppTest and browser drivers)."""

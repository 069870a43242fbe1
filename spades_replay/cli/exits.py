"""The exit codes of every command, and the errors that make a command exit with
:data:`EXIT_USAGE` or :data:`EXIT_NO_RECORDS` (docs/cli.md). Small on purpose: the command
line's entry point imports it before it knows which command runs."""

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2
EXIT_NO_RECORDS = 3
"""Nothing was checked: the paths hold no record at all (an empty directory, a directory
without record files, an empty corpus). A CI job must never pass having checked nothing."""
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """A command was asked for something it cannot do: reported, exit code 2."""


class NoRecordsError(UsageError):
    """A command that reads one record found none under its path: reported, exit code
    :data:`EXIT_NO_RECORDS`."""

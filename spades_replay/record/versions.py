"""Moving a record between the versions of the format (what ``spades-replay migrate`` does).

Format 1.1 only adds options, each defaulting to the 1.0 rules, so upgrading a 1.0 record
changes its ``version`` and nothing it means; downgrading a 1.1 record is possible exactly when
every 1.1 option holds its default, and is otherwise refused, naming the option.

>>> from spades_replay.record.io import dumps, loads
>>> record = loads(b'{"format": "spades-replay", "version": "1.0", "variant": "two-player",'
...                b' "players": [{"name": "Megan"}, {"name": "Drew"}], "hands": []}')
>>> upgraded = at_version(record, "1.1")
>>> upgraded.version, upgraded.rules.nil_allowed
('1.1', True)
>>> at_version(upgraded, "1.0") == record
True
"""

from __future__ import annotations

from spades_replay.engine.rules import OPTION
from spades_replay.errors import Code, FormatError, Problem
from spades_replay.record.models import VERSIONS, AnyRecord, RulesObject, options_off_default
from spades_replay.record.problems import quote


def downgrade_problem(rules: RulesObject, version: str) -> Problem | None:
    """Why a record with ``rules`` cannot be written as ``version``, or None when it can: an
    option newer than ``version`` (the option table says which) away from its default."""
    lost = options_off_default(rules, version)
    if not lost:
        return None
    option = OPTION[lost[0]]
    others = f" (and {len(lost) - 1} more {option.since} option(s))" if len(lost) > 1 else ""
    return Problem(
        Code.MIGRATE_OPTION_LOST,
        f"cannot write format {version}: '{option.name}' is {quote(getattr(rules, option.name))}"
        f"{others}, and format {version} has no such option (it always means the default, "
        f"{quote(option.default)})",
        f"/rules/{option.name}",
    )


def at_version(record: AnyRecord, version: str) -> AnyRecord:
    """The same record written as ``version`` ("1.0" or "1.1"); nothing it means changes.

    Raises :class:`~spades_replay.errors.FormatError` (``migrate.option-lost``) when the record
    holds a 1.1 option away from its default and ``version`` is "1.0".
    """
    if version not in VERSIONS:
        raise ValueError(f"no format {version}; there are {', '.join(VERSIONS)}")
    problem = downgrade_problem(record.rules, version)
    if problem is not None:
        raise FormatError((problem,))
    if record.version == version:
        return record
    return record.model_copy(update={"version": version})

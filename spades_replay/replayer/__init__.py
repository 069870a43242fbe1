"""The replayer: a record's actions applied by the rules engine, card by card.

:mod:`.convert` is the one place where record types meet engine types; :mod:`.verify` is the
fast accept-only check of a whole record (with its compiled kernel, ``_verify_kernel.c``);
:mod:`.replay` builds the timeline a viewer scrubs and explains every illegal action;
:mod:`.validate` checks records and corpora; :mod:`.rescore` scores a game again under other
scoring options (what-if).
"""

"""The rules of Spades as pure functions over immutable values: no I/O, no randomness, no clock.

Modules, one concept each: :mod:`.cards` (cards as ints, holdings as bitmasks), :mod:`.seats`
(seats, sides, variants), :mod:`.rules` (house-rule options), :mod:`.tricks` (play legality and
trick-taking), :mod:`.setup` (draft, deal, Blind Nil exchanges), :mod:`.scoring` (hand scores
and the end of the game), :mod:`.game` (a whole game from its actions) and :mod:`.state`
(step-by-step states for recorders and viewers).
"""

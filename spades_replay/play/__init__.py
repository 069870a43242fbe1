"""Games being played: :mod:`.recorder` records a live game action by action, valid by
construction; :mod:`.bots` are seeded players; :mod:`.simulate` makes corpora of bot games.
"""

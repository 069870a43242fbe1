"""Stats: tidy tables of replayed games (:mod:`.tables`), metrics over them
(:mod:`.metrics`), and gathering both from files (:mod:`.collect`)."""

"""Models of the players app (none yet)."""

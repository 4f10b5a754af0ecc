"""Models of the games app: they store matches; the rules live in games.engine (none yet)."""

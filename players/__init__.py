"""Players and their API tokens."""

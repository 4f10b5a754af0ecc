"""Admin registrations of the players app (none yet)."""

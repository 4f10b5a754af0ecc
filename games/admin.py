"""Admin registrations of the games app (none yet)."""

"""Fault tests: each brings its own PostgreSQL and Redis (tests/faults/services.py), injects one fault
during play and checks what the service promises (docs/reliability.md)."""

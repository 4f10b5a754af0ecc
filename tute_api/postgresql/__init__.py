"""Django's PostgreSQL backend, whose pool checks only the connections that have been idle a while (base.py)."""

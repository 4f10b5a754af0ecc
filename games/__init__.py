"""Matches of Tute: the Django app around the pure rules engine in ``games.engine``."""

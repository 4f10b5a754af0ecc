"""Ratings (docs/ratings.md): a Glicko-2 rating per variant for every player and registered bot,
updated in the transaction that finishes a rated match; public profiles and leaderboards.

The arithmetic is pure (:mod:`.glicko`, :mod:`.pairings`, :mod:`.anchors`: no Django); the app (label
``ratings``) stores the ratings and takes plain data from the matches, which sit above it.
"""

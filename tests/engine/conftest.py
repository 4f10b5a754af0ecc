"""Hypothesis settings for the engine's property tests.

The ``engine`` profile (the default) keeps the whole engine suite within about a minute on two cores;
``HYPOTHESIS_PROFILE=engine-long`` plays many more matches, for a night run.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "engine",
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile(
    "engine-long", parent=settings.get_profile("engine"), max_examples=int(os.environ.get("HYPOTHESIS_EXAMPLES", "500"))
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "engine"))

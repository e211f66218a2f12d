"""Test settings: a fixed Hypothesis profile so that CI runs are reproducible."""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=300, derandomize=True, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile("ci")

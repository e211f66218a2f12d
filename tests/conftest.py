"""Test settings: the Hypothesis profile, chosen by an environment variable.

``AKITA_HYPOTHESIS_PROFILE`` names it: ``ci`` (thorough: 300 examples per
property) or ``dev`` (fast: 30).  Unset, it is ``ci`` where the ``CI``
variable is set (``.ci/run`` sets both) and ``dev`` elsewhere.  Both are
derandomized, so a run is reproducible whatever the machine.
"""

import os

import pytest
from hypothesis import HealthCheck, settings

_QUIET = [HealthCheck.too_slow]

settings.register_profile(
    "ci", max_examples=300, derandomize=True, deadline=None, suppress_health_check=_QUIET,
)
settings.register_profile(
    "dev", max_examples=30, derandomize=True, deadline=None, suppress_health_check=_QUIET,
)
settings.load_profile(
    os.environ.get("AKITA_HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)


class _Outcomes(dict):
    """Each proof obligation of the manifest, discharged once per session, on first use,
    alone (in a fresh interpreter: its verdict and spend do not depend on which tests ran
    before it in this worker; decision 353)."""

    def __missing__(self, name):
        from akita.proofs import manifest
        from akita.proofs.obligation import discharge_alone

        self[name] = discharge_alone(next(o for o in manifest.load() if o.name == name))
        return self[name]


@pytest.fixture(scope="session")
def outcomes():
    """name -> the outcome of discharging that obligation (shared by every test)."""
    return _Outcomes()

"""The test suite draws from the strategies the package exports (:mod:`akita.strategies`)."""

from akita.strategies import *  # noqa: F401,F403
from akita.strategies import MS, SIM_PERIODS_MS  # noqa: F401

"""The real-kernel tests of akita linux check what they need first and skip with the reason."""

from __future__ import annotations

from typing import Iterator

import pytest

from standins import Standins, remove_built, standin_binary


@pytest.fixture(scope="session", autouse=True)
def _built_standins_removed() -> Iterator[None]:
    """The stand-ins are compiled once per session into a directory of their own, removed
    at its end."""
    yield
    remove_built()


def _missing() -> str | None:
    from akita.linux import requirements

    problems = requirements.problems()
    if problems:
        return problems[0]
    if standin_binary() is None:
        return "no C compiler (gcc) to build the stand-in guests"
    return None


@pytest.fixture(scope="session")
def kernel() -> None:
    """Skip, with the reason, unless root, tracefs, SCHED_DEADLINE and cgroup-v1 cpusets."""
    reason = _missing()
    if reason is not None:
        pytest.skip(f"akita linux needs the real kernel: {reason}")


@pytest.fixture
def standins(kernel: None) -> Iterator[Standins]:
    guests = Standins()
    try:
        yield guests
    finally:
        guests.close()

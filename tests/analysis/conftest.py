"""Traces the analysis tests share: short simulations written once per session."""

import pytest

from akita.model import load_host
from akita.reference.run import simulate
from repo import EXAMPLES

#: Fig. 5's host for 200 ms, seed 1: its one pCPU switches to HI mode at 53.547278 ms.
FIG5_MS = 200


@pytest.fixture(scope="session")
def fig5_run(tmp_path_factory):
    """``(trace path, simulate's JSON)`` of Fig. 5's host under akita for 200 ms, seed 1."""
    path = tmp_path_factory.mktemp("fig5") / "fig5.jsonl"
    result = simulate(load_host(EXAMPLES / "fig5.toml"), "akita", duration=FIG5_MS * 10**6,
                      seed=1, trace_path=str(path))
    return path, result.as_json()

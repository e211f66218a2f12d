"""Golden traces of small hosts, checked by hand once and kept.

``modes``: tests/golden/modes.toml states the expected story (LO->HI at 10ms,
HI->LO at 300ms after two quiet periods, LO->HI again at 410ms; HI virtual
deadlines at 1/5 of the period, Eq. (4)); ``fig7``: the paper's Fig. 7 host
with every VM cpu-bound and in phase (tests/golden/fig7.toml), where the HI
vCPU runs first on its virtual deadline 40ms (x = 2/5), switches at 10ms,
keeps HI mode and, always runnable, keeps the pCPU after its budget: in HI
mode a HI vCPU without budget comes before every LO vCPU
(``hi_mode_order = "hi-first"``, which both files select: the stories were checked by
hand under it; ``test_rt_policies.py`` has the default ``"capped"``'s).  Any
change to the simulator that changes these traces must be checked by hand
again; regenerate with ``AKITA_REGEN_GOLDEN=1 pytest tests/reference/test_golden.py``.
"""

import io
import json
import os
from importlib.resources import files
from pathlib import Path

import jsonschema
import pytest

from akita.model import load_host
from akita.reference.run import simulate
from repo import ROOT

GOLDEN = Path(__file__).parent / "golden"
CASES = {
    "modes": (GOLDEN / "modes.toml", 500_000_000),
    "fig7": (GOLDEN / "fig7.toml", 300_000_000),
}


def trace_of(name, tmp_path):
    host_file, duration = CASES[name]
    path = tmp_path / f"{name}.jsonl"
    simulate(load_host(host_file), "akita", duration=duration, trace_path=str(path))
    return path.read_text().replace(str(GOLDEN), "<golden>")


@pytest.mark.parametrize("name", sorted(CASES))
def test_trace_is_the_golden_one(name, tmp_path):
    text = trace_of(name, tmp_path)
    golden = GOLDEN / f"{name}.jsonl"
    if os.environ.get("AKITA_REGEN_GOLDEN"):
        golden.write_text(text)
    assert text == golden.read_text()


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_traces_follow_the_published_schema(name):
    schema = json.loads((files("akita.trace") / "trace_schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    for line in io.StringIO((GOLDEN / f"{name}.jsonl").read_text()):
        validator.validate(json.loads(line))

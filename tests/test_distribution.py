"""How ``.ci/run`` spreads the tests over its workers (:mod:`distribution`), read from
the items pytest collects from a small test tree: the tests sharing an expensive fixture
stay together, every other test is free, and the proof obligations go first, the largest
budget first; and ``.ci/run`` itself runs both tiers in that one grouped run, and the
real-kernel tests alone."""

from __future__ import annotations

import shlex
import textwrap
from pathlib import Path

import pytest
from _pytest.mark.expression import Expression

from distribution import cost, distribute, group
from repo import ROOT

CONFTEST = '''
import pytest

@pytest.fixture(scope="session")
def built():
    return 1

@pytest.fixture(scope="session")
def outcomes():
    return {}
'''

MODULE = '''
import pytest
from types import SimpleNamespace as O

@pytest.fixture(scope="module")
def run():
    return 1

def test_uses_run(run):
    pass

def test_uses_run_too(run, tmp_path):
    pass

def test_free(tmp_path):
    pass

def test_reads_the_build(built):
    pass

@pytest.mark.xdist_group("own")
def test_marked(run):
    pass

@pytest.mark.parametrize("obligation", [O(name="small", rlimit=10), O(name="big", rlimit=99)],
                         ids=["small", "big"])
def test_discharges(outcomes, obligation):
    pass

@pytest.mark.parametrize("obligation", [O(name="big", rlimit=99)], ids=["big"])
def test_reads_the_statement(obligation):
    pass
'''


class _Items:
    """A pytest plugin that keeps the items of the run it is given to."""

    def __init__(self) -> None:
        self.items: list[pytest.Item] = []

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        self.items = list(items)


def collect(folder: Path) -> dict[str, pytest.Item]:
    """Test name -> item, for the tree of :data:`CONFTEST` and :data:`MODULE` written below
    *folder* (a run of pytest inside this one)."""
    tree = folder / "tests"
    tree.mkdir()
    (tree / "conftest.py").write_text(textwrap.dedent(CONFTEST))
    (tree / "test_shared.py").write_text(textwrap.dedent(MODULE))
    kept = _Items()
    status = pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", "-c", "/dev/null",
                          "--import-mode=importlib", "--rootdir", str(folder), str(tree)],
                         plugins=[kept])
    assert status == 0
    return {item.name: item for item in kept.items}


@pytest.fixture(scope="module")
def collected(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pytest.Item]:
    """The items of :func:`collect`, once for the tests that only read them."""
    return collect(tmp_path_factory.mktemp("tree"))


def test_tests_sharing_a_module_fixture_are_one_group_and_the_others_are_free(collected):
    items = collected
    assert group(items["test_uses_run"]) == group(items["test_uses_run_too"]) == \
        "module:tests/test_shared.py"
    assert group(items["test_free"]) is None
    assert group(items["test_reads_the_build"]) == "session:built"
    assert group(items["test_marked"]) is None  # its own mark stands


def test_an_obligations_tests_that_read_its_outcome_are_one_group(collected):
    items = collected
    assert group(items["test_discharges[big]"]) == "obligation:big"
    assert group(items["test_discharges[small]"]) == "obligation:small"
    assert group(items["test_reads_the_statement[big]"]) is None  # discharges nothing
    assert cost(items["test_discharges[big]"]) == 99
    assert cost(items["test_reads_the_statement[big]"]) == 0


def test_distribute_marks_the_groups_and_puts_the_declared_group_then_the_largest_budget_first(
        tmp_path):
    items = list(collect(tmp_path).values())  # its own: distribute marks them
    before = [item.name for item in items]
    distribute(items)
    names = [item.name for item in items]
    # the module's own group, then the obligations by budget, then the rest as collected
    assert names[:3] == ["test_marked", "test_discharges[big]", "test_discharges[small]"]
    assert names[3:] == [name for name in before if name not in names[:3]]
    marks = {item.name: [m.args[0] for m in item.iter_markers("xdist_group")]
             for item in items}
    assert marks["test_free"] == [] and marks["test_marked"] == ["own"]
    assert marks["test_uses_run"] == ["module:tests/test_shared.py"]


def ci_runs() -> list[list[str]]:
    """The arguments of each ``tier`` line of ``.ci/run``."""
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    return [shlex.split(line, comments=True)[1:] for line in lines if line.startswith("tier ")]


def test_ci_runs_both_tiers_in_one_grouped_run_and_the_kernel_tests_alone():
    shared, kernel = ci_runs()
    assert kernel == ["tests/linux"]
    assert {"--dist", "loadgroup", "--no-loadscope-reorder", "--ignore=tests/linux"} <= set(shared)
    selects = Expression.compile(shared[shared.index("-m") + 1]).evaluate
    assert selects(lambda mark: False) and selects(lambda mark: mark == "rule")  # fast tier
    assert selects(lambda mark: mark == "long")  # long tier
    assert not selects(lambda mark: mark == "slow")  # in neither

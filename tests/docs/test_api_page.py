"""The API page (docs/api.rst) documents every public module of the package."""

import importlib
import pkgutil
import re

from repo import DOCS

#: The packages of the ``akita`` namespace (each mapped from its own folder).
PACKAGES = ("akita", "akita.model", "akita.reference", "akita.proofs", "akita.trace", "akita.oracle",
            "akita.experiments", "akita.sweep", "akita.fleet", "akita.guest",
            "akita.disk", "akita.linux", "akita.analysis")


def _walk():
    for name in PACKAGES:
        yield name
        package = importlib.import_module(name)
        for info in pkgutil.walk_packages(package.__path__, name + "."):
            yield info.name


def _modules():
    for name in _walk():
        parts = name.split(".")
        if len(parts) == 1:
            yield name
            continue
        if parts[1] in ("cli", "examples", "__main__") or any(p.startswith("_") for p in parts):
            continue  # the command line has its own page; examples are data
        yield name


def test_every_public_module_has_an_automodule():
    documented = set(re.findall(r"automodule:: (\S+)", (DOCS / "api.rst").read_text()))
    modules = set(_modules())
    assert {"akita.model", "akita.reference.policies.modal"} <= modules  # the walk found them
    assert sorted(modules - documented) == []
    assert sorted(documented - modules) == []

"""Where things are in the repository, for tests at any depth of ``tests/``."""

from pathlib import Path

#: The repository's root folder.
ROOT = Path(__file__).resolve().parent.parent
#: The shipped host files.
EXAMPLES = ROOT / "examples"
#: The shipped sweep files (``examples/sweep*.toml``, read by ``akita sweep``).
SWEEP_EXAMPLES = sorted(EXAMPLES.glob("sweep*.toml"))
#: The shipped fleet files (``examples/fleet*.toml``, read by ``akita fleet``).
FLEET_EXAMPLES = sorted(EXAMPLES.glob("fleet*.toml"))
#: The shipped disk files (``examples/disk*.toml``, read by ``akita disk``).
DISK_EXAMPLES = sorted(EXAMPLES.glob("disk*.toml"))
#: The shipped host files: ``examples/*.toml`` but the sweep, fleet and disk files.
HOST_EXAMPLES = sorted(set(EXAMPLES.glob("*.toml")) - set(SWEEP_EXAMPLES) - set(FLEET_EXAMPLES)
                       - set(DISK_EXAMPLES))
#: The specification's sources.
DOCS = ROOT / "docs"

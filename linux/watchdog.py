"""The watchdog: undo a run's changes when the run dies without undoing them itself.

``python -m akita.linux.watchdog LEDGER PID`` is started by the run
(:mod:`akita.linux.run`) before it changes anything.  It polls every 50 ms;
when process *PID* is gone and the ledger file still exists (a run that ends
normally removes it after :func:`~akita.linux.cleanup.undo`), it undoes
what the ledger names and removes the file.  It ignores ``SIGINT`` (a
Ctrl-C at the terminal reaches the whole process group) and exits when the
ledger file is removed.
"""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

from .cleanup import Ledger, undo
from .process import alive


def watch(ledger_path: Path, pid: int, poll: float = 0.05) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while ledger_path.exists() and alive(pid):
        time.sleep(poll)
    if not ledger_path.exists():
        return 0
    try:
        problems = undo(Ledger.load(ledger_path))
    except (OSError, ValueError) as error:
        problems = [str(error)]
    ledger_path.unlink(missing_ok=True)
    for problem in problems:
        print(f"akita linux watchdog: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(watch(Path(sys.argv[1]), int(sys.argv[2])))

"""Start-up: modules imported with the cyclic garbage collector paused, then frozen.

Importing builds objects that live until the process exits (modules, classes, functions, a
verdict's ~60,000 of them with PyGithub's) and no cyclic garbage worth finding; a collection
while they are built walks all of them again, and the default thresholds run ~130 of them
during a sign-off verdict's start-up (~40 ms of its ~0.5 s CPU). ``loading`` pauses the
collector for the imports and, when they loaded any module, freezes what exists
(``gc.freeze``), so later collections walk only what the command itself allocates. Reference
counting frees frozen objects as before; only a reference cycle that already existed when a
module was first loaded is never collected (once per module per process, so a long-running
process or a test session that verifies many times freezes only at its first imports).
"""

from __future__ import annotations

import gc
import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType


@contextmanager
def loading() -> Iterator[None]:
    """Run the block (imports, a client's first construction) with the collector paused."""
    modules = len(sys.modules)
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if len(sys.modules) != modules:
            gc.freeze()
        if collecting:
            gc.enable()


def load(name: str) -> ModuleType:
    """``importlib.import_module(name)``, inside ``loading`` unless it is loaded already."""
    module = sys.modules.get(name)
    if module is not None:
        return module
    with loading():
        return importlib.import_module(name)

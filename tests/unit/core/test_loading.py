"""Tests of infx.loading: imports run with the cyclic collector paused and are frozen once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SEED = ROOT / "tests" / "data" / "worlds" / "signoff_seed000.yaml"


def run(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=ROOT, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout


COUNTING = ("import gc, sys\n"
            "seen = []\n"
            "gc.callbacks.append(lambda phase, info: phase == 'start' and seen.append(1))\n")


def test_a_first_import_runs_without_collections_then_freezes_and_a_second_changes_nothing():
    out = run(COUNTING + (
        "from infx.loading import load, loading\n"
        "assert 'infx.signoff.pipeline' not in sys.modules\n"
        "before = len(seen)\n"
        "module = load('infx.signoff.pipeline')\n"
        "print(len(seen) - before, gc.isenabled(), gc.get_freeze_count() > 0)\n"
        "gc.unfreeze()\n"
        "assert load('infx.signoff.pipeline') is module\n"
        "with loading():\n"
        "    assert not gc.isenabled()\n"
        "print(gc.get_freeze_count(), gc.isenabled())\n"
        "gc.disable()\n"
        "with loading():\n"
        "    import infx.plan.gpus\n"
        "print(gc.isenabled())\n"))
    assert out.split() == ["0", "True", "True", "0", "True", "False"]


def test_a_verdict_start_up_runs_a_handful_of_collections():
    """The default thresholds ran ~130 collections (~40 ms) while a verdict imported its
    modules and PyGithub; now only the verdict's own allocations are collected."""
    out = run(COUNTING + (
        "from infx.cli import main\n"
        f"code = main(['signoff', 'verify', '--world', {str(SEED)!r}, '--pr', '3412',\n"
        "             '--comment-id', '5003', '--format', 'json'])\n"
        "print(code, len(seen), file=sys.stderr)\n"
        "print(len(seen))\n"))
    assert int(out.split()[-1]) < 30

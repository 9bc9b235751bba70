"""The shard jobs of run-sweep.yml, generated from the bucket table (`--check` in CI, `--write` to refresh)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from infx.workflow.shard import BUCKETS, caller_name, shard_id

WORKFLOW = Path(".github/workflows/run-sweep.yml")
BEGIN = "  # >>> shard jobs, generated from infx.workflow.shard.BUCKETS by `python -m infx.workflow.sweep_jobs --write`"
END = "  # <<< shard jobs"
NEEDS_PREFIX = "    needs: [plan, canary, sweep-"

_JOB = """\
  sweep-{sid}:
    name: {name}
    needs: [plan, canary]
    if: >-
      !cancelled() && needs.plan.result == 'success'
      && contains(fromJSON('["success","skipped"]'), needs.canary.result)
      && needs.plan.outputs.reuse-enabled != 'true' && contains(fromJSON(needs.plan.outputs.shards), '{sid}')
    permissions:
      contents: read  # the template checks out the PR (data) and the default branch (its infx)
    strategy:
      fail-fast: ${{{{ needs.plan.outputs.fail-fast == 'true' }}}}
      matrix:
        config: ${{{{ fromJSON(needs.plan.outputs.matrix)['{sid}'] }}}}
    uses: ./.github/workflows/benchmark-tmpl.yml
    with:
      config: ${{{{ toJSON(matrix.config) }}}}
    secrets:
      HF_TOKEN: ${{{{ secrets.HF_TOKEN }}}}
"""


def shard_slots() -> list[tuple[str, str]]:
    """(shard id, display name) of every shard job, in the bucket table's order."""
    return [(shard_id(b, i), caller_name(b, i)) for b in BUCKETS for i in range(1, b.slots + 1)]


def render_jobs() -> str:
    """The generated block: one reusable-workflow call per shard slot."""
    jobs = "\n".join(_JOB.format(sid=sid, name=name) for sid, name in shard_slots())
    return f"{BEGIN}\n{jobs}{END}\n"


def needs_line() -> str:
    """The `needs:` of the jobs that wait for every shard (collect-*)."""
    return "    needs: [plan, canary, " + ", ".join(f"sweep-{sid}" for sid, _ in shard_slots()) + "]\n"


class LayoutError(ValueError):
    """run-sweep.yml lacks the markers the generator writes between."""


def regenerate(text: str) -> str:
    """run-sweep.yml's text with the generated block and the all-shards `needs:` lines refreshed."""
    lines = text.splitlines(keepends=True)
    try:
        start = next(i for i, ln in enumerate(lines) if ln.rstrip("\n") == BEGIN)
        end = next(i for i, ln in enumerate(lines) if i > start and ln.rstrip("\n") == END)
    except StopIteration:
        raise LayoutError(f"{WORKFLOW}: the generated-jobs markers are missing (fix: put the lines "
                          f"{BEGIN.strip()!r} and {END.strip()!r} around the shard jobs)") from None
    out = lines[:start] + [render_jobs()] + lines[end + 1:]
    return "".join(needs_line() if ln.startswith(NEEDS_PREFIX) else ln for ln in out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m infx.workflow.sweep_jobs", description=__doc__)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="exit 1 if run-sweep.yml is not up to date")
    mode.add_argument("--write", action="store_true", help="rewrite the generated part of run-sweep.yml")
    parser.add_argument("--workflow", type=Path, default=WORKFLOW, help="path of run-sweep.yml")
    args = parser.parse_args(argv)
    try:
        text = args.workflow.read_text(encoding="utf-8")
        new = regenerate(text)
    except (OSError, LayoutError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.write:
        if new != text:
            args.workflow.write_text(new, encoding="utf-8")
        return 0
    if new != text:
        print(f"error: {args.workflow}: the shard jobs differ from infx.workflow.shard.BUCKETS "
              "(fix: python -m infx.workflow.sweep_jobs --write)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

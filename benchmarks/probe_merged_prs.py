"""How the sign-off's tree-only checks judge the reference repository's real merged PRs.

Every first-parent commit of the reference's default branch (the bare clone's HEAD) whose
subject ends in ``(#N)`` is PR N, squash-merged; of the newest LIMIT such commits, those that
touch ``configs/``, ``benchmarks/`` or ``runners/`` are probed. For each: base = the commit's
parent, head = the commit, the clock = its commit time; the full trees are read from git
(tests/data/realprs_nvidia/make_realprs_nvidia.full_tree) and the seven tree-only checks
(images, deprecated, arch, chat, patch, golden, draft) run on the Evidence that
tests/lib/realprs_nvidia.evidence builds from them, as the NVIDIA real-PR corpus does. Every
merged PR was accepted by the reference's reviewers, so a FAIL here is a false-positive
candidate (or a true finding the reference let through): ``--fails CHECK`` lists them.

Per PR it records each check's status and reason and the seconds the PR took; a PR whose
probe raises is recorded with ``error`` (the traceback's last line) and the run goes on.
Results go to ``--out`` (default /tmp/probe/results.json; given PR numbers, only their entries
of an existing file are replaced) and a summary is printed: PRs, PRs with any FAIL, each
check's count per status (the model has no UNKNOWN status) and how many of its FAILs are
fail-closed ("... could not be verified": what it needs could not be read; a crash is not one
here, the checks being called directly, but the PR's ``error``), and the slowest PRs.

Not run by run_all.py or CI. Skips, saying so, when there is no clone of the reference
(INFX_REFERENCE_REPO, default /work/.mirror/SemiAnalysisAI+InferenceX/repo). Run from the
repository root:

    python benchmarks/probe_merged_prs.py LIMIT [PR ...] [--out PATH] [--jobs 2]
    python benchmarks/probe_merged_prs.py --fails golden [--out PATH]

(the full run, LIMIT 289 giving about 220 PRs, takes 10 to 20 minutes on one core).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GENERATOR = ROOT / "tests" / "data" / "realprs_nvidia"
REFERENCE = Path(os.environ.get("INFX_REFERENCE_REPO", "/work/.mirror/SemiAnalysisAI+InferenceX/repo"))
FOLDERS = ("configs/", "benchmarks/", "runners/")
SQUASH = re.compile(r"\(#(\d+)\)\s*$")
DEFAULT_OUT = Path("/tmp/probe/results.json")
STATUSES = ("PASS", "FAIL", "WARN", "N/A")
# a FAIL because the check could not read what it needs (fail closed), not because it found a fault
CLOSED = re.compile(r"could not be verified")
_MARK = "\x01"


def merged_prs(git_dir: Path, limit: int, ref: str = "HEAD") -> list[dict]:
    """The squash-merged PRs among the newest ``limit`` first-parent commits of ``ref`` that
    touch FOLDERS, newest first: number, sha, base (the parent), merged_at (ISO commit time),
    title."""
    out = subprocess.run(
        ["git", "--git-dir", str(git_dir), "-c", "core.quotePath=false", "log", "--first-parent",
         "--diff-merges=first-parent", "--name-only", f"-n{limit}",
         f"--format={_MARK}%H %P%n%cI%n%s", ref],
        check=True, capture_output=True, text=True).stdout
    found = []
    for chunk in out.split(_MARK)[1:]:
        lines = chunk.split("\n")
        shas, merged_at, title = lines[0].split(), lines[1], lines[2]
        match = SQUASH.search(title)
        if not match or len(shas) < 2:
            continue
        if not any(path.startswith(FOLDERS) for path in lines[3:] if path):
            continue
        found.append({"number": int(match.group(1)), "sha": shas[0], "base": shas[1],
                      "merged_at": merged_at, "title": title})
    return found


def tools():
    """The generator's tree reader and the corpus's Evidence and checks (imported on first
    use: the commit selection above needs neither)."""
    for path in (GENERATOR, ROOT / "tests", ROOT):
        if str(path) not in sys.path:
            sys.path.insert(0, str(path))
    import make_realprs_nvidia as generator
    from lib import realprs_nvidia as corpus
    return generator, corpus


def probe(pr: dict) -> dict:
    """One PR's outcomes on the full trees (or its error), with the seconds it took."""
    from datetime import datetime
    record = dict(pr)
    start = time.perf_counter()
    try:
        generator, corpus = tools()
        base, head = generator.full_tree(pr["base"]), generator.full_tree(pr["sha"])
        ev = corpus.evidence(base, head, datetime.fromisoformat(pr["merged_at"]), pr["base"], pr["sha"])
        record["checks"] = {name: {"status": o.status.value, "reason": o.reason}
                            for name, o in corpus.run_checks(ev).items()}
        record["error"] = None
    except Exception:  # noqa: BLE001 - one PR's crash is recorded, the run goes on
        lines = traceback.format_exc().strip().splitlines()
        frames = [ln.strip() for ln in lines if ln.strip().startswith("File ")]
        record["checks"] = {}
        record["error"] = lines[-1]
        record["where"] = frames[-1] if frames else ""
    record["seconds"] = round(time.perf_counter() - start, 2)
    return record


def _write(path: Path, results: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)


def run(prs: list[dict], results: dict, out: Path, jobs: int) -> None:
    def done(record: dict, index: int) -> None:
        results["prs"][str(record["number"])] = record
        _write(out, results)
        fails = [n for n, c in record["checks"].items() if c["status"] == "FAIL"]
        state = f"ERROR {record['error']}" if record["error"] else ("FAIL " + ",".join(fails) if fails else "ok")
        print(f"[{index}/{len(prs)}] #{record['number']} {record['seconds']:.1f}s {state}", flush=True)

    if jobs <= 1:
        for index, pr in enumerate(prs, 1):
            done(probe(pr), index)
        return
    import multiprocessing
    # a fresh worker now and then: what the checks cache stays bounded
    with multiprocessing.get_context("fork").Pool(jobs, maxtasksperchild=20) as pool:
        for index, record in enumerate(pool.imap_unordered(probe, prs), 1):
            done(record, index)


def summary(results: dict) -> str:
    records = sorted(results["prs"].values(), key=lambda r: -r["number"])
    checks = list(dict.fromkeys(n for r in records for n in r["checks"]))
    errors = [r for r in records if r["error"]]
    failing = [r for r in records if any(c["status"] == "FAIL" for c in r["checks"].values())]
    lines = [f"reference {results.get('reference', '?')} at {results.get('ref_sha', '?')[:12]}, "
             f"newest {results.get('limit', '?')} first-parent commits",
             f"PRs probed:        {len(records)}",
             f"PRs with any FAIL: {len(failing)}",
             f"PRs with an error: {len(errors)}", ""]
    lines.append(f"{'check':<12}" + "".join(f"{s:>7}" for s in STATUSES) + "  FAIL closed")
    for name in checks:
        outcomes = [r["checks"][name] for r in records if name in r["checks"]]
        counts = [sum(1 for o in outcomes if o["status"] == s) for s in STATUSES]
        closed = sum(1 for o in outcomes if o["status"] == "FAIL" and CLOSED.search(o["reason"]))
        lines.append(f"{name:<12}" + "".join(f"{c:>7}" for c in counts) + f"{closed:>13}")
    lines += ["", "slowest PRs:"]
    for r in sorted(records, key=lambda r: -r["seconds"])[:5]:
        lines.append(f"  #{r['number']:<6} {r['seconds']:>7.1f}s  {r['title'][:70]}")
    total = sum(r["seconds"] for r in records)
    lines.append(f"total probe time {total:.0f}s (sum over PRs)")
    for r in errors:
        lines.append(f"error #{r['number']}: {r['error']} ({r.get('where', '')})")
    return "\n".join(lines)


def fails(results: dict, check: str) -> str:
    rows = [r for r in sorted(results["prs"].values(), key=lambda r: -r["number"])
            if r["checks"].get(check, {}).get("status") == "FAIL"]
    out = [f"#{r['number']} {r['sha'][:9]}: {' '.join(r['checks'][check]['reason'].split())}"
           for r in rows]
    return "\n".join(out + [f"{len(rows)} PRs fail check {check}"])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("numbers", nargs="*", type=int, help="LIMIT, then optionally PR numbers")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--fails", metavar="CHECK", help="list the PRs failing CHECK in --out, then stop")
    args = parser.parse_args(argv)
    if args.fails:
        if not args.out.is_file():
            print(f"no results at {args.out}: run the probe first")
            return 1
        print(fails(json.loads(args.out.read_text(encoding="utf-8")), args.fails))
        return 0
    if not args.numbers:
        parser.error("LIMIT is required")
    if not (REFERENCE / "HEAD").exists():
        print(f"skipped: no clone of the reference repository at {REFERENCE} (set INFX_REFERENCE_REPO)")
        return 0
    limit, only = args.numbers[0], set(args.numbers[1:])
    prs = merged_prs(REFERENCE, limit)
    if only:
        missing = only - {pr["number"] for pr in prs}
        if missing:
            print(f"not among the newest {limit} first-parent commits: {sorted(missing)}")
        prs = [pr for pr in prs if pr["number"] in only]
    ref_sha = subprocess.run(["git", "--git-dir", str(REFERENCE), "rev-parse", "HEAD"], check=True,
                             capture_output=True, text=True).stdout.strip()
    results = {"reference": str(REFERENCE), "ref_sha": ref_sha, "limit": limit, "prs": {}}
    if only and args.out.is_file():
        results = json.loads(args.out.read_text(encoding="utf-8"))
    print(f"probing {len(prs)} PRs with {args.jobs} job(s) -> {args.out}", flush=True)
    start = time.monotonic()
    run(prs, results, args.out, args.jobs)
    print(f"\nwall time {time.monotonic() - start:.0f}s\n")
    print(summary(results))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

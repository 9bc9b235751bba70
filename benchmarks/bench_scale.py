"""Scale: strict validation of many appended entries, a 20 MB config, the biggest plan's outputs.

- `infx changelog validate` with 5,000 and 20,000 appended entries (bar: 20,000 in 2 s;
  the two sizes side by side show whether the time grows linearly);
- `infx matrix full-sweep` of a 20 MB master config under /usr/bin/time -v (bar: 5 s and
  300 MB, or a clear error naming a YAML cap);
- the plan job's outputs for the biggest plan over both reference master files
  (`config-keys: ["*"]` with --all-evals) against GitHub's 1 MB per-job output limit.
Run: python benchmarks/bench_scale.py
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "lib"))
sys.path.insert(0, str(ROOT))

import hostile_inputs as hostile  # noqa: E402

UPSTREAM = ROOT.parent / "shared" / "fixtures" / "upstream-inferencex"
F_DATA = ROOT / "tests" / "data" / "changelog"
HISTORY = ("- config-keys:\n    - alpha-fp8-h100-vllm\n  description:\n    - \"History\"\n"
           "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/900\n")
ENTRY = "- config-keys:\n    - alpha-fp8-h100-vllm\n  description:\n    - \"Run {n}\"\n  pr-link: XXX\n"
FLOOR = ("import sys, yaml\n"
         "yaml.load(open(sys.argv[1], encoding='utf-8').read(), Loader=yaml.CSafeLoader)\n")
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
ENV.pop("GITHUB_OUTPUT", None)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True,
                          capture_output=True).stdout.decode().strip()


def new_repo(repo: Path, configs: dict[str, Path], changelog: str) -> str:
    (repo / "configs").mkdir(parents=True)
    for name, source in configs.items():
        shutil.copy(source, repo / "configs" / name)
    (repo / "perf-changelog.yaml").write_text(changelog)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "b@example.com")
    git(repo, "config", "user.name", "b")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "base")
    return git(repo, "rev-parse", "HEAD")


def commit_changelog(repo: Path, base: str, text: str) -> str:
    git(repo, "checkout", "-q", base)
    (repo / "perf-changelog.yaml").write_text(text)
    git(repo, "commit", "-q", "-am", "append")
    return git(repo, "rev-parse", "HEAD")


def timed(command: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, env=ENV, capture_output=True, text=True)
    return time.perf_counter() - start, result


def strict_validation(work: Path) -> bool:
    repo = work / "strict"
    base = new_repo(repo, {"f-master.yaml": F_DATA / "f-master.yaml",
                           "runners.yaml": F_DATA / "f-runners.yaml"}, HISTORY)
    ok = True
    for count in (5_000, 20_000):
        text = HISTORY + "".join("\n" + ENTRY.format(n=n) for n in range(count))
        head = commit_changelog(repo, base, text)
        seconds, result = timed([sys.executable, "-m", "infx", "changelog", "validate",
                                 "--base-ref", base, "--head-ref", head, "--pr-number", "7"], repo)
        if result.returncode != 0:
            print(f"validate {count} entries failed: {result.stderr.strip()[:300]}")
            return False
        floor, _ = timed([sys.executable, "-c", FLOOR, str(repo / "perf-changelog.yaml")], repo)
        bar = " (bar 2.00 s) " + ("ok" if seconds <= 2.0 else "OVER BAR") if count == 20_000 \
            else ""
        ok &= count != 20_000 or seconds <= 2.0
        print(f"{'changelog validate, ' + format(count, ',') + ' appended entries':52} "
              f"{seconds:7.2f}s  {len(text) / 1e6:.1f} MB; floor (python + yaml.load of the "
              f"head file) {floor:.2f}s, ratio {seconds / floor:.2f}x{bar}")
    return ok


def huge_config(work: Path) -> bool:
    path = work / "huge-master.yaml"
    path.write_bytes(hostile.huge_config(20))
    result = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-m", "infx", "matrix",
                             "full-sweep", "--config-files", str(path), "--runner-config",
                             str(F_DATA / "f-runners.yaml")], cwd=work, env=ENV,
                            capture_output=True, text=True)
    wall = re.search(r"Elapsed \(wall clock\) time .*: (?:(\d+):)?(\d+):([\d.]+)", result.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr)
    seconds = int(wall.group(2)) * 60 + float(wall.group(3)) if wall else float("nan")
    megabytes = int(rss.group(1)) / 1024 if rss else float("nan")
    message = [line for line in result.stderr.split("\tCommand being timed")[0].splitlines()
               if line.startswith(("error:", "Traceback"))]
    ok = seconds <= 5 and megabytes <= 300 and (
        result.returncode == 0 or (result.returncode == 1 and len(message) == 1
                                   and "yaml_limits." in message[0]))
    print(f"{'matrix full-sweep, 20 MB master config':52} {seconds:7.2f}s  {megabytes:.0f} MB "
          f"max RSS, exit {result.returncode} (bar 5 s, 300 MB or a YAML cap error) "
          f"{'ok' if ok else 'OVER BAR'}\n{'':53}{message[0][:110] if message else ''}")
    return ok


def biggest_plan(work: Path) -> bool:
    if not UPSTREAM.is_dir():
        print(f"biggest plan: skipped, reference data not found at {UPSTREAM}")
        return True
    from infx.errors import InfxError
    from infx.plan.sweep_plan import Plan
    from infx.workflow.actions import JOB_OUTPUT_LIMIT, output_size, output_text
    from infx.workflow.shard import shard_outputs

    repo = work / "biggest"
    history = (UPSTREAM / "perf-changelog.yaml").read_text()
    base = new_repo(repo, {n: UPSTREAM / "configs" / n for n in
                           ("amd-master.yaml", "nvidia-master.yaml", "runners.yaml")}, history)
    head = commit_changelog(repo, base, history + "\n- config-keys:\n    - \"*\"\n"
                            "  description:\n    - \"Everything\"\n  pr-link: XXX\n")
    seconds, result = timed([sys.executable, "-m", "infx", "plan", "--base-ref", base,
                             "--head-ref", head, "--all-evals"], repo)
    if result.returncode != 0:
        print(f"biggest plan failed: {result.stderr.strip()[:300]}")
        return False
    plan = Plan.parse(result.stdout, "infx plan")
    rows = len(plan.rows())
    try:
        outputs = shard_outputs(plan)
    except InfxError as exc:
        size = sum(output_size(output_text(rows)) for _, rows in plan.buckets())
        print(f"{'biggest plan (all keys, --all-evals): ' + str(rows) + ' rows':52} {seconds:7.2f}s"
              f"  refused before any output: {str(exc)[:150]}\n{'':53}its rows as matrix JSON "
              f"would be {size / 1e6:.2f} MB against GitHub's {JOB_OUTPUT_LIMIT / 1e6:.2f} MB "
              "per-job limit (the output-size check would refuse it too)")
        return True  # a clear failure naming the bucket is the contract
    size = sum(output_size(f"{k}={output_text(v)}\n") for k, v in outputs.items())
    print(f"{'biggest plan (all keys, --all-evals): ' + str(rows) + ' rows':52} {seconds:7.2f}s  "
          f"plan job outputs {size / 1e6:.2f} MB of {JOB_OUTPUT_LIMIT / 1e6:.2f} MB "
          f"({100 * size / JOB_OUTPUT_LIMIT:.0f}% of GitHub's per-job limit, as UTF-16)")
    return size <= JOB_OUTPUT_LIMIT


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        results = [strict_validation(work), huge_config(work), biggest_plan(work)]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())

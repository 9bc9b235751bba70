"""Hostile inputs under `/usr/bin/time -v`: one located error, within 5 s and 300 MB.

Each generated input (tests/lib/hostile_inputs.py: alias bombs, deep nesting, Latin-1,
UTF-16, BOM, NUL, CRLF, huge files, zip and tar bombs) is fed to the command that reads
it: master configs to `infx matrix full-sweep`, a world file to `infx signoff verify
--world`, changelogs to `infx plan` and `infx changelog validate`, and archive bombs to
`infx signoff verify --world` through the real evidence path: the in-process fake GitHub
serves the bomb as the PR head's tarball or as the `eval_results_all` artifact, and the
client downloads and streams it like any other. Printed per case: wall time, max RSS,
exit status, stdout bytes, error lines, traceback, and the verdict against the bars.
Run: python benchmarks/bench_hostile.py
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "lib"))

import hostile_inputs as hostile  # noqa: E402

SECONDS, MEGABYTES = 5.0, 300
TIME = "/usr/bin/time"
RUNNERS = ROOT / "tests" / "data" / "changelog" / "f-runners.yaml"
HISTORY = ("- config-keys:\n    - alpha-fp8-h100-vllm\n  description:\n    - \"History\"\n"
           "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/900\n")
APPENDED = HISTORY + "\n" + HISTORY.replace("900", "XXX").replace("History", "Bump")
WORLD = ROOT / "tests" / "data" / "worlds" / "signoff_seed000.yaml"  # PR 3412, sign-off 5003
BOMB_MIB = 300  # past the 256 MiB expanded cap and the 32 MiB member cap
# The fake GitHub's archive builders swapped for a prepared bomb, then the real CLI: the
# bomb reaches the client through the storage redirect and the streaming download.
SERVE_BOMB = """
import sys
from infx.github.fake.routes import repos, runs
kind, bomb_file, head = sys.argv[1:4]
bomb = open(bomb_file, "rb").read()
if kind == "tar":
    real_tarball = repos.make_tarball
    repos.make_tarball = lambda top, tree, mtime: (
        bomb if top.endswith(head[:7]) else real_tarball(top, tree, mtime))
elif kind == "zip":
    real_zip = runs.make_zip
    runs.make_zip = lambda files: bomb if "agg_eval_all.json" in files else real_zip(files)
from infx.cli import main
sys.exit(main(sys.argv[4:]))
"""


def changelog_cases() -> dict[str, bytes]:
    text = APPENDED.encode()
    return {
        "changelog-crlf": text.replace(b"\n", b"\r\n"),
        "changelog-bom": b"\xef\xbb\xbf" + text,
        "changelog-nul": text.replace(b"Bump", b"B\0mp"),
        "changelog-latin-1": text.replace(b"Bump", b"B\xe9mp"),
        "changelog-utf-16": APPENDED.encode("utf-16"),
        "changelog-alias-bomb": text.replace(b"pull/XXX\n", b"pull/XXX\n" + b"".join(
            b"  " + line + b"\n" for line in hostile.alias_bomb().splitlines())),
    }


def archive_cases(work: Path) -> tuple[dict[str, tuple[str, Path]], str]:
    """(name -> (kind, bomb file), the PR head) for PR 3412 of the sign-off world."""
    import yaml

    world = yaml.load(WORLD.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    pull = next(p for p in world["pulls"] if p["number"] == 3412)
    top = f"{world['repo'].replace('/', '-')}-{pull['head']['sha'][:7]}"
    bombs = {
        "tar bomb, file no check reads": ("tar", hostile.tar_bomb(top, "assets/blob.bin",
                                                                   BOMB_MIB, {"README.md": "x\n"})),
        "tar bomb, a master config": ("tar", hostile.tar_bomb(top, "configs/amd-master.yaml",
                                                               BOMB_MIB)),
        "zip bomb, eval_results_all": ("zip", hostile.zip_bomb("agg_eval_all.json", BOMB_MIB)),
        "zip of 500,000 entries": ("zip", hostile.zip_many(500_000)),
    }
    cases = {}
    for index, (name, (kind, data)) in enumerate(bombs.items()):
        path = work / f"bomb-{index}.{kind}"
        path.write_bytes(data)
        cases[name] = (kind, path)
    return cases, pull["head"]["sha"]


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True,
                          capture_output=True).stdout.decode().strip()


def measure(command: list[str], cwd: Path) -> dict:
    result = subprocess.run([TIME, "-v", *command], cwd=cwd, capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, errors="replace")
    wall = re.search(r"Elapsed \(wall clock\) time .*: (?:(\d+):)?(\d+):([\d.]+)", result.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr)
    seconds = (int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
               if wall else float("nan"))
    ours = result.stderr.split("\tCommand being timed")[0]
    errors = [line for line in ours.splitlines() if line.startswith("error: ")]
    return {"seconds": seconds, "mb": int(rss.group(1)) / 1024 if rss else float("nan"),
            "code": result.returncode, "stdout": len(result.stdout), "errors": errors,
            "traceback": "Traceback" in ours}


def report(name: str, figures: dict, expect_error: bool = True) -> bool:
    ok = (figures["code"] == 1 and figures["stdout"] == 0 and len(figures["errors"]) == 1
          if expect_error else figures["code"] == 0 and not figures["errors"])
    ok = (ok and not figures["traceback"] and figures["seconds"] <= SECONDS
          and figures["mb"] <= MEGABYTES)
    first = figures["errors"][0][:90] if figures["errors"] else "(no error line)"
    print(f"{name:34} {figures['seconds']:6.2f}s {figures['mb']:7.1f}MB  exit {figures['code']}  "
          f"stdout {figures['stdout']}B  {len(figures['errors'])} error  "
          f"{'TRACEBACK ' if figures['traceback'] else ''}{'ok' if ok else 'FAILS THE BAR'}\n"
          f"{'':34} {first}")
    return ok


def main() -> int:
    if not Path(TIME).exists():
        print(f"skipped: {TIME} is not installed")
        return 0
    print(f"bars: exit 1, nothing on stdout, one error line, no traceback, "
          f"<= {SECONDS:.0f} s, <= {MEGABYTES} MB max RSS")
    python = [sys.executable, "-m", "infx"]
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name, make in hostile.CONFIG_CASES.items():
            path = work / f"{name}.yaml"
            path.write_bytes(make())
            results.append(report(f"full-sweep {name}", measure(
                [*python, "matrix", "full-sweep", "--config-files", str(path),
                 "--runner-config", str(RUNNERS)], work)))
        world = work / "world-alias-bomb.yaml"
        world.write_bytes(b"repo: o/r\n" + hostile.alias_bomb())
        results.append(report("signoff verify world alias-bomb", measure(
            [*python, "signoff", "verify", "--world", str(world), "--pr", "1",
             "--comment-id", "1"], work)))
        cases, head = archive_cases(work)
        verify = ["signoff", "verify", "--world", str(WORLD), "--pr", "3412", "--comment-id", "5003"]
        results.append(report("signoff verify (no bomb, baseline)", measure(
            [sys.executable, "-c", SERVE_BOMB, "none", os.devnull, head, *verify], work),
            expect_error=False))
        for name, (kind, bomb) in cases.items():
            results.append(report(f"signoff {name}", measure(
                [sys.executable, "-c", SERVE_BOMB, kind, str(bomb), head, *verify], work)))
        repo = work / "repo"
        (repo / "configs").mkdir(parents=True)
        shutil.copy(ROOT / "tests" / "data" / "changelog" / "f-master.yaml",
                    repo / "configs" / "f-master.yaml")
        shutil.copy(RUNNERS, repo / "configs" / "runners.yaml")
        (repo / "perf-changelog.yaml").write_text(HISTORY)
        git(repo, "init", "-q", "-b", "main")
        git(repo, "config", "user.email", "b@example.com")
        git(repo, "config", "user.name", "b")
        git(repo, "add", ".")
        git(repo, "commit", "-q", "-m", "base")
        base = git(repo, "rev-parse", "HEAD")
        for name, raw in changelog_cases().items():
            git(repo, "checkout", "-q", base)
            (repo / "perf-changelog.yaml").write_bytes(raw)
            git(repo, "commit", "-q", "-am", name)
            head = git(repo, "rev-parse", "HEAD")
            for command in ("plan", "changelog validate"):
                results.append(report(f"{command} {name}", measure(
                    [*python, *command.split(), "--base-ref", base, "--head-ref", head,
                     "--pr-number" if command != "plan" else "--trim-conc",
                     *(["7"] if command != "plan" else [])], repo)))
    print(f"{sum(results)} of {len(results)} hostile inputs within every bar")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())

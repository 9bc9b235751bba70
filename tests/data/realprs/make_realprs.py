"""Re-extract the real-PR corpus in this folder from a clone of the reference repository.

Each corpus PR is a squash-merged PR of SemiAnalysisAI/InferenceX (its commit "... (#N)"):
base = the commit's parent, head = the commit. For each, ``<N>/base/`` holds the trimmed base
tree and ``<N>/head/`` the files the PR changes in it (``pr.json`` lists the deletions):

- ``configs/amd-master.yaml`` as it is (every key, MI300X and MI325X ones included);
- ``perf-changelog.yaml``: the last entries of the base file, and at head those plus the PR's
  appended text, byte for byte;
- every file the launch graph (infx.plan.launch_graph) names for an MI355X key of the master
  config at base or head, resolved as on our test repository (our runners.yaml and our
  ``runners/launch_mi355x-amds.sh``, which the corpus does not copy);
- the PR's own changed files under ``benchmarks/`` (its diff, whether or not a graph names them).

Run from the repository root (INFX_REFERENCE_REPO: the bare clone, default the mirror):

    python tests/data/realprs/make_realprs.py [PR …]
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))

from infx import yamlio  # noqa: E402
from infx.plan.launch_graph import LaunchGraphError, launch_graph  # noqa: E402

REFERENCE = Path(os.environ.get("INFX_REFERENCE_REPO", "/work/.mirror/SemiAnalysisAI+InferenceX/repo"))
MASTER = "configs/amd-master.yaml"
CHANGELOG = "perf-changelog.yaml"
OUR_LAUNCHER = "runners/launch_mi355x-amds.sh"
KEPT_ENTRIES = 2  # base changelog entries kept before the PR's own

# PR number -> (merged commit, what it stands for in the corpus)
PRS: dict[int, tuple[str, str]] = {
    2433: ("64c03138a", "true rejection: single-node image bump whose entry follows a whitespace-only line "
                        "without the empty separator line"),
    2562: ("a6e5d2b12", "new agentic MTP config (SGLang)"),
    2606: ("2ddf1043c", "multi-node disaggregated image bump and re-layout"),
    2349: ("d52b40c28", "single-node image bump (SGLang, with its MTP twin)"),
    2697: ("38fbc472e", "true rejection: new agentic MTP config whose acceptance length is not the golden one, "
                        "its changelog entry inserted before the last"),
    2487: ("73bd8e200", "new agentic MTP config (vLLM, MiniMax-M3 EAGLE3 draft) with a shared benchmark_lib.sh change"),
    2309: ("23f879df2", "multi-node agentic disaggregated MTP arm (SGLang, DSv4)"),
    2643: ("e944302e8", "multi-node agentic image bump with shared helper and recipe tuning"),
    2698: ("c2b58030b", "new agentic MTP config (ATOM, DSv4)"),
    2576: ("1b332e4c3", "new agentic MTP config (ATOM, GLM-5.2, embedded MTP head)"),
    2263: ("009429115", "retires 1k1k: 72 configs only lose their 1k1k rows, no changelog entry"),
}
# the reference's pull-request links of the PR's own entries point at this test repository
REFERENCE_PULL = re.compile(r"https://github\.com/SemiAnalysisAI/InferenceX/pull/(\d+)")
OUR_PULLS = "https://github.com/inferencex-amd/inferencex/pull/"


def git(*args: str) -> bytes:
    return subprocess.run(["git", "--git-dir", str(REFERENCE), *args], check=True, capture_output=True).stdout


def tree_names(sha: str) -> list[str]:
    return git("ls-tree", "-r", "--name-only", "-z", sha).decode().split("\0")[:-1]


def read(sha: str, path: str) -> str:
    return git("show", f"{sha}:{path}").decode("utf-8")


def launch_tree(sha: str) -> dict[str, str | None]:
    """The reference tree at ``sha`` as the launch graph reads it on our test repository."""
    names = tree_names(sha)
    tree: dict[str, str | None] = {n: None for n in names}
    wanted = [n for n in names if n.startswith("benchmarks/")]
    proc = subprocess.run(["git", "--git-dir", str(REFERENCE), "cat-file", "--batch"], check=True,
                          capture_output=True, input="".join(f"{sha}:{n}\n" for n in wanted).encode())
    out, pos = proc.stdout, 0
    for name in wanted:
        end = out.index(b"\n", pos)
        size = int(out[pos:end].split()[2])
        data = out[end + 1:end + 1 + size]
        pos = end + 1 + size + 1
        try:
            tree[name] = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
    for name in [n for n in tree if n.startswith("runners/")]:
        del tree[name]
    tree[OUR_LAUNCHER] = (ROOT / OUR_LAUNCHER).read_text(encoding="utf-8")
    return tree


def graph_files(sha: str, master_text: str) -> dict[str, str]:
    """path -> text of every file a launch graph names for a key of ``master_text``."""
    tree = launch_tree(sha)
    runners = yamlio.load_file(ROOT / "configs" / "runners.yaml")
    master = yamlio.load_text(master_text, MASTER)
    found: dict[str, str] = {}
    for key, entry in master.items():
        try:
            graph = launch_graph(tree, key, entry, runners, MASTER)
        except LaunchGraphError as exc:
            if not exc.no_launcher:  # a key whose launch is broken in the reference itself
                print(f"{sha[:9]}: {exc}")
            continue  # else not an MI355X key: no launcher of its runner in our repository
        found |= {p: tree[p] for p in graph.paths() if p != OUR_LAUNCHER}
    return found


def changelog_slice(base_text: str, head_text: str) -> tuple[str, str]:
    """Both changelogs from the KEPT_ENTRIES-th entry before the PR's first change on (the PR's
    own text byte for byte, wherever it is), the links of the lines it adds pointing at our test
    repository."""
    first = next((i for i, (a, b) in enumerate(zip(base_text, head_text, strict=False)) if a != b),
                 min(len(base_text), len(head_text)))
    starts = [i for i in range(first) if base_text.startswith("- config-keys:", i)
              and (i == 0 or base_text[i - 1] == "\n")]
    start = starts[-KEPT_ENTRIES] if len(starts) >= KEPT_ENTRIES else 0
    base_lines = base_text[start:].splitlines(keepends=True)
    head_lines = head_text[start:].splitlines(keepends=True)
    own: list[str] = []
    for tag, _, _, j1, j2 in difflib.SequenceMatcher(None, base_lines, head_lines, autojunk=False).get_opcodes():
        lines = head_lines[j1:j2]
        own += lines if tag == "equal" else [REFERENCE_PULL.sub(OUR_PULLS + r"\1", line) for line in lines]
    return base_text[start:], "".join(own)


def extract(number: int, sha: str, what: str) -> dict:
    sha = git("rev-parse", sha).decode().strip()
    base_sha = git("rev-parse", f"{sha}^").decode().strip()
    changed = git("diff", "--name-status", "--no-renames", base_sha, sha).decode().splitlines()
    status = {line.split("\t")[1]: line.split("\t")[0] for line in changed}
    base_master, head_master = read(base_sha, MASTER), read(sha, MASTER)
    base_log, head_log = changelog_slice(read(base_sha, CHANGELOG), read(sha, CHANGELOG))
    base = {MASTER: base_master, CHANGELOG: base_log} | graph_files(base_sha, base_master)
    head = {MASTER: head_master, CHANGELOG: head_log} | graph_files(sha, head_master)
    for path, kind in status.items():
        if path.startswith("benchmarks/"):
            if kind != "A":
                base[path] = read(base_sha, path)
            if kind != "D":
                head[path] = read(sha, path)
    for path in status:
        if not path.startswith(("benchmarks/", MASTER, CHANGELOG)):
            print(f"#{number}: left out {path} (not a benchmark file of an MI355X key)")
    out = HERE / str(number)
    shutil.rmtree(out, ignore_errors=True)
    head_files = {p: t for p, t in head.items() if base.get(p) != t}
    deleted = sorted(p for p in base if p not in head and status.get(p) == "D")
    for folder, files in (("base", base), ("head", head_files)):
        for path, text in files.items():
            target = out / folder / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    subject = git("log", "-1", "--format=%s", sha).decode().strip()
    meta = {"number": number, "title": subject, "what": what, "base": base_sha, "head": sha,
            "merged_at": git("log", "-1", "--format=%cI", sha).decode().strip(),
            "changed": sorted(status), "deleted": deleted}
    (out / "pr.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return meta


def main(argv: list[str]) -> int:
    if not (REFERENCE / "HEAD").exists():
        print(f"no clone of the reference repository at {REFERENCE} (set INFX_REFERENCE_REPO)")
        return 1
    for number in [int(a) for a in argv] or sorted(PRS):
        meta = extract(number, *PRS[number])
        print(f"#{number}: {len(meta['changed'])} changed files, {meta['title'][:70]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

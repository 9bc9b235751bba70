"""Re-extract the NVIDIA real-PR corpus in this folder from a clone of the reference repository.

Each corpus PR is a squash-merged PR of SemiAnalysisAI/InferenceX (its commit "... (#N)"):
base = the commit's parent, head = the commit. The tree-only sign-off checks (images,
deprecated, arch, chat, patch, golden, draft) are first run on the full trees (configs/,
benchmarks/, runners/, utils/, the changelog and .github/CODEOWNERS of both commits), then on
the trimmed trees this script writes:

- the master configs, cut to the entries of the keys the PR is about: those its changelog
  entries sweep, those whose blocks it adds, changes or removes, those affected through their
  own launch files, and any other key a full-tree outcome names (the open-source entry that
  lets a vendor engine in, say); each kept block byte for byte, in file order;
- ``perf-changelog.yaml`` from the second-to-last entry before the PR's first change on
  (make_realprs.changelog_slice's cut; the PR's text and links as the reference has them);
- ``configs/runners.yaml``, and every file the launch graph (infx.plan.launch_graph) names for
  a kept key at base or at head, resolved with the reference's own runners and launchers; the
  launchers of the kept keys' runners also when their graph cannot be resolved (a missing
  script is then the finding);
- every file the PR changes under the folders above, except one no launch runs whose diff no
  outcome depends on (``left-out`` in pr.json);
- in the shared launchers and helpers bigger than CUT_FROM (runners/launch_*.sh,
  benchmarks/benchmark_lib.sh; never a config's own script or recipe), the top-level statements
  no outcome depends on are emptied: their lines stay, empty, so every line keeps its number, and
  bash must still parse the file. A statement the PR changes is never emptied.

``<N>/base/`` holds the trimmed base tree, ``<N>/head/`` the files of the trimmed head tree
that differ from it, ``<N>/pr.json`` the title, SHAs, merge time, changed paths, deletions,
the kept keys and the full-tree statuses. Every trimming step is checked: a step is taken only
when every check still gives the same status and the same reason as on the full trees, two
numbers set aside (master-config line numbers, and the count of lines Check arch says it read,
which emptied statements lower). A PR whose first cut already differs is not written; the
script names the check.

The patches are computed by tests/lib/realprs_nvidia.changed (a git-like diff), on the full
trees as on the trimmed ones.

Run from the repository root (INFX_REFERENCE_REPO: the bare clone, default the mirror):

    python tests/data/realprs_nvidia/make_realprs_nvidia.py [PR ...]
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(HERE.parent / "realprs")]

from lib import realprs_nvidia as corpus  # noqa: E402
from make_realprs import REFERENCE, changelog_slice, git  # noqa: E402

from infx import yamlio  # noqa: E402
from infx.plan.benchmark_content import MASTER_PATH  # noqa: E402
from infx.plan.launch_graph import (  # noqa: E402
    HELPER,
    LAUNCHER,
    RUNNERS_PATH,
    LaunchGraphError,
    launch_graph,
    launcher_path,
    runner_names,
)
from infx.signoff import per_verdict  # noqa: E402
from infx.signoff.rules.affected import SHARED_ONLY, affected_configs  # noqa: E402
from infx.signoff.rules.configs_at import master_files  # noqa: E402
from infx.signoff.swept import swept_keys  # noqa: E402

CHANGELOG = "perf-changelog.yaml"
# what the full trees hold (the probe of issue 26 read the same folders)
KEPT_ROOTS = ("configs/", "benchmarks/", "runners/", "utils/", CHANGELOG, ".github/CODEOWNERS")

# PR number -> (merged commit, what it stands for in the corpus)
PRS: dict[int, tuple[str, str]] = {
    2657: ("bd171877c", "GLM-5.2 GB300 Dynamo-TRT agentic MTP, aggregated and disaggregated: each multi-node "
               "row pins the acceptance of the srt-slurm recipe it names, and only that one"),
    2690: ("6816ed05f", "DeepSeek-V4 GB300 Dynamo-TRT AgentX recipes: the draft method is read from TRT's "
               "speculative_config decoding_type"),
    2676: ("de871da96", "DeepSeek-V4 GB300 Dynamo-vLLM agentic aggregated TP4 points: the chat template is "
               "used by the srt-slurm recipe's benchmark command"),
    2672: ("bf317e636", "Kimi-K3 B200 PP2 agentic sweep: the launcher injects the acceptance length; a lane "
               "without speculative decoding pins none"),
    2700: ("056876ec1", "Kimi-K3 GB200 vLLM AgentX update whose changelog entry the squash put before "
               "entries merged meanwhile"),
    2611: ("645d519ca", "MiniMax-M3 B200 vLLM EAGLE3 AgentX points: --speculative-config is built with printf"),
    2642: ("5eb64485e", "GLM-5.2 GB200 SGLang agentic MTP, disaggregated: the draft length is the decode "
               "workers'; the recipes set SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1"),
    2567: ("1bb270dac", "true finding: DeepSeek-V4 GB200 vLLM agentic MTP pins AL 2.49 where k=2's golden "
               "value is 2.27"),
    2620: ("3d5581562", "true finding: GLM-5.2 GB200 SGLang agentic MTP sweep sets "
               "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1, which lowers the draft's precision"),
    2601: ("c5f3f82b2", "true finding: a single-node H100 agentic config added with no benchmark script"),
    2218: ("b82b2e900", "Qwen3.5 GB300 Dynamo-TRT MTP 8k1k: the sa-bench recipes leave use_chat_template at "
               "srt-slurm's default (true)"),
    2115: ("bed23eade", "GLM-5.1 GB200 Dynamo-SGLang MTP: one srt-slurm recipe composing variants (base + "
               "zip_override_*), its sa-bench client at srt-slurm's chat-template default"),
}

_LINE_OF_MASTER = re.compile(r"(configs/[^/\s]+-master\.yaml):\d+")
# how many lines Check arch read (its PASS reason says): fewer once a helper's unused statements
# are emptied, so the comparison sets the number aside as it does master-config line numbers
_LINES_READ = re.compile(r"\bin \d+ added or launch lines\b")
_TOP_KEY = re.compile(r"^([^\s#][^:]*?)\s*:(?:\s|$)")


def merge_commit(number: int, short: str) -> str:
    """The full SHA of the PR's squash commit, checked to be the one "... (#number)"."""
    sha = git("rev-parse", short).decode().strip()
    if not git("log", "-1", "--format=%s", sha).decode().strip().endswith(f"(#{number})"):
        raise SystemExit(f"#{number}: commit {short} is not its squash merge")
    return sha


def full_tree(sha: str) -> dict[str, str]:
    """path -> text of the reference tree at ``sha`` under KEPT_ROOTS (UTF-8 files only)."""
    listing = git("ls-tree", "-r", "-z", sha).decode().split("\0")[:-1]
    blobs = []
    for row in listing:
        meta, path = row.split("\t", 1)
        if meta.split()[1] == "blob" and path.startswith(KEPT_ROOTS):
            blobs.append((path, meta.split()[2]))
    proc = subprocess.run(["git", "--git-dir", str(REFERENCE), "cat-file", "--batch"], check=True,
                          capture_output=True, input="".join(f"{blob}\n" for _, blob in blobs).encode())
    out, pos, tree = proc.stdout, 0, {}
    for path, _ in blobs:
        end = out.index(b"\n", pos)
        size = int(out[pos:end].split()[2])
        data = out[end + 1:end + 1 + size]
        pos = end + 1 + size + 1
        try:
            tree[path] = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
    return tree


def master_blocks(text: str) -> list[tuple[str | None, str]]:
    """A master config's text as (top-level key, its lines) chunks; comment and blank lines
    go with the key that follows them, and those after the last key with none."""
    chunks: list[tuple[str | None, list[str]]] = []
    pending: list[str] = []
    for line in text.splitlines(keepends=True):
        match = _TOP_KEY.match(line)
        if match:
            chunks.append((match.group(1).strip("\"'"), pending + [line]))
            pending = []
        elif line.strip() == "" or line.startswith("#") or not chunks:
            pending.append(line)
        else:
            chunks[-1][1].extend(pending + [line])
            pending = []
    if pending:
        chunks.append((None, pending))
    return [(key, "".join(lines)) for key, lines in chunks]


def trim_master(path: str, text: str, keep: set[str]) -> str:
    """``text`` with only the blocks of ``keep``; their parsed entries must be unchanged."""
    kept = "".join(chunk for key, chunk in master_blocks(text) if key in keep)
    whole, cut = master_files({path: text}), master_files({path: kept})
    lost = [k for k in keep if k in whole and cut.get(k) != whole[k]]
    if lost or set(cut) - keep:
        raise SystemExit(f"{path}: cutting blocks changed entry {(lost or sorted(set(cut) - keep))[0]}")
    return kept


def _keys_named(texts: list[str], keys: set[str]) -> set[str]:
    named = set()
    for key in keys:
        pattern = re.compile(rf"(?<![\w.-]){re.escape(key)}(?![\w.-])")
        if any(pattern.search(text) for text in texts):
            named.add(key)
    return named


def launched_keys(ev, base: dict[str, str], head: dict[str, str]) -> set[str]:
    """The keys whose launches the trimmed trees keep: those the PR's changelog entries
    sweep, those whose blocks it adds, changes or removes, and those affected through their
    own launch files (not only through a helper they share with every config of a runner)."""
    at_base, at_head = master_files(base), master_files(head)
    keys = set(swept_keys(head, base) or [])
    keys |= {k for k in set(at_base) | set(at_head)
             if (at_base.get(k) or (None, None))[1] != (at_head.get(k) or (None, None))[1]}
    with per_verdict.shared(ev):
        keys |= {c.key for c in affected_configs(ev) if c.how != SHARED_ONLY}
    return keys


def master_keys(launched: set[str], base: dict[str, str], head: dict[str, str], outcomes) -> set[str]:
    """The keys the trimmed master configs keep: the launched ones and any other key a
    full-tree outcome names (the open-source entry that lets a vendor engine in, say)."""
    reasons = [o.reason for o in outcomes.values()] + [d for o in outcomes.values() for d in o.details]
    every = set(master_files(base)) | set(master_files(head))
    return launched | _keys_named(reasons, every)


def launch_files(tree: dict[str, str], keys: set[str], shared: set[str] | None = None) -> set[str]:
    """Every file a launch graph names for one of ``keys`` in ``tree``, and the launchers of
    their runners (those too when the graph cannot be resolved). The launchers and helpers
    among them (files every config of a runner shares) are added to ``shared``."""
    runners = yamlio.load_text(tree[RUNNERS_PATH], RUNNERS_PATH)
    found: set[str] = set()
    own: set[str] = set()
    shared = set() if shared is None else shared
    for key, (path, entry) in master_files(tree).items():
        if key not in keys:
            continue
        for name in runner_names(str(entry.get("runner", "")), runners):
            launcher = launcher_path(name)
            while launcher in tree and launcher not in found:  # a launcher kept as a symlink
                found.add(launcher)
                shared.add(launcher)
                text = tree[launcher].strip()
                if "\n" in text or not text.endswith(".sh"):
                    break
                launcher = str(Path(launcher).parent / text)
        try:
            graph = launch_graph(tree, key, entry, runners, path)
        except LaunchGraphError as exc:
            print(f"  [{key}]: {str(exc).splitlines()[0]}")
            continue
        found |= {p for p in graph.paths() if p in tree}
        shared |= {f.path for f in graph.files if f.role in (LAUNCHER, HELPER)}
        own |= {f.path for f in graph.files if f.role not in (LAUNCHER, HELPER)}
    shared -= own  # a file that is also some config's own script or recipe is not shared
    return found


_SECOND_LEVEL = re.compile(r"^  ([^\s#].*?):(?:\s|$)")


def trim_runners(text: str, labels: set[str]) -> str:
    """runners.yaml with only the second-level entries (a label's runners, a label's hardware)
    of ``labels``; what they parse to must be unchanged."""
    out, keep = [], True
    for line in text.splitlines(keepends=True):
        entry = _SECOND_LEVEL.match(line)
        if entry:
            keep = entry.group(1).strip("\"'") in labels
        elif line[:1] not in ("", " ", "\n"):
            keep = True  # a top-level key
        if keep:
            out.append(line)
    cut, whole = yamlio.load_text("".join(out), RUNNERS_PATH), yamlio.load_text(text, RUNNERS_PATH)
    for section, entries in whole.items():
        kept = {k: v for k, v in (entries or {}).items() if k in labels}
        if (cut.get(section) or {}) != kept:
            raise SystemExit(f"{RUNNERS_PATH}: cutting labels changed section {section}")
    return "".join(out)


def runner_labels(trees: list[dict[str, str]], keys: set[str]) -> set[str]:
    return {str(entry.get("runner", "")) for tree in trees
            for key, (_, entry) in master_files(tree).items() if key in keys}


# -- shell files: statements no check depends on are emptied (their lines stay, empty) ----------

SHELL_FILE = re.compile(r"\.(?:sh|bash|slurm)$")
CUT_FROM = 6000  # bytes: smaller shell files are kept whole
_HEREDOC = re.compile(r"<<(-?)\s*([\"']?)([A-Za-z_]\w*)\2")
_CLOSER = re.compile(r"^(?:fi|done|esac|\}|\)|else|elif|then|do|;;)(?:\s|;|$)")
_DEFINES = re.compile(r"^(?:function\s+)?([A-Za-z_][\w-]*)\s*\(\s*\)")


def _scan(line: str, quote: str | None) -> tuple[str | None, bool, tuple[str, bool] | None]:
    """After one line: the quote still open, whether the line continues on the next, and the
    here-document it opens (delimiter, tabs stripped)."""
    i, opened = 0, None
    while i < len(line):
        ch = line[i]
        if quote == "'":
            quote = None if ch == "'" else quote
        elif quote == '"':
            if ch == "\\":
                i += 1
            elif ch == '"':
                quote = None
        elif ch == "\\":
            i += 1
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t;("):
            break
        elif line.startswith("<<", i) and not line.startswith("<<<", i):
            match = _HEREDOC.match(line, i)
            if match:
                opened = (match.group(3), match.group(1) == "-")
                i = match.end()
                continue
        i += 1
    continues = quote is None and line.endswith("\\") and not line.endswith("\\\\")
    return quote, continues, opened


def statements(text: str) -> list[tuple[int, int]]:
    """Line ranges [start, stop) of a shell file's top-level statements: each begins on a line
    in column 0 that no open quote, here-document or continuation holds and that closes no
    block, and runs to the next one (comments and empty lines after it included); the lines
    before the first are a range of their own."""
    lines = text.split("\n")
    starts, quote, continued, heredoc = [0], None, False, None
    for number, line in enumerate(lines):
        if heredoc:
            if (line.lstrip("\t") if heredoc[1] else line) == heredoc[0]:
                heredoc = None
            continue
        if quote is None and not continued and line[:1] not in ("", " ", "\t", "#") \
                and not _CLOSER.match(line) and number:
            starts.append(number)
        quote, continued, opened = _scan(line, quote)
        heredoc = opened or heredoc
    return list(zip(starts, starts[1:] + [len(lines)], strict=True))


def _chunks(text: str) -> list[str]:
    lines = text.split("\n")
    return ["\n".join(lines[a:b]) for a, b in statements(text)]


def empty_statements(text: str, emptied: frozenset[str]) -> str:
    """``text`` with every top-level statement whose text is in ``emptied`` made empty lines."""
    lines = text.split("\n")
    for a, b in statements(text):
        if "\n".join(lines[a:b]) in emptied:
            lines[a:b] = [""] * (b - a)
    return "\n".join(lines)


def statement_candidates(base: dict[str, str], head: dict[str, str], path: str) -> list[str]:
    """The statements of ``path`` that may be emptied: in a file both trees hold, only those
    both versions have (a statement the PR changes stays as it is, so its diff does too)."""
    versions = [tree[path] for tree in (base, head) if path in tree]
    found = [c for c in _chunks(versions[-1]) if c.strip()]
    if len(versions) == 2 and versions[0] != versions[1]:
        other = set(_chunks(versions[0]))
        found = [c for c in found if c in other]
    return list(dict.fromkeys(found))


def unused_functions(tree: dict[str, str], path: str, candidates: list[str]) -> list[str]:
    """The function definitions among ``candidates`` whose names nothing else in the tree names
    (a first guess at what a launch never runs, checked like any other)."""
    texts = [t for p, t in tree.items() if p != path] + [c for c in candidates if not _DEFINES.match(c)]
    found = []
    for chunk in candidates:
        match = _DEFINES.match(chunk)
        if match:
            word = re.compile(rf"(?<![\w-]){re.escape(match.group(1))}(?![\w-])")
            if not any(word.search(t) for t in texts) and not word.search(chunk, match.end()):
                found.append(chunk)
    return found


def shell_ok(text: str) -> bool:
    return subprocess.run(["bash", "-n"], input=text.encode(), capture_output=True).returncode == 0


def reduce(candidates: list[str], accepted: frozenset[str], works) -> frozenset[str]:
    """The largest ``accepted`` this bisection finds: all candidates at once, else each half."""
    if not candidates:
        return accepted
    if works(accepted | set(candidates)):
        return accepted | set(candidates)
    if len(candidates) == 1:
        return accepted
    half = len(candidates) // 2
    return reduce(candidates[half:], reduce(candidates[:half], accepted, works), works)


def trimmed_trees(base: dict[str, str], head: dict[str, str], files: set[str], keys: set[str],
                  emptied: dict[str, frozenset[str]] | None = None) -> tuple[dict[str, str], dict[str, str]]:
    """Both trees cut to ``files``, master configs to ``keys``, runners.yaml to their runners'
    labels, the changelog to its slice and the shell files of ``emptied`` to what is kept."""
    trees, labels = [], runner_labels([base, head], keys)
    for tree in (base, head):
        cut = {p: tree[p] for p in sorted(files) if p in tree and not MASTER_PATH.match(p)}
        for path, text in tree.items():
            if MASTER_PATH.match(path) and keys & set(master_files({path: text})):
                cut[path] = trim_master(path, text, keys)
        if RUNNERS_PATH in cut:
            cut[RUNNERS_PATH] = trim_runners(cut[RUNNERS_PATH], labels)
        for path, gone in (emptied or {}).items():
            if path in cut:
                cut[path] = empty_statements(cut[path], gone)
        trees.append(cut)
    base_log, _ = changelog_slice(base[CHANGELOG], head[CHANGELOG])
    start = len(base[CHANGELOG]) - len(base_log)  # the slice keeps the PR's text as it is
    trees[0][CHANGELOG], trees[1][CHANGELOG] = base_log, head[CHANGELOG][start:]
    return trees[0], trees[1]


def _plain(reason: str) -> str:
    return _LINES_READ.sub("in N added or launch lines", _LINE_OF_MASTER.sub(r"\1", reason))


def differences(full, trimmed) -> list[str]:
    """Each check whose trimmed outcome is not the full one (status, or reason beyond
    master-config line numbers)."""
    found = []
    for name, outcome in full.items():
        other = trimmed[name]
        if other.status != outcome.status:
            found.append(f"{name}: {outcome.status.value} on the full trees, {other.status.value} trimmed "
                         f"({other.reason[:300]})")
        elif _plain(other.reason) != _plain(outcome.reason):
            found.append(f"{name}: same status {outcome.status.value}, but the reason differs:\n"
                         f"    full:    {outcome.reason[:400]}\n    trimmed: {other.reason[:400]}")
    return found


def extract(number: int, short: str, what: str) -> dict | None:
    sha = merge_commit(number, short)
    base_sha = git("rev-parse", f"{sha}^").decode().strip()
    merged_at = git("log", "-1", "--format=%cI", sha).decode().strip()
    when = datetime.fromisoformat(merged_at)
    base, head = full_tree(base_sha), full_tree(sha)

    def outcomes(base_tree: dict[str, str], head_tree: dict[str, str]):
        return corpus.run_checks(corpus.evidence(base_tree, head_tree, when, base_sha, sha))

    full = outcomes(base, head)
    launched = launched_keys(corpus.evidence(base, head, when, base_sha, sha), base, head)
    keys = master_keys(launched, base, head, full)
    shared: set[str] = set()
    graphs = launch_files(base, launched, shared) | launch_files(head, launched, shared)
    changed = {p for p in set(base) | set(head) if base.get(p) != head.get(p)}
    files = {RUNNERS_PATH} | graphs | changed
    cut_base, cut_head = trimmed_trees(base, head, files, keys)
    wrong = differences(full, outcomes(cut_base, cut_head))
    if wrong:
        print(f"#{number}: not written, the trimmed trees change what the checks say:")
        for line in wrong:
            print(f"  {line}")
        return None
    # a changed file no launch runs counts only through its diff: left out when no check's
    # outcome (reasons included) depends on it
    left_out = []
    for path in sorted(changed - graphs - {RUNNERS_PATH, CHANGELOG},
                       key=lambda p: -len(head.get(p) or base.get(p) or "")):
        if MASTER_PATH.match(path):
            continue
        trial = trimmed_trees(base, head, files - {path}, keys)
        if not differences(full, outcomes(*trial)):
            files.discard(path)
            left_out.append(path)
            cut_base, cut_head = trial
    # big shared launchers and helpers (the configs' own scripts and recipes stay whole): the
    # top-level statements no outcome depends on are emptied, each file's lines keeping their
    # numbers; bash must still parse what is left
    emptied: dict[str, frozenset[str]] = {}
    big = [p for p in files & shared if SHELL_FILE.search(p)
           and max(len(t.get(p) or "") for t in (base, head)) > CUT_FROM]
    for path in sorted(big, key=lambda p: -len(head.get(p) or base.get(p) or "")):
        versions = [t[path] for t in (cut_base, cut_head) if path in t]
        parses = all(shell_ok(v) for v in versions)

        def works(gone: frozenset[str], path=path, parses=parses) -> bool:
            trial = trimmed_trees(base, head, files, keys, {**emptied, path: frozenset(gone)})
            if parses and not all(shell_ok(t[path]) for t in trial if path in t):
                return False
            return not differences(full, outcomes(*trial))

        candidates = statement_candidates(cut_base, cut_head, path)
        guess = frozenset(unused_functions(cut_head if path in cut_head else cut_base, path, candidates))
        accepted = guess if guess and works(guess) else frozenset()
        accepted = reduce([c for c in candidates if c not in accepted], accepted, works)
        if accepted:
            emptied[path] = accepted
            print(f"  {path}: {len(accepted)} of {len(candidates)} statements emptied")
    cut_base, cut_head = trimmed_trees(base, head, files, keys, emptied)
    wrong = differences(full, outcomes(cut_base, cut_head))
    if wrong:  # each step was checked on its own; the whole cut is checked once more
        print(f"#{number}: not written, the trimmed trees change what the checks say:")
        for line in wrong:
            print(f"  {line}")
        return None
    out = HERE / str(number)
    shutil.rmtree(out, ignore_errors=True)
    head_files = {p: t for p, t in cut_head.items() if cut_base.get(p) != t}
    deleted = sorted(p for p in cut_base if p not in cut_head)
    for folder, written in (("base", cut_base), ("head", head_files)):
        for path, text in written.items():
            target = out / folder / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    paths = git("diff", "--name-only", "--no-renames", "-z", base_sha, sha).decode().split("\0")[:-1]
    meta = {"number": number, "title": git("log", "-1", "--format=%s", sha).decode().strip(), "what": what,
            "base": base_sha, "head": sha, "merged_at": merged_at, "changed": sorted(paths),
            "left-out": left_out, "deleted": deleted, "kept-keys": sorted(keys),
            "outcomes": {name: o.status.value for name, o in full.items()}}
    (out / "pr.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return meta


def main(argv: list[str]) -> int:
    if not (REFERENCE / "HEAD").exists():
        print(f"no clone of the reference repository at {REFERENCE} (set INFX_REFERENCE_REPO)")
        return 1
    refused = 0
    for number in [int(a) for a in argv] or sorted(PRS):
        meta = extract(number, *PRS[number])
        if meta is None:
            refused += 1
            continue
        shown = " ".join(f"{k}={v}" for k, v in meta["outcomes"].items())
        print(f"#{number}: {len(meta['kept-keys'])} keys kept; {shown}")
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Affected configs: master-config entries a PR adds, changes, re-enables or relaunches.

An entry is also affected when its linked recipe (configs/recipes/<key>.yaml), a file that
recipe launches, a launch file named after the config, or (multi-node) a shared helper the
trusted policy names for its runner SKU changes. The facts the policy
checks read about a config (SKU, scenarios, lanes, launch lines) live here too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from typing import Any

from infx.config.recipe import Recipe, parse_recipe, recipe_path, render
from infx.config.scenarios import AGENTIC, AGENTIC_ID, scenario_id
from infx.errors import InfxError
from infx.plan.benchmark_content import LAUNCH_PATH, RECIPE_PATH, load_tree_file
from infx.plan.launch_graph import (
    HELPER,
    LAUNCHER,
    RUNNERS_PATH,
    LaunchGraph,
    LaunchGraphError,
    file_lines,
    lane_settings,
    lanes,
    launch_graph,
)
from infx.signoff import per_verdict
from infx.signoff.model import Evidence
from infx.signoff.rules.configs_at import MASTER_PATH, master_files, runner_sku, runs_new_rows
from infx.signoff.rules.policy_reads import EvidenceGap, base_text, changed_files, head_text, policy
from infx.signoff.rules.scan import Line, file_rows, join_continuations, strip_comment, text_lines

SPEC_KEY = re.compile(r"-mtp\b|eagle|dspark", re.IGNORECASE)
SPEC_FLAGS = ("--speculative-config", "--speculative-algorithm", "speculative_config",
              "--num-speculative-tokens", "--speculative-num-steps")
SPEC_METHOD = re.compile(r"(?:^|\s)--method[ =][\"']?(?:eagle3|eagle|mtp|dspark)\b", re.IGNORECASE)
_DRAFT_ZERO = re.compile(r"(?:^|_)(?:MTP_SIZE|NUM_DRAFT_TOKENS|DRAFT_LEN)=0$")


# how a config is affected (AffectedConfig.how), one name each for the checks that branch on it
ADDED, CHANGED = "added", "changed"  # its block in the master config
RECIPE_CHANGED, LAUNCH_CHANGED = "recipe changed", "launch file changed"  # its own launch, not the block
SHARED_ONLY = "shared helper changed"  # attributed only through a file it shares with other configs
LAUNCH_CHANGES = (RECIPE_CHANGED, LAUNCH_CHANGED)


@dataclass(frozen=True)
class AffectedConfig:
    key: str
    entry: dict[str, Any]
    how: str  # ADDED | CHANGED | RECIPE_CHANGED | LAUNCH_CHANGED | SHARED_ONLY
    master_path: str
    recipe: Recipe | None = None
    files: tuple[str, ...] = ()  # the PR's changed files that make it affected (for Check `sweep`'s WARN)

    @property
    def framework(self) -> str:
        return str(self.entry.get("framework", ""))

    @property
    def prefix(self) -> str:
        return str(self.entry.get("model-prefix", ""))

    @property
    def precision(self) -> str:
        return str(self.entry.get("precision", ""))

    @property
    def sku(self) -> str:
        return runner_sku(str(self.entry.get("runner", "")))

    @property
    def agentic(self) -> bool:
        return AGENTIC in (self.entry.get("scenarios") or {}) or "agentic" in self.key

    @property
    def scenarios(self) -> list[str]:
        return scenario_ids(self.entry)

    @cached_property
    def lanes(self) -> list[dict[str, Any]]:
        return search_space(self.entry)

    def where(self) -> str:
        return f"{self.master_path} [{self.key}]"


def scenario_ids(entry: dict[str, Any]) -> list[str]:
    ids: list[str] = []
    for kind, items in (entry.get("scenarios") or {}).items():
        if kind == AGENTIC:
            found = [AGENTIC_ID]
        else:
            found = [scenario_id(it.get("isl"), it.get("osl"))
                     for it in items or [] if isinstance(it, dict)]
        ids += [s for s in found if s not in ids]
    return ids


def search_space(entry: dict[str, Any]) -> list[dict[str, Any]]:
    return [lane for items in (entry.get("scenarios") or {}).values() for it in items or []
            if isinstance(it, dict) for lane in it.get("search-space") or [] if isinstance(lane, dict)]


def head_master_entries(evidence: Evidence) -> dict[str, tuple[str, dict[str, Any]]]:
    """Every master-config entry at the assessed head."""
    paths = {p for p in evidence.head_files if MASTER_PATH.match(p)}
    changed = {f.filename for f in changed_files(evidence)
               if MASTER_PATH.match(f.filename) and f.status != "removed"}
    texts = {p: head_text(evidence, p) for p in paths | changed}
    missing = sorted(p for p in changed if texts[p] is None)
    if missing:
        raise EvidenceGap(f"{missing[0]} is changed by the PR but has no text at the assessed head")
    return master_files(texts)


def _base_master_entries(evidence: Evidence) -> dict[str, tuple[str, dict[str, Any]]]:
    texts: dict[str, str | None] = {p: t for p, t in evidence.base_files.items() if MASTER_PATH.match(p)}
    for f in changed_files(evidence):
        old = f.previous_filename or f.filename
        if f.status != "added" and MASTER_PATH.match(old):
            texts[old] = base_text(evidence, old)
            if texts[old] is None:
                raise EvidenceGap(f"{old} is changed by the PR but has no text at the PR base")
    return master_files(texts)


def head_recipe(evidence: Evidence, key: str) -> Recipe | None:
    """The recipe linked to ``key`` at head, or None when the key has none."""
    path = recipe_path(key)
    text = evidence.head_files.get(path)
    if text is None:
        if path in {f.filename for f in changed_files(evidence) if f.status != "removed"}:
            raise EvidenceGap(f"{path} at the assessed head was not read")
        return None
    return _parse_recipe(path, text)


@lru_cache(maxsize=256)
def _parse_recipe(path: str, text: str) -> Recipe:
    return parse_recipe(text, path)


_GRAPHS: dict[tuple[int, str], tuple[object, object, LaunchGraph | EvidenceGap | None]] = {}


def config_graph(evidence: Evidence, config: AffectedConfig) -> LaunchGraph | None:
    """The config's launch graph at head (infx.plan.launch_graph), or None when the head
    tree holds no launcher of its runner at all (a trimmed tree: the launch cannot be
    followed from the runner, and the files named after the config stand in). A launcher
    that would find nothing to run is an EvidenceGap naming the file to add."""
    graph = _graph_or_gap(evidence, config)
    if isinstance(graph, EvidenceGap):
        raise graph
    return graph


def _graph_or_gap(evidence: Evidence, config: AffectedConfig) -> LaunchGraph | EvidenceGap | None:
    """config_graph's answer, its EvidenceGap returned rather than raised (once per tree and key)."""
    tree = evidence.head_files
    slot = (id(tree), config.key)
    cached = _GRAPHS.get(slot)
    if cached and cached[0] is tree and cached[1] is config.entry:
        return cached[2]
    runners = _runners(tree)  # an unreadable runners.yaml is a gap for every PR
    graph: LaunchGraph | EvidenceGap | None
    try:
        graph = launch_graph(tree, config.key, config.entry, runners, config.master_path)
    except LaunchGraphError as exc:
        graph = EvidenceGap(str(exc))
        if exc.no_launcher:
            graph = _launcher_removed(evidence, config) or None
    if len(_GRAPHS) > 512:
        _GRAPHS.clear()
    _GRAPHS[slot] = (tree, config.entry, graph)
    return graph


def _launcher_removed(evidence: Evidence, config: AffectedConfig) -> EvidenceGap | None:
    """A gap when the head has no launcher of the config's runner but the base had one: the
    PR removed what the runner executes, so files named after the config cannot stand in for
    its launch (only a tree that never held a launcher is read that way)."""
    if not evidence.base_files:
        return None
    try:
        runners = _runners(evidence.base_files)
    except EvidenceGap as gap:
        return gap
    try:
        launch_graph(evidence.base_files, config.key, config.entry, runners, config.master_path)
    except LaunchGraphError as exc:
        if exc.no_launcher:
            return None
    except InfxError:
        pass  # the base's launcher exists (its graph got past it)
    return EvidenceGap(f"[{config.key}]: the base's launcher of runner {config.entry.get('runner')!r} "
                       "is gone at the assessed head, so its launch cannot be followed (restore the "
                       "launcher under runners/)")


def _runners(tree) -> Any:
    text = tree.get(RUNNERS_PATH)
    if text is None:
        return None
    try:
        return load_tree_file(RUNNERS_PATH, text)  # parsed once, not once per config
    except InfxError as exc:
        raise EvidenceGap(f"{RUNNERS_PATH} at the assessed head cannot be parsed: "
                          f"{str(exc).splitlines()[0]}") from exc


def affected_configs(evidence: Evidence) -> list[AffectedConfig]:
    """Entries the PR adds, changes or re-enables, or whose recipe/launch files it changes
    (worked out once per verdict: infx.signoff.per_verdict)."""
    return list(per_verdict.once(evidence, "affected configs", lambda: _affected_configs(evidence)))


def _affected_configs(evidence: Evidence) -> list[AffectedConfig]:
    head = head_master_entries(evidence)
    base = _base_master_entries(evidence)
    found: dict[str, AffectedConfig] = {}
    for key, (path, entry) in head.items():
        if key not in base:
            found[key] = AffectedConfig(key, entry, ADDED, path, head_recipe(evidence, key), (path,))
        elif runs_new_rows(base[key][1], entry):
            found[key] = AffectedConfig(key, entry, CHANGED, path, head_recipe(evidence, key), (path,))
    changed = {f.filename for f in changed_files(evidence)}
    for key, (path, entry) in head.items():
        if key in found:
            continue
        if recipe_path(key) in changed:
            found[key] = AffectedConfig(key, entry, RECIPE_CHANGED, path, head_recipe(evidence, key),
                                        (recipe_path(key),))
            continue
        recipe = head_recipe(evidence, key) if recipe_path(key) in evidence.head_files else None
        config = AffectedConfig(key, entry, LAUNCH_CHANGED, path, recipe)
        # a key whose launch cannot be resolved at head (its script is missing) is judged by
        # the files named after it: only a PR that changes one of them is answered with the
        # gap (by the checks that read its launch); every other PR is not about it
        graph = _graph_or_gap(evidence, config)
        if isinstance(graph, LaunchGraph):
            own = {f.path for f in graph.files if f.role not in (LAUNCHER, HELPER)}
            shared = {f.path for f in graph.files if f.role in (LAUNCHER, HELPER)}
        else:
            own = {p for p in changed if LAUNCH_PATH.match(p) and _names_config(p, config)}
            shared = set(helper_files(evidence, config))
        if recipe and changed.intersection(recipe.files) or changed & own:
            found[key] = replace(config, files=tuple(sorted(changed & (own | set(recipe.files if recipe else ())))))
        elif changed & shared:
            found[key] = AffectedConfig(key, entry, SHARED_ONLY, path, recipe,
                                        tuple(sorted(changed & shared)))
    # a launch file the PR deletes is in no head graph: a config that ran it at base runs
    # something else now (another script the launcher falls back to), so its launch changed
    gone = {p for p in changed if LAUNCH_PATH.match(p) and evidence.head_files.get(p) is None}
    if gone and evidence.base_files:
        for key, (path, entry) in head.items():
            if key in found or key not in base:
                continue
            ran = _base_own_files(evidence, key, base[key][0], base[key][1])
            if ran & gone:
                found[key] = AffectedConfig(key, entry, LAUNCH_CHANGED, path, None,
                                            tuple(sorted(ran & gone)))
    return [found[key] for key in sorted(found)]


def _base_own_files(evidence: Evidence, key: str, path: str, entry: dict[str, Any]) -> set[str]:
    """The files a config's jobs ran at base other than launchers and helpers (its launch
    graph in the base tree; none when that cannot be followed)."""
    try:
        graph = launch_graph(evidence.base_files, key, entry, _runners(evidence.base_files), path)
    except (LaunchGraphError, EvidenceGap, InfxError):
        return set()
    return {f.path for f in graph.files if f.role not in (LAUNCHER, HELPER)}


def launch_lines(evidence: Evidence, config: AffectedConfig, eval_only: bool = False) -> list[Line]:
    """What the config's launch is made of: its rendered recipe, the files the recipe
    launches, and the files of its launch graph (infx.plan.launch_graph: script, srt-slurm
    recipes, launcher and helpers, the lines of the branch its throughput rows take, or its
    eval-only rows with ``eval_only``; launcher and helper lines are marked shared). On a
    trimmed tree without the runner's launcher, launch files whose path names this config
    stand in for the graph. Worked out once per config and verdict (infx.signoff.per_verdict)."""
    first, lines = per_verdict.once(evidence, ("launch lines", config.key, eval_only),
                              lambda: (config, _launch_lines(evidence, config, eval_only)))
    if first.entry is not config.entry or first.recipe is not config.recipe \
            or first.master_path != config.master_path:
        return _launch_lines(evidence, config, eval_only)  # another config under this key
    return list(lines)


def _launch_lines(evidence: Evidence, config: AffectedConfig, eval_only: bool) -> list[Line]:
    graph = config_graph(evidence, config)
    if graph is None:
        return _named_launch_lines(evidence, config)
    head = _recipe_lines(evidence, config) + settings_lines(evidence, config)
    own = set(config.recipe.files) if config.recipe else set()
    for path in sorted(own):
        head += text_lines(path, head_text(evidence, path))
    lines = list(join_continuations(head))
    for file in graph.files:
        if file.path not in own:
            lines += _graph_file_lines(file.path, file.role in (LAUNCHER, HELPER),
                                       file_lines(file, evidence.head_files, eval_only))
    return lines


@lru_cache(maxsize=1024)
def _graph_file_lines(path: str, shared: bool, kept: tuple[tuple[int, str], ...]) -> tuple[Line, ...]:
    """One graph file's lines as the checks read them (comments removed, continuations
    joined; a continuation never runs into the next file): built once for every config that
    runs the same lines of it. Lines are immutable, so configs share them."""
    lines = [Line(path, number, strip_comment(text), shared=shared) for number, text in kept]
    return tuple(join_continuations([line for line in lines if line.text.strip()]))


def settings_lines(evidence: Evidence, config: AffectedConfig) -> list[Line]:
    """The ``additional-settings`` of the config's lanes (workers included), each at its line
    of the master config: the launch exports them, so an acceptance length or a serving
    setting may be pinned there."""
    text = file_rows(evidence.head_files.get(config.master_path) or "")
    start = (config_line(evidence, config) or 1) - 1
    found: list[Line] = []
    for setting in dict.fromkeys(s for _, lane in lanes(config.entry) for s in lane_settings(lane)):
        number = next((i + 1 for i in range(start, len(text)) if setting in text[i]), None)
        found.append(Line(config.master_path, number, setting))
    return found


def _recipe_lines(evidence: Evidence, config: AffectedConfig) -> list[Line]:
    """The config's rendered structured recipe (configs/recipes/<key>.yaml), checked to
    launch only files that exist."""
    lines: list[Line] = []
    if config.recipe:
        label = recipe_path(config.key)
        source = evidence.head_files.get(label) or ""
        lines += [Line(label, _recipe_line(source, text), text)
                  for text in render(config.recipe).lines() if text]
        absent = [p for p in config.recipe.files if head_text(evidence, p) is None]
        if absent:
            raise EvidenceGap(f"{label} launches {absent[0]}, which does not exist at the assessed head")
    return lines


def _named_launch_lines(evidence: Evidence, config: AffectedConfig) -> list[Line]:
    """Launch lines of a tree without the config's launcher (see launch_lines)."""
    lines = _recipe_lines(evidence, config)
    files: list[str] = list(config.recipe.files) if config.recipe else []
    files += [p for p in per_verdict.once(evidence, "named launch candidates", lambda: _candidates(evidence))
              if _names_config(p, config)]
    for path in dict.fromkeys(files):
        lines += text_lines(path, head_text(evidence, path))
    for path in _launched_helpers(evidence, config, files):
        lines += [replace(line, shared=True) for line in text_lines(path, head_text(evidence, path))]
    return list(join_continuations(lines))


def _launched_helpers(evidence: Evidence, config: AffectedConfig, files: list[str]) -> list[str]:
    """The shared helper files a trimmed tree's launch stands for: those the base already
    held, and those a file of the launch names (by file name, followed from file to file). A
    file the PR adds to the helper folder that nothing names is never run."""
    helpers = [p for p in helper_files(evidence, config) if p not in files]
    base = evidence.base_files or {}
    kept = {p for p in helpers if base.get(p) is not None}
    texts = [head_text(evidence, p) or "" for p in [*files, *sorted(kept)]]
    while True:
        named = {p for p in helpers if p not in kept
                 and any(p.rsplit("/", 1)[-1] in text for text in texts)}
        if not named:
            return [p for p in helpers if p in kept]
        kept |= named
        texts += [head_text(evidence, p) or "" for p in sorted(named)]


def _candidates(evidence: Evidence) -> list[str]:
    """Files that may be named after a config (changed ones and launch files at head), in
    path order, master configs and recipes excepted."""
    paths = {f.filename for f in changed_files(evidence) if f.status != "removed"}
    paths |= {p for p, text in evidence.head_files.items() if text is not None and LAUNCH_PATH.match(p)}
    return [p for p in sorted(paths) if not MASTER_PATH.match(p) and not RECIPE_PATH.match(p)]


def helper_files(evidence: Evidence, config: AffectedConfig) -> list[str]:
    """Shared multi-node helper files (per the trusted engines policy) a multi-node config
    launches through, as they exist at head."""
    if not config.entry.get("multinode"):
        return []
    rules = policy(evidence).doc("engines").get("multi-node-helpers") or []
    dirs = tuple(p for rule in rules if config.sku in rule["skus"] for p in rule["paths"])
    if not dirs:
        return []
    return sorted(p for p, text in evidence.head_files.items() if text is not None and p.startswith(dirs))


def _recipe_line(source: str, rendered: str) -> int | None:
    """The recipe line a rendered launch line comes from, for reasons that cite a line."""
    env = re.match(r"export (\w+)=", rendered)
    keys = [f"{env.group(1)}:"] if env else []
    if re.search(r"SIMULATE_ACC|FORCE_NUM_ACCEPTED|synthetic_acceptance|acceptance-length", rendered):
        keys.append("synthetic-acceptance:")
    keys.append("client:" if rendered.startswith("--endpoint") else "model:")
    for key in keys:
        match = re.search(rf"^\s*{re.escape(key)}", source, re.MULTILINE)
        if match:
            return source.count("\n", 0, match.start()) + 1
    return None


def _names_config(path: str, config: AffectedConfig) -> bool:
    """A launch file named after this config: the key, or prefix + engine + SKU (and no
    other precision, and agentic files only for agentic configs)."""
    return config.key.lower() in path.lower() or _names_family(
        path, config.framework, config.prefix, config.sku, config.precision, config.agentic)


@lru_cache(maxsize=8192)
def _names_family(path: str, framework: str, prefix: str, sku: str, precision: str, agentic: bool) -> bool:
    # configs of one model, engine and SKU (however many keys) ask the same of each file
    lowered, framework = path.lower(), framework.lower()
    engine = framework.split("-")[1] if framework.startswith("dynamo-") else framework.split("-")[0]
    prefix_forms = {prefix.lower(), prefix.lower().replace(".", "")}
    precisions = set(re.findall(r"(?<![a-z0-9])(fp4|fp8|bf16|int4|mxfp4|nvfp4)(?![a-z0-9])", lowered))
    return (any(p and _word_in(p, lowered) for p in prefix_forms) and engine in lowered
            and _word_in(sku.lower(), lowered) and precisions <= {precision.lower()}
            and ("agentic" in lowered) == agentic)


def _word_in(word: str, text: str) -> bool:
    """Whether ``word`` is in ``text`` as a whole name: not inside a longer one ("b200" is not
    in "gb200", "glm5" is not in "glm5.2" nor "glm51")."""
    return re.search(rf"(?<![a-z0-9.]){re.escape(word)}(?![a-z0-9]|\.\d)", text) is not None


def draft_size_zero(config: AffectedConfig) -> bool:
    """Every lane sets its draft size to 0, so speculative decoding never runs."""
    if config.recipe and config.recipe.spec and config.recipe.spec.num_draft_tokens == 0:
        return True
    if not config.lanes:
        return False
    return all(_lane_draft_zero(lane) for lane in config.lanes)


def _lane_draft_zero(lane: dict[str, Any]) -> bool:
    settings = list(lane.get("additional-settings") or [])
    for role in ("prefill", "decode"):
        if isinstance(lane.get(role), dict):
            settings += lane[role].get("additional-settings") or []
    return any(_DRAFT_ZERO.search(str(s).strip()) for s in settings)


def runs_spec_decode(lines: list[Line]) -> bool:
    """Whether a launch's own lines (not a shared helper's) turn speculative decoding on: a
    speculative flag or config block, or a draft method."""
    own = [line for line in lines if not line.shared]
    return any(flag in line.text for line in own for flag in (*SPEC_FLAGS, "speculative-config")) \
        or any(SPEC_METHOD.search(line.text) for line in own)


def is_spec_decode(config: AffectedConfig, lines: list[Line] | None = None) -> bool:
    """Spec-decode config: a lane with spec-decoding set, a recipe with a draft, speculative
    flags in its launch, or (when lanes do not say) a -mtp/eagle/dspark key. Every lane's draft
    size being 0, or every lane declaring ``spec-decoding: none``, means it is not one."""
    if draft_size_zero(config):
        return False
    declared = [str(lane["spec-decoding"]).lower() for lane in config.lanes if "spec-decoding" in lane]
    if any(value not in ("none", "", "null") for value in declared):
        return True
    # a shared helper's speculative flags serve every config on the SKU, so they prove nothing
    if (config.recipe and config.recipe.spec) or runs_spec_decode(lines or []):
        return True
    if config.lanes and len(declared) == len(config.lanes):
        return False  # every lane says spec-decoding: none, whatever the key is called
    return SPEC_KEY.search(config.key) is not None


def config_line(evidence: Evidence, config: AffectedConfig) -> int | None:
    """Line of the config key in its master file at head: the first line that starts with
    the key followed by optional whitespace and a colon (one index per master text)."""
    text = evidence.head_files.get(config.master_path) or ""
    key = config.key
    if not key or key[0].isspace() or key[-1].isspace() or "\n" in key:
        match = re.search(rf"^{re.escape(key)}\s*:", text, re.MULTILINE)
        return text.count("\n", 0, match.start()) + 1 if match else None
    return _key_lines(text).get(key)


@lru_cache(maxsize=16)
def _key_lines(text: str) -> dict[str, int]:
    """Every ``key:`` a line of ``text`` starts with -> the first line it is on (1-based).

    A line yields a candidate for each colon in it (``a:b: x`` starts with both ``a`` and
    ``a:b``). Shared by every config of a verdict: treat it as read-only."""
    found: dict[str, int] = {}
    for number, line in enumerate(text.split("\n"), 1):
        if not line or line[0].isspace():
            continue
        colon = line.find(":")
        while colon != -1:
            found.setdefault(line[:colon].rstrip(), number)
            colon = line.find(":", colon + 1)
    return found


def config_where(evidence: Evidence, config: AffectedConfig) -> str:
    """``configs/amd-master.yaml:12 [key]`` for reasons."""
    line = config_line(evidence, config)
    return f"{config.master_path}{f':{line}' if line else ''} [{config.key}]"

"""Changelog planner: appended changelog entries -> the sweep plan (benchmark and eval rows)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from infx.changelog.diff import Additions, additions
from infx.changelog.entry import (
    ChangelogEntry,
    EntryError,
    KeyResolutionError,
    did_you_mean,
    entry_problem,
    parse_entry,
    yaml_problem,
)
from infx.changelog.gitio import (
    diff_following_nesting,
    read_blobs,
    read_following_nesting,
    toplevel,
)
from infx.changelog.strict import (
    DEFAULT_REPO,
    check_bytes,
    only_link_corrections,
    validate_change,
)
from infx.config.master import load_master_configs, load_master_configs_from_texts
from infx.config.runners import load_runners, load_runners_from_text
from infx.config.scenarios import SCENARIO_TYPES
from infx.errors import InfxError, Problem
from infx.plan.contract import check_rows
from infx.plan.shaping import (
    eval_concs_of,
    filter_eval_concs,
    filter_min_prefill_ep,
    recipe_fingerprint,
    serialise_row,
    trim_rows,
)
from infx.plan.sweep_plan import Plan, benchmark_bucket, eval_bucket
from infx.yamlio import YamlLimitError, decode, find_line, load_file, load_text

DEFAULT_CHANGELOG = "perf-changelog.yaml"
DEFAULT_RUNNER_CONFIG = "configs/runners.yaml"


@dataclass(frozen=True)
class PlanFlags:
    """CLI modifiers of a sweep."""

    trim: bool = False
    all_evals: bool = False
    evals_only: bool = False


@dataclass
class Sources:
    """Where the planner gets configs: loaded lazily, each at most once."""

    load_configs: Callable[[], Any]
    load_runners: Callable[[], Any]
    load_base: Callable[[], tuple[Any, Any, dict, dict]] | None = None  # append-only only
    generate: Callable[..., list[dict]] | None = None  # default: the matrix generator
    _cache: dict[str, Any] = field(default_factory=dict)

    def get(self, name: str) -> Any:
        if name not in self._cache:
            loader = {"configs": self.load_configs, "runners": self.load_runners,
                      "base": self.load_base}[name]
            if loader is None:
                raise InfxError("append-only planning needs the base revision's inputs")
            self._cache[name] = loader()
        return self._cache[name]


def _plan_error(message: str, fix: str | None = None, key: str | None = None,
                file: str | None = None) -> InfxError:
    return InfxError(Problem(message, file=file, key=key, fix=fix))


# --- additions -> entries ------------------------------------------------------------------

def parse_additions(added: str | Additions, path: str = DEFAULT_CHANGELOG
                    ) -> list[ChangelogEntry]:
    """Validate the added changelog YAML as a list of entries.

    Errors name the head file's line when the additions know their line numbers.
    """

    if isinstance(added, str):
        added = Additions(added, ())
    if not added.text.strip():
        raise _plan_error("No additions found in the changelog file.", file=path,
                          fix="append an entry at the end of the changelog")
    try:
        # duplicate fields are an error, as in `changelog validate` (never last-one-wins)
        data = load_text(added.text, path, unique_keys=True)
    except YamlLimitError as exc:  # a cap to raise, named as such: the file may be valid
        problem = exc.problems[0]
        raise YamlLimitError(replace(problem, line=added.file_line(problem.line)),
                             exc.cap) from None
    except InfxError as exc:
        problem = exc.problems[0]
        raise InfxError(yaml_problem(problem.message, path, added.file_line(problem.line))) from None
    except (TypeError, ValueError, RecursionError) as exc:
        raise _plan_error(f"the changelog additions are not valid YAML: {exc}",
                          file=path) from None
    if not data:
        raise _plan_error("No valid YAML entries found in the changelog additions.", file=path)
    if not isinstance(data, list):
        raise InfxError(Problem(
            f"the changelog additions are not a list of entries (found {type(data).__name__}); "
            "did you edit a historical entry?", file=path, line=added.file_line(1),
            fix="append whole entries starting with '- config-keys:'"))
    starts = [n for n, line in enumerate(added.text.split("\n"), 1) if line.startswith("-")]
    entries = []
    for index, item in enumerate(data):
        try:
            entry = parse_entry(item)
            if len(starts) == len(data):
                entry = replace(entry, source_line=added.file_line(starts[index]))
            entries.append(entry)
        except EntryError as exc:
            raise InfxError(entry_problem(exc, path, _entry_line(added, index, exc.key))) from None
    return entries


def _entry_line(added: Additions, index: int, key: str | None) -> int | None:

    where = [index, key] if key else [index]
    return added.file_line(find_line(added.text, where))


def precheck(entries: Sequence[ChangelogEntry], flags: PlanFlags,
             path: str = DEFAULT_CHANGELOG) -> None:
    """Rules across entries and CLI modifiers, checked before any config is read."""
    modifiers = flags.all_evals or flags.evals_only
    no_evals = [i for i, e in enumerate(entries) if e.no_evals]
    if modifiers and no_evals:
        _entry_problem(entries, no_evals[0], path, "no-evals entries cannot use all-evals or "
                       "evals-only modifiers",
                       "remove the all-evals/evals-only label or the no-evals field")
    append_only = [i for i, e in enumerate(entries) if e.append_only]
    if append_only and len(append_only) != len(entries):
        _entry_problem(entries, append_only[0], path, "append-only entries cannot share a "
                       "sweep with regular changelog entries",
                       "send the append-only entry in its own pull request")
    if append_only and modifiers:
        _entry_problem(entries, append_only[0], path, "append-only sweeps cannot use "
                       "all-evals or evals-only modifiers", "remove the all-evals/evals-only label")


def _entry_problem(entries: Sequence[ChangelogEntry], index: int, path: str, message: str,
                   fix: str) -> None:
    raise InfxError(Problem(message, file=path, line=entries[index].source_line, fix=fix))


def resolve_entries(entries: Sequence[ChangelogEntry], master_keys: Sequence[str],
                    changelog_path: str | None = None) -> list[list[str]]:
    """Resolve every entry's keys (wildcards in master order); any bad key fails all."""
    resolved = []
    for entry in entries:
        try:
            resolved.append(entry.resolve_keys(master_keys))
        except KeyResolutionError as exc:
            near = did_you_mean(exc.pattern, master_keys)
            raise InfxError(Problem(
                str(exc), file=changelog_path, line=entry.source_line, key="config-keys",
                fix=(f"did you mean {near!r}? " if near else "")
                + "use an existing config key (see configs/*-master.yaml)")) from None
    return resolved


# --- generation ----------------------------------------------------------------------------

def _claim(claims: dict[str, set[str]], keys: Sequence[str], scenarios: tuple[str, ...]
           ) -> dict[tuple[str, ...], list[str]]:
    """Claim still-unclaimed (key, scenario) pairs; keys sharing a tuple form one group."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for key in keys:
        taken = claims.setdefault(key, set())
        fresh = tuple(s for s in scenarios if s not in taken)
        if fresh:
            taken.update(fresh)
            groups.setdefault(fresh, []).append(key)
    return groups


def _generate(sources: Sources, keys: Sequence[str], scenarios: tuple[str, ...] | None,
              evals: str, configs: Any = None, runners: Any = None) -> list[dict]:
    if sources.generate is None:
        from infx.plan.generate import generate_test_config

        sources.generate = generate_test_config
    configs = configs if configs is not None else sources.get("configs")
    runners = runners if runners is not None else sources.get("runners")
    try:
        rows = sources.generate(configs, runners, list(keys), evals=evals,
                                scenario_type=list(scenarios) if scenarios else None)
    except InfxError:
        raise
    except (ValueError, KeyError, TypeError) as exc:
        raise _plan_error(f"matrix generation failed for {list(keys)}: {exc}") from None
    return json.loads(json.dumps(rows))  # private copies: later passes may not leak edits


@dataclass
class _Run:
    """One planning pass: claims on (key, scenario) pairs and the rows collected so far."""

    flags: PlanFlags
    sources: Sources
    path: str
    bench_claims: dict[str, set[str]] = field(default_factory=dict)
    eval_claims: dict[str, set[str]] = field(default_factory=dict)
    throughput: list[dict] = field(default_factory=list)
    evals: list[dict] = field(default_factory=list)

    def add_entry(self, entry: ChangelogEntry, index: int, keys: list[str]) -> None:
        if plans_benchmarks(entry.evals_only, entry.all_evals, self.flags.evals_only):
            self._add_throughput(entry, keys)
        if not (entry.append_only or entry.no_evals):
            self._add_evals(entry, index, keys)

    def _add_throughput(self, entry: ChangelogEntry, keys: list[str]) -> None:
        for group_scenarios, group in _claim(self.bench_claims, keys, entry.scenarios()).items():
            scope = None if group_scenarios == SCENARIO_TYPES else group_scenarios
            if entry.append_only:
                self.throughput.extend(_append_only_rows(self.sources, group, scope))
            else:
                self.throughput.extend(_generate(self.sources, group, scope, "none"))

    def _add_evals(self, entry: ChangelogEntry, index: int, keys: list[str]) -> None:
        mode = "all" if (self.flags.all_evals or entry.all_evals) else "subset"
        selected: list[dict] = []
        groups = _claim(self.eval_claims, keys, entry.scenarios())
        for group_scenarios, group in groups.items():
            rows = _generate(self.sources, group, group_scenarios, mode)
            selected.extend(filter_min_prefill_ep(rows, entry.eval_min_prefill_ep))
        if entry.eval_concs is not None:
            selected = self._apply_eval_concs(entry, index, selected, claimed=bool(groups))
        self.evals.extend(selected)

    def _apply_eval_concs(self, entry: ChangelogEntry, index: int, rows: list[dict],
                          claimed: bool) -> list[dict]:
        kept = filter_eval_concs(rows, entry.eval_concs or ())
        if kept:
            return kept
        available = sorted({c for row in rows for c in eval_concs_of(row) if c is not None})
        if not claimed:
            detail = "an earlier entry (all-evals entries go first) already plans these evals"
        elif available:
            detail = f"the eval policy selected concurrencies {available}"
        else:
            detail = "the eval policy selected no eval rows for these keys"
        raise InfxError(Problem(
            f"eval-concs {list(entry.eval_concs or ())} of changelog entry {index} matched no "
            f"eval row: {detail}", file=self.path, line=entry.source_line, key="eval-concs",
            fix="list concurrencies the eval policy selects, or drop eval-concs"))


def _append_only_rows(sources: Sources, keys: Sequence[str], scope: tuple[str, ...] | None
                      ) -> list[dict]:

    base_configs, base_runners, _, _ = sources.get("base")
    base_rows = _generate(sources, keys, scope, "none", base_configs, base_runners)
    head_rows = _generate(sources, keys, scope, "none")
    from infx.plan.append_only import delta_rows  # append-only plans only

    return delta_rows(base_rows, head_rows)


def _check_append_only_scope(entries: Sequence[ChangelogEntry], resolved: list[list[str]],
                             sources: Sources) -> None:

    scope: dict[str, set[str]] = {}
    for entry, keys in zip(entries, resolved, strict=True):
        for key in keys:
            scope.setdefault(key, set()).update(entry.scenarios())
    _, _, base_raw, head_raw = sources.get("base")
    from infx.plan.append_only import check_scope  # append-only plans only

    check_scope(base_raw, head_raw, scope)


# --- plan ----------------------------------------------------------------------------------

def plans_benchmarks(evals_only: bool, all_evals: bool, label_evals_only: bool = False) -> bool:
    """Whether a changelog entry plans benchmark (throughput) rows for its keys: an evals-only
    or all-evals entry, and every entry under the evals-only label, plans evals only."""
    return not (label_evals_only or evals_only or all_evals)


def build_plan(entries: Sequence[ChangelogEntry], *, base_ref: str, head_ref: str,
               flags: PlanFlags, sources: Sources,
               changelog_path: str = DEFAULT_CHANGELOG) -> Plan:
    """The plan for already-validated entries (file order)."""
    if not entries:
        raise _plan_error("No valid YAML entries found in the changelog additions.")
    precheck(entries, flags, changelog_path)
    resolved = resolve_entries(entries, list(sources.get("configs")), changelog_path)
    if entries[0].append_only:
        _check_append_only_scope(entries, resolved, sources)
    run = _Run(flags, sources, changelog_path)
    for i in sorted(range(len(entries)), key=lambda i: not entries[i].all_evals):
        run.add_entry(entries[i], i + 1, resolved[i])
    throughput = trim_rows(run.throughput) if flags.trim else run.throughput
    return _assemble(throughput, run.evals, entries, base_ref, head_ref)


def _assemble(throughput: list[dict], evals: list[dict], entries: Sequence[ChangelogEntry],
              base_ref: str, head_ref: str) -> Plan:
    placed: list[tuple[tuple[str, ...], dict]] = []
    for row in throughput:
        row = {**row, "recipe-fingerprint": recipe_fingerprint(row)}
        placed.append((benchmark_bucket(row), serialise_row(row)))
    placed += [((eval_bucket(row),), serialise_row(row)) for row in evals]
    plan = Plan.assemble(placed, {"base_ref": base_ref, "head_ref": head_ref,
                                  "entries": [e.to_metadata() for e in entries]})
    check_rows(plan.rows(), "plan")  # fail closed if a planned row breaks the workflow row contract
    return plan


def dump_plan(plan: Plan) -> str:
    """One compact line, as the reference prints it."""
    return plan.dump()


# --- sources from files and git ------------------------------------------------------------

def default_config_files() -> list[str]:
    found = sorted(str(p) for p in Path("configs").glob("*-master.yaml"))
    if not found:
        raise _plan_error(f"no master configs found under configs/ (run in {Path.cwd()})",
                          "run from the repository root, or pass --config-files explicitly")
    return found


def file_sources(config_files: Sequence[str], runner_config: str, base_ref: str | None = None
                 ) -> Sources:
    """Sources reading the working tree, and the base revision's files via git."""

    return Sources(
        load_configs=lambda: load_master_configs(list(config_files)),
        load_runners=lambda: load_runners(runner_config),
        load_base=(lambda: _load_base(base_ref, config_files, runner_config)) if base_ref
        else None,
    )


def _repo_path(path: str) -> str:
    """``path`` relative to the repository root, as git addresses blobs."""

    top = toplevel()
    if top is None:
        return path
    try:
        return Path(path).resolve().relative_to(top.resolve()).as_posix()
    except ValueError:
        return path


def _load_base(base_ref: str, config_files: Sequence[str], runner_config: str
               ) -> tuple[Any, Any, dict, dict]:
    """Base revision's configs and runners (one cat-file batch) plus raw master mappings."""

    paths = [_repo_path(p) for p in [*config_files, runner_config]]
    blobs = read_blobs(base_ref, paths)
    missing = [p for p in paths if blobs[p] is None]
    if missing:
        raise _plan_error(f"append-only base revision is missing generation inputs: {missing}")
    texts = [(p, decode(blobs[p], f"{p} at {base_ref}")) for p in paths[:-1]]
    configs = load_master_configs_from_texts(texts)
    runners = load_runners_from_text(paths[-1], decode(blobs[paths[-1]], paths[-1]))
    base_raw: dict = {}
    for name, text in texts:
        base_raw.update(load_text(text, name) or {})
    head_raw: dict = {}
    for path in config_files:
        head_raw.update(load_file(path) or {})
    return configs, runners, base_raw, head_raw


def link_corrections(base_raw: bytes | None, head_raw: bytes | None, path: str,
                     repo: str | None) -> bool:
    """Whether a diff's deleted lines are pr-link-only corrections, which append nothing to
    plan. Judged as `changelog validate` judges them (strict.only_link_corrections; with a
    repo, also validate_change, whose located error a broken correction raises, as there)."""
    if base_raw is None or head_raw is None or not only_link_corrections(base_raw, head_raw, path):
        return False
    if repo is not None:
        validate_change(base_raw, head_raw, path, None, repo)
    return True


def no_plan(base_ref: str, head_ref: str) -> Plan:
    """The plan of a change that appends no entry (pr-link corrections): every bucket empty."""
    return _assemble([], [], [], base_ref, head_ref)


def appended_entries(base_text: str | None, head_text: str, path: str = DEFAULT_CHANGELOG
                     ) -> list[ChangelogEntry]:
    """The entries a head changelog appends to a base one, read exactly as the planner reads
    them (a deleted line or an invalid entry is a located InfxError); none when unchanged or
    when the change only corrects pr-links (strictly checked by its callers' own validation)."""
    old, new = (base_text or "").split("\n"), head_text.split("\n")
    import difflib  # the bot's path only; `infx plan` diffs with git

    diff = "\n".join(difflib.unified_diff(old, new, path, path, n=0, lineterm=""))
    try:
        added = additions(diff, path)
    except InfxError:
        if link_corrections(None if base_text is None else base_text.encode("utf-8"),
                            head_text.encode("utf-8"), path, None):
            return []
        raise
    if not added.text.strip():
        return []
    return parse_additions(added, path)


def plan_from_git(base_ref: str, head_ref: str, changelog_file: str, flags: PlanFlags,
                  sources: Sources, repo: str = DEFAULT_REPO) -> Plan:
    """Diff the changelog between two refs and plan the appended entries (none for a change
    that only corrects pr-links, judged as `changelog validate` judges it, for ``repo``).

    The git reads run in a thread while this one parses the configs (git waits on its own
    process, the parse on the CPU). Errors keep their order: a config that fails to load is
    not cached, so the planner meets the same error where it always did.
    """
    import threading

    read: dict[str, Any] = {}

    def read_changelog() -> None:
        try:
            head_raw = read_following_nesting(head_ref, changelog_file)
            if head_raw is not None:  # the same byte rules as `changelog validate`
                check_bytes(head_raw, changelog_file, f"{changelog_file} at {head_ref}")
            read["head"] = head_raw
            read["diff"] = diff_following_nesting(base_ref, head_ref, changelog_file)
        except BaseException as exc:  # noqa: BLE001 - re-raised below, in this thread
            read["error"] = exc

    reader = threading.Thread(target=read_changelog, name="infx-plan-git", daemon=True)
    reader.start()
    try:
        sources.get("configs")  # cached for the planner
    except Exception:  # noqa: BLE001, S110 - not cached: the planner meets it again in its turn
        pass
    reader.join()
    if "error" in read:
        raise read["error"]
    try:
        added = additions(read["diff"], changelog_file)
    except InfxError:
        base_raw = read_following_nesting(base_ref, changelog_file)
        if link_corrections(base_raw, read.get("head"), changelog_file, repo):
            return no_plan(base_ref, head_ref)
        raise
    entries = parse_additions(added, changelog_file)
    return build_plan(entries, base_ref=base_ref, head_ref=head_ref, flags=flags,
                      sources=sources, changelog_path=changelog_file)

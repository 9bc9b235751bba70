"""Check `patch`: no engine or image patching unless a complete, linked waiver covers it."""

from __future__ import annotations

import re

from infx.signoff.model import ChangedFile, Evidence, Outcome, Status
from infx.signoff.rules.affected import affected_configs, launch_lines
from infx.signoff.rules.patching import BENCHMARK_FILE, Patching, find_patching, patching_in
from infx.signoff.rules.policy_reads import (
    changed_files,
    detail_section,
    fail_closed,
    failed,
    head_text,
    policy,
)
from infx.signoff.swept import judged_configs
from infx.signoff.table import Settings

_WAIVER_PATH = re.compile(r"^(?:[^/]+/)?docs/waiver/\d+\.md$")
_UPSTREAM_LINK = re.compile(r"https://github\.com/[\w.-]+/[\w.-]+/(?:pull|issues)/\d+")
# waiver headings: every key needs one heading that contains any of its words
_HEADINGS = {
    "what is patched": ("what",),
    "why the stock image cannot run it": ("why",),
    "upstream PR/issue link": ("upstream",),
    "removal plan": ("removal", "remove"),
}


@fail_closed("Engine patching")
def run(evidence: Evidence, settings: Settings) -> Outcome:
    files = changed_files(evidence)
    if not any(BENCHMARK_FILE.search(f.filename) for f in files):
        return Outcome(Status.NA, "no benchmark script, image or config file is changed")
    found, inherited = patching_in(evidence), inherited_patching(evidence)
    if not found and not inherited:
        return Outcome(Status.PASS, f"no patch files, git apply, engine-path rewrites, startup injection "
                       f"or engine reinstalls in the added lines of {len(files)} changed files or in the "
                       "launch files of the affected configs")
    problems, covered = [], []
    if found:
        waiver = f"docs/waiver/{evidence.pr.number}.md"
        problems += [f"{found[0].where}: {found[0].what}; {p}" for p in _new_waiver_problems(evidence, waiver, found)]
        covered.append(waiver)
    for lead in inherited:
        waiver, missing = _existing_waiver(evidence, lead)
        problems += [f"{lead.where} (already on the default branch): {lead.what}; {p}" for p in missing]
        covered.append(waiver or "")
    leads = [f"{p.where}: {p.what}" for p in found + inherited]
    if problems:
        return failed(problems, leads)
    return Outcome(Status.PASS, f"patching at {', '.join(p.where for p in found + inherited)} is covered by "
                   f"{', '.join(sorted(set(covered)))} (what / why / upstream link / removal plan), linked "
                   "in the sign-off", tuple(leads))


def inherited_patching(evidence: Evidence) -> list[Patching]:
    """Patching in launch files of affected configs that this PR does not change (of the configs
    it submits: a config reached only through a shared file the PR changed and its plan does not
    sweep is not re-benchmarked, infx.signoff.swept.judged_configs)."""
    changed = {f.filename for f in changed_files(evidence)}
    configs = judged_configs(evidence, affected_configs(evidence))
    paths = sorted({ln.path for config in configs for ln in launch_lines(evidence, config)
                    if ln.number is not None} - changed)
    files = []
    for path in paths:
        lines = (head_text(evidence, path) or "").splitlines()
        patch = f"@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{ln}\n" for ln in lines)
        files.append(ChangedFile(path, "unchanged", patch=patch))
    rules = policy(evidence).doc("patching")
    return find_patching(files, rules["engine-paths"], rules["engine-packages"], rules["allowed-packages"],
                         rules.get("non-engine-components"), rules.get("heredoc-files"))


def _new_waiver_problems(evidence: Evidence, waiver: str, found: list[Patching]) -> list[str]:
    added = {f.filename for f in changed_files(evidence) if f.status in ("added", "renamed", "copied")}
    if waiver not in added:
        return [f"no waiver {waiver} is added in this PR"]
    text = head_text(evidence, waiver)
    if not text:
        return [f"waiver {waiver} could not be read at the assessed head"]
    return waiver_problems(waiver, text, found) + _link_problems(evidence, waiver)


def _existing_waiver(evidence: Evidence, lead: Patching) -> tuple[str | None, list[str]]:
    """The default branch's waiver naming the patched file, or what is missing."""
    name = lead.path.rsplit("/", 1)[-1]
    candidates = sorted(p for p, text in evidence.default_branch_files.items()
                        if _WAIVER_PATH.match(p) and text and name in text)
    if not candidates:
        return None, [f"no waiver docs/waiver/<PR#>.md on the default branch names {name}"]
    waiver = candidates[0]
    problems = waiver_problems(waiver, evidence.default_branch_files[waiver] or "", [lead])
    return waiver, problems + _link_problems(evidence, waiver)


def waiver_problems(waiver: str, text: str, found: list[Patching]) -> list[str]:
    """What a waiver's text lacks: the four headings, an upstream link, the patched files."""
    problems = []
    headings = [ln.lower() for ln in text.splitlines() if ln.lstrip().startswith("#")]
    missing = [name for name, words in _HEADINGS.items()
               if not any(any(w in h for w in words) for h in headings)]
    if missing:
        problems.append(f"waiver {waiver} lacks a heading for: {', '.join(missing)}")
    if not _UPSTREAM_LINK.search(text):
        problems.append(f"waiver {waiver} has no GitHub PR/issue link")
    uncovered = sorted({p.path for p in found if p.path.rsplit("/", 1)[-1] not in text})
    if uncovered:
        problems.append(f"waiver {waiver} does not name the patched file(s) {', '.join(uncovered)}")
    return problems


def _link_problems(evidence: Evidence, waiver: str) -> list[str]:
    if waiver in detail_section(evidence.signoff.body):
        return []
    return [f"the sign-off's Additional detail section does not link {waiver}"]

"""Check 10 (patch): no engine or image patching unless a complete, linked waiver covers it."""

from __future__ import annotations

import re

from infx.signoff.model import Evidence, Outcome, Status
from infx.signoff.policy_common import changed_files, detail_section, fail_closed, head_text, policy
from infx.signoff.policy_patching import BENCHMARK_FILE, Patching, find_patching

_UPSTREAM_LINK = re.compile(r"https://github\.com/[\w.-]+/[\w.-]+/(?:pull|issues)/\d+")
# waiver headings: every key needs one heading that contains any of its words
_HEADINGS = {
    "what is patched": ("what",),
    "why the stock image cannot run it": ("why",),
    "upstream PR/issue link": ("upstream",),
    "removal plan": ("removal", "remove"),
}


def patching_in(evidence: Evidence) -> list[Patching]:
    """Patching leads in the PR's added lines, per the trusted patching policy."""
    rules = policy(evidence).doc("patching")
    return find_patching(changed_files(evidence), rules["engine-paths"], rules["engine-packages"],
                         rules["allowed-packages"])


@fail_closed("Engine patching")
def run(evidence: Evidence) -> Outcome:
    files = changed_files(evidence)
    if not any(BENCHMARK_FILE.search(f.filename) for f in files):
        return Outcome(Status.NA, "no benchmark script, image or config file is changed")
    found = patching_in(evidence)
    if not found:
        return Outcome(Status.PASS, f"no patch files, git apply, engine-path rewrites, startup "
                       f"injection or engine reinstalls in the added lines of {len(files)} changed files")
    waiver = f"docs/waiver/{evidence.pr.number}.md"
    problems = _waiver_problems(evidence, waiver, found)
    leads = tuple(f"{p.where}: {p.what}" for p in found)
    if problems:
        return Outcome(Status.FAIL, f"{found[0].where}: {found[0].what}; {problems[0]}",
                       leads + tuple(problems))
    return Outcome(Status.PASS, f"patching at {', '.join(p.where for p in found)} is covered by "
                   f"{waiver} (what / why / upstream link / removal plan), linked in the sign-off",
                   leads)


def _waiver_problems(evidence: Evidence, waiver: str, found: list[Patching]) -> list[str]:
    added = {f.filename for f in changed_files(evidence) if f.status in ("added", "renamed", "copied")}
    if waiver not in added:
        return [f"no waiver {waiver} is added in this PR"]
    text = head_text(evidence, waiver)
    if not text:
        return [f"waiver {waiver} could not be read at the assessed head"]
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
    if waiver not in detail_section(evidence.signoff.body):
        problems.append(f"the sign-off's Additional detail section does not link {waiver}")
    return problems

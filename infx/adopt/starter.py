"""What `infx init` writes into a repository, and how that compares with what is already there."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from infx import __version__
from infx.adopt import app, reusable
from infx.errors import InfxError, Problem

SHA = re.compile(r"[0-9a-f]{40}")
SLUG = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}")
MANIFEST = ".github/signoff-app-manifest.json"

# what remains for a person to do once the files are in place (README: Adopting infx)
MANUAL_STEPS = (
    f"Create the sign-off GitHub App from {MANIFEST} (Settings > Developer settings > GitHub Apps "
    "> New GitHub App from a manifest, or POST it to /settings/apps/new) and install it on this "
    "repository only.",
    "Create the environment `signoff-app` (deployment branches: the default branch only) with "
    "the variable SIGNOFF_APP_ID and the secret SIGNOFF_APP_PRIVATE_KEY.",
    "Branch protection on the default branch: require the status `codeowner-signoff-verify` "
    "from the App.",
    "Add your master configs (configs/*-master.yaml), configs/runners.yaml with your runner "
    "labels, perf-changelog.yaml and CODEOWNERS, the launchers the GPU jobs run "
    "(runners/launch_<runner>.sh) and their recipe scripts (benchmarks/); register the "
    "self-hosted GPU runners with those labels and add the secret HF_TOKEN (read-only) for "
    "the sweep's gated model downloads.",
    "Commit the files, open a PR that appends a changelog entry, and post the checklist as a "
    "CODEOWNER.",
)


@dataclass(frozen=True)
class Change:
    """One starter file against the target: `create`, `same` or `differs` (with a diff)."""

    path: str
    action: str
    text: str
    diff: str = ""


def parse_source(source: str) -> tuple[str, str]:
    """`OWNER/NAME@SHA` of the infx to pin, or a located error."""
    slug, _, ref = source.partition("@")
    if not SLUG.fullmatch(slug) or not SHA.fullmatch(ref):
        raise InfxError(Problem(f"{source!r} is not OWNER/NAME@SHA (a full 40-hex commit SHA)",
                                key="--infx", fix="e.g. --infx my-org/infx@$(git rev-parse HEAD)"))
    return slug, ref


def files(repository: str, ref: str, app_name: str) -> dict[str, str]:
    """Target path -> content of every starter file, pinned to infx `repository`@`ref`."""
    version = f"v{__version__}"

    def fill(text: str) -> str:
        return (text.replace(reusable.REPOSITORY, repository).replace(reusable.REF, ref)
                .replace(reusable.VERSION, version))

    out = {f".github/workflows/{bot.caller.name}": fill(bot.caller.read_text(encoding="utf-8"))
           for bot in reusable.BOTS}
    for source, name in reusable.COPIED.items():
        out[source] = (reusable.STARTER / name).read_text(encoding="utf-8")
    out[MANIFEST] = app.manifest_text(app_name, f"https://github.com/{repository}")
    return dict(sorted(out.items()))


def compare(target: Path, wanted: dict[str, str]) -> list[Change]:
    """Each wanted file against the target folder (read only)."""
    if not target.is_dir():
        raise InfxError(Problem("is not a folder", file=str(target),
                                fix="give the root of the repository to set up"))
    changes = []
    for rel, text in wanted.items():
        path = target / rel
        if path.is_dir():
            raise InfxError(Problem("is a folder where infx init writes a file", file=str(path)))
        if not path.exists():
            changes.append(Change(rel, "create", text))
            continue
        try:
            old = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InfxError(Problem(f"cannot be read ({type(exc).__name__}: {exc})", file=str(path),
                                    fix="fix or remove the file, then run infx init again")) from exc
        if old == text:
            changes.append(Change(rel, "same", text))
        else:
            diff = "".join(difflib.unified_diff(old.splitlines(keepends=True), text.splitlines(keepends=True),
                                                f"a/{rel}", f"b/{rel}"))
            changes.append(Change(rel, "differs", text, diff))
    return changes


def apply(target: Path, changes: list[Change], *, force: bool) -> list[Change]:
    """Write the files to create (and, with `force`, the ones that differ); returns what was written."""
    written = [c for c in changes if c.action == "create" or (force and c.action == "differs")]
    for change in written:
        path = target / change.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(change.text, encoding="utf-8")
    return written

"""Check `patch`'s lead finder on hand-written added files, tests only: the trusted patching
policy of this repository (configs/policy/patching.yaml), each text as one added file."""

from __future__ import annotations

from infx.config.policy import reader_for_directory
from infx.signoff.model import ChangedFile
from infx.signoff.rules.patching import Patching, find_patching
from lib.signoff_policy_support import REPO_ROOT

RULES = reader_for_directory(REPO_ROOT).doc("patching")
COMPONENTS = RULES["non-engine-components"]


def _added(path: str, lines: list[str]) -> ChangedFile:
    patch = f"@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{ln}\n" for ln in lines)
    return ChangedFile(path, "added", patch=patch)


def scan(path: str, *lines: str) -> list[Patching]:
    """The leads in ``lines`` added as ``path``, without the non-engine component rule."""
    return find_patching([_added(path, list(lines))], RULES["engine-paths"], RULES["engine-packages"],
                         RULES["allowed-packages"])


def scan_with_components(text: str) -> list[Patching]:
    """The leads in ``text`` added as a single-node script, with the non-engine component rule."""
    return find_patching([_added("benchmarks/single_node/x.sh", text.splitlines())], RULES["engine-paths"],
                         RULES["engine-packages"], RULES["allowed-packages"], COMPONENTS)

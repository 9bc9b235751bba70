"""Check `images`: upstream vLLM/SGLang images, and open-source engines before vendor ones."""

from __future__ import annotations

import re

from infx.signoff.model import Evidence, Outcome, Status
from infx.signoff.rules.affected import (
    AffectedConfig,
    affected_configs,
    config_where,
    head_master_entries,
)
from infx.signoff.rules.configs_at import runner_sku
from infx.signoff.rules.policy_reads import (
    exception_lines,
    fail_closed,
    failed,
    mentions_any,
    policy,
)
from infx.signoff.swept import judged_configs
from infx.signoff.table import Settings

_EXCEPTION_WORDS = ("new hardware", "new-hardware", "new architecture", "new-architecture",
                    "new model architecture")


def image_repository(image: str) -> str:
    """``docker.io/vllm/vllm-openai:v1@sha256:…`` -> ``vllm/vllm-openai``."""
    image = image.strip().replace("#", "/").removeprefix("docker.io/")
    image = image.split("@", 1)[0]
    head, _, last = image.rpartition("/")
    return f"{head}/{last.split(':', 1)[0]}" if head else last.split(":", 1)[0]


@fail_closed("Image provenance")
def run(evidence: Evidence, settings: Settings) -> Outcome:
    # what the PR submits: a config reached only through a shared file it changed counts when
    # the PR's plan sweeps it (infx.signoff.swept.judged_configs)
    configs = judged_configs(evidence, affected_configs(evidence))
    if not configs:
        return Outcome(Status.NA, "no master-config entry is added, changed or re-enabled")
    reader = policy(evidence)
    engines, established = reader.doc("engines"), set(reader.doc("hardware")["established-skus"])
    peers = _Peers(head_master_entries(evidence), engines["open-source-frameworks"],
                   engines.get("recipe-engines") or {})
    problems, notes, mismatched = [], [], []  # mismatches are not excused by an exception
    for config in configs:
        where = config_where(evidence, config)
        if config.recipe and config.recipe.image != str(config.entry.get("image", "")):
            mismatched.append(f"{where}: its recipe {config.recipe.source} pins image {config.recipe.image}, but "
                              f"the master config runs {config.entry.get('image')} (fix: make them the same)")
        if config.sku not in established:
            notes.append(f"{where}: runner {config.entry.get('runner')} ({config.sku}) is new/"
                         "preview hardware, exempt from the image and ordering rules")
            continue
        problems += _image_problem(where, config, engines["upstream-images"])
        found = _ordering(where, config, engines["open-source-frameworks"], peers)
        if found.startswith("ok:vendor:"):
            found = _strict_mapping(where, config, engines, peers, found.removeprefix("ok:vendor:"))
        (notes if found.startswith("ok:") else problems).append(found.removeprefix("ok:"))
    problems = [p for p in problems if p]
    if mismatched:
        return failed(mismatched + problems, notes)
    if problems:
        exceptions = [ln for ln in exception_lines(evidence.signoff.body)
                      if mentions_any(ln, _EXCEPTION_WORDS)]
        if exceptions:
            return Outcome(Status.PASS, f"documented exception \"{exceptions[0]}\" covers: "
                           + "; ".join(problems), tuple(problems + notes))
        return failed(problems, notes)
    return Outcome(Status.PASS, "; ".join(notes), tuple(notes))


def _image_problem(where: str, config: AffectedConfig, upstream: dict[str, list[str]]) -> list[str]:
    prefixes = upstream.get(config.framework)
    if not prefixes:
        return []
    image = str(config.entry.get("image", ""))
    repo = image_repository(image)
    if any(repo.startswith(p) for p in prefixes):
        return []
    return [f"{where}: framework {config.framework} uses image {image}, not an upstream "
            f"{' / '.join(prefixes)} image (fix: use the upstream image, or document a "
            "new-hardware / new-architecture exception)"]


class _Peers:
    """The head's entries by (model-prefix, runner SKU), grouped once per check run: what a
    config's engine-ordering rules compare it with (every other entry of its model and SKU)."""

    def __init__(self, head: dict[str, tuple[str, dict]], open_source: list[str],
                 family: dict[str, str]) -> None:
        self._open: dict[tuple[str, str], list[tuple[str, dict]]] = {}
        self._families: dict[tuple[str, str], dict[str | None, set[str]]] = {}
        for key in sorted(head):
            entry = head[key][1]
            prefix = entry.get("model-prefix")
            if not isinstance(prefix, str):
                continue  # a config's own prefix is text: no other value can equal it
            group = (prefix, runner_sku(str(entry.get("runner", ""))))
            if entry.get("framework") in open_source:
                self._open.setdefault(group, []).append((key, entry))
            engines = self._families.setdefault(group, {})
            engines.setdefault(family.get(str(entry.get("framework"))), set()).add(key)

    def first_open_source(self, config: AffectedConfig) -> tuple[str, dict] | None:
        """The other entry of the config's model and SKU with an open-source framework, first by key."""
        return next((found for found in self._open.get((config.prefix, config.sku), ())
                     if found[0] != config.key), None)

    def engines(self, config: AffectedConfig) -> set[str | None]:
        """The engine families of the other entries of the config's model and SKU."""
        groups = self._families.get((config.prefix, config.sku), {})
        return {engine for engine, keys in groups.items() if keys - {config.key}}


def _ordering(where: str, config: AffectedConfig, open_source: list[str], peers: _Peers) -> str:
    image = str(config.entry.get("image", ""))
    vendor_image = re.search(r"rocm/atom|tensorrt-llm", image, re.IGNORECASE) is not None
    if config.framework in open_source and not vendor_image:
        return f"ok:{where}: {config.framework} image {image} is an open-source engine entry"
    match = peers.first_open_source(config)
    if match:
        first, entry = match
        return (f"ok:vendor:{where}: vendor framework {config.framework}; engine-first satisfied by "
                f"{first} ({entry.get('framework')}, {entry.get('runner')}, {entry.get('image')})")
    return (f"{where}: vendor framework {config.framework} for {config.prefix} on {config.sku} "
            "has no vLLM/SGLang entry with the same model-prefix and runner SKU "
            "(fix: submit the open-source engine first, or document an exception)")


def _strict_mapping(where: str, config: AffectedConfig, engines: dict, peers: _Peers,
                    satisfied: str) -> str:
    """Optional stricter rule (MODELS.md engine mapping): a vendor entry needs an entry of every
    first-class engine of its model on the same SKU, not just any vLLM/SGLang entry.
    ``ok:``-prefixed when satisfied (or not enabled), else the problem."""
    wanted = (engines.get("first-class-engines") or {}).get(config.prefix)
    if not engines.get("strict-engine-mapping") or not wanted:
        return "ok:" + satisfied
    present = peers.engines(config)
    missing = [engine for engine in wanted if engine not in present]
    if not missing:
        return "ok:" + satisfied + f"; every first-class engine of {config.prefix} ({', '.join(wanted)}) is present"
    return (f"{where}: vendor framework {config.framework} for {config.prefix} on {config.sku} lacks an "
            f"entry of its first-class engine(s) {', '.join(missing)} (strict engine mapping of MODELS.md)")

"""Check 8 (arch): no model-config overrides that remove FLOPs; event publication stays on."""

from __future__ import annotations

import json
import re

from infx.signoff.affected import AffectedConfig, affected_configs, config_where, launch_lines
from infx.signoff.model import Evidence, Outcome, Status
from infx.signoff.policy_common import diffed_files, fail_closed, failed, policy
from infx.signoff.policy_patching import BENCHMARK_FILE
from infx.signoff.scan import Line, added_lines, flag_values, join_continuations

_FALSE = ("false", "0", "no", "off")


@fail_closed("Architecture integrity")
def run(evidence: Evidence) -> Outcome:
    configs = affected_configs(evidence)
    files = [f for f in diffed_files(evidence) if BENCHMARK_FILE.search(f.filename)]
    if not configs and not files:
        return Outcome(Status.NA, "no serving config, image or launch path is affected")
    rules = policy(evidence).doc("overrides")
    lines = [ln for f in files for ln in join_continuations(added_lines(f.filename, f.patch))]
    # the effective launch counts too, including unchanged files an affected config uses
    for config in configs:
        lines += [ln for ln in launch_lines(evidence, config) if ln not in lines]
    prefixes = {c.prefix for c in configs}
    problems = _override_problems(lines, rules, prefixes)
    problems += _publication_problems(evidence, configs, lines, rules["publication"])
    if problems:
        return failed(problems)
    return Outcome(Status.PASS, f"no FLOP-reducing model-config override ({', '.join(rules['override-flags'][:3])}, "
                   f"config.json edits) in {len(lines)} added or launch lines across {len(files)} changed "
                   f"files and the launches of {len(configs)} affected configs")


def _override_problems(lines: list[Line], rules: dict, prefixes: set[str]) -> list[str]:
    denied = set(rules["flop-reducing-keys"])
    allowed = {(r["prefix"], r["key"], str(r["value"])) for r in rules["native-support"]}
    problems = []
    for line in lines:
        values = [v for flag in rules["override-flags"] for v in flag_values(line.text, flag)]
        if "config.json" in line.text and re.search(r"\b(sed|jq|python3?|perl)\b", line.text):
            values.append(line.text)
        for key, value in (kv for v in values for kv in _keys(v)):
            if key in denied and not any((p, key, str(value)) in allowed for p in prefixes):
                problems.append(f"{line.where()}: overrides {key}={value}, which removes "
                                "architectural FLOPs the model does not natively support")
    return problems


def _keys(value: str) -> list[tuple[str, object]]:
    """(key, value) pairs of an override payload: JSON when it parses, else key=value text."""
    value = value.replace('\\"', '"')
    try:
        data = json.loads(value)
    except ValueError:
        data = None
    if isinstance(data, dict):
        return list(_flatten(data))
    pairs = re.findall(r"[\"']?(\w+)[\"']?\s*[:=]\s*[\"']?([\w.\-]+)", value)
    return [(k, v) for k, v in pairs]


def _flatten(data: dict):
    for key, value in data.items():
        if isinstance(value, dict):
            yield from _flatten(value)
        else:
            yield key, value


def _publication_problems(evidence: Evidence, configs: list[AffectedConfig], added: list[Line],
                          rule: dict) -> list[str]:
    setting = rule["setting"]
    problems = [f"{ln.where()}: sets {setting} to {v}" for ln in added
                for v in flag_values(ln.text, setting) if v.lower() in _FALSE]
    for config in configs:
        if config.framework not in rule["supported-frameworks"]:
            continue
        values = [(ln, v) for ln in launch_lines(evidence, config) for v in flag_values(ln.text, setting)]
        if not values:
            problems.append(f"{config_where(evidence, config)}: event/metric publication could not "
                            f"be verified ({setting} is not set in its recipe or launch files)")
        problems += [f"{ln.where()}: {config.key} runs with {setting}={v}" for ln, v in values
                     if v.lower() in _FALSE]
    return sorted(set(problems), key=problems.index)

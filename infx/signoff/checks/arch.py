"""Check `arch`: no model-config overrides that remove FLOPs; event publication stays on."""

from __future__ import annotations

import json
import re
from functools import lru_cache

from infx.signoff.model import Evidence, Outcome, Status
from infx.signoff.rules.affected import AffectedConfig, affected_configs, config_where, launch_lines
from infx.signoff.rules.patching import BENCHMARK_FILE
from infx.signoff.rules.policy_reads import diffed_files, fail_closed, failed, policy
from infx.signoff.rules.scan import (
    Line,
    abbreviates,
    added_commands,
    flag_values,
    may_name,
    mentions_flag,
    names_flag,
)
from infx.signoff.swept import judged_configs
from infx.signoff.table import Settings

# a config object transformers reads from a model folder, and writing one back there
_LOADS_CONFIG = re.compile(r"\b\w*Config\.from_pretrained\(|\bfrom_pretrained\(")
_SAVES_CONFIG = re.compile(r"\.save_pretrained\(|\.to_json_file\(")
_WRITES_JSON = re.compile(r"json\.dump|\.write\(|write_text|\bsed[^\S\n]+-i|\bjq\b|>[^\S\n]*\S*config\.json")
_FALSE = ("false", "0", "no", "off")
_RUN_TIME = re.compile(r"\$|`")  # an expansion or a command substitution
# an option whose name is completed at run time: ``--hf-$X``, ``"--$NAME"``, ``'--hf-%s'``
_BUILT_OPTION = re.compile(r"(?<![\w-])(--[A-Za-z0-9_-]*)(?=\$|%[A-Za-z]|`|[\"']\$)")
_TRUE = ("true", "1", "yes", "on")


@fail_closed("Architecture integrity")
def run(evidence: Evidence, settings: Settings) -> Outcome:
    # the launches of the configs the PR submits (infx.signoff.swept.judged_configs); a shared
    # helper's own changed lines are read below as added lines wherever they land
    configs = judged_configs(evidence, affected_configs(evidence))
    files = [f for f in diffed_files(evidence) if BENCHMARK_FILE.search(f.filename)]
    if not configs and not files:
        return Outcome(Status.NA, "no serving config, image or launch path is affected")
    rules = policy(evidence).doc("overrides")
    lines = [ln for f in files for ln in added_commands(f.filename, f.patch)]
    # the effective launch counts too, including unchanged files an affected config uses
    seen = {(ln.path, ln.number, ln.text) for ln in lines}
    for config in configs:
        for ln in launch_lines(evidence, config):
            if (ln.path, ln.number, ln.text) not in seen:
                seen.add((ln.path, ln.number, ln.text))
                lines.append(ln)
    prefixes = {c.prefix for c in configs}
    problems = _override_problems(lines, rules, prefixes) + _unread_overrides(lines, rules)
    problems += _publication_problems(evidence, configs, lines, rules["publication"])
    if problems:
        return failed(problems)
    return Outcome(Status.PASS, f"no FLOP-reducing model-config override ({', '.join(rules['override-flags'][:3])}, "
                   f"config.json edits) in {len(lines)} added or launch lines across {len(files)} changed "
                   f"files and the launches of {len(configs)} affected configs; "
                   + _publication_summary(evidence, configs, rules["publication"]))


def _publication_summary(evidence: Evidence, configs: list[AffectedConfig], rule: dict) -> str:
    """Where each supporting config establishes publication, or why none had to."""
    setting, established = rule["setting"], []
    for config in configs:
        if config.framework in rule["supported-frameworks"]:
            line = next(ln for ln in launch_lines(evidence, config) if publication_values(ln.text, setting))
            established.append(f"{config.key} sets {setting} true at {line.where()}")
    if established:
        return "; ".join(established)
    return (f"{setting} is never set to false, and no affected framework supports it "
            f"(supported by: {', '.join(rule['supported-frameworks'])})")


def _override_problems(lines: list[Line], rules: dict, prefixes: set[str]) -> list[str]:
    denied = set(rules["flop-reducing-keys"])
    allowed = {(r["prefix"], r["key"], str(r["value"])) for r in rules["native-support"]}
    problems = []
    editors = _config_editing_files(lines)
    payloads: dict[tuple[str, bool], list[tuple[str, object]]] = {}  # a copied block repeats lines
    for line in lines:
        slot = (line.text, line.path in editors)
        if slot not in payloads:
            payloads[slot] = _override_payload(line.text, rules["override-flags"], slot[1])
        for key, value in payloads[slot]:
            if key in denied and not any((p, key, str(value)) in allowed for p in prefixes):
                problems.append(f"{line.where()}: overrides {key}={value}, which removes "
                                "architectural FLOPs the model does not natively support")
    return list(dict.fromkeys(problems))  # one flag has several spellings; report a line once


def _unread_overrides(lines: list[Line], rules: dict) -> list[str]:
    """Overrides the check cannot read, which fail closed: a line that names an override flag
    but gives it no readable value (the flag held in a variable or an array), a value or key
    built at run time, a FLOP-reducing key whose value is not a literal, and an option name
    built at run time that may spell an override flag (``$(printf -- '--hf-%s' overrides)``)."""
    flags, denied = tuple(rules["override-flags"]), tuple(rules["flop-reducing-keys"])
    found: dict[str, str | None] = {}  # a copied block repeats its lines' texts
    problems = []
    for line in lines:
        if line.text not in found:
            found[line.text] = _unread_override(line.text, flags, denied)
        if found[line.text]:
            problems.append(f"{line.where()}: {found[line.text]}")
    return list(dict.fromkeys(problems))


def _unread_override(text: str, flags: tuple[str, ...], denied: tuple[str, ...]) -> str | None:
    """Why one line's override cannot be read (``_unread_overrides``), or None."""
    spelled = {"--" + flag.lstrip("-").replace("_", "-").lower() for flag in flags}
    named = [flag for flag in flags if names_flag(text, flag)]
    values = list(dict.fromkeys(v for flag in named for v in flag_values(text, flag)))
    unread = [key for value in values for key in denied
              if re.search(rf"\b{key}\b", value) and key not in {k for k, _ in _keys(value)}]
    built = [value for value in values if _RUN_TIME.search(value)]
    options = [o for o in _BUILT_OPTION.findall(text)
               if any(flag.startswith(o.replace("_", "-").lower()) for flag in spelled)]
    options += [short for flag in flags if not named and (short := abbreviates(text, flag))]
    if unread:
        return f"overrides {unread[0]} with a value that cannot be read"
    if built:
        return f"gives {named[0]} a value built at run time ({built[0]}), so the override could not be verified"
    if named and not values:
        return (f"names {named[0]} in a form whose value cannot be read "
                "(a variable, an array or a block), so the override could not be verified")
    if options and not _BUILT_OPTION.search(text):
        return (f"passes {options[0]}, a prefix of a model-config override flag "
                "that argparse takes for the flag, so the override could not be verified")
    if options:
        return (f"builds an option name at run time ({options[0]}…) that may "
                "spell a model-config override flag, so the override could not be verified")
    return None


def _override_payload(text: str, flags: list[str], edits_config: bool) -> list[tuple[str, object]]:
    """(key, value) pairs a line sets through an override flag, or by editing a model's
    config.json (a line of a file that edits one, or an editor command naming it)."""
    values = [v for flag in flags for v in flag_values(text, flag)]
    if "config.json" in text and re.search(r"\b(sed|jq|python3?|perl)\b", text) or edits_config:
        values.append(text)
    return [kv for v in values for kv in _keys(v)]


def _config_editing_files(lines: list[Line]) -> set[str]:
    """Files whose lines both name a model's config.json and write JSON or edit in place, or
    save a config object transformers loaded (``AutoConfig.from_pretrained`` … ``save_pretrained``,
    which rewrites config.json without naming it): every line of such a script may set a key
    (``cfg["num_hidden_layers"] = 30`` in a heredoc, ``cfg.num_hidden_layers = 30``)."""
    by_path: dict[str, list[str]] = {}
    for line in lines:
        by_path.setdefault(line.path, []).append(line.text)
    edits = set()
    for path, texts in by_path.items():
        text = "\n".join(texts)  # each pattern stays within a line
        if ("config.json" in text and _WRITES_JSON.search(text)) or (
                "from_pretrained(" in text and _LOADS_CONFIG.search(text) and _SAVES_CONFIG.search(text)):
            edits.add(path)
    return edits


def _keys(value: str) -> list[tuple[str, object]]:
    """(key, value) pairs of an override payload: JSON when it parses, else key=value text."""
    value = value.replace('\\"', '"')
    try:
        data = json.loads(value)
    except ValueError:
        data = None
    if isinstance(data, dict):
        return list(_flatten(data))
    pairs = re.findall(r"[\"']?(\w+)[\"']?\]?\s*[:=]\s*[\"']?([\w.\-]+)", value)
    return [(k, v) for k, v in pairs]


def _flatten(data: dict):
    for key, value in data.items():
        if isinstance(value, dict):
            yield from _flatten(value)
        else:
            yield key, value


def _publication_problems(evidence: Evidence, configs: list[AffectedConfig], added: list[Line],
                          rule: dict) -> list[str]:
    """A false publication setting anywhere the PR or an affected launch reaches fails; where the
    framework supports the setting, a value that is absent or not a literal fails closed."""
    setting = rule["setting"]
    disabled: dict[str, str] = {}  # line -> problem, so a line is reported once
    for ln in added:
        if "false" in publication_values(ln.text, setting):
            disabled.setdefault(ln.where(), f"{ln.where()}: sets {setting} to false")
    unverified = []
    for config in configs:
        found = [(ln, value) for ln in launch_lines(evidence, config)
                 for value in publication_values(ln.text, setting)]
        for ln, value in found:
            if value == "false":
                disabled[ln.where()] = f"{ln.where()}: {config.key} runs with {setting}=false"
        if config.framework not in rule["supported-frameworks"]:
            continue
        where = config_where(evidence, config)
        if not found:
            unverified.append(f"{where}: Event/metric publication could not be verified ({setting} is not "
                              f"set in its recipe or launch files, and {config.framework} supports it)")
        unverified += [f"{where}: Event/metric publication could not be verified ({ln.where()} sets "
                       f"{setting} to {value!r}, which is not a literal true/false)"
                       for ln, value in found if value not in ("true", "false")]
    return list(disabled.values()) + unverified


def publication_values(text: str, setting: str) -> list[str]:
    """Each value a line gives the setting: ``true``, ``false``, or the raw text when it is
    not a literal (an unexpanded variable, say). A bare ``--flag`` switch means true and
    ``--no-flag`` means false."""
    return list(_publication_values(text, setting)) if may_name(text, setting) else []


@lru_cache(maxsize=16384)
def _publication_values(text: str, setting: str) -> tuple[str, ...]:
    # the added lines and every config's launch lines are read, and copied blocks repeat them
    flag = "--" + setting.replace("_", "-")
    values = []
    for raw in flag_values(text, setting):
        lowered = raw.strip().lower()
        values.append("true" if lowered.startswith("-") or lowered in _TRUE
                      else "false" if lowered in _FALSE else raw.strip())
    if not values and re.search(rf"{re.escape(flag)}(?=\s*(?:$|[\"')]))", text):
        values.append("true")
    if mentions_flag(text, "--no-" + setting.replace("_", "-")):
        values.append("false")
    return tuple(values)

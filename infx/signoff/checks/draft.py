"""Check `draft`: every draft model / head runs as it ships, and the sign-off records it."""

from __future__ import annotations

import json
import re
from functools import lru_cache

from infx.inert import clip
from infx.signoff.model import Evidence, Outcome, Status
from infx.signoff.rules.affected import (
    AffectedConfig,
    affected_configs,
    config_where,
    is_spec_decode,
    launch_lines,
)
from infx.signoff.rules.patching import BENCHMARK_FILE, patching_in
from infx.signoff.rules.policy_reads import detail_lines, diffed_files, fail_closed, failed, policy
from infx.signoff.rules.scan import (
    Line,
    abbreviates,
    added_commands,
    env_settings,
    flag_values,
    is_enabled,
    mentions_flag,
    strip_quoted_comments,
    unquoted,
)
from infx.signoff.rules.spec_decoding import engine_family
from infx.signoff.swept import judged_configs
from infx.signoff.table import Settings

_PRECISION = r"(bf16|bfloat16|fp16|float16|fp8|fp4|mxfp4|nvfp4|int4|int8|fp32|float32)"
_DRAFT_WORDS = re.compile(r"draft|speculative|eagle|mtp|nextn|dspark", re.IGNORECASE)
_PRECISION_WORDS = re.compile(rf"quant|dtype|{_PRECISION}", re.IGNORECASE)
# the four facts of a draft-precision record: (name, pattern every one of which a line must match)
_RECORD = {
    "draft checkpoint and revision": (re.compile(r"draft", re.I),
                                      re.compile(r"revision|@[0-9a-f]{7,}|\b[0-9a-f]{12,40}\b|embedded|in-checkpoint", re.I)),
    "shipped precision": (re.compile(r"ship|stored", re.I), re.compile(_PRECISION, re.I)),
    "default handling of the pinned image": (re.compile(r"default|pinned", re.I),
                                             re.compile(r"handl|image|load", re.I)),
    "effective serving precision": (re.compile(r"effective", re.I), re.compile(_PRECISION, re.I)),
}


@fail_closed("Draft precision")
def run(evidence: Evidence, settings: Settings) -> Outcome:
    configs = []
    # the launches of the configs the PR submits (infx.signoff.swept.judged_configs); a shared
    # helper's own changed lines are scanned as `shared` for every config behind it
    for config in judged_configs(evidence, affected_configs(evidence)):
        lines = launch_lines(evidence, config)
        if is_spec_decode(config, lines):
            configs.append((config, lines))
    shared = [ln for f in diffed_files(evidence) if BENCHMARK_FILE.search(f.filename)
              for ln in added_commands(f.filename, f.patch)]
    if not configs and not shared:
        return Outcome(Status.NA, "no spec-decode benchmark is added, changed or re-enabled")
    reader = policy(evidence)
    rules = _rules(reader.doc("draft"), reader.doc("overrides"))
    if not configs:
        # a shared launcher no config is named after can still enable a prohibited draft setting
        found = _launch_problems(shared, rules)
        if found:
            return failed([f"{p} (in a changed benchmark file; it reaches every spec-decode config "
                           "that launches through it)" for p in found])
        return Outcome(Status.NA, "no spec-decode benchmark is added, changed or re-enabled (a config "
                       "reached only through a changed shared file is judged by that file's changed "
                       "lines), and no changed benchmark file sets a prohibited draft flag or environment")
    problems: list[str] = []
    scanned_lines: dict[str, list[str]] = {}  # configs launched through one file share its lines
    for config, lines in configs:
        if not lines:
            problems.append(f"{config_where(evidence, config)}: the effective launch (recipe, launcher "
                            "or script) could not be found, so the draft's environment could not be verified")
        problems += [f"{config.key}: {p}" for p in _launch_problems(lines, rules, scanned_lines)]
        problems += _atom_exclude_problems(config, lines, rules["atom-draft-modules"])
        problems += _checkpoint_problems(config, lines, rules["approved-drafts"])
    problems += [p for p in _launch_problems(shared, rules) if not any(p in q for q in problems)]
    problems += [f"{p.where}: patch changes draft loading/precision ({p.what})"
                 for p in patching_in(evidence) if _lowers_draft(p.what + "\n" + "\n".join(p.body))]
    missing = missing_record_fields(evidence.signoff.body)
    if missing:
        problems.append("Draft precision could not be verified: the Additional detail section has no "
                        f"draft-precision record with {', '.join(missing)}")
    if problems:
        return failed(problems)
    scanned = sorted({ln.path for _, lines in configs for ln in lines})
    effective = next((ln for ln in detail_lines(evidence.signoff.body) if re.search(r"effective", ln, re.I)), "")
    record = f"the sign-off records the draft, shipped, default-handling and effective precision (\"{effective}\")"
    return Outcome(Status.PASS, f"{', '.join(c.key for c, _ in configs)}: no draft quantization/dtype "
                   "override, draft pruning/cheapening override or prohibited draft environment (e.g. SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE) in "
                   f"{', '.join(scanned)}; {record}", tuple(scanned))


def _launch_problems(lines: list[Line], rules: dict, scanned: dict[str, list[str]] | None = None) -> list[str]:
    """The prohibited draft settings of the lines, in line order, each at its line
    (``scanned`` remembers what each text sets, for the next line or config that repeats it)."""
    scanned = {} if scanned is None else scanned
    problems = []
    for line in lines:
        found = scanned.get(line.text)
        if found is None:
            found = scanned[line.text] = _text_problems(line.text, rules)
        problems += [f"{line.where()}: {p}" for p in found]
    return problems


def _text_problems(text: str, rules: dict) -> list[str]:
    """The prohibited draft settings one launch line's text makes."""
    problems = []
    settings = env_settings(text)
    for name, value in settings:
        if name in rules["prohibited-env"] and is_enabled(value):
            problems.append(f"{name}={value} lowers draft precision (prohibited)")
    problems += _unread_prohibited(text, rules["prohibited-env"], {name for name, _ in settings})
    for flag in rules["distinct-flags"]["prohibited-flags"]:
        if mentions_flag(text, flag):
            value = (flag_values(text, flag) or [""])[0]
            problems.append(f"{flag} {value}".rstrip() + " changes draft precision")
        elif (short := abbreviates(text, flag)) is not None:
            problems.append(f"{short} is a prefix of {flag}, which argparse takes for it (fail closed): "
                            "it may change draft precision")
    for conf in flag_values(text, "--speculative-config") + flag_values(text, "speculative_config"):
        keys = _json_keys(conf) & set(rules["speculative-config-keys"])
        if keys:
            problems.append(f"--speculative-config sets {', '.join(sorted(keys))} "
                            "for the draft")
        pruned = _json_keys(conf, nested=True) & rules["pruning-keys"]
        if pruned:
            problems.append(f"--speculative-config sets {', '.join(sorted(pruned))} for "
                            "the draft, which prunes its layers/experts/heads below the shipped draft")
    problems += _override_problems(text, rules)
    return problems


def _unread_prohibited(text: str, names: list[str], read: set[str]) -> list[str]:
    """A prohibited environment name the line writes in a form whose value cannot be read
    (``printf -v NAME 1``, ``read NAME``, the name kept in a variable, a name built at run
    time): fail closed, it counts as set. Reading it (``$NAME``), unsetting it or exporting it
    by name alone (its value is read where it is set) does not."""
    plain = unquoted(text)  # holds every name the raw line holds: quote removal keeps letters
    assembled = _assembled(plain, names)
    if assembled:
        return assembled
    if not any(name in plain for name in names):
        return []
    if _NAMES_ONLY.match(plain):
        return []
    return [f"{name} is written in a form whose value cannot be read ({clip(' '.join(text.split()), 80)}), "
            "so it counts as enabled, which lowers draft precision (prohibited)"
            for name in names if name not in read and _named_word(name).search(plain)]


# a word's name part made of letters, `$NAME` and `${…}` (each character has one reading, so a
# long hostile word costs linear time); words split at blanks and shell operators
_BUILT_NAME = re.compile(r"(?:\w|\$\{[^}]*\}|\$)*")
_WORD_BREAK = re.compile(r"[\s;&|()]+")
_EXPANSION = re.compile(r"\$\{[^}]*\}|\$\w+")


def _assembled(plain: str, names: list[str]) -> list[str]:
    """A variable name the line builds at run time (``${P}_NEXTN_MOE=1``) whose written
    pieces all belong to a prohibited name: it may be that name, so it counts as set; and a
    word whose brace expansion (``NAME_MO{E,}=1``, ``{NAME,X}=1``) gives a prohibited name a
    value that is not a plain off (bash assigns each word it makes)."""
    found = []
    for word in _WORD_BREAK.split(plain):
        made = _braces(word) if "{" in word and "=" in word else [word]
        for name in names if made != [word] else ():
            given = [w.split("=", 1)[1] for w in made if w.split("=", 1)[0] == name and "=" in w]
            if len(made) > _MAX_BRACED or any(is_enabled(v) or "$" in v for v in given):
                found.append(f"{word} is a brace expansion that gives {name} a value that is not off "
                             "(or may: fail closed), which lowers draft precision (prohibited)")
        built = word.split("=", 1)[0] if "=" in word else ""
        if "$" not in built or not _BUILT_NAME.fullmatch(built):
            continue
        pieces = [p for p in _EXPANSION.split(built) if p]
        for name in names:
            if pieces and sum(map(len, pieces)) >= 4 and all(p in name for p in pieces):
                found.append(f"{built} is a name built at run time that may be {name} "
                             "(fail closed: it counts as set), which lowers draft precision (prohibited)")
    return found


_BRACE = re.compile(r"(?<!\$)\{([^{}$]*)\}")  # an innermost brace group (not a ${…} reference)
_MAX_BRACED = 64  # words a brace expansion is followed to; past it, whatever it makes may be set


def _braces(word: str) -> list[str]:
    """The words bash's brace expansion makes of ``word`` (``a{b,c}`` -> ``ab``, ``ac``;
    ``{1..3}``, ``{a..c}`` sequences), innermost groups first, up to _MAX_BRACED + 1 words."""
    words, done = [word], []
    while words and len(done) + len(words) <= _MAX_BRACED:
        current = words.pop()
        group = next((m for m in _BRACE.finditer(current) if "," in m.group(1) or _sequence(m.group(1))), None)
        if group is None:
            done.append(current)
            continue
        inner = group.group(1)
        choices = _sequence(inner) or inner.split(",")
        words += [current[:group.start()] + choice + current[group.end():] for choice in choices[:_MAX_BRACED + 1]]
    return done + words


def _sequence(inner: str) -> list[str]:
    """The words of a ``{x..y}`` sequence of integers or of single letters (empty: none)."""
    ends = inner.split("..")
    if len(ends) not in (2, 3) or any(not e for e in ends):
        return []
    if all(re.fullmatch(r"-?\d+", e) for e in ends[:2]):
        first, last = int(ends[0]), int(ends[1])
        span = range(first, last + (1 if last >= first else -1), 1 if last >= first else -1)
        return [str(n) for n in span[:_MAX_BRACED + 1]]
    if all(len(e) == 1 and e.isascii() and e.isalpha() for e in ends[:2]):
        first, last = ord(ends[0]), ord(ends[1])
        return [chr(c) for c in range(first, last + (1 if last >= first else -1), 1 if last >= first else -1)]
    return []


# names only: unset, or exported with the value given where it is set (read there)
_NAMES_ONLY = re.compile(r"^\s*(?:unset(?:\s+-v)?|export|declare\s+-x|readonly)\s+[\w\s]+$")


@lru_cache(maxsize=64)
def _named_word(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w${{]){re.escape(name)}(?!\w)")


def _rules(draft: dict, overrides: dict) -> dict:
    """draft.yaml plus what the draft checks borrow from Check `arch`'s overrides.yaml."""
    architecture = set(draft["draft-architecture-keys"])
    # deny-listed architecture keys set for the draft prune it (fewer layers/experts than shipped)
    rules = {**draft, "architecture-keys": architecture,
             "pruning-keys": set(overrides["flop-reducing-keys"]) | architecture,
             "target-override-flags": overrides["override-flags"]}
    flags = ("prohibited-flags", "draft-cheapening-flags", "draft-override-flags", "target-override-flags")
    return rules | {"distinct-flags": {name: _distinct_flags(rules[name]) for name in flags}}


def _override_problems(text: str, rules: dict) -> list[str]:
    """Draft pruning or cheapening through flags other than --speculative-config."""
    problems = []
    for flag in rules["distinct-flags"]["draft-cheapening-flags"]:
        if mentions_flag(text, flag):
            value = (flag_values(text, flag) or [""])[0]
            problems.append(f"{flag} {value}".rstrip() + " makes the draft cheaper than "
                            "shipped (a pruned draft vocabulary/head)")
    for flag in rules["distinct-flags"]["draft-override-flags"]:
        for value in flag_values(text, flag):
            if value.startswith("$"):
                problems.append(f"{flag} {value} overrides the draft's model config with a "
                                "value that is not a literal, so the draft's architecture could not be verified")
                continue
            pruned = _json_keys(value, nested=True) & rules["pruning-keys"]
            if pruned:
                problems.append(f"{flag} sets {', '.join(sorted(pruned))} for the draft, which "
                                "prunes its layers/experts/heads below the shipped draft")
    for flag in rules["distinct-flags"]["target-override-flags"]:
        for value in flag_values(text, flag):
            pruned = _json_keys(value, nested=True) & rules["architecture-keys"]
            if pruned:
                problems.append(f"{flag} sets {', '.join(sorted(pruned))}, the draft's own "
                                "MTP/NextN/EAGLE architecture, so the draft does not run as shipped")
    return problems


def _distinct_flags(flags: list[str]) -> list[str]:
    """One spelling per flag (``--a-b``, ``a_b`` and ``a-b`` match the same words)."""
    seen: dict[str, str] = {}
    for flag in flags:
        seen.setdefault(flag.lstrip("-").replace("_", "-").lower(), flag)
    return list(seen.values())


def _json_keys(text: str, nested: bool = False) -> set[str]:
    """Keys of a JSON object (at any depth when ``nested``); quoted keys when it does not parse."""
    try:
        data = json.loads(text)
    except ValueError:
        # not JSON (YAML flow mapping, shell-escaped quotes): keys before a colon, quoted or bare
        return set(re.findall(r"[\"'](\w+)[\"']\s*:", text)) | set(re.findall(r"[{,]\s*(\w+)\s*:", text))
    if not isinstance(data, dict):
        return set()
    keys = set(data)
    if nested:
        for value in data.values():
            if isinstance(value, dict):
                keys |= _json_keys(json.dumps(value), nested=True)
    return keys


def _atom_exclude_problems(config: AffectedConfig, lines: list[Line], modules: dict) -> list[str]:
    required = modules.get(config.prefix)
    standalone = any(mentions_flag(ln.text, "--draft-model") for ln in lines)
    if engine_family(config) != "atom" or not required or standalone:
        return []
    problems = []
    for line in lines:
        if "online_quant_config" not in line.text and "online-quant-config" not in line.text:
            continue
        uncovered = [m for m in required if m not in line.text]
        if uncovered:
            problems.append(f"{line.where()}: {config.key} --online_quant_config exclude_layer does not "
                            f"cover the draft module(s) {', '.join(uncovered)}, so the draft is quantized")
    return problems


def _checkpoint_problems(config: AffectedConfig, lines: list[Line],
                         approved: dict[str, list[str]]) -> list[str]:
    """A standalone draft that is not the model's shipped / plan-of-record draft."""
    allowed = approved.get(config.prefix)
    if not allowed:
        return []
    problems = []
    for where, draft in draft_checkpoints(config, lines):
        if draft.rstrip("/").lower() not in {a.lower() for a in allowed}:
            problems.append(f"{where}: {config.key} serves draft {draft}, which is not a shipped or "
                            f"agreed (PoR) draft of {config.prefix} ({', '.join(allowed)}); a converted or "
                            "foreign draft checkpoint does not run as shipped")
    return problems


def draft_checkpoints(config: AffectedConfig, lines: list[Line]) -> list[tuple[str, str]]:
    """(where, draft) for each draft the config's own launch names; shared helpers are skipped
    because their model tables list drafts for every model."""
    found = []
    if config.recipe and config.recipe.spec:
        found.append((config.recipe.source, config.recipe.spec.draft_model))
    for line in lines:
        if line.shared:
            continue
        for flag in ("--draft-model", "--speculative-draft-model-path", "--speculative-draft-model"):
            found += [(line.where(), value) for value in flag_values(line.text, flag) if not value.startswith("$")]
        for conf in flag_values(line.text, "--speculative-config"):
            try:
                data = json.loads(conf)
            except ValueError:
                continue
            if isinstance(data, dict) and isinstance(data.get("model"), str):
                found.append((line.where(), data["model"]))
    return list(dict.fromkeys(found))


def _lowers_draft(text: str) -> bool:
    """Whether a patch's code (not its comments, nor those of the source it writes) names
    the draft and a precision on one line."""
    return any(_DRAFT_WORDS.search(code) and _PRECISION_WORDS.search(code)
               for code in map(strip_quoted_comments, text.splitlines()))


def missing_record_fields(body: str) -> list[str]:
    """Which facts of the draft-precision record the Additional detail section lacks."""
    lines = detail_lines(body)
    return [name for name, patterns in _RECORD.items()
            if not any(all(p.search(ln) for p in patterns) for ln in lines)]

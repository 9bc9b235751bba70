"""Read speculative-decoding facts from a config's launch lines (Checks `golden` and `draft`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from infx.plan.launch_graph import SPEC_THROUGHPUT, is_recipe, lane_spec
from infx.signoff.rules.affected import AffectedConfig
from infx.signoff.rules.options import function_runs
from infx.signoff.rules.scan import (
    PRINTS_ONLY,
    Line,
    abbreviates,
    env_settings,
    first_number,
    flag_values,
    function_spans,
    yaml_keys,
    yaml_sections,
)

_ALGORITHMS = {"eagle3": "eagle3", "eagle": "mtp", "nextn": "mtp", "mtp": "mtp", "dspark": "dspark"}
# a request's or a chat template's own setting (chat_template_kwargs, --default-chat-template-kwargs)
_THINKING = re.compile(r"(?<![\w-])[\"']?(enable_thinking|thinking_mode|thinking)[\"']?\s*[:=]\s*[\"']?(\w+)",
                       re.IGNORECASE)
# a server's default for requests that set none (Dynamo's workers: #2690 sets it to disabled)
_DEFAULT_THINKING = re.compile(r"(?<![\w-])[\"']?(DYN_DEFAULT_THINKING_MODE)[\"']?\s*[:=]\s*[\"']?(\w+)")


@dataclass(frozen=True)
class Reading:
    """A pinned acceptance length found in the launch, converted to AL."""

    al: float
    line: Line
    spelling: str  # how it was written, e.g. "SGLANG_SIMULATE_ACC_LEN=3.50"


def engine_family(config: AffectedConfig) -> str:
    if config.recipe:
        return config.recipe.engine
    framework = config.framework.lower()
    for family in ("vllm", "sglang", "atom"):
        if family in framework:
            return family
    return "trt" if "trt" in framework else framework


def draft_length(engine: str, lines: list[Line], texts: Mapping[str, str | None] | None = None) -> int | None:
    """The number of draft tokens the launch runs: the engine's own flag first. In a
    disaggregated srt-slurm recipe (``texts`` given) the decode workers' setting wins: they
    generate the tokens whose acceptance the benchmark measures, and a prefill side may draft
    fewer (#2642: prefill 1, decode 2). None when that is not known: the decode workers'
    settings disagree, or a recipe with decode workers gives them none the line reader sees
    (they run the engine's default, or a value the reader cannot place)."""
    ordered = _DRAFT_FLAGS.get(engine, ()) + tuple(f for fs in _DRAFT_FLAGS.values() for f in fs)
    if any(_unsure_setting(line.text) for line in lines):
        return None
    named = [(line, given) for line in lines if (given := _draft_settings(line.text))]
    for flag in ordered:
        found = [(line, value) for line, given in named for f, value in given if f == flag]
        readable = [(line, int(number)) for line, value in found if (number := first_number(value)) is not None]
        if not readable:
            continue
        decode, other_side = [], False
        for line, value in found:
            side = _decode_side(line, texts)
            if side is None:
                return None  # a recipe whose structure does not say which workers a setting is for
            if side:
                number = first_number(value)
                if number is None or re.match(r"\s*[\"']?-?0\d", value):
                    return None  # the decode workers' setting is no plain number (a reference, 010, 0x2)
                decode.append(int(number))
            elif texts is not None and _has_decode(line, texts):
                other_side = True
        if len(set(decode)) > 1 or (other_side and not decode):
            return None  # decode says two lengths, or none while another side says one
        return (decode or [k for _, k in readable])[0]
    return None


_DRAFT_FLAGS = {"vllm": ("num_speculative_tokens",), "sglang": ("--speculative-num-steps",),
                "atom": ("--num-speculative-tokens",),
                "trt": ("max_draft_len", "--max-draft-len", "num_nextn_predict_layers")}


@lru_cache(maxsize=65536)
def _draft_settings(text: str) -> tuple[tuple[str, str], ...]:
    """(flag, value) of every draft-length flag a line gives (each variant of a config asks
    this of the same lines)."""
    return tuple((flag, value) for flags in _DRAFT_FLAGS.values() for flag in flags
                 for value in flag_values(text, flag))


@lru_cache(maxsize=4096)
def _unsure_setting(text: str) -> bool:
    """Whether a line gives one draft-length flag two different values, or an argparse prefix of
    one (``--num-speculative 5``): the server's parser keeps the last, or takes the prefix for
    the flag, and which setting a line reader sees first is not that."""
    for flag in (f for flags in _DRAFT_FLAGS.values() for f in flags):
        if len({first_number(value) for value in flag_values(text, flag)}) > 1:
            return True
        if flag.startswith("--") and abbreviates(text, flag):
            return True
    return False


def _has_decode(line: Line, texts: Mapping[str, str | None]) -> bool:
    """Whether the line's recipe has a decode workers' section anywhere (or its YAML is not
    read); False outside a recipe."""
    return is_recipe(line.path) and _recipe_has_decode(texts.get(line.path) or "")


@lru_cache(maxsize=256)
def _recipe_has_decode(text: str) -> bool:
    keys = yaml_keys(text)
    return keys is None or any("decode" in path for path in keys)


def _decode_side(line: Line, texts: Mapping[str, str | None] | None) -> bool | None:
    """Whether a launch line is a setting of a disaggregated recipe's decode workers (False for
    every line outside a recipe, or when the recipe's text is not given; None: the recipe's
    structure does not say, or the line holds settings of both sides)."""
    if texts is None or line.number is None or not is_recipe(line.path):
        return False
    sections = yaml_sections(texts.get(line.path) or "", line.number)
    if sections is None:
        return None
    if any("decode" in path and "prefill" in path for path in sections):
        return None  # a decode entry inside the prefill's (or the reverse): whose it is is unclear
    sides = {"decode" in path for path in sections}
    return None if len(sides) > 1 else sides == {True}


def draft_method(config: AffectedConfig, lines: list[Line]) -> str | None:
    if config.recipe and config.recipe.spec:
        return config.recipe.spec.method
    for line in lines:
        for flag in ("--speculative-algorithm", "method", "--method", "decoding_type"):
            for value in flag_values(line.text, flag):
                method = _ALGORITHMS.get(value.strip().lower())
                if method:
                    return method
    declared = {lane_spec(lane) for lane in config.lanes}
    if declared == {"mtp"}:  # the master config's own word for every lane
        return "mtp"
    key = config.key.lower()
    return next((m for word, m in _ALGORITHMS.items() if word in key), None)


def draft_variant(config: AffectedConfig, lines: list[Line]) -> str | None:
    if config.recipe and config.recipe.spec:
        return config.recipe.spec.variant
    text = " ".join(ln.text.lower() for ln in lines)
    if "eagle3-gqa" in text or "eagle3_gqa" in text:
        return "gqa"
    # the probabilistic curve was measured with probabilistic drafting and real (block)
    # verification; a throughput run pins acceptance, so it verifies with the synthetic method
    # and only its drafting tells the curves apart (#2561, #2616: "do not mix curves")
    if any(value.strip().lower() == "probabilistic" for ln in lines
           for value in flag_values(ln.text, "draft_sample_method")):
        return "probabilistic-block"
    return None


def thinking_mode(config: AffectedConfig, lines: list[Line],
                  texts: Mapping[str, str | None] | None = None) -> str | None:
    """``on`` or ``off``: the recipe's setting, else the chat-template kwargs the launch sets,
    else the server's default for requests that set none; default on. A line that prints is
    no setting, nor (``texts`` given: the launch files) one in a shell function the throughput
    run never calls (options.function_runs). None when the launch's settings of one kind
    disagree (one for the accuracy eval, another for the benchmark, or one set again): which
    the benchmark sends is not known."""
    if config.recipe and config.recipe.spec:
        return config.recipe.spec.thinking
    if texts is not None:
        runs = function_runs(texts, lines, SPEC_THROUGHPUT)
        lines = [line for line in lines if not _THINKING_ANY.search(line.text) or runs(line)[1] is not False]
    for pattern in (_THINKING, _DEFAULT_THINKING):
        modes = {"off" if match.group(2).lower() in ("false", "disabled", "off", "0") else "on"
                 for line in lines if not PRINTS_ONLY.match(line.text) for match in pattern.finditer(line.text)}
        if modes:
            return modes.pop() if len(modes) == 1 else None
    return "on"


_THINKING_ANY = re.compile(r"thinking", re.IGNORECASE)  # a line that may set the mode


def acceptance_readings(lines: list[Line], k: int | None) -> list[Reading]:
    """Every synthetic acceptance setting in the launch, as an AL (TRT +1, ATOM rate -> AL)."""
    return [Reading(al, line, spelling) for line in lines for al, spelling in _line_readings(line.text, k)]


@lru_cache(maxsize=65536)
def _line_readings(text: str, k: int | None) -> tuple[tuple[float, str], ...]:
    """(AL, spelling) of each acceptance setting in one line (each variant of a config asks
    this of the same lines)."""
    found: list[tuple[float, str]] = []
    for name, value in env_settings(text):
        number = first_number(value)
        if number is None:
            continue
        if name == "SGLANG_SIMULATE_ACC_LEN":
            found.append((number, f"{name}={value}"))
        elif name == "TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS":
            found.append((number + 1, f"{name}={value}"))
    for flag, joined in _ACCEPTANCE_FLAGS:
        for value in flag_values(text, flag):
            number = first_number(value)
            if number is not None:
                found.append((number, f"{flag}{joined}{value}"))
    for value in flag_values(text, _RATE_FLAG):
        number = first_number(value)
        if number is not None and k:
            found.append((1 + number * k, f"--spec-decode-acceptance-rate {value} (k={k})"))
    return tuple(found)


# flags that give the AL itself, with how a reading spells flag and value
_ACCEPTANCE_FLAGS = (("synthetic_acceptance_length", "="), ("--spec-decode-acceptance-length", " "))
_RATE_FLAG = "--spec-decode-acceptance-rate"  # ATOM: a rate per draft token, read as 1 + rate * k
# the acceptance options of a server that parses with argparse, which takes a unique prefix of a
# long option for it (``--spec-decode-acceptance-len 1.5`` after the pin: the server runs with 1.5)
ARGPARSE_ACCEPTANCE_FLAGS = ("--spec-decode-acceptance-length", _RATE_FLAG)


def injected_acceptance(lines: list[Line], rules: list[dict], texts: Mapping[str, str | None],
                        changed: Iterable[str]) -> tuple[list[Reading], str | None]:
    """Acceptance a launcher injects into the row's recipe (golden.yaml ``injected-acceptance``):
    readings of the row's length setting when its switch setting is true and a launch line
    outside any function body runs the injector; or why such an opt-in cannot be verified
    (the PR changes the injector, or no length is given, so the injector picks one itself)."""
    readings: list[Reading] = []
    for rule in rules:
        values = [(name, value, line) for line in lines for name, value in env_settings(line.text)]
        if not any(name == rule["switch"] and value.strip().strip("\"'").lower() == "true"
                   for name, value, _ in values):
            continue
        call = re.compile(rf"(?:^|[;&|]|\b(?:then|do|else|if|!))\s*(?:python3?\s+[\"']?[^\s\"']*/)?"
                          rf"{re.escape(rule['runs'])}(?:\.py)?[\"']?(?=\s|$)")
        if not any(call.search(line.text) and not _in_function(texts.get(line.path) or "", line.number)
                   for line in lines):
            continue  # switched on, but nothing the row runs injects it: the setting is inert
        touched = sorted(p for p in changed if any(p == f or (f.endswith("/") and p.startswith(f))
                                                  for f in rule["files"]))
        if touched:
            return [], (f"the PR changes the acceptance injector ({touched[0]}), so the AL it injects "
                        f"could not be verified")
        lengths = [(value, line) for name, value, line in values if name == rule["length"]]
        if not lengths:
            return [], (f"{rule['switch']}=true leaves the AL to the injector ({rule['runs']}), which "
                        f"picks it itself: set {rule['length']} to the golden AL")
        for value, line in lengths:
            number = first_number(value)
            if number is not None:
                readings.append(Reading(number, line, f"{rule['length']}={value}"))
    return readings, None


def _in_function(text: str, number: int | None) -> bool:
    return number is not None and any(first < number <= last for _, first, last in function_spans(text))

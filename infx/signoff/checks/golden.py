"""Check `golden`: agentic spec-decode throughput runs pin the committed golden AL."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from infx.config.policy import GOLDEN_DIR, GoldenCurveRef, PolicyReader, draft_kind, golden_refs
from infx.plan.launch_graph import SPEC_THROUGHPUT
from infx.signoff.model import Evidence, Outcome, Status
from infx.signoff.per_verdict import once
from infx.signoff.rules import options
from infx.signoff.rules.affected import (
    AffectedConfig,
    affected_configs,
    config_where,
    is_spec_decode,
    launch_lines,
    runs_spec_decode,
)
from infx.signoff.rules.policy_reads import (
    changed_files,
    detail_lines,
    exception_lines,
    fail_closed,
    failed,
    policy,
)
from infx.signoff.rules.scan import Line, abbreviates, flag_values, runs_as_command
from infx.signoff.rules.shell_values import Variant, variants
from infx.signoff.rules.spec_decoding import (
    ARGPARSE_ACCEPTANCE_FLAGS,
    Reading,
    acceptance_readings,
    draft_length,
    draft_method,
    draft_variant,
    engine_family,
    injected_acceptance,
    thinking_mode,
)
from infx.signoff.swept import judged_configs
from infx.signoff.table import Settings


@fail_closed("Golden acceptance length")
def run(evidence: Evidence, settings: Settings) -> Outcome:
    reader = policy(evidence)
    # the golden curves golden.yaml lists, read once per run, where the first config needs them
    refs = functools.cache(lambda: golden_refs(reader.doc("golden")))
    failures, judged = [], []
    for config in judged_configs(evidence, affected_configs(evidence)):  # what the plan sweeps
        lines = launch_lines(evidence, config)
        if not is_spec_decode(config, lines):
            continue
        if config.agentic:
            verdict = _judge_agentic(evidence, reader, config, lines, refs)
        else:
            verdict = _judge_fixed(evidence, config, lines)
        if verdict:
            (judged if verdict.startswith("ok:") else failures).append(verdict.removeprefix("ok:"))
    if failures:
        return failed(failures, judged)
    if not judged:
        return Outcome(Status.NA, "no agentic spec-decode config is added or changed, and no "
                       "synthetic acceptance is set on a non-agentic one")
    return Outcome(Status.PASS, "; ".join(judged), tuple(judged))


def _variants(evidence: Evidence, config: AffectedConfig, lines) -> list[Variant]:
    """The launch as each group of the config's rows runs it, shell variables followed; worked
    out once per verdict for configs whose entries and launch lines are alike (a PR adding
    many keys that share a recipe judges each, but follows its shell once)."""
    # repr tells apart what the entry's YAML gave (a date from its text, 1 from 1.0 and True)
    # and takes any keys; json.dumps(default=str, sort_keys=True) did neither
    fact = ("golden-variants", tuple(lines), repr(config.entry))
    return once(evidence, fact, lambda: variants(lines, evidence.head_files, config.entry))


def _at(variant: Variant, reading: Reading) -> str:
    """``path:n`` of a reading, with where a value it takes from a variable is set."""
    source = variant.source(reading.line)
    return reading.line.where() + (f" ({source})" if source else "")


def _judge_fixed(evidence: Evidence, config: AffectedConfig, lines) -> str | None:
    engine = engine_family(config)
    found = [(v, r) for v in _variants(evidence, config, lines)
             for r in acceptance_readings(list(v.lines), draft_length(engine, list(v.lines), evidence.head_files))]
    if not found:
        return None
    variant, first = found[0]
    where = config_where(evidence, config)
    excused = [ln for ln in exception_lines(evidence.signoff.body) if config.key in ln]
    if excused:
        return f"ok:{where}: synthetic acceptance on a non-agentic config, documented exception \"{excused[0]}\""
    return (f"{where}: synthetic acceptance {first.spelling} at {_at(variant, first)} on a "
            "non-agentic spec-decode config (only agentic throughput runs may force acceptance)")


def _judge_agentic(evidence: Evidence, reader: PolicyReader, config: AffectedConfig, lines,
                   refs: Callable[[], list[GoldenCurveRef]]) -> str:
    """Each group of rows (a shell variable may pin another AL per concurrency) must pin its
    golden AL; the first group that does not is the finding, the number of others that do not
    is said after it."""
    where = config_where(evidence, config)
    found = _variants(evidence, config, lines)
    verdicts, failing = [], []
    launch_runs_spec = runs_spec_decode(lines)
    for variant in found:
        if not runs_spec_decode(list(variant.lines)) and not (config.recipe and config.recipe.spec):
            if set(variant.specs) <= {"none"}:
                continue  # rows of lanes that run no speculative decoding pin nothing
            if launch_runs_spec:
                # the launch's draft settings sit under a condition these rows decide false
                # (#2616: NUM_SPEC_TOKENS=0 above CONC 16): they run without a draft
                verdicts.append(f"{variant.label()} run no speculative decoding")
                continue
        verdict = _judge_variant(reader, config, variant, where, refs, evidence)
        rows = f" ({variant.label()})" if len(found) > 1 else ""
        if not verdict.startswith("ok:"):
            failing.append(verdict.replace(f"{where}: ", f"{where}{rows}: ", 1))
            continue
        verdicts.append(verdict.removeprefix("ok:").replace(f"{where}: ", "", 1) + rows)
    if failing:  # the first group of rows that fails is the finding; the others are counted
        more = len(failing) - 1
        return failing[0] + (f" (and {more} other group{'s' if more > 1 else ''} of rows)" if more else "")
    return f"ok:{where}: " + ("; ".join(verdicts) or "no row's lane runs speculative decoding")


def _judge_variant(reader: PolicyReader, config: AffectedConfig, variant: Variant, where: str,
                   refs: Callable[[], list[GoldenCurveRef]], evidence: Evidence) -> str:
    lines = list(variant.lines)
    engine = engine_family(config)
    k = draft_length(engine, lines, evidence.head_files)
    runs = _runs_as_written(evidence, lines)
    readings = [r for r in acceptance_readings(lines, k) if _effective(r) and runs(r.line)]
    injected, unverifiable = injected_acceptance(lines, reader.doc("golden").get("injected-acceptance") or [],
                                                 evidence.head_files, (f.filename for f in changed_files(evidence)))
    if unverifiable:
        return f"{where}: {unverifiable}"
    readings += injected
    if not readings:
        return (f"{where}: synthetic acceptance is not enabled for the throughput runs "
                f"({_expected_knob(engine)} not found in its recipe or launch files)")
    if k is None:
        return f"{where}: the draft length (num speculative tokens) could not be read from its launch"
    spellings = {r.spelling.split(" ")[0] for r in readings}
    if {"--spec-decode-acceptance-length", "--spec-decode-acceptance-rate"} <= spellings:
        return (f"{where}: ATOM sets both --spec-decode-acceptance-length and --spec-decode-acceptance-rate "
                f"({_at(variant, readings[0])}), which are mutually exclusive")
    shortened = next(((ln, word, flag) for ln in lines if runs(ln) for flag in ARGPARSE_ACCEPTANCE_FLAGS
                      if (word := abbreviates(ln.text, flag)) is not None), None)
    if shortened:
        line, word, flag = shortened
        return (f"{where}: {line.where()} passes {word}, a prefix of {flag} that argparse takes for it, "
                "so the acceptance the server runs with could not be verified")
    outside = next((r for r in readings if not 1 - 1e-9 <= r.al <= k + 1 + 1e-9), None)
    if outside:
        return (f"{where}: {outside.spelling} at {_at(variant, outside)} means AL {outside.al:.2f}, outside "
                f"the valid range [1, {k + 1}] for {k} draft tokens")
    adaptive = next((ln for ln in lines if re.search(r"confidence_schedule[\"']?\s*[:=]\s*true", ln.text, re.I)), None)
    if engine == "atom" and adaptive:
        return (f"{where}: {adaptive.where()} turns on the DSpark confidence scheduler, which ATOM "
                "rejects together with forced acceptance (the golden curves were collected without it)")
    method, variant_name = draft_kind(reader.doc("golden"), config.prefix, draft_method(config, lines),
                                      draft_variant(config, lines))
    mode = thinking_mode(config, lines, evidence.head_files)
    if mode is None:
        return (f"{where}: the thinking mode could not be read: its launch sets the chat template's "
                "thinking both on and off, so which golden curve (thinking_on or thinking_off) applies is not known")
    ref = choose_curve(refs(), config.prefix, method, variant_name, config.precision)
    golden = None
    if ref is not None:
        curve = reader.golden_curve(ref.file).get(ref.model_key, {})
        golden = curve.get(f"thinking_{mode}", {}).get(k)
    if golden is None:
        return _no_golden(evidence, config, where, method, variant_name, mode, k, readings[0])
    tolerance = reader.doc("golden")["tolerance"]
    label = f"{GOLDEN_DIR}/{ref.file} {ref.model_key}.thinking_{mode}[{k}] = {golden:.2f}"
    wrong = [r for r in readings if abs(r.al - golden) > tolerance + 1e-9]
    if wrong:
        bad = wrong[0]
        return (f"{where}: {bad.spelling} at {_at(variant, bad)} pins AL {bad.al:.2f}, but the golden "
                f"value is {label}" + (" (TRT counts draft tokens only: set AL - 1)" if engine == "trt" else ""))
    return f"ok:{where}: {readings[0].spelling} at {_at(variant, readings[0])} matches {label}"


def choose_curve(refs: list[GoldenCurveRef], prefix: str, method: str | None, variant: str | None,
                 precision: str) -> GoldenCurveRef | None:
    """The golden curve for (prefix, method, variant, precision); never a guess."""
    candidates = [r for r in refs if r.prefix == prefix and r.method == method
                  and r.variant == variant and r.precision in (None, precision)]
    candidates.sort(key=lambda r: r.precision is None)
    return candidates[0] if candidates else None




def _runs_as_written(evidence: Evidence, lines: list[Line]) -> Callable[[Line], bool]:
    """Whether a launch line's pin is one the launch may run: not a shell line that only
    prints, nor text (a heredoc or program no shell reads, a string given to a no-op or a print:
    scan.printed_lines), nor in a shell function the launch never calls. A pin in such a line
    sets nothing, so it is no pin of the run (the server it starts has none)."""
    runs = options.function_runs(evidence.head_files, lines, SPEC_THROUGHPUT)

    def as_written(line: Line) -> bool:
        return runs_as_command(line, evidence.head_files.get(line.path) or "") and runs(line)[1] is not False

    return as_written


def _effective(reading: Reading) -> bool:
    if not reading.spelling.startswith("synthetic_acceptance_length"):
        return True
    return "synthetic" in flag_values(reading.line.text, "rejection_sample_method")


def _no_golden(evidence: Evidence, config: AffectedConfig, where: str, method, variant, mode, k,
               reading: Reading) -> str:
    what = f"{config.prefix} {method}{f'/{variant}' if variant else ''} thinking_{mode} k={k}"
    sources = [ln for ln in detail_lines(evidence.signoff.body)
               if (config.key in ln or config.prefix in ln)
               and ("acceptance length" in ln.lower() or " al " in f" {ln.lower()} ")]
    if sources:
        return f"ok:{where}: no golden curve for {what}; the sign-off states the AL source: \"{sources[0]}\""
    return (f"{where}: no golden curve for {what} and the Additional detail section does not state "
            f"where {reading.spelling} ({reading.line.where()}) comes from")


def _expected_knob(engine: str) -> str:
    return {"sglang": "SGLANG_SIMULATE_ACC_LEN", "vllm": "rejection_sample_method synthetic + "
            "synthetic_acceptance_length", "trt": "TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS",
            "atom": "--spec-decode-acceptance-length"}.get(engine, "a synthetic acceptance setting")

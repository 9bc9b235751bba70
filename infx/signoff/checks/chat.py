"""Check `chat`: spec-decode benchmarks send prompts through the model's chat template."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache

from infx import yamlio
from infx.errors import InfxError
from infx.inert import clip, code
from infx.plan.launch_graph import SPEC_THROUGHPUT, decide, shell_writes
from infx.signoff.model import Evidence, Outcome, Status
from infx.signoff.rules import options
from infx.signoff.rules.affected import (
    AffectedConfig,
    affected_configs,
    config_where,
    draft_size_zero,
    is_spec_decode,
    launch_lines,
)
from infx.signoff.rules.policy_reads import EvidenceGap, fail_closed, failed, policy
from infx.signoff.rules.scan import (
    SHELL_ASSIGNMENT,
    SHELL_FILE,
    Guard,
    Line,
    data_lines,
    runs_as_command,
    shell_guards,
    strip_comment,
    text_lines,
)
from infx.signoff.rules.shell_values import literal_assignments
from infx.signoff.swept import judged_configs
from infx.signoff.table import Settings

# client settings that apply the chat template (AIPerf, bench-serving, srt-slurm, helpers)
_CHAT = re.compile(r"/v1/chat/completions|--endpoint-type[ =]chat\b|--apply-chat-template"
                   r"|--use-chat-template|\b(?:openai|sglang-oai)-chat\b|use_chat_template\s*[:=]\s*true"
                   r"|endpoint_type\s*[:=]\s*[\"']?chat\b", re.IGNORECASE)
_RAW_ENDPOINT = re.compile(r"/v1/completions\b|--endpoint-type[ =]completions\b", re.IGNORECASE)
_RAW = re.compile(_RAW_ENDPOINT.pattern + r"|--backend[ =](?:openai|vllm|sglang(?:-oai)?)(?![\w-])", re.IGNORECASE)


def _records_the_choice(text: str) -> bool:
    """In a shell file, `use_chat_template=true` only sets a variable: the line that passes
    what it decides to the client is the evidence, not the assignment (one word assigned)."""
    assigned = SHELL_ASSIGNMENT.match(text)
    return assigned is not None and "use_chat_template" in assigned.group(1).lower() \
        and len(text[assigned.end():].rstrip().rstrip(";").split()) <= 1


@lru_cache(maxsize=65536)
def _chat_line(text: str) -> bool:
    # the configs launched through one helper ask this of the same lines
    return _CHAT.search(text) is not None


def _raw_after_chat(text: str, path: str = "", file_text: str | None = None) -> bool:
    """Whether a raw-completions setting follows the line's last chat setting: the clients'
    argparse keeps an option's last value (``--backend openai-chat … --backend openai``), also
    through a variable the file assigns (``"${ARGS[@]}"``, ``--backend "$RB"``: every value it
    is given there)."""
    last_chat = max(m.end() for m in _CHAT.finditer(text))
    rest = text[last_chat:]
    if _RAW.search(rest):
        return True
    if "$" not in rest or not file_text:
        return False
    lines = text_lines(path, file_text)
    expanded = _EXPANSION.sub(lambda m: " ".join(literal_assignments(lines, m.group(1)) or [m.group(0)]), rest)
    return _RAW.search(expanded.replace('"', "").replace("'", "")) is not None


_EXPANSION = re.compile(r"\$\{?([A-Za-z_]\w*)(?:\[[@*]\])?\}?")


# a parameter expansion that edits the value: ${X/pat/rep}, ${X//pat}, ${X#pat}, ${X%pat}, ${X^}
_EDITED = re.compile(r"\$\{[A-Za-z_]\w*(?:/|#|%|\^|,)[^}]*\}")


def _chat_evidence(evidence: Evidence, line: Line, defined: frozenset[str]) -> bool:
    """Whether a launch line sets the client's chat template. In a shell file these do not: a
    variable that only records the choice, a line that prints it, text of a heredoc or an
    inline program (scan.data_lines), the words of a command the launch defines itself and
    does not hand them on from (``defined``: options.swallowing_commands; its own lines are
    judged where they are written)."""
    if not _chat_line(line.text) or _raw_after_chat(line.text, line.path, evidence.head_files.get(line.path)):
        return False
    found = _CHAT.search(line.text)
    if not SHELL_FILE.search(line.path):
        return True
    if not _chat_line(_EDITED.sub("", line.text)):
        return False  # the flag is the pattern an expansion removes or replaces: ${X/--flag/}
    if options.command_at(line.text, found.start()) in defined:
        return False
    return not _records_the_choice(line.text) and _is_command(evidence, line)


@fail_closed("Chat-template use")
def run(evidence: Evidence, settings: Settings) -> Outcome:
    affected = affected_configs(evidence)
    configs = judged_configs(evidence, affected)  # what the PR submits
    judged, failures, skipped = [], [], []
    for config in configs:
        verdict = _judge(evidence, config)
        if verdict is None:
            if draft_size_zero(config):
                skipped.append(f"{config.key} sets the draft size to 0 on every lane")
            continue
        (judged if verdict[0] else failures).append(verdict[1])
    kept = {id(config) for config in configs}  # judged_configs keeps the very objects it was given
    failures += _dropped_by_shared_files(evidence, [c for c in affected if id(c) not in kept])
    if failures:
        return failed(failures, judged)
    if not judged:
        reason = "no spec-decode config is added or changed"
        return Outcome(Status.NA, reason + (f" ({'; '.join(skipped)})" if skipped else ""))
    return Outcome(Status.PASS, "; ".join(judged), tuple(judged))


def _judge(evidence: Evidence, config: AffectedConfig) -> tuple[bool, str] | None:
    """(uses the chat template, what was found) for a spec-decode config's launch in the
    evidence's head files; None for a config that does not decode speculatively."""
    lines = launch_lines(evidence, config)
    if not is_spec_decode(config, lines):
        return None
    where = config_where(evidence, config)
    # a helper's option loop only records the option; the line that passes it on is the evidence
    handed = options.option_calls(evidence.head_files, lines)  # words given to a helper's option loop
    # a line in a shell function counts when the throughput run calls that function: the chat
    # template of a helper only the accuracy eval runs (run_lm_eval) is not the benchmark's
    runs = options.function_runs(evidence.head_files, lines, SPEC_THROUGHPUT)
    launch = _Launch(evidence, lines)
    defined = options.swallowing_commands(evidence.head_files, {ln.path for ln in lines if SHELL_FILE.search(ln.path)})
    found = [ln for ln in lines if _chat_evidence(evidence, ln, defined) and not _parses_options(evidence, ln)
             and (ln.path, ln.number) not in handed
             and _reaches_a_command(evidence, ln, lines, runs, launch, defined)]
    candidates = [ln for ln in found if runs(ln)[1] is True]
    unproven = [(ln, runs(ln)[0]) for ln in found if runs(ln)[1] is None]
    chat = next((ln for ln in candidates if not _unproven_guard(evidence, ln, launch)), None)
    if chat:
        return True, (f"{where}: client uses the chat template ({chat.where()}: {_clip(chat.text)}"
                      + _guard_note(evidence, chat, launch) + ")")
    raw = _first(lines, _RAW)
    # the recipes' harness applies it by default: what a shell helper may or may not do with its
    # own flag is then not the benchmark's client (a raw-completions setting still fails)
    by_default = None if raw else _harness_default(evidence, lines)
    if by_default:
        return True, f"{where}: client uses the chat template ({by_default})"
    if candidates:
        guard = _unproven_guard(evidence, candidates[0], launch)
        return False, (f"{where}: the chat template is applied only under {code(guard)} at "
                       f"{candidates[0].where()}, which could not be shown to hold for this "
                       "spec-decode config (a condition is accepted when the launch decides it for a "
                       "spec config's throughput run, as it does EVAL_ONLY, IS_MTP and SPEC_DECODING, "
                       "or when the helper's option loop sets it on every call)")
    if unproven:
        line, function = unproven[0]
        if function is None:
            return False, (f"{where}: the chat template is applied only at {line.where()}, after the "
                           "script's unconditional exit")
        return False, (f"{where}: the chat template is applied only inside the shell function "
                       f"{code(function)} at {line.where()}, which the spec-decode throughput run "
                       "could not be shown to call")
    if raw:
        return False, (f"{where}: spec-decode benchmark drives raw completions without a chat "
                       f"template at {raw.where()}: {_clip(raw.text)}")
    return False, (f"{where}: the benchmark client could not be verified to use a chat "
                   "template (no chat endpoint or template flag in its recipe or launch files)")


# the sections of a variant-composing recipe (srt-slurm's ``base`` and the ``override_*`` /
# ``zip_override_*`` sections each variant deep-merges over it; a zip section's lists are sliced)
_OVERRIDE = re.compile(r"^(?:zip_)?override_")


def _harness_default(evidence: Evidence, lines: list[Line]) -> str | None:
    """Where the launch's recipes get the chat template from their harness's default
    (engines.yaml ``chat-template-defaults``), or None. Every recipe the launch runs must be one
    the rule covers (``_leaves_default``: one YAML mapping, or ``base`` and variant sections,
    whose section names one of the rule's client types and leaves the setting unset in every
    variant); and no launch line that names the setting (in either spelling) may set it
    (``_may_set``: any recipe or text line, any shell command but an assignment, a case
    pattern or a test)."""
    try:
        rules = policy(evidence).doc("engines").get("chat-template-defaults") or []
    except (EvidenceGap, InfxError):
        return None  # no trusted rule: nothing is taken as a default
    for rule in rules:
        setting = rule["setting"]
        mention = re.compile(re.escape(setting).replace("_", "[_-]"), re.IGNORECASE)
        if any(mention.search(line.text) and _may_set(evidence, line) for line in lines):
            continue
        recipes = list(dict.fromkeys(line.path for line in lines if line.path.startswith(rule["recipes-under"])))
        if not recipes or not all(_leaves_default(evidence.head_files.get(path), path, rule) for path in recipes):
            continue
        named = ", ".join(code(path) for path in recipes[:2]) + (f" and {len(recipes) - 2} more" if len(recipes) > 2 else "")
        return f"{rule['source']}: {named} {'leaves' if len(recipes) == 1 else 'leave'} {rule['section']}.{setting} unset"
    return None


# shell forms that name a setting without writing any file: a variable assignment (``local
# use_chat_template=false``, ``cmd+=(--use-chat-template)``), a case pattern (``--use-chat-template)``),
# a test (``if [[ "$use_chat_template" == true ]]; then``, ``[[ … ]] && NAME=value``)
_ASSIGNS = r"(?:(?:local|declare(?:\s+-\w+)*|typeset|readonly|export)\s+)?[A-Za-z_]\w*(?:\[[^]]*\])?\+?=(?:\([^()`$]*\)|[^\s;&|<>`$()]*)"
_NAMES_ONLY = re.compile(rf"^\s*(?:{_ASSIGNS}\s*;?\s*(?:;;)?|[^\s()<>;&|`$]+\)(?:\s*(?:{_ASSIGNS}|shift(?:\s+\d+)?)\s*;?)*\s*(?:;;)?"
                         rf"|(?:if|elif|while)\s+\[\[[^`$]*(?:\$\{{?\w+\}}?[^`$]*)*\]\]\s*;\s*then"
                         rf"|\[\[[^`$]*(?:\$\{{?\w+\}}?[^`$]*)*\]\]\s*&&\s*{_ASSIGNS}\s*;?)\s*$")


def _may_set(evidence: Evidence, line: Line) -> bool:
    """Whether a launch line that names a harness setting may set it for the harness: a line of
    a recipe or another structured file, heredoc or inline-program text, or a shell command of
    any form but those that only assign a variable, match a case pattern or test a value (a
    command may rewrite the recipe: ``sed -i``, ``yq``, a redirection, ``eval`` …)."""
    if line.number is None or not SHELL_FILE.search(line.path):
        return True
    if line.number in data_lines(evidence.head_files.get(line.path) or ""):
        return True
    return _NAMES_ONLY.match(line.text) is None


def _leaves_default(text: str | None, path: str, rule: dict) -> bool:
    try:
        doc = yamlio.load_text(text, path) if text is not None else None
    except InfxError:
        return False
    if not isinstance(doc, dict):
        return False
    name, types = rule["section"], rule["types"]
    overrides = [v for k, v in doc.items() if isinstance(k, str) and _OVERRIDE.match(k)]
    if "base" not in doc and not overrides:  # one recipe, no variants
        section = doc.get(name)
        return isinstance(section, dict) and section.get("type") in types and rule["setting"] not in section
    base = doc.get("base")
    section = base.get(name) if isinstance(base, dict) else None
    if not isinstance(section, dict) or section.get("type") not in types or rule["setting"] in section \
            or any(k != "base" and not _OVERRIDE.match(str(k)) for k in doc):
        return False
    for override in overrides:  # every variant keeps a client the rule covers and leaves the setting unset
        if not isinstance(override, dict):
            return False
        mine = override.get(name, {})
        if not isinstance(mine, dict) or rule["setting"] in mine:
            return False
        kind = mine.get("type", section["type"])
        if not all(k in types for k in (kind if isinstance(kind, list) else [kind])):
            return False
    return True


def _reaches_a_command(evidence: Evidence, line: Line, lines: list[Line],
                      runs: Callable[[Line], tuple[str | None, bool | None]], launch: _Launch,
                      defined: frozenset[str]) -> bool:
    """A shell variable given the chat flag (``EXTRA="--use-chat-template"``) is evidence only
    when a later launch line that the throughput run surely runs (not printed, not text, in no
    function it may not call, under no condition it may not take, after no exit or return on its
    way) expands it whole (``$EXTRA``, ``${EXTRA}``, ``${EXTRA:-…}``) among the words of the
    command it runs (``_runs_the_expansion``: followed by no other endpoint setting), and its
    file does not write it again afterwards except to extend it with other settings than raw
    completions; any other line is evidence as it stands. ``defined``: the commands whose words
    are not the client's (options.swallowing_commands)."""
    assigned = SHELL_ASSIGNMENT.match(line.text) if SHELL_FILE.search(line.path) else None
    if assigned is None or line.number is None:
        return True
    name = assigned.group(1)
    use = re.compile(rf"\$(?:{name}(?!\w)|\{{{name}(?:\}}|\[[@*]\]\}}|:?[-+=]))")  # an array's words too
    extends = re.compile(rf"^\s*{name}\+=")  # NAME+=" --more": what it held is kept
    text = evidence.head_files.get(line.path) or ""
    later = [n for n in shell_writes(text).get(name, ()) if n > line.number]
    if later:
        source, here = text.splitlines(), shell_guards(text, line.number)
        if any((not use.search(source[n - 1]) and not extends.match(source[n - 1])
                or _RAW.search(source[n - 1]) is not None)
               and not _exclusive(here, shell_guards(text, n)) for n in later):
            # set again (or unset) afterwards, or extended with a raw-completions setting (the
            # client takes the last of two): not what the client gets
            return False
    # a use that also passes another endpoint setting after it (``"${cmd[@]}" --endpoint-type
    # completions``: the client takes the last) gives the client no chat template
    # nor does a use in the words of a command the launch defines without handing them on
    uses = [other for other in lines if other is not line and (found := use.search(other.text))
            and _runs_the_expansion(other.text, found.start(), found.end())
            and (not SHELL_FILE.search(other.path) or options.command_at(other.text, found.start()) not in defined)
            and (other.path != line.path or (other.number or 0) > line.number)]
    # a condition with an expansion on each of its arms (``if …; then "${cmd[@]}" & else
    # "${cmd[@]}"; fi``): one of them runs, whichever way it goes, when each such expansion
    # runs whenever its arm is taken (under no other condition it may not take, after no exit)
    guarded = [(other, [(other.path, g.line, g.predicate, g.negated) for g in _guards(evidence, other)])
               for other in uses if _is_command(evidence, other)]
    keys = {key[:3] for _, found in guarded for key in found}
    either: frozenset[tuple[str, int, str]] = frozenset()
    while True:  # inner conditions first: an if whose arms all expand it covers its own arm
        grown = either | {key for key in keys - either if all(
            any(found[i][:3] == key and found[i][3] is side and all(g[:3] in either for g in found[i + 1:])
                # the conditions around this one are the same on both arms: judged with the use
                and _runs_with(evidence, other, line, runs, launch, either | {g[:3] for g in found[:i + 1]})
                for other, found in guarded for i in range(len(found)))
            for side in (True, False))}
        if grown == either:
            break
        either = grown
    return any(_runs_with(evidence, other, line, runs, launch, either) for other in uses)


# what comes before an expansion on its line that keeps it from running as the client's
# words: a list operator (it may not run), a substitution or group it sits in, an exit
_NOT_RUN_BEFORE = re.compile(r"&&|\|\||\$\(|`|<\(|\b(?:exit|return)\b")
# a first word that runs nothing with its arguments (a no-op, a test, a declaration), or an
# assignment whose value holds the expansion (``Y="$X"``, ``saved=("${cmd[@]}")``)
_NO_COMMAND = re.compile(r"^\s*(?:(?::|true|false|test|\[\[?|local|export|declare|typeset|readonly|unset|"
                         r"shift|set|read|echo|printf|let|alias|trap|logger|cat|tee|grep|wc|type|hash|which|"
                         r"command\s+-[vV]|#)(?=\s|$)|[A-Za-z_]\w*(?:\[[^]]*\])?\+?=\S*$)")
_SEGMENT = re.compile(r"(?:^|[;&|{(]|\b(?:then|else|do|if|while|until|time|nohup|exec|command|builtin)\b)\s*"
                      r"(?=[^;&|{(]*$)")
_LEADING_NOISE = re.compile(r"^\s*(?:(?:\d*[<>]+&?\S*|[A-Za-z_]\w*=(?:\"[^\"]*\"|'[^']*'|\S+))\s+)*")
_CLOSED_SUBSTITUTION = re.compile(r"\$\(\([^()`]*\)\)|\$\([^()`]*\)|`[^`]*`")
_ASSIGNED_VALUE = re.compile(r"(?:^|[\s;&|(])[A-Za-z_]\w*(?:\[[^]]*\])?\+?=\(?[\"']?$")
# an endpoint setting after the expansion, in the same command: the client takes the last
_ENDPOINT_AFTER = re.compile(r"--(?:endpoint-type|endpoint|backend)(?:=|\s+)[\"']?([^\s\"';&|]*)", re.IGNORECASE)


def _runs_the_expansion(text: str, start: int, end: int) -> bool:
    """Whether a line's expansion at ``start``-``end`` is part of the command its line runs (not
    after ``&&``/``||``, not in a substitution, not the value of an assignment, not the
    argument of a no-op) and no endpoint setting other than chat follows it in that command."""
    before = strip_comment(text[:start]) if "#" in text[:start] else text[:start]
    # a closed substitution before it (``--host $(hostname) $EXTRA``) is one of the command's words
    closed = _CLOSED_SUBSTITUTION.sub("x", before)
    closed = re.sub(r"([<>])&|&(>)", r"\1_\2", closed)  # a redirection's & (>&2, &>log) separates nothing
    if _NOT_RUN_BEFORE.search(closed) or len(before) != len(text[:start]):
        return False
    segment = closed[_SEGMENT.search(closed).end():] if _SEGMENT.search(closed) else closed
    # what may stand before the command word: redirections (``>&2 echo``), environment settings
    segment = _LEADING_NOISE.sub("", segment)
    if _NO_COMMAND.match(segment) or "<<<" in closed:
        return False
    if _ASSIGNED_VALUE.search(closed):
        return False
    rest = re.split(r"&&|\|\||;|(?<![|>])\|(?!\|)", strip_comment(text[end:]), maxsplit=1)[0]
    return not _RAW_ENDPOINT.search(rest) and not any(
        not _chat_line(m.group(0)) and not _chat_line(m.group(1)) for m in _ENDPOINT_AFTER.finditer(rest))


def _is_command(evidence: Evidence, line: Line) -> bool:
    """Whether a launch line runs what it holds (scan.runs_as_command on the head's text)."""
    return runs_as_command(line, evidence.head_files.get(line.path) or "")


def _runs_with(evidence: Evidence, use: Line, assigned: Line,
               runs: Callable[[Line], tuple[str | None, bool | None]], launch: _Launch,
               either: frozenset[tuple[str, int, str]] = frozenset()) -> bool:
    """Whether the throughput run executes the line that expands a variable whenever it runs
    the line that assigns it: the use is a command (not printed, not text), in the same
    function or one the run surely calls, under no condition the assignment is not under
    that the run may not take (but those in ``either``: an expansion sits on each of their arms)."""
    if not SHELL_FILE.search(use.path) or use.number is None:
        return True
    if not _is_command(evidence, use):
        return False
    if options.ends_before(evidence.head_files.get(use.path) or "", use.number):
        return False  # an exit or return on the way to it
    same = use.path == assigned.path and runs(use)[0] == runs(assigned)[0]
    if not same and runs(use)[1] is not True:
        return False
    shared = _guards(evidence, assigned) if same else []
    own = [g for g in _guards(evidence, use) if (use.path, g.line, g.predicate) not in either]
    return all(g in shared for g in own) or _unproven_guard(evidence, use, launch, own) is None


def _exclusive(one: list[Guard], other: list[Guard]) -> bool:
    """Whether two lines sit in branches of one condition that never both run (the if and
    the else of one test, two arms of one case)."""
    return any(a.line == b.line and a.predicate == b.predicate and a.negated != b.negated
               for a in one for b in other)


def _dropped_by_shared_files(evidence: Evidence, configs: list[AffectedConfig]) -> list[str]:
    """Configs the PR reaches only through a file they share (not swept, so not judged on
    their own) whose launch used the chat template at base and no longer does at head: the
    PR's change to the shared file took it away. A launch that already lacked it at base is
    not this PR's doing."""
    if not configs or not evidence.base_files:
        return []
    at_base = replace(evidence, head_files=evidence.base_files)
    found = []
    for config in configs:
        now = _judge(evidence, config)
        if now is None or now[0]:
            continue
        before = _judge(at_base, config)
        if before is not None and before[0]:
            found.append(f"{now[1]}; the PR's change to {', '.join(code(f) for f in config.files)} "
                         f"takes away the chat template its launch used at base")
    return found


def _guards(evidence: Evidence, line: Line) -> list[Guard]:
    if line.number is None or not SHELL_FILE.search(line.path):
        return []
    return shell_guards(evidence.head_files.get(line.path) or "", line.number)


class _Launch:
    """A config's launch lines, with the calls they make of each helper (read once)."""

    def __init__(self, evidence: Evidence, lines: list[Line]) -> None:
        self._evidence, self._lines = evidence, lines
        self._calls: dict[str, list[tuple[str, ...]] | None] = {}

    def calls(self, function: str) -> list[tuple[str, ...]] | None:
        if function not in self._calls:
            self._calls[function] = options.calls(self._evidence.head_files, self._lines, function, SPEC_THROUGHPUT)
        return self._calls[function]


def _unproven_guard(evidence: Evidence, line: Line, launch: _Launch,
                    guards: list[Guard] | None = None) -> str | None:
    """The first enclosing condition not shown to hold for a spec config's throughput run
    (None: every one is). A condition the launch graph decides (EVAL_ONLY, IS_MTP,
    SPEC_DECODING) holds when that run takes the side the line is on;
    inside a helper that reads its options in a loop, the arm a line is in and the conditions
    on what the loop sets hold when every call the config's launch makes passes the options
    that take them (rules.options). Any other condition is not known to hold, whatever it
    names (``[ "$SPEC" = never ]`` mentions spec decoding and never holds): no guess.
    ``guards``: those of the line's conditions to judge (default: all)."""
    guards = _guards(evidence, line) if guards is None else guards
    by_loop, holds, loop = _loop_guards(evidence, line, launch, guards)
    if by_loop and not holds:
        guard = by_loop[-1]
        return f"{loop.function} called without the option that sets it ({guard.predicate})"
    for guard in guards:
        if any(guard is g for g in by_loop):
            continue
        taken = decide(guard.predicate, SPEC_THROUGHPUT)
        if taken is None or taken == guard.negated:
            return ("else of " if guard.negated else "") + guard.predicate
    return None


def _parses_options(evidence: Evidence, line: Line) -> bool:
    if line.number is None or not SHELL_FILE.search(line.path):
        return False
    loop = options.loop_at(evidence.head_files.get(line.path) or "", line.number)
    return loop is not None and loop.parses(line.number)


def _loop_guards(evidence: Evidence, line: Line, launch: _Launch, guards: list[Guard]
                 ) -> tuple[list[Guard], bool, options.OptionLoop | None]:
    """The line's guards that its function's option loop decides, whether they hold for the
    config's calls of that function, and the loop."""
    if not guards or line.number is None:
        return [], False, None
    loop = options.loop_at(evidence.head_files.get(line.path) or "", line.number)
    if loop is None:
        return [], False, None
    called = launch.calls(loop.function)
    results = [options.run(loop, words) for words in called or ()]
    known = [r for r in results if r is not None] if called and None not in results else []
    decided, holds = options.guards_hold(loop, line.number, guards, known, SPEC_THROUGHPUT)
    return decided, holds, loop


def _guard_note(evidence: Evidence, line: Line, launch: _Launch) -> str:
    guards = _guards(evidence, line)
    by_loop, _, loop = _loop_guards(evidence, line, launch, guards)
    said = [('not ' if g.negated else '') + g.predicate for g in guards if not any(g is d for d in by_loop)]
    if by_loop and loop is not None:
        said.append(f"every call of {loop.function} passes the option that sets it")
    return f", when {' and '.join(said)}" if said else ""


def _first(lines: list[Line], pattern: re.Pattern[str]) -> Line | None:
    return next((ln for ln in lines if pattern.search(ln.text)), None)


def _clip(text: str, limit: int = 120) -> str:
    return clip(" ".join(text.split()), limit)

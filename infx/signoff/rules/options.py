"""What a shell function's option loop sets for the calls a config's launch makes of it.

Shared helpers take their settings as options (``run_benchmark_serving --model "$MODEL" --dsv4``)
and read them in a loop of the form::

    f() {
        local use_chat_template=false
        while [[ $# -gt 0 ]]; do
            case $1 in
                --use-chat-template) use_chat_template=true; shift ;;
                --dsv4) dsv4=true; use_chat_template=true; shift ;;
                --model) model="$2"; shift 2 ;;
                *) echo "unknown $1"; exit 1 ;;
            esac
        done
        if [[ "$use_chat_template" == true ]]; then …

A line inside an arm runs for a call when one of the call's options selects that arm (the first
arm whose patterns match it, as bash takes it); a condition after the loop is decided with the
values the selected arms give the function's variables over their ``local`` defaults. Anything
the loop does that this does not model (an arm that shifts by a computed count, a pattern bash
expands, a value computed at run time, an option no arm takes) leaves the answer unknown.
"""

from __future__ import annotations

import fnmatch
import re
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache

from infx.plan.launch_graph import ANY_VARIABLE, FUNCTION_OPEN, Branch, decide, shell_writes
from infx.signoff.rules.scan import (
    PRINTS_ONLY,
    Guard,
    Line,
    body_spans,
    case_arm_body,
    data_lines,
    file_rows,
    function_spans,
    join_continuations,
    printed_lines,
    shell_guards,
    strip_comment,
    text_lines,
)

_WHILE_ARGS = re.compile(r"^\s*while\s+(?:\[\[?\s*\"?\$\{?#\}?\"?\s+-(?:gt|ne)\s+0\s*\]\]?|"
                         r"\(\(\s*\$?#\s*(?:>\s*0\s*)?\)\))\s*(?:;\s*do)?\s*$")
_CASE_FIRST = re.compile(r"^\s*case\s+\"?\$(?:1|\{1\})\"?\s+in\s*$")
_ASSIGN = re.compile(r"^\s*(?:local\s+|declare\s+)?([A-Za-z_]\w*)=(\S*)\s*$")
_SHIFT = re.compile(r"^\s*shift(?:\s+(\d+))?\s*;?\s*$")
# a pattern fnmatch does not read as bash does: quoting, expansions, negated or POSIX classes
_UNDECIDABLE_PATTERN = re.compile(r"[$`\"'\\]|\[\^|\[!|\[:")
# an arm command after which the loop does not go on reading words as this models
_ENDS_LOOP = re.compile(r"^(?:break|continue|return|exit|set\s+(?:\S+\s+)?--|shift\s+\$)(?:\s|$)")
_TESTED = re.compile(r"\$\{?([A-Za-z_]\w*)")
MAX_CALL_WORDS = 200  # a call of more words is not followed


@dataclass(frozen=True)
class Arm:
    """One arm of an option loop: its patterns, what it sets, and how many words it consumes
    (None: not known)."""

    patterns: tuple[str, ...]
    sets: tuple[tuple[str, str | None], ...]  # (name, literal value, or None when computed)
    consumes: int | None


@dataclass(frozen=True)
class OptionLoop:
    """A function's loop over its options (``while [[ $# -gt 0 ]]; do case $1 in …``)."""

    function: str
    opened: int  # the function's opening line
    closed: int  # the line of its closing brace
    case_line: int  # the ``case $1 in`` line (where its arms' guards are tested)
    end_line: int  # the loop's ``done`` line
    arms: tuple[Arm, ...]
    arm_of_line: tuple[tuple[int, int], ...]  # (line, index of the arm it belongs to)
    defaults: tuple[tuple[str, str | None], ...]  # ``local name=value`` before the loop
    # (name, line) of every write the function makes after the loop (a condition on that name
    # past such a write is not what the loop left)
    later_writes: tuple[tuple[str, int], ...] = ()

    def parses(self, number: int) -> bool:
        """Whether line ``number`` is part of the loop itself (its case, arms and ``done``)."""
        return self.case_line <= number <= self.end_line


@dataclass(frozen=True)
class CallResult:
    """What one call's options do in a loop: the arms they select and the values they leave."""

    arms: frozenset[int]
    values: tuple[tuple[str, str], ...]  # the variables with a known literal value after the loop


def loop_at(text: str, number: int) -> OptionLoop | None:
    """The option loop of the function that line ``number`` of ``text`` is in, if it has one."""
    for loop in option_loops(text):
        if loop.opened < number < loop.closed:
            return loop
    return None


@lru_cache(maxsize=1024)
def option_loops(text: str) -> tuple[OptionLoop, ...]:
    """Every function of ``text`` that reads its options in a ``while``/``case $1`` loop."""
    lines = text.splitlines()
    found = []
    for name, opened, closed in function_spans(text):
        loop = _loop(text, lines, name, opened, closed)
        if loop is not None:
            found.append(loop)
    return tuple(found)


def _loop(text: str, lines: list[str], name: str, opened: int, closed: int) -> OptionLoop | None:
    body = range(opened + 1, closed)  # 1-based line numbers
    start = next((n for n in body if _WHILE_ARGS.match(lines[n - 1])), None)
    if start is None:
        return None
    case_line = next((n for n in range(start + 1, closed) if lines[n - 1].strip() not in ("", "do")), None)
    if case_line is None or not _CASE_FIRST.match(lines[case_line - 1]):
        return None
    # the loop's `done` follows the case's own `esac` (a loop inside an arm has its own `done`)
    esac = next((n for n in range(case_line + 1, closed) if lines[n - 1].strip().rstrip(";") == "esac"
                 and not any(g.line == case_line for g in shell_guards(text, n))), None)
    end = next((n for n in range(esac + 1, closed) if lines[n - 1].strip() in ("done", "done;")), None) \
        if esac is not None else None
    if end is None:
        return None
    prefix = lines[case_line - 1].strip().split(" in")[0].removeprefix("case").strip()
    own = f"case {prefix} in "
    arm_lines: dict[int, list[int]] = {}
    patterns: list[str] = []
    for number in range(case_line + 1, end):
        arm = [g for g in shell_guards(text, number) if g.line == case_line and not g.negated]
        if not arm:
            continue  # the esac line
        if len(arm) != 1 or not arm[0].predicate.startswith(own) or not arm[0].predicate.endswith(")"):
            # an arm whose pattern does not say when it runs (after a ;& fall-through, past the
            # guard reader's arm cap, under nocasematch): the loop is not followed at all
            return None
        pattern = arm[0].predicate[len(own):-1]
        if pattern not in patterns:
            patterns.append(pattern)
        arm_lines.setdefault(patterns.index(pattern), []).append(number)
    arms = []
    of_line: list[tuple[int, int]] = []
    for index, pattern in enumerate(patterns):
        numbers = arm_lines[index]
        of_line += [(n, index) for n in numbers]
        arms.append(_arm(pattern, [_arm_text(text, lines, n) for n in numbers]))
    defaults = _defaults(text, lines, opened, start)
    later = tuple((written, n) for written, numbers in shell_writes(text).items()
                  for n in numbers if end < n < closed)
    return OptionLoop(name, opened, closed, case_line, end, tuple(arms), tuple(of_line), defaults, later)


def _defaults(text: str, lines: list[str], opened: int, start: int) -> tuple[tuple[str, str | None], ...]:
    """The values the function's variables have when its loop starts: its literal
    assignments before the loop, in order; a variable written there in any other way
    (``printf -v``, ``read``, ``export X=$(…)``) is unknown, and so is every one after an
    eval or source."""
    values: dict[str, str | None] = {}
    writes = shell_writes(text)
    for number in range(opened + 1, start):
        assigned = _ASSIGN.match(lines[number - 1])
        if assigned:
            name, value = _literal(assigned)
            values[name] = value
            continue
        if number in writes.get(ANY_VARIABLE, ()):
            values = {name: None for name in values}
        for name, numbers in writes.items():
            if number in numbers and name != ANY_VARIABLE:
                values[name] = None
    return tuple(values.items())


def _arm_text(text: str, lines: list[str], number: int) -> list[str]:
    """The commands of one line of an arm (the pattern dropped on its first line; ``;`` splits)."""
    body = case_arm_body(text, number)
    command = body if body is not None else strip_comment(lines[number - 1])
    command = re.sub(r";;&?\s*$|;&\s*$", "", command)
    return [part for part in (p.strip() for p in command.split(";")) if part]


def _arm(pattern: str, commands: list[list[str]]) -> Arm:
    sets: list[tuple[str, str | None]] = []
    consumes: int | None = None
    shifts = 0
    opaque = False  # the arm ends the loop, or may write any variable: not followed
    for line in commands:
        for command in line:
            shift = _SHIFT.match(command)
            if shift:
                shifts += 1
                consumes = int(shift.group(1) or 1)
                continue
            assigned = _ASSIGN.match(command)
            if assigned:
                sets.append(_literal(assigned))
                continue
            if _ENDS_LOOP.match(command):
                opaque = True
            # any other write (`[[ … ]] && x=false`, printf -v, read, unset, export x=$(…)):
            # the variable's value after the arm is not known
            written = shell_writes(command)
            opaque = opaque or ANY_VARIABLE in written
            sets += [(name, None) for name in written if name != ANY_VARIABLE]
    split = tuple(p.strip() for p in pattern.split("|"))
    # `shift 0` (or a count past what the loop can read) consumes nothing bash would move on by
    known = not opaque and shifts == 1 and consumes and consumes <= MAX_CALL_WORDS
    return Arm(split, tuple(sets), consumes if known else None)


def _literal(match: re.Match[str]) -> tuple[str, str | None]:
    value = match.group(2)
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    return match.group(1), (None if any(c in value for c in "$`\\\"'") else value)


def _selected(loop: OptionLoop, word: str) -> int | None:
    """The arm bash takes for ``word`` (the first whose pattern matches), or None when that
    cannot be said here."""
    for index, arm in enumerate(loop.arms):
        for pattern in arm.patterns:
            if _UNDECIDABLE_PATTERN.search(pattern):
                return None
            if fnmatch.fnmatchcase(word, pattern):
                return index
    return None


def run(loop: OptionLoop, words: tuple[str, ...]) -> CallResult | None:
    """What the call's ``words`` (its arguments, as written) do in ``loop``; None when that is
    not known (a word with an expansion the loop tests, an arm that shifts unknowably, an
    option no arm takes)."""
    values: dict[str, str | None] = dict(loop.defaults)
    taken: set[int] = set()
    index = 0
    while index < len(words):
        word = words[index]
        if "$" in word or "`" in word:
            return None  # an option named at run time
        arm_index = _selected(loop, word.strip("\"'"))
        if arm_index is None:
            return None
        arm = loop.arms[arm_index]
        if arm.consumes is None:
            return None
        taken.add(arm_index)
        for name, value in arm.sets:
            values[name] = value
        index += arm.consumes
    known = tuple(sorted((n, v) for n, v in values.items() if v is not None))
    return CallResult(frozenset(taken), known)


def calls(texts: Mapping[str, str | None], lines: Iterable[Line], function: str,
          branch: Branch) -> list[tuple[str, ...]] | None:
    """The arguments of every call of ``function`` that ``lines`` (a config's launch) make on
    ``branch``, as written; None when a call's words cannot be read (or are too many)."""
    wanted = _wanted(lines)
    found: list[tuple[str, ...]] = []
    defined = sum(1 for path in wanted for name, _, _ in function_spans(texts.get(path) or "") if name == function)
    if defined > 1:
        return None  # defined again (in the file or another the launch reads): which one runs is not known here
    runs = _functions_run_of(_launch_key(texts, wanted), branch)
    for path, number, words in _sites(texts, wanted, function, branch):
        inside = _enclosing(texts.get(path) or "", number)
        state = True if inside is None else runs.get((path, inside))
        if state is False:
            continue  # in the body of a function the launch never calls: it never runs
        if words is None or state is None:
            return None
        found.append(words)
    return found


def _wanted(lines: Iterable[Line]) -> dict[str, set[int]]:
    """A launch's lines as file -> their line numbers (the form the call readers search)."""
    wanted: dict[str, set[int]] = {}
    for line in lines:
        if line.number is not None:
            wanted.setdefault(line.path, set()).add(line.number)
    return wanted


def function_runs(texts: Mapping[str, str | None], lines: Iterable[Line],
                  branch: Branch) -> Callable[[Line], tuple[str | None, bool | None]]:
    """For a config's launch (``lines``): of a line, the shell function whose body holds it (None:
    top level) and whether the launch runs that function on ``branch`` (True at top level; see
    ``_functions_run``: False for one nothing calls, None when not known)."""
    wanted = _wanted(lines)
    runs: dict[tuple[str, str], bool | None] | None = None
    sure: set[tuple[str, str]] | None = None  # both worked out on the first line inside a function
    known: dict[tuple[str, int | None], tuple[str | None, bool | None]] = {}  # a line's answer: its place decides it

    def state(line: Line) -> tuple[str | None, bool | None]:
        key = (line.path, line.number)
        if key not in known:
            known[key] = _state(line)
        return known[key]

    def _state(line: Line) -> tuple[str | None, bool | None]:
        nonlocal runs, sure
        text = texts.get(line.path) or ""
        inside = None if line.number is None else _enclosing(text, line.number)
        if inside is None or line.number is None:
            return None, None if line.number is not None and (_after_exit(text, line.number)
                                                              or ends_before(text, line.number)) else True
        if runs is None or sure is None:
            launch = _launch_key(texts, wanted)
            runs, sure = _functions_run_of(launch, branch), _functions_surely_run_of(launch, branch)
        found = runs.get((line.path, inside))
        if found is not False and ends_before(text, line.number):
            return inside, False  # the function returns (or exits) before it gets to the line
        # reached only through calls that may not run (an undecided condition, after `&&`, a
        # second definition, `unset -f`): not known
        return inside, None if found is True and (line.path, inside) not in sure else found

    return state


# a launch as the function readers see it: each of its files' path, text and launch line numbers
_LaunchKey = tuple[tuple[str, str, frozenset[int]], ...]


def _launch_key(texts: Mapping[str, str | None], wanted: Mapping[str, set[int]]) -> _LaunchKey:
    return tuple((path, texts.get(path) or "", frozenset(numbers)) for path, numbers in sorted(wanted.items()))


# Configs launched through the same files share the answers (the configs a shared helper
# reaches, each judged at head and at base): read once per launch and branch. The readers
# look only at the launch's own files, so the key holds everything they depend on.
def _launch_maps(launch: _LaunchKey) -> tuple[dict[str, str | None], dict[str, set[int]]]:
    """A cache key's launch as the readers take it: each file's text, and its lines the launch runs."""
    return {path: text for path, text, _ in launch}, {path: set(numbers) for path, _, numbers in launch}


@lru_cache(maxsize=256)
def _functions_run_of(launch: _LaunchKey, branch: Branch) -> dict[tuple[str, str], bool | None]:
    return _functions_run(*_launch_maps(launch), branch)


@lru_cache(maxsize=256)
def _functions_surely_run_of(launch: _LaunchKey, branch: Branch) -> set[tuple[str, str]]:
    return _functions_surely_run(*_launch_maps(launch), branch)


def _functions_surely_run(texts: Mapping[str, str | None], wanted: Mapping[str, set[int]],
                          branch: Branch) -> set[tuple[str, str]]:
    """The (file, function) pairs the launch surely runs on ``branch``: defined once in the
    launch's files, never unset or aliased, and called from the top level (or from a function
    it surely runs) by a command that starts its line, under conditions ``branch`` takes, not
    after the file's top-level ``exit`` nor, in the defining file, before the definition."""
    spans = {path: function_spans(texts.get(path) or "") for path in wanted}
    names = [name for path in wanted for name, _, _ in spans[path]]
    sites: dict[tuple[str, str], list[tuple[str, str] | None]] = {}
    for path in wanted:
        for name, opened, _ in spans[path]:
            if names.count(name) > 1 or any(name in _shadowed(texts.get(p) or "") for p in wanted):
                continue
            for where, number, words in _sites(texts, wanted, name, branch):
                text = texts.get(where) or ""
                row = file_rows(text)[number - 1]
                inside = _enclosing(text, number)
                if words is None or not _starts_call(name).match(row) or _after_exit(text, number) \
                        or (where == path and number < opened and not _called_after(where, text, inside, opened)) \
                        or any(decide(g.predicate, branch) != (not g.negated) for g in shell_guards(text, number)):
                    continue
                sites.setdefault((path, name), []).append(None if inside is None else (where, inside))
    found: set[tuple[str, str]] = set()
    grew = True
    while grew:
        grew = False
        for key, callers in sites.items():
            if key not in found and any(c is None or c in found for c in callers):
                found.add(key)
                grew = True
    return found


def _called_after(path: str, text: str, caller: str | None, line: int) -> bool:
    """Whether function ``caller`` (None: top level, never) is named nowhere in its file before
    ``line`` outside its own body: a call written in its body before a definition it uses runs
    when the caller is called, after the definition (``main() { srv; }``, ``srv() {…}``, ``main``)."""
    return caller is not None and all(number > line for number, _ in _calls_in(path, text, caller))


def _starts_call(name: str) -> re.Pattern[str]:
    """A line whose first command runs ``name`` (as a condition of if/while too)."""
    return re.compile(rf"^\s*(?:(?:[({{!]|\$\()\s*|(?:time|command|builtin|exec|nohup|if|while|until)\s+)*"
                      rf"{re.escape(name)}(?=[\s;)]|$)")


@lru_cache(maxsize=256)
def _shadowed(text: str) -> frozenset[str]:
    """The names ``unset`` (``-f`` or not) or ``alias name=`` touch anywhere in a file: such a
    function may not be what runs (read once per file)."""
    names: set[str] = set()
    for match in _UNSET.finditer(text):
        names.update(_NAME_WORD.findall(match.group(1)))
    for match in _ALIAS.finditer(text):
        names.update(_ALIASED.findall(match.group(1)))
    return frozenset(names)


def swallowing_commands(texts: Mapping[str, str | None], paths: Iterable[str]) -> frozenset[str]:
    """The command names the shell files ``paths`` define for themselves without passing their
    words on: functions (nested ones too) none of whose lines that run a command expands ``$@``,
    ``$*`` or a positional word, and, where a file turns on ``expand_aliases``, every alias. A
    line whose command is one of them runs that definition, not a program of the same name (``aiperf() { :; }``, then ``aiperf profile …``); a helper that
    forwards its arguments (``bench() { python3 bench.py "$@"; }``) hands them on."""
    files = [texts.get(path) or "" for path in paths]
    names = {name for text in files for name in _swallowing_in(text)}
    if any("expand_aliases" in text for text in files):  # bash expands no alias in a script without it
        names.update(name for text in files for match in _ALIAS.finditer(text)
                     for name in _ALIASED.findall(match.group(1)))
    return frozenset(names)


@lru_cache(maxsize=256)
def _swallowing_in(text: str) -> frozenset[str]:
    """The functions of one file that hand no words on (read once per file: every config of a
    helper asks)."""
    names: set[str] = set()
    rows, printed = file_rows(text), printed_lines(text)
    for name, first, last in function_spans(text):
        body = [rows[n - 1] for n in range(first + 1, last) if n not in printed]
        if first == last:  # `f() { cmd "$@"; }`: the words between the braces
            one = _ONE_LINE_BODY.search(rows[first - 1]) or _ONE_LINE_SUBSHELL.search(rows[first - 1])
            body = [one.group(1)] if one else []
        if not any(_ALL_WORDS.search(strip_comment(row)) and not PRINTS_ONLY.match(row) for row in body):
            names.add(name)
    return frozenset(names)


# its words, all or some: "$@", $*, "${@:2}", $1, "${2:-x}" (a helper that takes the flag as its first word)
_ALL_WORDS = re.compile(r"\$(?:[@*1-9]|\{[@*1-9][^}]*\})")
_ONE_LINE_SUBSHELL = re.compile(r"\)\s*\(\s*(.*?)\s*\)\s*;?\s*(?:#.*)?$")


# where one command of a line begins (the line's start, a list operator, a pipe, a substitution
# or subshell, a control word)
_COMMAND_START = re.compile(r"(?:^|;|&&?|\|\|?|\$?\(|`|\b(?:then|do|else|if|elif|while|until)\b)\s*")
# what may stand before the command's name: a group or negation, the keyword `time`, assignments
# and redirections; `command`, `builtin` and `exec` skip functions and aliases, and a program
# that runs the next word (`nohup`, `sudo`, `env`) runs it from PATH: its own name is the command
_BEFORE_NAME = re.compile(r"(?:(?:[({!]|time(?:\s+-p)?)\s+|[({]|\d*[<>]+&?\S*\s+"
                          r"|[A-Za-z_]\w*=(?:\"[^\"]*\"|'[^']*'|[^\s\"']\S*|)\s+)*")
_COMMAND_NAME = re.compile(r"[A-Za-z_][\w.-]*")


def command_at(text: str, position: int) -> str | None:
    """The name of the command whose words hold ``position`` on a shell line (after its
    assignments, redirections and a wrapper such as ``time``); None when it is an expansion or
    a path, or starts with ``command``/``builtin``/``exec``, which never run a shell function."""
    starts = [m.end() for m in _COMMAND_START.finditer(text, 0, position + 1) if m.end() <= position]
    begin = starts[-1] if starts else 0
    begin += len(_BEFORE_NAME.match(text, begin).group(0))
    name = _COMMAND_NAME.match(text, begin)
    if name is None or name.group(0) in ("command", "builtin", "exec") \
            or text.startswith(("=", "+=", "["), name.end()):  # an assignment runs no command
        return None
    return name.group(0)


_UNSET = re.compile(r"\bunset\b([^;&|\n]*)")
_ALIAS = re.compile(r"\balias\b([^;&|\n]*)")
_NAME_WORD = re.compile(r"(?<![\w-])([A-Za-z_][\w-]*)(?![\w-])")
_ALIASED = re.compile(r"(?<![\w-])([A-Za-z_][\w-]*)\s*=")


@lru_cache(maxsize=32768)
def ends_before(text: str, number: int) -> bool:
    """Whether an ``exit`` or ``return`` that the way to line ``number`` surely passes comes
    before it, in the same function body (or at top level): a command of its own on a line,
    first or after plain ``;``-separated commands (``:; return 0``, ``{ return 0; }``), or a
    call there of a function of the file that surely exits (``_exiting_functions``),
    whatever its indentation, under no condition the line is not under, in no loop, subshell
    or multi-line ``{ … }`` group (``cmd || {`` … ``}``) that does not hold the line too, and
    not the second half of a list continued from the line before (``cmd ||`` / ``return 1``)."""
    return _first_end(text, number, _exiting_functions(text)) is not None


_Exiting = tuple[tuple[str, int], ...]  # (name, opening line) of functions that end the script


def _first_end(text: str, number: int, exiting: _Exiting) -> int | None:
    """The line of the first end ``ends_before`` finds on the way to line ``number`` (calls of
    the ``exiting`` functions count), or None."""
    function = _enclosing(text, number)
    spans = [(first, last) for name, first, last in function_spans(text)
             if name == function and first < number <= last]
    start = spans[-1][0] + 1 if function is not None and spans else 1
    candidates = [n for n, continued in _end_rows(text, exiting) if start <= n < number and not continued]
    if not candidates:
        return None
    guards = set(shell_guards(text, number))
    nested = [(first, last) for kind, first, last in body_spans(text) if kind != "function"] \
        + _brace_groups(text)
    for n in candidates:
        if _enclosing(text, n) == function \
                and not any(first <= n <= last and not first <= number <= last for first, last in nested) \
                and set(shell_guards(text, n)) <= guards:
            return n
    return None


@lru_cache(maxsize=512)
def _end_rows(text: str, exiting: _Exiting) -> tuple[tuple[int, bool], ...]:
    """(line, continued) of every line of a file that may end the script or function, as
    ``_first_end`` reads them (found once per file): an exit, return, exec, self-kill or exiting
    eval of its own (not detached), or a call of one of the ``exiting`` functions;
    ``continued``: the line before it ends with a list operator or a backslash."""
    rows, data = file_rows(text), data_lines(text)
    found, previous = [], ""
    for n, raw in enumerate(rows, 1):
        if n in data:
            continue
        row = strip_comment(raw)
        if not row.strip():
            continue
        if _ENDS.match(row) and not _detached(row) or exiting and _calls_an_exit(row, n, exiting):
            found.append((n, _CONTINUED.search(previous) is not None))
        previous = row
    return tuple(found)


def _calls_an_exit(row: str, number: int, exiting: _Exiting) -> bool:
    """Whether a line's first command (as ``_ENDS`` reads it, or one after plain ``cmd;``
    commands) calls one of the ``exiting`` functions, defined above the line."""
    if not exiting:
        return False
    names = {name for name, opened in exiting if opened < number}
    position = 0
    while (call := _CALL_AT.match(row, position)) is not None:  # each plain `cmd;` before it too
        if call.group(1) in names:
            return not _detached(row, call.group(1))
        plain = _PLAIN_COMMAND.match(row, position)
        if plain is None:
            return False
        position = plain.end()
    return False


@lru_cache(maxsize=256)
def _exiting_functions(text: str) -> _Exiting:
    """(name, opening line) of the functions of a file whose body surely ends the script: the
    first end ``ends_before`` finds before its closing line is an exit (an exec, a kill of the
    script, an eval that exits), not a return; or a one-line body that starts with one. A
    ``f() ( … )`` body runs in a subshell: its exit ends only that."""
    rows, found = file_rows(text), ()
    for _ in range(_MAX_CALL_DEPTH):  # then those that surely call one of them first, and so on
        grown = tuple((name, opened) for name, opened, closed in function_spans(text)
                      if _exits(text, rows, opened, closed, found))
        if grown == found:
            break
        found = grown
    return found


_MAX_CALL_DEPTH = 8


def _exits(text: str, rows: tuple[str, ...], opened: int, closed: int, exiting: _Exiting) -> bool:
    """Whether the function at ``opened``..``closed`` surely ends the script: its first end is an
    exit (exec, self-kill, exiting eval) or a call of one of the ``exiting`` functions."""
    if opened == closed:
        body = _ONE_LINE_BODY.search(rows[opened - 1])
        return body is not None and (_EXIT.match(body.group(1)) is not None
                                     or _calls_an_exit(body.group(1), opened, exiting))
    if strip_comment(rows[opened - 1]).rstrip().endswith("("):
        return False
    end = _first_end(text, closed, exiting)
    if end is None:
        return False
    row = strip_comment(rows[end - 1]).strip()
    return _EXIT.match(row) is not None or _calls_an_exit(row, end, exiting)


_ONE_LINE_BODY = re.compile(r"^\s*(?:function\s+[A-Za-z_][\w-]*\s*(?:\(\s*\))?|[A-Za-z_][\w-]*\s*\(\s*\))"
                            r"\s*\{\s*(.*?)\s*\}\s*;?\s*(?:#.*)?$")  # a `( … )` body exits only its subshell
_CALL_AT = re.compile(r"\s*(?:\{\s*)?(?:(?:!|time(?:\s+-p)?|[A-Za-z_]\w*=(?:\"[^\"]*\"|'[^']*'|[^\s\"';&|]*))\s+)*"
                      r"(?!(?:if|then|elif|else|do|while|until|for|case|select)\b)"
                      r"([A-Za-z_][\w-]*)(?=\s|[;)}&|]|$)")
_PLAIN_COMMAND = re.compile(r"\s*(?:\{\s*)?(?!(?:if|then|elif|else|do|while|until|for|case|select)\b)[^;&|(){}`$\n]*;")


@lru_cache(maxsize=256)
def _brace_groups(text: str) -> list[tuple[int, int]]:
    """The multi-line ``{ … }`` groups that are no function body (``cmd || {`` … ``}``)."""
    opened = {first for _, first, _ in function_spans(text)}
    data, stack, out = data_lines(text), [], []
    for n, raw in enumerate(text.splitlines(), 1):
        if n in data:
            continue
        row = strip_comment(raw).strip()
        if row.startswith("}") and stack:
            out.append((stack.pop(), n))
        if row.endswith("{") and n not in opened:
            stack.append(n)
    return out


# exit/return as a command of its own: first on the line, or after plain `;`-separated commands
# (no keyword that opens a condition or loop, no list operator, no grouping); so is an exec
# given a command (the shell becomes that program, or exits when it cannot run it), not one
# given only redirections (`exec >log 2>&1`, `exec 3<f`, `exec {fd}>f`)
_EXEC = r"exec\s+(?!\d*[<>]|&>|\{\w+\}[<>])[^\s;&|]"
# so is a kill of the script's own process or group (`kill $$`, `kill -9 -- -$$`, `kill 0`;
# signal 0 only probes),
# and an eval of words that exit or return (`eval 'exit 0'`, `eval exit`)
_SELF_KILL = r"kill(?![^;&|\n]*\s-(?:s\s*|n\s*|SIG)?0\b)[^;&|\n]*\s[\"']?(?:-?(?:\$\$|\$\{\$\})|0[\"']?(?=[\s;&|)]|$))(?![\w$])"
_EVAL_END = r"eval\s+(?:([\"'])[^\"'\n]*\b(?:exit|return)\b[^\"'\n]*\1|(?:exit|return)\b)"
_ENDS = re.compile(r"^\s*(?:\{\s*)?(?:(?!(?:if|then|elif|else|do|while|until|for|case|select)\b)"
                   rf"[^;&|(){{}}`$\n]*;\s*)*(?:(?:exit|return)\b(?!\s*=)|{_EXEC}|{_SELF_KILL}|{_EVAL_END})")
_CONTINUED = re.compile(r"(?:\|\||&&|\||\\)\s*$")


def _detached(row: str, call: str | None = None) -> bool:
    """Whether a line's end runs apart from the script: a group or function call put in the
    background or a pipeline (``{ sleep 7200; kill $$; } &``, ``watchdog &``, ``start_server
    > log 2>&1 &``, ``stop | tee log``), whose exit, exec or kill ends only its own subshell or
    comes later; a kill of the script it backgrounds itself (``kill $$ &``) still ends it."""
    words = re.sub(r"\d*[<>]&\d*|&>>?", " ", strip_comment(row))  # redirections' &
    group = re.match(r"^\s*\{.*\}", words)
    if group:  # `{ …; exit 0; } &`: what follows the group
        own = words[group.end():]
    else:  # the end's own command (the first that is one), up to the next list operator
        first = (re.match(rf"^\s*(?:(?!{re.escape(call)}\b)[^;&|(){{}}`$\n]*;\s*)*({re.escape(call)})\b", words)
                 if call else _END_WORD.match(words))
        own = words[first.start(1):] if first else words
        if _SELF_KILL_FIRST.match(own):
            return False
    return _DETACHING.search(re.split(r";|&&|\|\|", own, maxsplit=1)[0]) is not None


# the plain `cmd;` commands before a line's end, and the end's first word
_END_WORD = re.compile(r"^\s*(?:(?!(?:exit|return|exec|kill|eval)\b)[^;&|(){}`$\n]*;\s*)*((?:exit|return|exec|kill|eval)\b)")
_SELF_KILL_FIRST = re.compile(rf"^\s*{_SELF_KILL}")
_DETACHING = re.compile(r"(?<![&|])&(?!&)|(?<!\|)\|(?!\|)")


def _after_exit(text: str, number: int) -> bool:
    """Whether a top-level, unconditional ``exit`` comes before line ``number``: one at the
    start of a line, outside every function and condition (an indented one may sit in a block
    that runs only on failure, ``cmd || {`` … ``exit 1`` … ``}``, which is not read here)."""
    first = _first_exit(text)
    return first is not None and first < number


@lru_cache(maxsize=256)
def _first_exit(text: str) -> int | None:
    data, exiting = data_lines(text), _exiting_functions(text)
    return next((n for n, row in enumerate(text.splitlines(), 1)
                 if (_EXIT.match(row) and not _detached(row)
                     or _calls_an_exit(strip_comment(row), n, exiting) and not row[:1].isspace())
                 and n not in data and _enclosing(text, n) is None
                 and not shell_guards(text, n)), None)


_EXIT = re.compile(rf"^(?:exit\b|{_EXEC}|{_SELF_KILL}|{_EVAL_END})")


def _sites(texts: Mapping[str, str | None], wanted: Mapping[str, set[int]], function: str,
           branch: Branch) -> list[tuple[str, int, tuple[str, ...] | None]]:
    """(path, line, words) of the calls of ``function`` on the launch's lines that ``branch``
    takes (words None: named in a way not read as a call)."""
    found = []
    for path, numbers in sorted(wanted.items()):
        text = texts.get(path) or ""
        if function not in text:
            continue
        for number, words in _calls_in(path, text, function):
            if number in numbers and not any(decide(g.predicate, branch) == g.negated
                                             for g in shell_guards(text, number)):
                found.append((path, number, words))
    return found


def _enclosing(text: str, number: int) -> str | None:
    """The innermost shell function whose body holds line ``number`` (None: top level)."""
    spans = [(first, name) for name, first, last in function_spans(text)
             if first < number <= last or first == number == last]
    return max(spans)[1] if spans else None


def _functions_run(texts: Mapping[str, str | None], wanted: Mapping[str, set[int]],
                   branch: Branch) -> dict[tuple[str, str], bool | None]:
    """For each (file, function) defined in the launch's files, whether the launch runs it on
    ``branch``: True when readable calls reach it from the top level; False when nothing at top
    level reaches it at all (a function nobody calls, or only functions nobody calls); None (not
    known) when it is reached only through a naming not read as a call, or when a launch file
    runs a command whose name is built at run time (which may name any function)."""
    defined = {(path, name) for path in wanted for name, _, _ in function_spans(texts.get(path) or "")}
    callers: dict[tuple[str, str], list[tuple[tuple[str, str] | None, bool]]] = {}
    for key in defined:
        for path, number, words in _sites(texts, wanted, key[1], branch):
            inside = _enclosing(texts.get(path) or "", number)
            callers.setdefault(key, []).append((None if inside is None else (path, inside), words is not None))

    def reached(readable_only: bool) -> set[tuple[str, str]]:
        found: set[tuple[str, str]] = set()
        grew = True
        while grew:
            grew = False
            for key in sorted(defined - found):
                if any((readable or not readable_only) and (caller is None or caller in found)
                       for caller, readable in callers.get(key, ())):
                    found.add(key)
                    grew = True
        return found

    runs, maybe = reached(True), reached(False)
    dynamic = any(_runs_dynamic_commands(texts.get(path) or "") for path in wanted)
    return {key: True if key in runs else None if key in maybe or dynamic else False for key in defined}


@lru_cache(maxsize=512)
def _runs_dynamic_commands(text: str) -> bool:
    """Whether a file runs a command whose name is built at run time (read once per file)."""
    return _DYNAMIC_COMMAND.search(text) is not None


# a command whose name is an expansion or is evaluated: it may call any function by a name
# that appears nowhere in the text
_DYNAMIC_COMMAND = re.compile(r"(?:^|[;&|({]|\b(?:then|do|else|exec|command|builtin)\b)\s*"
                              r"(?:eval\b|\"?\$|`)", re.MULTILINE)


def option_calls(texts: Mapping[str, str | None], lines: Iterable[Line]) -> frozenset[tuple[str, int]]:
    """(path, line) of every call ``lines`` (a config's launch) make of a function that reads
    its options in a loop, defined in any of their files: such a line hands its words to the
    loop, which decides what they do (a flag in it is not the client's until the loop says so)."""
    lines = list(lines)
    paths = sorted({line.path for line in lines})
    functions = {loop.function for path in paths for loop in option_loops(texts.get(path) or "")}
    found: set[tuple[str, int]] = set()
    for path in paths:
        text = texts.get(path) or ""
        for function in functions:
            if function in text:
                found.update((path, number) for number, _ in _calls_in(path, text, function))
    return frozenset(found)


@lru_cache(maxsize=4096)
def _calls_in(path: str, text: str, function: str) -> tuple[tuple[int, tuple[str, ...] | None], ...]:
    """(line, arguments as written, or None when unreadable or too many) of every call of
    ``function`` in the file, outside the function's own body; read once per file."""
    # the name, then its words or the operator that ends the command (``f; rc=$?``, ``f && g``)
    pattern = re.compile(rf"(?:^\s*|[;&|]\s*|\b(?:then|do|else)\s+){_PREFIXES}{re.escape(function)}"
                         r"(?:\s*[;&|)].*|\s+(.*))?$")
    named = re.compile(rf"(?<![\w$-]){re.escape(function)}(?![\w-])")
    inside = [(first, last) for name, first, last in function_spans(text) if name == function]
    data = data_lines(text)  # a heredoc's or inline program's text calls nothing
    found: list[tuple[int, tuple[str, ...] | None]] = []
    for logical in join_continuations(text_lines(path, text)):
        number = logical.number or 0
        if function not in logical.text or number in data or any(first <= number <= last for first, last in inside):
            continue
        match = pattern.search(logical.text)
        if match is None:
            if named.search(logical.text) and not FUNCTION_OPEN.match(logical.text):
                found.append((number, None))  # named in a way not read as a call: may be one
            continue
        try:
            words = tuple(shlex.split(_SUBSTITUTION.sub("${INFX_SUBSTITUTION}", match.group(1) or ""), posix=False))
        except ValueError:
            found.append((number, None))
            continue
        found.append((number, _until_operator(words) if len(words) <= MAX_CALL_WORDS else None))
    return tuple(found)


# what may come before a call's name in the same command: grouping, negation, keywords and
# the wrappers that run it as it is
_PREFIXES = r"(?:(?:\(|\$\(|\{|!|time|command|builtin|exec|nohup|if|elif|while|until)\s*)*"
_OPERATOR_IN_WORD = re.compile(r"[;&|)]")


# ``$(( CONC * 10 ))`` or ``$(cmd arg)`` (no nesting, no quotes): read as one reference whose
# value is not known here (``${INFX_SUBSTITUTION}``), which the split must not cut at its blanks
# and parentheses, quoted or not
_SUBSTITUTION = re.compile(r"\$\(\([^()\"'`]*\)\)|\$\([^()\"'`]*\)")


def _until_operator(words: tuple[str, ...]) -> tuple[str, ...]:
    """The call's own arguments: up to a redirection, pipe, list operator or closing
    parenthesis, glued to a word or not (``x;`` ends the call after ``x``)."""
    out = []
    for word in words:
        if word in ("|", "||", "&&", ";", "&") or word.startswith((">", "<", "2>", "&>", "|", ")")):
            break
        glued = _OPERATOR_IN_WORD.search(word) if word[:1] not in "\"'" else None
        if glued:
            if glued.start():
                out.append(word[:glued.start()])
            break
        out.append(word)
    return tuple(out)


def guards_hold(loop: OptionLoop, number: int, guards: Iterable[Guard], results: list[CallResult],
                branch: Branch) -> tuple[list[Guard], bool]:
    """Of ``guards`` (line ``number``'s, in ``loop``'s function), those the loop decides, and
    whether they hold for every call in ``results``: the arm the line is in is selected by
    each call; a condition after the loop holds with each call's values."""
    arm = dict(loop.arm_of_line).get(number)
    decided: list[Guard] = []
    holds = bool(results)
    for guard in guards:
        if guard.line == loop.case_line and arm is not None:
            decided.append(guard)
            holds = holds and all(arm in result.arms for result in results)
        elif loop.end_line < guard.line < loop.closed:
            tested = set(_TESTED.findall(guard.predicate))
            if any((name in tested or name == ANY_VARIABLE) and n < guard.line for name, n in loop.later_writes):
                continue  # set again after the loop: not the loop's value (left undecided)
            values = [decide(guard.predicate, replace(branch, row=tuple(sorted((branch.values | dict(r.values)).items()))))
                      for r in results]
            if all(v is not None for v in values):
                decided.append(guard)
                holds = holds and all(v != guard.negated for v in values)
    return decided, holds

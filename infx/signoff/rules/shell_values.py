"""The values shell variables take in a config's launch, per row: simple assignments followed.

A launch line may pass ``--flag "$NAME"`` where ``NAME=value`` is set earlier in the same
script, possibly inside ``if … else … fi`` (e.g. one acceptance length at concurrency 1,
another elsewhere). ``variants`` gives the launch lines as each group of the config's rows
runs them, with every such reference replaced by its value:

- a row's own variables (``CONC``, ``TP``, its lane's scalar fields and ``NAME=value``
  additional settings, EVAL_ONLY=false for throughput rows) decide the conditions they can
  (``infx.plan.launch_graph.decide``), but not one the script may write before testing it
  (``CONC=64`` before ``if [ "$CONC" -eq 1 ]``): the script's own value there decides, or none;
- a condition the row cannot decide is taken both ways (at most ``MAX_UNDECIDED`` per row),
  so every branch's value is a variant the rules must accept; past that many, a name set
  under a condition left open stays as written;
- the last assignment before the reference, in the same file, whose conditions hold wins; a
  name the file never sets takes the lane's ``NAME=value`` setting, else ``${NAME:-default}``'s
  default; a name with no value stays as written (the rules then read no number from it: fail
  closed). The row's fields (``CONC``, ``TP``) decide conditions but are not substituted, so
  rows that run the same lines share one variant.

Only straight assignments are followed (``NAME=value``, ``export``/``local``/``readonly``),
also as the body of a ``case`` arm (guarded by the arm's pattern, decided when the row knows the
case's word: ``case "${MODEL_NAME}:${DECODE_MTP_SIZE}" in *DeepSeek-V4*:3) AL=2.49 ;;``), and two
command substitutions the launches compute values with: awk arithmetic (``NAME=$(awk
"BEGIN{print EXPR}")``) and ``NAME=$(printf FORMAT ARG…)`` (a JSON config built from variables:
``%s``/``%d``/``%.2f`` filled in as printf does; a number conversion whose argument is not known
leaves the name as written, an unknown ``%s`` argument stays as written inside the value, as it
would on a line that spells the JSON out). Loops, functions and other command substitutions are
not followed, and read as written; a name written inside a function, loop or subshell that
does not hold the reference (or later in the loop or function that does) has no value here.
"""

from __future__ import annotations

import ast
import decimal
import itertools
import operator
import re
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from infx.plan.benchmark_content import MASTER_PATH
from infx.plan.expand import listed_or_range
from infx.plan.launch_graph import (
    AGENTIC,
    NODE_ROLE_VARIABLES,
    SPEC_THROUGHPUT,
    Branch,
    decide,
    exported_variables,
    lane_settings,
    lanes,
    recipe_file,
    setting_variables,
    shell_writes,
    writes_in_order,
)
from infx.signoff.rules.scan import (
    SHELL_FILE,
    Guard,
    Line,
    body_spans,
    case_arm_body,
    data_lines,
    function_spans,
    shell_guards,
)
from infx.workflow.launch import env_name

_PREDICATE_REF = re.compile(r"\$\{?(\w+)")
MAX_CONDITION_DEPTH = 24  # conditions on values set under conditions, followed this deep
MAX_UNDECIDED = 4  # conditions a row cannot decide, taken both ways (2**4 variants at most)
_ASSIGN = re.compile(r"^\s*(?:(?:export|local|readonly)\s+)?([A-Za-z_]\w*)="
                     r"(\"(?:[^\"`\\]|\\.)*\"|'[^']*'|[^\s;&|()`'\"]*)\s*;?\s*$")
# NAME=$(awk "BEGIN{print EXPR}"): the launches' way to compute a number (an acceptance rate
# from an acceptance length); EXPR is computed when, references replaced, it is plain arithmetic
_AWK = re.compile(r"^\s*(?:(?:export|local|readonly)\s+)?([A-Za-z_]\w*)="
                  r"\$\(\s*awk\s+([\"'])BEGIN\s*\{\s*print\s+([^{}\"';]*?)\s*\}\2\s*\)\s*;?\s*$")
_ARITHMETIC = re.compile(r"[\d.\s()+\-*/]+")
# NAME=$(printf WORD…): words of quoted text, plain characters and simple references only (no
# nested substitution, redirection or pipe), so the words are known once references are
_REF_WORD = r"\$\{\w+(?::?-[^}$`\"'\\]*)?\}|\$\w+"
_WORD = rf"""(?:'[^']*'|"(?:[^"\\`$]|\\.|{_REF_WORD})*"|[^\s'"()`;|&<>$\\]|{_REF_WORD})+"""
_PRINTF = re.compile(r"^\s*(?:(?:export|local|readonly)\s+)?([A-Za-z_]\w*)="
                     rf"\$\(\s*printf\s+((?:--\s+)?{_WORD}(?:\s+{_WORD})*)\s*\)\s*;?\s*$")
_WORD_PART = re.compile(rf"""'([^']*)'|"((?:[^"\\`$]|\\.|{_REF_WORD})*)"|({_REF_WORD})|([^\s'"\\$]+)""")
_CONVERSION = re.compile(r"%([-+ 0#]*)(\d*)(?:\.(\d+))?(.?)|\\(.?)", re.ASCII)  # any `%`: unmodelled ones fail
# printf's integer argument as bash reads it (strtoimax, base 0): 0x1f hex, 017 octal, else decimal
_INTEGER = re.compile(r"([-+]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)")
_FLOAT = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
_INT64 = (-(2 ** 63), 2 ** 63 - 1)
_PRINTF_SETTINGS = ("IFS", "LC_ALL", "LC_NUMERIC", "LANG")  # what changes how printf splits or prints
_FLOAT_DIGITS = 15  # significant digits a double and bash's long double surely agree on
_GLOB_OR_BRACE = re.compile(r"[*?\[]|^~|\{.*(?:,|\.\.).*\}")  # bash expands these in an unquoted word
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'"}
_ESCAPED = re.compile(r"\\([\"\\])")  # \" and \\ inside a double-quoted value
MAX_DEPTH = 4  # a value that names another variable is followed this many steps
# a followed value longer than this stays as written: values naming variables that name
# variables would otherwise grow as (references per line) ** MAX_DEPTH
MAX_VALUE = 4096
MAX_EXPRESSION = 256  # an awk expression longer than this is not computed (the parser nests)
_REF = re.compile(r"\$\{([A-Za-z_]\w*)(?::?-([^}]*))?\}|\$([A-Za-z_]\w*)")


@dataclass(frozen=True)
class Assignment:
    """``NAME=value`` at a shell line, under the conditions that enclose it."""

    name: str
    value: str
    line: Line
    guards: tuple[Guard, ...]
    arithmetic: bool = False  # NAME=$(awk "BEGIN{print EXPR}"): value is EXPR, computed once resolved
    formatted: bool = False  # NAME=$(printf …): value is printf's words, printed once resolved


@dataclass(frozen=True)
class Variant:
    """The launch lines as some of the config's rows run them."""

    rows: tuple[str, ...]  # the rows, as their deciding variables ("CONC=1")
    lines: tuple[Line, ...]
    used: tuple[Assignment, ...]  # assignments whose values replaced a reference
    assumed: tuple[tuple[str, bool], ...] = ()  # undecided conditions, as taken here
    origins: tuple[tuple[str, int | None, str], ...] = ()  # (path, line, where its values are set)
    specs: tuple[str, ...] = ()  # the spec-decoding its rows' lanes declare ("none" when they do not)

    def label(self) -> str:
        """``rows with CONC=1`` (+ ``when … holds`` for conditions taken one way)."""
        text = "rows with " + " or ".join(self.rows) if self.rows else "every row"
        for predicate, value in self.assumed:
            text += f", when {predicate} {'holds' if value else 'does not hold'}"
        return text

    def source(self, line: Line) -> str:
        """Where the values substituted into ``line`` are set (``NAME=v at path:n``), or ""."""
        return next((text for path, number, text in self.origins if (path, number) == (line.path, line.number)), "")


def row_variables(entry: Mapping[str, Any]) -> list[dict[str, str]]:
    """The variables each of an entry's throughput rows runs with (one dict per lane and
    concurrency): its lane's scalar fields as the launch step names them (``tp`` -> ``TP``),
    ``CONC``, what the launch exports besides (``IS_AGENTIC``, ``MODEL_NAME``, …:
    infx.plan.launch_graph.exported_variables), the lane's ``NAME=value`` settings and
    ``EVAL_ONLY=false``; agentic lanes ``RUN_EVAL=false`` too (the planner never has an agentic
    throughput row run evals: their eval rows are eval-only)."""
    rows: list[dict[str, str]] = []
    for kind, lane in lanes(entry):
        base = {env_name((str(k),)): _scalar(v) for k, v in lane.items()
                if isinstance(v, (str, int, float, bool)) and not str(k).startswith("conc")}
        for name, value in exported_variables({**entry, "scenario-type": kind}).items():
            base.setdefault(name, value)
        for name, value in setting_variables(lane_settings(lane)).items():
            base.setdefault(name, value)  # as the launch step: a setting never replaces a field
        base["EVAL_ONLY"] = "false"
        if kind == AGENTIC:
            base["RUN_EVAL"] = "false"
        try:
            concs = listed_or_range(dict(lane), 2) if "conc-list" in lane or "conc-start" in lane else []
        except (KeyError, TypeError, ValueError):
            concs = []
        rows += [base | {"CONC": str(c)} for c in concs] or [base]
    return rows


def _own_default(assignment: Assignment) -> bool:
    """``NAME="${NAME:-literal}"``: the name keeps what the environment gives it, else the default."""
    match = _REF.fullmatch(assignment.value)
    return bool(match and match.group(1) == assignment.name and match.group(2) is not None
                and "$" not in match.group(2))


@lru_cache(maxsize=4096)
def splits_nodes(predicate: str) -> bool:
    """Whether a condition tests only a node's place in a multi-node job (NODE_ROLE_VARIABLES): it
    splits a script between nodes that all run in every row, so it is no variant of the row."""
    names = set(_PREDICATE_REF.findall(predicate))
    return bool(names) and names <= NODE_ROLE_VARIABLES


def _scalar(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def assignments(lines: Iterable[Line], texts: Mapping[str, str | None]) -> list[Assignment]:
    """The simple assignments among shell launch lines, each with its enclosing conditions
    (``case`` arms included: ``pattern) NAME=value ;;`` assigns under its arm)."""
    found = []
    for line in lines:
        if line.number is None or not SHELL_FILE.search(line.path):
            continue
        text = texts.get(line.path) or ""
        command = case_arm_body(text, line.number)
        command = line.text if command is None else command
        awk = _AWK.match(command)
        if awk:
            guards = tuple(shell_guards(text, line.number))
            found.append(Assignment(awk.group(1), awk.group(3), line, guards, arithmetic=True))
            continue
        printed = _PRINTF.match(command)
        if printed and not any("$" in word or "`" in word for word in re.findall(r"'[^']*'", printed.group(2))):
            # options (``--``, ``-v NAME``) are printf's to read: printf() gives None for any but ``--``
            guards = tuple(shell_guards(text, line.number))
            found.append(Assignment(printed.group(1), printed.group(2), line, guards, formatted=True))
            continue
        match = _ASSIGN.match(command)
        if match:
            value = _argument(text, line.number, match.group(2))
            if value[:1] == '"':
                value = _ESCAPED.sub(r"\1", value[1:-1])  # the shell's value: JSON in a string
            elif value[:1] == "'":
                value = value[1:-1]
            guards = tuple(shell_guards(text, line.number))
            found.append(Assignment(match.group(1), value, line, guards))
    return found


_MOVES_ARGUMENTS = re.compile(r"\bshift\b|\bset\s+--|\$[@*]|\$\{[@*]|\$#|\bgetopts\b")
_PRINTING = re.compile(r"^\s*(?:echo|printf|cat|logger)\b")
_POSITIONAL = re.compile(r"^([\"']?)\$\{?([1-9])\}?\1$")


def _argument(text: str, number: int, value: str) -> str:
    """``local x="$6"`` inside a shell function: the function's 6th argument, when every call
    of it in the file passes the same text there (``f a "$MTP"`` twice -> ``"$MTP"``); the
    value as written otherwise."""
    positional = _POSITIONAL.match(value)
    if not positional:
        return value
    function, calls = _functions(text).get(number, (None, ()))
    passed = {call[int(positional.group(2)) - 1] if len(call) >= int(positional.group(2)) else None
              for call in calls}
    if not function or len(passed) != 1 or None in passed:
        return value
    given = passed.pop()
    if "$" in given:
        # one variable, written at most once in the file: its value where the function is
        # written is its value at every call
        ref = _REF.fullmatch(given.strip("\"'"))
        if ref is None or len(shell_writes(text).get(ref.group(1) or ref.group(3), ())) > 1:
            return value
    return given


@lru_cache(maxsize=128)
def _functions(text: str) -> dict[int, tuple[str, tuple[tuple[str, ...], ...]]]:
    """Line number inside a function body -> (the function, the arguments of its calls in the
    file, as written). A body ends at the first ``}`` indented as its opening line."""
    lines = text.splitlines()
    spans = function_spans(text)
    # a body that moves its arguments (shift, set --) or passes them on whole ($@, $*): its
    # positional parameters are not its calls' words
    moved = {name for name, first, last in spans
             if any(_MOVES_ARGUMENTS.search(line) for line in lines[first:last - 1])}
    out: dict[int, tuple[str, tuple[tuple[str, ...], ...]]] = {}
    if not spans:
        return out
    # one pass over the file finds the calls of every function (not from inside its own body)
    call = re.compile(r"(?:^\s*|[;&|]\s*|\$\(\s*|\b(?:then|do|else)\s+)("
                      + "|".join(re.escape(n) for n, _, _ in spans) + r")\s+([^)`;|&]*)")
    calls: dict[str, list[tuple[str, ...]]] = {name: [] for name, _, _ in spans}
    bodies = {name: (first, last) for name, first, last in spans}
    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith("#") or not any(n in line for n in calls) or _PRINTING.match(line):
            continue
        for match in call.finditer(line):
            first, last = bodies[match.group(1)]
            if first <= number <= last:
                continue
            try:
                calls[match.group(1)].append(tuple(shlex.split(match.group(2), posix=False)))
            except ValueError:
                calls[match.group(1)].append(())
    for name, first, last in spans:
        for number in range(first + 1, last):
            out[number] = (name, () if name in moved else tuple(calls[name]))
    return out


def literal_assignments(lines: Iterable[Line], name: str) -> list[str]:
    """What every ``name=…`` / ``export name=…`` line gives ``name``: the rest of the line,
    command substitutions included (any file type, any branch; surrounding quotes removed)."""
    pattern = re.compile(rf"^\s*(?:(?:export|local|readonly|declare(?:\s+-\w+)*)\s+)?{re.escape(name)}=(.*)$")
    found = []
    for line in lines:
        match = pattern.match(line.text)
        if match:
            value = match.group(1).strip()
            quoted = len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'"
            found.append(value[1:-1] if quoted else value)
    return found


def variants(lines: list[Line], texts: Mapping[str, str | None], entry: Mapping[str, Any],
             branch: Branch | None = None) -> list[Variant]:
    """The launch lines per group of rows, references replaced (see the module docstring);
    one variant per distinct result, rows that run the same lines grouped."""
    sets = assignments(lines, texts)
    referenced = {m.group(1) or m.group(3) for ln in lines for m in _REF.finditer(ln.text)}
    settings = {name for _, lane in lanes(entry) for name in setting_variables(lane_settings(lane))}
    # a value may name further variables (SPEC="{\"al\": $AL}"): followed when each of them is
    # set to a literal in the launch or is a lane setting (those names count as referenced)
    # NAME="${NAME:-2}": the environment's NAME (a lane setting) or else the default, a literal too
    literal = {a.name for a in sets if "$" not in a.value or _own_default(a)} | settings
    sets = [a for a in sets if a.formatted or _own_default(a) or all((m.group(1) or m.group(3)) in literal
                                                                     for m in _REF.finditer(a.value))]
    referenced |= {m.group(1) or m.group(3) for a in sets for m in _REF.finditer(a.value)}
    # an assignment matters when a later line of its file uses it
    last_use: dict[tuple[str, str], int] = {}  # (file, name) -> the last line using the name
    for ln in lines:
        if "$" in ln.text:
            for m in _REF.finditer(ln.text):
                slot = (ln.path, m.group(1) or m.group(3))
                last_use[slot] = max(last_use.get(slot, 0), ln.number or 0)
    relevant = [a for a in sets if a.name in referenced
                and last_use.get((a.line.path, a.name), 0) > (a.line.number or 0)]
    base = branch or SPEC_THROUGHPUT
    out: dict[int, tuple[list[str], tuple[Assignment, ...], tuple[tuple[str, int | None, str], ...]]] = {}
    predicates = list(dict.fromkeys(g.predicate for a in relevant for g in a.guards
                                    if not splits_nodes(g.predicate)))
    names = {a.name for a in relevant} | settings
    # only lines that use a followed name or a default are rewritten
    candidates = [i for i, ln in enumerate(lines) if "$" in ln.text and any(
        (m.group(1) or m.group(3)) in names or m.group(2) is not None for m in _REF.finditer(ln.text))]
    # the conditions around each shell line: a row that decides one false does not run the line
    guarded = _line_guards(lines, texts)
    line_predicates = list(dict.fromkeys(g.predicate for guards in guarded.values() for g in guards))
    # the conditions around the lines that write a followed name (a write a row does not run
    # does not make the value unknown): rows resolve alike only when they decide these alike
    write_predicates = _write_predicates(lines, texts, referenced)
    seen: dict[tuple, tuple] = {}
    kept: dict[tuple, int] = {}  # run_key -> the number of the variant its rows make
    numbered: dict[tuple[tuple[Line, ...], tuple[tuple[str, bool], ...]], int] = {}  # (lines, assumed) -> number
    specs: dict[tuple, set[str]] = {}  # the lanes' spec-decoding of each variant's rows
    rows_run = row_variables(entry) or [{"EVAL_ONLY": "false"}]
    recipes = {path for row in rows_run for path in (_row_recipe(row, False), _row_recipe(row, True)) if path}
    # variables every row has alike (IS_AGENTIC, MODEL_NAME, …) tell no group of rows apart
    same = frozenset(n for n in rows_run[0] if all(r.get(n) == rows_run[0][n] for r in rows_run)) \
        if len(rows_run) > 1 else frozenset(exported_variables(entry))
    for row in rows_run:
        row_branch = replace(base, row=tuple(sorted((dict(base.row) | row).items())))
        decided = tuple(decide(p, row_branch) for p in predicates)
        undecided = [p for p, value in zip(predicates, decided, strict=True) if value is None]
        if len(undecided) > MAX_UNDECIDED:
            undecided = []  # too many to take both ways: values they condition stay as written
            choices: Iterable[tuple[bool, ...]] = [()]
        else:
            choices = itertools.product((True, False), repeat=len(undecided))
        for choice in choices:
            assumed = dict(zip(undecided, choice, strict=True))
            slot = (decided, tuple(assumed.items()), tuple(row.get(n) for n in sorted(settings)),
                    tuple(decide(p, row_branch) for p in write_predicates))
            if slot not in seen:  # rows deciding every condition alike resolve alike
                seen[slot] = _resolve(lines, candidates, relevant, row, row_branch, assumed, settings, texts,
                                      guarded)
            resolved, used, origins, not_run = seen[slot]
            line_decided = tuple(decide(p, row_branch) for p in line_predicates)
            # the lines a row runs follow from its slot, its line decisions and its own recipe
            # (the slot holds its lane settings): rows alike in those share one tuple
            own = _row_recipe(row, base.eval_only) if recipes else None
            run_key = (slot, line_decided, own)
            if run_key not in kept:
                skip = not_run(row_branch, dict(zip(line_predicates, line_decided, strict=True)))
                ran = tuple(
                    ln for i, ln in enumerate(resolved) if i not in skip
                    # a row runs its own srt-slurm recipe, not its siblings'
                    and (not recipes or ln.path not in recipes or ln.path == own)
                    and _row_setting(ln, row))
                # rows running the same lines under the same assumptions are one variant; the
                # (long) tuple is hashed once per run_key, each row then finds its variant by number
                kept[run_key] = numbered.setdefault((ran, tuple(assumed.items())), len(numbered))
            number = kept[run_key]
            deciding = _deciding(relevant, row, row_branch, referenced & settings, same, line_predicates)
            rows, _, _ = out.setdefault(number, ([], used, origins))
            if deciding not in rows:
                rows.append(deciding)
            specs.setdefault(number, set()).add(row.get("SPEC_DECODING") or "none")
    keys = {number: key for key, number in numbered.items()}
    return [Variant(tuple(r for r in rows if r), resolved, used, assumed, origins, tuple(sorted(specs[number])))
            for number, (rows, used, origins) in out.items() for resolved, assumed in [keys[number]]]


def _row_setting(line: Line, row: Mapping[str, str]) -> bool:
    """False for a master-config ``additional-settings`` line of another lane: a row exports
    only its own lane's settings (a line of any other kind is kept)."""
    if not MASTER_PATH.match(line.path):
        return True
    given = setting_variables([line.text])
    return not given or all(row.get(name) == value for name, value in given.items())


def _row_recipe(row: Mapping[str, str], eval_only: bool) -> str | None:
    """The srt-slurm recipe a multi-node row hands the launcher (``CONFIG_FILE=``, or
    ``EVAL_CONFIG_FILE=`` for its eval-only run), as a repository path (None: it names none)."""
    named = row.get("EVAL_CONFIG_FILE") if eval_only else None
    named = named or row.get("CONFIG_FILE")
    return recipe_file(named) if named else None


def arithmetic(expression: str) -> str | None:
    """What awk's ``print`` shows for plain arithmetic (numbers, + - * /, parentheses; %.6g),
    or None for anything else (a division by zero included)."""
    if len(expression) > MAX_EXPRESSION or not _ARITHMETIC.fullmatch(expression):
        return None
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError:
        return None

    def value(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return float(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return -value(node.operand) if isinstance(node.op, ast.USub) else value(node.operand)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](value(node.left), value(node.right))
        raise ValueError("not arithmetic")

    try:
        return f"{value(tree.body):.6g}"
    except (ValueError, ZeroDivisionError):
        return None


def printf(words: str, expand: Callable[[str], str], settled: bool = True) -> str | None:
    """What ``$(printf WORDS)`` gives, references in double-quoted and bare words replaced by
    ``expand``; None when it cannot be known exactly as bash's printf builtin prints it: a
    conversion, flag or escape not modelled, a number conversion of anything but a number bash
    reads the same way, fewer or more arguments than conversions, a bare word bash would split
    or expand as a glob, a format bash takes for an option. ``settled=False`` (the script sets
    IFS or the locale, _PRINTF_SETTINGS): no bare reference (split at other characters) and no
    float conversion (another decimal point) is known either."""
    if not settled and (re.search(r"%[-+ 0#]*\d*(?:\.\d*)?[feEgGaA]", words)
                        or any(kind == "bare" and part.startswith("$") for word in _split_words(words)
                               for kind, part in word)):
        return None
    values = _printf_words(words, expand)
    if not values:
        return None
    if values[0] == "--":  # the end of printf's options
        values = values[1:]
    elif values[0].startswith("-"):
        return None  # an option (-v NAME) or an invalid one: not the format
    if not values:
        return None
    fmt, arguments = values[0], iter(values[1:])
    failed = False

    def convert(match: re.Match[str]) -> str:
        nonlocal failed
        flags, width, precision, kind, escaped = match.groups()
        if escaped is not None:
            if escaped not in _ESCAPES:
                failed = True
            return _ESCAPES.get(escaped, "")
        if kind == "%" and not (flags or width or precision is not None):
            return "%"
        argument = next(arguments, None)
        text = None if argument is None else _convert(flags, width, precision, kind, argument)
        if text is None:
            failed = True  # bash would print an error, or the argument is not known
            return ""
        return text

    out = _CONVERSION.sub(convert, fmt)
    if failed or next(arguments, None) is not None:
        return None
    return out.rstrip("\n")  # a command substitution drops trailing newlines


def _printf_words(words: str, expand: Callable[[str], str]) -> list[str] | None:
    """printf's words after expansion, or None when bash would make other words of them: an
    unquoted glob, tilde or brace, or an unquoted reference whose value is empty, not known or
    holds blanks or glob characters (bash splits or expands it)."""
    values = []
    for word in _split_words(words):
        text = ""
        for kind, part in word:
            if kind == "bare" and not part.startswith("$"):
                if _GLOB_OR_BRACE.search(part):
                    return None
                text += part
                continue
            value = part if kind == "single" else expand(part)
            if kind == "bare" and (value in ("", part) or "$" in value or re.search(r"[\s*?\[]", value)):
                return None
            text += value
        values.append(text)
    return values


def _convert(flags: str, width: str, precision: str | None, kind: str, argument: str) -> str | None:
    """One printf conversion of ``argument`` as bash prints it, or None when not sure."""
    if "#" in flags or (width and int(width) > MAX_VALUE) or (precision and int(precision) > MAX_VALUE):
        return None
    spec = f"%{flags}{width}" + (f".{precision}" if precision is not None else "")
    if kind == "s":
        return None if flags.strip("-") else (spec + "s") % argument  # only `-` means the same to both
    if kind in "diouxX":
        number = _integer(argument)
        if number is None or (precision is not None and ("0" in flags or (number == 0 and int(precision) == 0))):
            return None  # C drops the 0 flag and prints no digit of 0 at precision 0; Python does not
        if kind in "ouxX":
            number &= 2 ** 64 - 1  # bash prints a negative number's two's complement
            spec = spec.replace("+", "").replace(" ", "")  # signs mean nothing to these
        return (spec + ("d" if kind == "u" else kind)) % number
    if kind in "feEgG":
        if len(argument) > 100 or not _FLOAT.fullmatch(argument):
            return None
        exact = decimal.Decimal(argument)
        if _near_rounding_tie(exact, kind, 6 if precision is None else int(precision)):
            return None
        return (spec + kind) % float(argument)
    return None


def _integer(argument: str) -> int | None:
    """An integer argument as bash's printf reads it, or None (not a number, or past 64 bits)."""
    match = _INTEGER.fullmatch(argument)
    if match is None:
        return None
    digits = match.group(2)
    base = 16 if digits[:2].lower() == "0x" else 8 if digits.startswith("0") else 10
    number = int(digits, base) * (-1 if match.group(1) == "-" else 1)
    return number if _INT64[0] <= number <= _INT64[1] else None


def _near_rounding_tie(value: decimal.Decimal, kind: str, precision: int) -> bool:
    """Whether printing ``value`` with ``%.{precision}{kind}`` could round one way from a double
    (Python) and the other from bash's long double: the digits asked for go past what both
    surely hold, or ``value`` lies on or next to a half-way point of the last digit printed."""
    if value == 0:
        return False
    if not -300 < value.adjusted() < 300:
        return True
    if kind in "fF":
        last = -precision
    elif kind in "eE":
        last = value.adjusted() - precision
    else:
        last = value.adjusted() - max(precision, 1) + 1
    if value.adjusted() - last + 1 > _FLOAT_DIGITS:
        return True
    with decimal.localcontext() as context:
        context.prec = 400
        scaled = abs(value).scaleb(-last)
        fraction = scaled - scaled.to_integral_value(rounding=decimal.ROUND_FLOOR)
        return abs(fraction - decimal.Decimal("0.5")).scaleb(last) <= abs(value) * decimal.Decimal(2) ** -50


def _split_words(words: str) -> list[list[tuple[str, str]]]:
    """printf's words as (how quoted, text) parts: "single" text is literal, "double" text has
    its escapes undone and its references left for expansion, "bare" text is a reference or
    plain characters (bash splits and globs what it expands to)."""
    out: list[list[tuple[str, str]]] = []
    position = 0
    while position < len(words):
        if words[position].isspace():
            position += 1
            continue
        word: list[tuple[str, str]] = []
        while position < len(words) and not words[position].isspace():
            part = _WORD_PART.match(words, position)
            if part is None:
                return []
            single, double, reference, bare = part.groups()
            if single is not None:
                word.append(("single", single))
            elif double is not None:
                word.append(("double", _ESCAPED.sub(r"\1", double)))
            else:
                word.append(("bare", reference or bare))
            position = part.end()
        out.append(word)
    return out


_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def _deciding(relevant: list[Assignment], row: dict[str, str], branch: Branch, used: set[str],
              same: frozenset[str] = frozenset(), lines_tested: Iterable[str] = ()) -> str:
    """The row's variables that make its variant (how the variant names its rows): those its
    conditions test, the values' and the lines' (``lines_tested``; but ``same``: alike in every
    row of the config), and the lane settings the lines take."""
    predicates = [g.predicate for a in relevant for g in a.guards] + list(lines_tested)
    names = [n for p in predicates for n in _PREDICATE_REF.findall(p)
             if n in row and n != "EVAL_ONLY" and n not in same and decide(p, branch) is not None]
    found = [f"{n}={row[n]}" for n in dict.fromkeys(names)]
    return " ".join(found + [f"{n}={row[n]}" if n in row else f"{n} unset" for n in sorted(used)
                             if n not in names])


def _holds(assignment: Assignment, branch: Branch, assumed: Mapping[str, bool],
           script: Callable[[Guard], Branch | None] | None = None,
           roles: frozenset = frozenset(),
           rewritten: Callable[[Guard], bool] | None = None,
           decided: Mapping[str, bool | None] | None = None) -> bool | None:
    """Whether the assignment runs on this branch (None: a condition is neither decided by the
    row, nor by the values the script gives its variables where it tests them (``script``), nor
    taken either way). A condition on the node's place in the job (``splits_nodes``) holds for a
    line that runs on the same side of it (``roles``: the reference's own such conditions). The
    row does not decide a condition on a variable of its own the script may write before testing
    it (``rewritten``): the script's value there does, or nothing. ``decided``: the row's
    decisions of some conditions, worked out already (``decide``'s)."""
    unknown = False
    for guard in assignment.guards:
        if splits_nodes(guard.predicate):
            if (guard.predicate, guard.negated) not in roles:
                unknown = True  # set on some nodes only, read on others or on every node
            continue
        if rewritten is not None and rewritten(guard):
            value = None
        elif decided is not None and guard.predicate in decided:
            value = decided[guard.predicate]
        else:
            value = decide(guard.predicate, branch)
        if value is None and script is not None and (known := script(guard)) is not None:
            value = decide(guard.predicate, known)
        if value is None:
            value = assumed.get(guard.predicate)
        if value is None:
            unknown = True
        elif value == guard.negated:
            return False
    return None if unknown else True


def _write_predicates(lines: list[Line], texts: Mapping[str, str | None], names: set[str]) -> list[str]:
    """The conditions around every line of the launch's shell files that may write one of ``names``."""
    found: dict[str, None] = {}
    for path in dict.fromkeys(ln.path for ln in lines if ln.number is not None and SHELL_FILE.search(ln.path)):
        text = texts.get(path) or ""
        writes = shell_writes(text)
        for name in names:
            for number in writes.get(name, ()):
                found.update((g.predicate, None) for g in shell_guards(text, number))
    return list(found)


def _line_guards(lines: list[Line], texts: Mapping[str, str | None]) -> dict[int, tuple[Guard, ...]]:
    """Index in ``lines`` -> the conditions enclosing that shell line (lines under none left out)."""
    out = {}
    for index, line in enumerate(lines):
        if line.number is not None and SHELL_FILE.search(line.path):
            guards = tuple(shell_guards(texts.get(line.path) or "", line.number))
            if guards:
                out[index] = guards
    return out


def _resolve(lines: list[Line], candidates: list[int], sets: list[Assignment], row: dict[str, str],
             branch: Branch, assumed: dict[str, bool], settings: set[str],
             texts: Mapping[str, str | None] | None = None,
             guarded: Mapping[int, tuple[Guard, ...]] | None = None):
    used: list[Assignment] = []
    origins: list[tuple[str, int | None, str]] = []
    out = list(lines)
    by_name: dict[str, list[Assignment]] = {}
    for a in sets:
        by_name.setdefault(a.name, []).append(a)
    held: dict[tuple[int, frozenset], bool | None] = {}
    texts = texts or {}
    modelled: dict[tuple[str, str], set[int]] = {}
    for a in sets:
        modelled.setdefault((a.line.path, a.name), set()).add(a.line.number or 0)
    depth_now = [0]

    def holds(assignment: Assignment, roles: frozenset = frozenset()) -> bool | None:
        key = (id(assignment), roles)
        if key not in held:
            held[key] = None  # a condition that tests what it guards stays open
            if depth_now[0] > MAX_CONDITION_DEPTH:
                return None  # conditions on values set under conditions, too deep to follow
            depth_now[0] += 1
            try:
                held[key] = _holds(assignment, branch, assumed,
                                   lambda guard: script_values(guard, assignment), roles,
                                   lambda guard: bool(rewritten(guard, assignment.line.path)))
            finally:
                depth_now[0] -= 1
        return held[key]

    def unmodelled(name: str, line: Line) -> bool:
        """Whether the file may write ``name`` before ``line`` in a way no assignment here models
        (``X=$(cmd)``, ``[[ … ]] && X=1``, ``read X``, ``unset X``, …): its value is not known."""
        text = texts.get(line.path) or ""
        known = modelled.get((line.path, name), set())
        return any(n < (line.number or 0) and n not in known and not skipped(line.path, text, n)
                   for n in shell_writes(text).get(name, ()))

    def skipped(path: str, text: str, number: int) -> bool:
        """Whether a line sits under a condition the row decides false (the other arm of
        ``if [ "$EVAL_ONLY" = true ]``): what it writes is not written on this branch."""
        guards = tuple(shell_guards(text, number))
        return bool(guards) and runs(Line(path, number, ""), guards) is False

    rewrites: dict[tuple[str, str, int], frozenset[str]] = {}

    def rewritten(guard: Guard, path: str) -> frozenset[str]:
        """The row's own variables that ``guard`` tests and the script may write before testing
        them (``CONC=64`` before ``if [ "$CONC" -eq 1 ]``): the row's values do not decide it. A
        write the row does not run, or ``NAME="${NAME:-x}"`` of a name the row gives a value,
        keeps the row's value."""
        key = (guard.predicate, path, guard.line)
        if key not in rewrites:
            rewrites[key] = frozenset()  # a write whose own condition tests the name: see below
            text = texts.get(path) or ""
            writes, data = writes_in_order(text), data_lines(text)  # a heredoc's or program's text writes nothing
            anywhere = not guard.line or guard.line in _functions(text)  # a function runs when called
            rewrites[key] = frozenset(
                name for name in dict.fromkeys(_PREDICATE_REF.findall(guard.predicate)) if name in row
                and any((anywhere or n <= guard.line) and n not in data and not (row[name] != "" and defaulting)
                        and not skipped(path, text, n)
                        for n, defaulting in zip(*writes.get(name, ((), ())), strict=True)))
        return rewrites[key]

    def elsewhere(name: str, line: Line) -> bool:
        """Whether the file may write ``name`` where the write does not run in file order
        before ``line``: inside a function, loop or subshell that does not hold ``line`` (run
        when called, maybe never, or gone after the subshell), later inside the loop or
        function that holds ``line`` (the next iteration reads it), or anywhere later when
        ``line`` is inside a function (it may be called after that write)."""
        text = texts.get(line.path) or ""
        number = line.number or 0
        spans = body_spans(text)
        holding = [(kind, first, last) for kind, first, last in spans if first <= number <= last]
        in_function = any(kind == "function" for kind, _, _ in holding)
        data = data_lines(text)
        for n in shell_writes(text).get(name, ()):
            if n in data or n == number:
                continue
            if n < number and any(first <= n <= last and not first <= number <= last for _, first, last in spans):
                return True
            if n > number and (in_function or any(first <= n <= last for kind, first, last in holding
                                                  if kind == "loop")):
                return True
        return False

    lines_asked: dict[tuple[str, int | None], Assignment] = {}

    def runs(line: Line, guards: tuple[Guard, ...]) -> bool | None:
        """Whether a line under ``guards`` runs in this row (None: not known); one decision for
        the lines a reference's value may come from and the lines the variant keeps."""
        # each line's stand-in lives as long as this row: holds() remembers answers by id
        pseudo = lines_asked.setdefault((line.path, line.number), Assignment("", "", line, guards))
        return holds(pseudo)

    def script_values(guard: Guard, assignment: Assignment, on: Branch | None = None) -> Branch | None:
        """The branch with the values the script's own variables in ``guard`` have where it is
        tested (``[[ -n "$AL" ]]`` after ``AL=2.49``), or None when one is not known."""
        names = [n for n in dict.fromkeys(_PREDICATE_REF.findall(guard.predicate))
                 if n not in row or n in rewritten(guard, assignment.line.path)]
        if any(not (n[0].isalpha() or n[0] == "_") for n in names):
            return None  # a positional parameter ($1): not known here
        if not names or not guard.line:
            return None
        if any(n not in by_name for n in names):
            return None  # a name no followed assignment sets has no value here (lookup says so, slower)
        if guard.line in _functions(texts.get(assignment.line.path) or ""):
            return None  # a function reads its variables when it is called, not where it is written
        at = replace(assignment.line, number=guard.line, text="")
        values = {}
        for name in names:
            value = lookup(_REF.match("${" + name + "}"), at, [], {}, 0)
            if "$" in value:
                return None
            values[name] = value
        on = on or branch  # the row asking (a line's condition), else this slot's first row
        return replace(on, row=tuple(sorted((on.values | values).items())))
    # (reference as written, file, line, depth) -> (value, assignments used, where values are set):
    # a reference is worked out once, however many values name it
    memo: dict[tuple[str, str, int | None, int], tuple[str, list[Assignment], dict[str, None]]] = {}

    def lookup(match: re.Match[str], line: Line, took: list[Assignment], here: dict[str, None],
               depth: int) -> str:
        """The value of one reference on ``line`` (as written when it is not known); the
        assignments it used and where they are set go to ``took`` and ``here``."""
        key = (match.group(0), line.path, line.number, depth)
        if key not in memo:
            own: tuple[list[Assignment], dict[str, None]] = ([], {})
            memo[key] = (_lookup(match, line, *own, depth), *own)
        value, own_took, own_here = memo[key]
        took += [a for a in own_took if a not in took]
        here.update(own_here)
        return value

    def _lookup(match: re.Match[str], line: Line, took: list[Assignment], here: dict[str, None],
                depth: int) -> str:
        name, default = match.group(1) or match.group(3), match.group(2)
        shell = line.number is not None and SHELL_FILE.search(line.path)
        if shell and (unmodelled(name, line) or elsewhere(name, line)):
            return match.group(0)
        roles = frozenset((g.predicate, g.negated) for g in shell_guards(texts.get(line.path) or "", line.number or 0)
                          if splits_nodes(g.predicate)) if shell else frozenset()
        earlier = [(a, held) for a in by_name.get(name, ()) if shell and a.line.path == line.path
                   and (a.line.number or 0) < (line.number or 0) and (held := holds(a, roles)) is not False]
        if any(holds is None for _, holds in earlier):
            return match.group(0)  # a value set under a condition left open: not known
        if earlier:
            chosen = earlier[-1][0]
            took.append(chosen)
            value = chosen.value
            if chosen.formatted:
                expand = (lambda text: _REF.sub(lambda m: lookup(m, chosen.line, took, here, depth + 1), text)) \
                    if depth < MAX_DEPTH else (lambda text: text)
                written = shell_writes(texts.get(chosen.line.path) or "")
                value = printf(value, expand, settled=not any(n in written for n in _PRINTF_SETTINGS))
                if value is None or len(value) > MAX_VALUE:
                    return match.group(0)
                here[f"{name}={value} at {chosen.line.where()}"] = None
                return value
            if "$" in value and depth < MAX_DEPTH:  # the value names further variables
                value = _REF.sub(lambda m: lookup(m, chosen.line, took, here, depth + 1), value)
                if len(value) > MAX_VALUE:
                    return match.group(0)
            if chosen.arithmetic:
                value = arithmetic(value) if "$" not in value else None
                if value is None:
                    return match.group(0)
            if "$" not in value:
                here[f"{name}={value} at {chosen.line.where()}"] = None
                return value
            return match.group(0)
        if name in row:  # a row field stays as written; a lane setting is its value
            return row[name] if name in settings else match.group(0)
        if default is not None and "$" not in default:
            return default
        return match.group(0)

    for index in candidates:
        line = lines[index]
        here: dict[str, None] = {}
        out[index] = replace(line, text=_REF.sub(lambda m, line=line, here=here: lookup(m, line, used, here, 0),
                                                 line.text))
        if here:
            origins.append((line.path, line.number, ", ".join(here)))
    # a line under a condition this row decides false (by its own variables, or by the values
    # the script gives its variables where the condition is tested) does not run in its rows
    script_answers: dict[tuple, bool | None] = {}
    by_guards: dict[tuple[str, tuple[Guard, ...]], list[int]] = {}
    for index, guards in (guarded or {}).items():
        by_guards.setdefault((lines[index].path, guards), []).append(index)

    def not_run(row_branch: Branch, decided: Mapping[str, bool | None]) -> frozenset[int]:
        """The indexes of the lines a row with ``row_branch`` (one of this slot's) does not run:
        under a condition it decides false (``decided``: its own decision of each line
        condition), or one the values the script gives its variables where the condition is
        tested decide false."""
        found: set[int] = set()
        for (path, guards), indexes in by_guards.items():
            line = lines[indexes[0]]  # the lines under the same conditions in a file run together
            changed = lambda guard, path=path: bool(rewritten(guard, path))  # noqa: E731
            if _holds(Assignment("", "", line, guards), row_branch, {}, rewritten=changed, decided=decided) is False:
                found.update(indexes)  # the row's own variables decide a condition false
                continue
            open_guards = tuple(g for g in guards if splits_nodes(g.predicate) or changed(g)
                                or decided[g.predicate] is None)
            tested = {n for g in open_guards for n in _PREDICATE_REF.findall(g.predicate)}
            if not open_guards or not tested & by_name.keys():
                continue
            # the answer depends on the slot's values and the row's own values of the names the
            # conditions test: rows alike in those share it
            key = (path, guards, tuple(sorted((n, v) for n, v in row_branch.values.items() if n in tested)))
            if key not in script_answers:
                pseudo = Assignment("", "", line, open_guards)
                script_answers[key] = _holds(
                    pseudo, row_branch, assumed, lambda guard, pseudo=pseudo: script_values(guard, pseudo, row_branch),
                    rewritten=changed, decided=decided)
            if script_answers[key] is False:
                found.update(indexes)
        return frozenset(found)

    return tuple(out), tuple(used), tuple(origins), not_run

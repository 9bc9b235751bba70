"""Line scanning for the policy checks: diff hunks, comments, flags and environment settings."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, NamedTuple

import yaml

from infx import yamlio
from infx.errors import InfxError
from infx.plan.launch_graph import FUNCTION_OPEN, case_predicate

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_ENV_NAME = r"[A-Z][A-Z0-9_]*"
_ENV_PATTERNS = (
    re.compile(rf"(?:^|[\s;&|(])(?:export\s+)?({_ENV_NAME})=(\"[^\"]*\"|'[^']*'|[^\s;&|)]*)"),
    re.compile(rf"^\s*-?\s*[\"']?({_ENV_NAME})[\"']?\s*:\s*(\"[^\"]*\"|'[^']*'|[^\s#,}}]+)"),
    re.compile(rf"\benv\s+({_ENV_NAME})=(\S+)"),
    re.compile(rf"os\.environ\[[\"']({_ENV_NAME})[\"']\]\s*=\s*(\"[^\"]*\"|'[^']*'|\S+)"),
    re.compile(rf"\$\{{({_ENV_NAME}):?=([^}}]*)\}}"),  # ${NAME:=value} assigns when unset
)


@dataclass(frozen=True)
class Line:
    """One line of evidence: where it is and what it says (comments removed)."""

    path: str
    number: int | None
    text: str
    shared: bool = False  # from a shared helper every config on the SKU launches through

    def where(self) -> str:
        return f"{self.path}:{self.number}" if self.number else self.path


class HunkLine(NamedTuple):
    """One new-side line of a diff hunk (a tuple: a large diff makes thousands)."""

    kind: str  # "+" added, " " context
    number: int
    text: str


def hunks(patch: str | None) -> list[list[HunkLine]]:
    """The new-side lines of each hunk of a unified diff (removed lines dropped)."""
    result: list[list[HunkLine]] = []
    number = 0
    for raw in (patch or "").splitlines():
        header = _HUNK.match(raw) if raw.startswith("@@") else None
        if header:
            number = int(header.group(1))
            result.append([])
            continue
        if not result or raw.startswith("\\"):
            continue
        kind, text = raw[:1], raw[1:]
        if kind == "-":
            continue
        result[-1].append(HunkLine("+" if kind == "+" else " ", number, text))
        number += 1
    return result


def added_lines(path: str, patch: str | None) -> list[Line]:
    """The added lines of one file's diff, comments stripped, blank ones dropped."""
    return list(_added_lines(path, patch))


@lru_cache(maxsize=64)
def _added_lines(path: str, patch: str | None) -> tuple[Line, ...]:
    # several checks scan the same diffs
    lines = [Line(path, hl.number, strip_comment(hl.text))
             for hunk in hunks(patch) for hl in hunk if hl.kind == "+"]
    return tuple(line for line in lines if line.text.strip())


def added_commands(path: str, patch: str | None) -> list[Line]:
    """The added lines of one file's diff with shell continuations joined (``added_lines``
    then ``join_continuations``: what the policy checks scan, read once per diff)."""
    return list(_added_commands(path, patch))


@lru_cache(maxsize=64)
def _added_commands(path: str, patch: str | None) -> tuple[Line, ...]:
    return tuple(join_continuations(_added_lines(path, patch)))


def text_lines(path: str, text: str | None) -> list[Line]:
    """Every non-comment, non-blank line of a whole file."""
    return list(_text_lines(path, text))


@lru_cache(maxsize=256)
def _text_lines(path: str, text: str | None) -> tuple[Line, ...]:
    # every config launched through one file, in every check, reads the same lines
    lines = [Line(path, no, strip_comment(raw)) for no, raw in enumerate((text or "").splitlines(), 1)]
    return tuple(line for line in lines if line.text.strip())


def strip_comment(text: str) -> str:
    """Drop a shell/YAML/Python comment: a ``#`` outside quotes at a word start."""
    if "#" not in text:
        return text.rstrip()
    return _strip_comment(text)


@lru_cache(maxsize=65536)
def _strip_comment(text: str) -> str:
    # the configs launched through one helper strip the same commented lines
    quote = None
    for index, char in enumerate(text):
        if quote:
            if char == quote:
                quote = None
        elif char in "\"'":
            quote = char
        elif char == "#" and (index == 0 or text[index - 1].isspace()):
            return text[:index].rstrip()
    return text.rstrip()


def strip_quoted_comments(text: str) -> str:
    """Drop a line's comment and the comments of source text it quotes: a patch that writes
    ``"    # fp8 verify for the draft\\n"`` into an engine file adds a comment there, not code
    (inside quotes, a ``#`` that starts a source line — only blanks before it since the opening
    quote or an ``\\n`` escape — up to the ``\\n`` escape that ends the line; one the closing
    quote ends first stays, and so does a ``#`` after other text: the text may be a sed pattern,
    an uncommented line or code with a ``#`` in a string)."""
    text = strip_comment(text)
    if "#" not in text:
        return text
    out: list[str] = []
    quote = None
    line_start = False  # only blanks since the opening quote or the last \n escape
    index = 0
    while index < len(text):
        char = text[index]
        if quote is None:
            if char in "\"'":
                quote, line_start = char, True
            out.append(char)
        elif char == "\\":
            out.append(text[index:index + 2])
            line_start = text[index + 1:index + 2] == "n"
            index += 1
        elif char == quote:
            quote = None
            out.append(char)
        elif char == "#" and line_start and (end := _quoted_line_end(text, index, quote)) is not None:
            index = end
            continue
        else:
            line_start = line_start and char in " \t"
            out.append(char)
        index += 1
    return "".join(out)


def _quoted_line_end(text: str, index: int, quote: str) -> int | None:
    # where the quoted source line that starts a comment at ``index`` ends (its "\n" escape)
    while index < len(text) and text[index] != quote:
        if text[index:index + 2] == "\\n":
            return index
        index += 2 if text[index] == "\\" else 1
    return None


@lru_cache(maxsize=1024)
def _norm_flag(flag: str) -> str:
    return flag.lstrip("-").replace("_", "-").lower()


@lru_cache(maxsize=65536)
def _folded(text: str) -> str:
    """The line as the flag patterns compare it: lower case, ``_`` read as ``-`` (a flag whose
    folded name is not in it matches nowhere in it, which spares most lines the regex)."""
    return text.lower().replace("_", "-")


def unquoted(text: str) -> str:
    """The line as bash's quote removal leaves its words: ``--hf-"overrides"``, ``--hf''-overrides``,
    ``overrid\\es`` and ``export "NAME=1"`` read as the words bash builds (quoted blanks stay
    inside their word; the line itself when it has no quote or backslash). The flag and
    environment readers read both spellings, so quoting cannot hide a word from them."""
    if "'" not in text and '"' not in text and "\\" not in text:
        return text
    return _unquoted(text)


@lru_cache(maxsize=16384)
def _unquoted(text: str) -> str:
    out: list[str] = []
    quote = None
    index = 0
    while index < len(text):
        char = text[index]
        if quote == "'":
            if char == "'":
                quote = None
            else:
                out.append(char)
        elif char == "\\" and index + 1 < len(text) and (quote is None or text[index + 1] in '"\\$`'):
            out.append(text[index + 1])
            index += 1
        elif quote == '"':
            if char == '"':
                quote = None
            else:
                out.append(char)
        elif char in "'\"":
            quote = char
        else:
            out.append(char)
        index += 1
    return "".join(out)


def _spellings(text: str) -> tuple[str, ...]:
    """The line, and its unquoted words when they differ: what the flag and environment
    readers read."""
    plain = unquoted(text)
    return (text,) if plain is text else (text, plain)


def may_name(text: str, flag: str) -> bool:
    """False when the line cannot name the flag in any spelling the flag readers accept
    (case, ``-``/``_``, leading dashes, shell quotes inside the word): a cheap test before a
    pattern search. A line with non-ASCII text always goes to the patterns, whose
    case-insensitive matching folds some letters (``ſ``, ``İ``) that ``lower()`` does not."""
    return not text.isascii() or _norm_flag(flag) in _searchable(text)


def names_flag(text: str, flag: str) -> bool:
    """Whether the flag's name appears anywhere in the line in a spelling the readers accept,
    glued to other text or not (``F=--hf-overrides``, ``ARGS=(--hf-overrides)``): a line that
    names a flag but gives it no value the readers can read hides what it passes."""
    if text.isascii():
        return may_name(text, flag)
    name = re.escape(_norm_flag(flag)).replace(r"\-", "[-_]")
    return any(re.search(name, spelling, re.IGNORECASE) for spelling in _spellings(text))


@lru_cache(maxsize=65536)
def _searchable(text: str) -> str:
    """The line folded (``_folded``), then on a second line its unquoted words folded when
    they differ: what ``may_name`` looks a flag up in (each line is asked for many flags)."""
    return "\n".join(_folded(spelling) for spelling in _spellings(text))


def flag_values(text: str, flag: str) -> list[str]:
    """Values given to ``flag`` in a line: ``--f v``, ``--f=v``, ``f: v``, ``"f": v``, and as
    the first item of a shell array (``ARGS+=(--f v)``).

    Hyphens and underscores are equivalent; quotes around the value are removed.
    """
    if not may_name(text, flag):
        return []
    found = list(_flag_values(text, flag))
    plain = unquoted(text)
    if plain is not text:  # the words bash builds name it too (a quote inside the flag); a value
        raw = tuple(found)  # the quoted reading already gave (`"2.49")` read bare) is not new
        found += [value for value in _flag_values(plain, flag)
                  if not any(value.startswith(known) and not value[len(known):].strip(")]};") for known in raw)
                  and value not in found]
    return found


@lru_cache(maxsize=32768)
def _flag_values(text: str, flag: str) -> tuple[str, ...]:
    # every config launched through one file scans the same lines for the same flags; a JSON
    # value inside a double-quoted shell word has its quotes escaped (\"key\": \"v\"): the
    # program reads them unescaped
    if '\\"' in text:
        text = text.replace('\\"', '"')
    return tuple(_unquote(m.group(1)) for m in _value_pattern(flag).finditer(text))


@lru_cache(maxsize=1024)
def _value_pattern(flag: str) -> re.Pattern[str]:
    name = re.escape(_norm_flag(flag)).replace(r"\-", "[-_]")
    return re.compile(
        rf"(?:^|[\s\"'{{,\[(])(?:--)?[\"']?{name}[\"']?(?:\s*[=:]\s*|\s+)"
        rf"(\"[^\"]*\"|'[^']*'|\{{[^}}]*\}}|[^\s,}}\]\"']+)", re.IGNORECASE)


@lru_cache(maxsize=32768)
def mentions_flag(text: str, flag: str) -> bool:
    """Whether the flag (or YAML key) appears as a word in the line (or in its unquoted words)."""
    return may_name(text, flag) and any(_mention_pattern(flag).search(t) for t in _spellings(text))


@lru_cache(maxsize=1024)
def _mention_pattern(flag: str) -> re.Pattern[str]:
    name = re.escape(_norm_flag(flag)).replace(r"\-", "[-_]")
    return re.compile(rf"(?:^|[\s\"'{{,\[(])(?:--)?{name}(?![\w-])", re.IGNORECASE)


_OPTION_WORD = re.compile(r"(?<![\w-])--([A-Za-z0-9][\w-]*)")


@lru_cache(maxsize=65536)  # each launch line is asked for each flag, by several checks
def abbreviates(text: str, flag: str) -> str | None:
    """An option word of the line (in any spelling the flag readers accept) that is a shorter
    prefix of ``flag`` past its first part (``--hf-overr`` of ``--hf-overrides``): argparse,
    which the engines' servers parse with, takes an unambiguous prefix of a long option for the
    option (``allow_abbrev``), so the word may be the flag. None when there is none."""
    name = _norm_flag(flag)
    for spelling in _spellings(text):
        for match in _OPTION_WORD.finditer(spelling):
            word = _norm_flag(match.group(1))
            if word != name and name.startswith(word) and "-" in word:
                return "--" + match.group(1)
    return None


def env_settings(text: str) -> list[tuple[str, str]]:
    """Environment assignments in a line: shell, ``NAME: value`` YAML, os.environ; also as
    bash's quote removal spells them (``export "NAME=1"``, a quote inside the name)."""
    found: list[tuple[str, str]] = []
    for spelling in _spellings(text):
        found += [pair for pair in _env_settings(spelling) if pair not in found]
    return found


@lru_cache(maxsize=16384)
def _env_settings(text: str, depth: int = 0) -> tuple[tuple[str, str], ...]:
    found: list[tuple[str, str]] = []
    for pattern in _ENV_PATTERNS:
        for match in pattern.finditer(text):
            pair = (match.group(1), _unquote(match.group(2)))
            if pair not in found:
                found.append(pair)
            # a command kept in a string sets its environment inside it: CMD="A=1 B=2 python …"
            # (its leading NAME=value words, ${VARS} among them, then the program; a string of
            # settings alone runs nothing, and later words are the program's arguments)
            if match.group(2)[:1] == '"' and depth < 2:
                found += [p for p in _command_prefix(match.group(2)[1:-1]) if p not in found]
    return tuple(found)


_PREFIX_WORD = re.compile(rf"({_ENV_NAME})=(\S*)$")
_EXPANSION_WORD = re.compile(r"\$\{?\w+(?::-)?\}?$")
# the programs a launch keeps in a string to run later (a path to one too)
_PROGRAM_WORD = re.compile(r"(?:python3?(?:\.\d+)?|vllm|sglang\S*|trtllm\S*|atom\S*|torchrun|mpirun|srun|numactl|"
                           r"taskset|env|exec|nohup|bash|sh|docker|\S*/\S*)$")


def _command_prefix(command: str) -> list[tuple[str, str]]:
    """The NAME=value words a command line starts with, when a program follows them."""
    found: list[tuple[str, str]] = []
    for word in command.split():
        setting = _PREFIX_WORD.match(word)
        if setting:
            found.append((setting.group(1), _unquote(setting.group(2))))
        elif _PROGRAM_WORD.match(word):
            return found  # the program: what came before is its environment
        elif not _EXPANSION_WORD.match(word):
            return []  # words, not a command line
    return []


def is_enabled(value: str) -> bool:
    """An environment value that switches a feature on (unset, 0, false, off, no do not)."""
    return value.strip().lower() not in ("", "0", "false", "off", "no", "none")


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def join_continuations(lines: Iterable[Line]) -> Iterator[Line]:
    """Merge shell lines ending in a backslash with the lines that follow them."""
    pending: Line | None = None
    for line in lines:
        if pending is not None:
            head = pending.text[:-1]
            # bash drops the backslash-newline: a word split there is one word again
            glued = head[-1:] not in ("", " ", "\t") and line.text[:1] not in ("", " ", "\t")
            line = replace(pending, text=head + ("" if glued else " ") + line.text.strip())
            pending = None
        if line.text.endswith("\\"):
            pending = line
            continue
        yield line
    if pending is not None:
        yield replace(pending, text=pending.text[:-1])


# a line whose command only prints (``printf -v NAME`` assigns, so it is not one): what it
# shows is no setting of the launch
PRINTS_ONLY = re.compile(r"^\s*(?:echo|printf(?!\s+-v))\b")
@lru_cache(maxsize=256)
def file_rows(text: str) -> tuple[str, ...]:
    """A file's lines, split once per text (readers that index them line by line share it)."""
    return tuple(text.splitlines())


# a path the launch runs as a shell script: a .sh/.bash file, or a file with no extension
SHELL_FILE = re.compile(r"\.(?:sh|bash)$|(?:^|/)[^./]+$")


def runs_as_command(line: Line, text: str) -> bool:
    """Whether a launch line runs what it holds: any line of a structured file (a recipe), and
    a shell line that neither only prints nor is text (``printed_lines``: a heredoc or program
    no shell reads, a multi-line string given to a no-op, a print or a variable)."""
    return not SHELL_FILE.search(line.path) or line.number is None or not (
        PRINTS_ONLY.match(line.text) or line.number in printed_lines(text))


# a value that is a number, quoted or not, before the punctuation that closes what holds it;
# ASCII digits only (Python reads "١" as 1, an engine's argument parser does not). Not the same
# question as the numbers bash's printf takes (shell_values: octal, hex) or its -eq operands
# (launch_graph._test_integer): each follows the reader it models.
_NUMBER_VALUE = re.compile(r"\s*([\"']?)(-?[0-9]+(?:\.[0-9]+)?)\1[\s,;)}\]\"']*")


def first_number(text: str) -> float | None:
    """The number a flag's or setting's value is, or None when it is anything else: a reference
    left unresolved (``$K2``, ``${K:-2}``), a printf conversion (``%.2f``), a word with digits
    in it. What the launch passes at run time is not known then, so nothing is read (fail closed)."""
    match = _NUMBER_VALUE.fullmatch(text)
    return float(match.group(2)) if match else None


def yaml_sections(text: str, number: int) -> frozenset[tuple[str, ...]] | None:
    """The key paths of the YAML mapping entries that line ``number`` of ``text`` is part of
    (its key or any line of its value), innermost entries only: ``sglang_config:`` /
    ``decode:`` / ``speculative-num-steps: 2`` -> {("sglang_config", "decode",
    "speculative-num-steps")}; two on a line that holds a flow map's ``{a: 1, b: 2}``; empty
    for a line outside every entry. The lines of an anchored node belong to every place an
    alias (or a merge key, ``<<: *x``) uses it. None when where the line belongs is not known:
    the text does not parse within infx.yamlio's bounds, a key is not text, or the line is in an
    entry a later one of the same key replaces (a loader keeps one of the two)."""
    sections = _yaml_sections(text)
    if sections is None:
        return None
    return sections[0].get(number, frozenset())


def yaml_keys(text: str) -> frozenset[tuple[str, ...]] | None:
    """The key path of every mapping entry of YAML ``text``, wherever it is (an entry a repeated
    key replaces included); None when the text does not parse as ``yaml_sections`` reads it."""
    sections = _yaml_sections(text)
    return None if sections is None else sections[1]


@lru_cache(maxsize=64)
def _yaml_sections(text: str) -> tuple[dict[int, frozenset[tuple[str, ...]] | None],
                                      frozenset[tuple[str, ...]]] | None:
    try:
        yamlio.load_text(text, "recipe")  # the bounds (size, nesting, alias expansion)
    except InfxError:
        return None
    root = yamlio.compose(text)
    if root is None:
        return None
    rows = text.splitlines()
    covering: dict[int, set[tuple[str, ...]]] = {}  # line -> the entries it is part of
    replaced: set[int] = set()  # lines of an entry a repeated key replaces

    def lines_of(key: yaml.Node, value: yaml.Node) -> range:
        end = value.end_mark  # where the next token starts: a line of its own, or inside this one
        last = end.line + (1 if rows[end.line][:end.column].strip() else 0) if end.line < len(rows) else end.line
        return range(key.start_mark.line + 1, max(last, key.start_mark.line + 1) + 1)

    def walk(node: yaml.Node, path: tuple[str, ...]) -> bool:
        # an aliased node is walked at each place it is used (load_text bounded how often); a
        # merge key's mapping belongs to the mapping it is in
        if isinstance(node, yaml.SequenceNode):
            return all(walk(item, path) for item in node.value)
        if not isinstance(node, yaml.MappingNode):
            return True
        last_of = {key.value: index for index, (key, _) in enumerate(node.value) if isinstance(key, yaml.ScalarNode)}
        for index, (key, value) in enumerate(node.value):
            if not isinstance(key, yaml.ScalarNode):
                return False
            if key.tag == "tag:yaml.org,2002:merge":
                if not walk(value, path):
                    return False
                continue
            here = (*path, key.value)
            for line in lines_of(key, value):
                covering.setdefault(line, set()).add(here)
                if last_of[key.value] != index:
                    replaced.add(line)
            if not walk(value, here):
                return False
        return True

    if not walk(root, ()):
        return None
    out: dict[int, frozenset[tuple[str, ...]] | None] = {}
    for line, paths in covering.items():
        # innermost: no other path on the line extends it
        out[line] = None if line in replaced else frozenset(
            p for p in paths if not any(len(q) > len(p) and q[:len(p)] == p for q in paths))
    return out, frozenset(path for paths in covering.values() for path in paths)


@lru_cache(maxsize=1024)
def function_spans(text: str) -> tuple[tuple[str, int, int], ...]:
    """The shell functions of ``text``: (name, the line that opens it, the line of its closing
    ``}`` or ``)``), 1-based, nested ones too. A body ends at the first ``}`` (``)`` for a
    subshell body, ``f() (``) indented as its opening line; a body on its opening line
    (``f() { …; }``) is that one line (first == last)."""
    lines = text.splitlines()
    spans: list[tuple[str, int, int]] = []
    for index, row in enumerate(lines):
        one_line = _ONE_LINE_FUNCTION.match(row)
        if one_line:
            spans.append((one_line.group(1) or one_line.group(2), index + 1, index + 1))
            continue
        opened = FUNCTION_OPEN.match(row) or _OTHER_FUNCTION_OPEN.match(row)
        if opened:
            indent = row[:len(row) - len(row.lstrip())]
            close = ")" if row.rstrip().endswith("(") else "}"
            end = next((j for j in range(index + 1, len(lines))
                        if lines[j].startswith(indent + close)), len(lines))
            spans.append((opened.group(1) or opened.group(2), index + 1, end + 1))
    return tuple(spans)


# the other ways bash opens a function: ``function f {``, ``f() (`` (a subshell body)
_OTHER_FUNCTION_OPEN = re.compile(r"^\s*(?:function\s+([A-Za-z_][\w-]*)\s*(?:\(\s*\))?\s*[{(]?"
                                  r"|([A-Za-z_][\w-]*)\s*\(\s*\)\s*\()\s*$")
# a function whose whole body is on its opening line: ``f() { cmd; }``, ``function f { cmd; }``
_ONE_LINE_FUNCTION = re.compile(r"^\s*(?:function\s+([A-Za-z_][\w-]*)\s*(?:\(\s*\))?|([A-Za-z_][\w-]*)\s*\(\s*\))"
                                r"\s*(?:\{\s.*\}|\(.*\))\s*;?\s*(?:#.*)?$")


_SUBSHELL_OPEN = re.compile(r"(?:^|[;&|]|\$)\s*\(\s*$|\|\s*\{\s*$")  # `(`, `$(` or `| {` ending a line
_SUBSHELL_CLOSE = re.compile(r"^\s*[)}]")


@lru_cache(maxsize=128)
def body_spans(text: str) -> tuple[tuple[str, int, int], ...]:
    """The blocks of a shell file whose lines run at another time than where they are written,
    or in another shell: ("function", its opening line, its ``}``) as function_spans gives
    them, ("loop", the ``do`` line, the ``done`` line) of a loop over several lines, and
    ("subshell", the opening line, the closing line) of a ``( … )``, ``$( … )`` or ``| { … }``
    over several lines (what it writes is gone after it); 1-based."""
    spans = [("function", first, last) for _, first, last in function_spans(text)]
    loops: list[int] = []
    shells: list[int] = []
    data = data_lines(text)
    for number, raw in enumerate(text.splitlines(), 1):
        if number in data:
            continue
        line = strip_comment(raw)
        if shells and _SUBSHELL_CLOSE.match(line):
            spans.append(("subshell", shells.pop(), number))
        for begin, end in _commands(line):
            position = begin + len(line[begin:end]) - len(line[begin:end].lstrip())
            while (word := _LEADING_WORD.match(line, position, end)) is not None:
                if word.group(1) == "do":
                    loops.append(number)
                elif word.group(1) == "done" and loops:
                    first = loops.pop()
                    if first < number:
                        spans.append(("loop", first, number))
                position = word.end()
        if _SUBSHELL_OPEN.search(_QUOTED.sub('""', line)) and not line.rstrip().endswith("=("):
            shells.append(number)
    return tuple(spans)


_CONTROL_WORD = re.compile(r"\b(?:if|then|elif|else|fi|while|until|do|done)\b")
# a reserved word that starts a command, before the rest of it (`then AL=3`, `! [ … ]`, `{ if …`)
_LEADING_WORD = re.compile(r"(then|else|elif|fi|do|done|if|while|until|\{|\}|!)(?=\s|$)\s*")
_PURE_TEST = re.compile(r"^!?\s*(?:\[\[?\s|test\s)")
_TEST_EFFECT = re.compile(r"\$\(|`|:=")  # what a test may run or assign besides testing


@dataclass(frozen=True)
class Guard:
    """An enclosing shell condition of a line; ``negated`` when the line is in its else branch."""

    predicate: str
    negated: bool
    line: int = field(default=0, compare=False)  # where the condition is tested (0: unknown)


def shell_guards(text: str, number: int) -> list[Guard]:
    """The conditions (outermost first) that enclose line ``number`` of a shell script: ``if`` /
    ``elif`` conditions, read wherever on a line their words are (a one-line ``if C; then A; fi``
    guards only itself, by C; a line with commands on two arms, ``if C; then A; else B; fi`` or
    ``A; else B``, is guarded by neither: only by what encloses both) and ``case``
    arms — an arm's line is guarded by its own pattern (launch_graph.case_predicate) and by the earlier
    arms' patterns, negated (the first matching arm runs); and multi-line groups after a list
    operator: the lines of ``cmd && {`` … ``}`` are guarded by ``cmd``, of ``cmd || {`` by ``cmd``
    negated."""
    return list(_shell_guards(text, number))


def case_arm_body(text: str, number: int) -> str | None:
    """The command text of line ``number`` when that line opens or closes a ``case`` arm, its
    pattern and ``;;`` dropped (``pattern) NAME=value ;;`` -> ``NAME=value``), else None."""
    return _case_structure(text)[1].get(number)


def _shell_guards(text: str, number: int) -> tuple[Guard, ...]:
    guards = _case_structure(text)[0]
    return guards[number - 1] if 1 <= number <= len(guards) else guards[-1] if guards else ()


_CASE_OPEN = re.compile(r"^\s*case\s+(.+?)\s+in\s*$")
# a multi-line group run after a list operator (`check || {` … `}`): its command and operator
# (found from the end: a lazy command part before optional blanks was quadratic on a long
# line of blanks, which a PR's script may hold)
_LIST_GROUP = re.compile(r"(&&|\|\|)\s*\{\s*$")
_BRACE_OPEN = re.compile(r"(?:^|\s)\{\s*$")  # a line opening a group or function body
_BRACE_CLOSE = re.compile(r"^\s*\}")
_CASE_ARM = re.compile(r"^\s*\(?\s*([^()\s][^()]*)\)(.*)$")
_ARM_END = re.compile(r";;&?\s*$|;&\s*$")
_FALLS_THROUGH = re.compile(r"(?:;;&|;&)\s*$")


# a heredoc operator and its word, as bash takes it: bare (letters, digits, `_`, `-`), quoted
# whole or in part ('EOF', "END-X", \EOF, E"O"F: any quote makes the body literal text)
HEREDOC = re.compile(r"<<(?P<tabs>-?)\s*(?P<word>(?:\\.|'[^'\n]*'|\"[^\"\n]*\"|[\w.-])+)")
_QUOTED = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'[^']*'")
# a heredoc fed to a shell is shell: its lines keep being read for conditions (a shell named
# before the operator, after sudo/srun or not, or ssh given a host and no command); fed to any
# other program (tee, cat, a remote command) it is that program's data
_SHELL_READER = re.compile(r"(?:^|[\s;&|(])(?:bash|sh|zsh|dash)\b[^<]*<<"
                           r"|(?:^|[\s;&|(])ssh(?:\s+-\w+)*\s+[^\s'\"<>;&|-][^\s'\"<>;&|]*\s*<<")
# a program given as a quoted argument that continues on the next lines: `python3 -c "` … `"`
_INLINE_PROGRAM = re.compile(r"(?:^|[\s;&|(`])(?:python3?|perl|ruby|node|awk)"
                             r"(?:\s+-\w+(?:\s+\w+=(?:\"[^\"]*\"|'[^']*'|[^\s'\"]+))?)*\s+([\"'])$")
_MAX_ARMS = 32  # a case of more arms leaves every arm undecided (first-match guards grow as arms**2)


# a command that runs nothing with its words: a no-op (``:`` or ``true``) given one string
_TEXT_COMMAND = re.compile(r"^\s*(?::|true)(?=\s+[\"']\s*$)")
# a command that prints its words: what it prints may be fed to a shell (``echo "`` … ``" | bash``),
# so its string is text only where a check asks what the launch itself runs (``printed_lines``)
_PRINT_COMMAND = re.compile(r"^\s*(?:echo|printf)(?:\s+-\w+)*(?=\s+[\"']\s*$)")
# a shell assignment's start, `[export|local|readonly|declare -x] NAME=` (NAME: group 1)
SHELL_ASSIGNMENT = re.compile(r"^\s*(?:(?:export|local|readonly|declare(?:\s+-\w+)*)\s+)?([A-Za-z_]\w*)\+?=")


def _embedded_end(line: str, printed: bool = False) -> re.Pattern[str] | None:
    """When ``line`` opens text that is not shell (a heredoc not fed to a shell, a multi-line
    ``python3 -c "…"`` program), the pattern of the line that closes it: the heredoc's word, or
    the program's first unescaped closing quote."""
    unquoted = _QUOTED.sub('""', line)
    heredoc = heredoc_opening(line)
    if heredoc and not _SHELL_READER.search(unquoted):
        indent = r"\t*" if heredoc.group("tabs") else ""
        return re.compile(rf"^{indent}{re.escape(heredoc_word(heredoc))}$")  # the exact word ends it
    tail = line.rstrip()[-160:]  # bounded: the opening quote ends the line
    program = _INLINE_PROGRAM.search(tail) if tail.endswith(("\"", "'")) else None
    if program:
        quote = program.group(1)
        return re.compile(r"(?:^|[^\\])\"" if quote == '"' else "'")
    # a variable given a multi-line string (USAGE=" at the end of the line): its lines are text
    # until the quote closes (only this plain form: a quote the scan merely fails to pair is
    # read as shell, so it cannot turn real commands into text)
    # and so are those of a multi-line string given to a command that only discards its words
    # (`: '` … `'`, the block-comment idiom), or with ``printed`` prints them (`echo "` … `"`)
    assigned = SHELL_ASSIGNMENT.match(line) or _TEXT_COMMAND.match(line) \
        or (_PRINT_COMMAND.match(line) if printed else None)
    opened = line[assigned.end():].strip() if assigned else ""
    if opened in ('"', "'"):
        return re.compile(r"(?:^|[^\\])\"" if opened == '"' else "'")
    return None


@lru_cache(maxsize=1024)
def data_lines(text: str) -> frozenset[int]:
    """The (1-based) lines of a shell file that are text, not commands: the bodies of heredocs
    no shell reads, of multi-line ``python3 -c "…"`` programs and of ``NAME="`` and ``: '``
    strings, closing line included (``_embedded_end``; the guard scan reads around them)."""
    return _strings_and_programs(text, False)


@lru_cache(maxsize=256)
def printed_lines(text: str) -> frozenset[int]:
    """``data_lines`` and the lines of multi-line strings given to ``echo`` or ``printf``: not
    commands of the launch itself (a check that needs a line to run reads these as text; one
    that looks for what may run must not, since printed text may be fed to a shell)."""
    return _strings_and_programs(text, True)


def _strings_and_programs(text: str, printed: bool) -> frozenset[int]:
    found: set[int] = set()
    until: re.Pattern[str] | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        if until is not None:
            found.add(number)
            if until.search(raw):
                until = None
            continue
        until = _embedded_end(strip_comment(raw), printed)
    return frozenset(found)


def heredoc_word(match: re.Match[str]) -> str:
    """The word that ends a heredoc opened by ``match`` (``HEREDOC``): its quotes removed."""
    return _unquoted(match.group("word"))


def heredoc_opening(line: str) -> re.Match[str] | None:
    """The first heredoc operator of ``line`` outside quotes (``HEREDOC``; its word, quoted or
    not, is ``heredoc_word``), or None: the one reading of where a heredoc starts. A
    here-string (``<<<``) and a shift in arithmetic open no text."""
    quoted = [m.span() for m in _QUOTED.finditer(line)]
    for match in HEREDOC.finditer(line):
        start = match.start()
        if line[start + 2:start + 3] == "<" or (start and line[start - 1] == "<"):
            continue
        if line.count("((", 0, start) > line.count("))", 0, start):
            continue  # a left shift in arithmetic: $(( 1 << n )), (( x <<= 2 ))
        if not any(first <= start < last for first, last in quoted):
            return match
    return None


@dataclass
class _Frame:
    """One open ``if``, ``case``, ``cmd && {`` / ``cmd || {`` group or loop of the guard scan."""

    guards: tuple[Guard, ...] = ()
    word: str | None = None  # a case frame's word; None for an if
    arms: tuple[str, ...] = ()  # a case frame's patterns so far
    expect_arm: bool = False  # a case frame between arms
    opened: int = 0  # a case frame's line (where its word is read)
    open_ended: bool = False  # an arm ended with ;& or ;;&: later arms' patterns do not decide
    tested: tuple[Guard, ...] = ()  # an if frame's conditions so far (if, then each elif)
    group: bool = False  # a `cmd && {` / `cmd || {` group: its body runs as the list decides
    depth: int = 0  # a group frame's inner `{` lines not yet closed
    loop: bool = False  # a loop's body (`do` … `done`): a while/until's guarded by its first test
    awaiting_do: bool = False  # a while/until frame whose `do` is still to come


def _failed(tested: tuple[Guard, ...]) -> tuple[Guard, ...]:
    return tuple(Guard(g.predicate, True, g.line) for g in tested)


def _word_at(line: str, index: int, size: int) -> bool:
    """Whether ``line[index:index + size]`` is a word of its own (``{``, ``[[``, not ``${X}``)."""
    before = line[index - 1] if index else " "
    after = line[index + size] if index + size < len(line) else " "
    return (before.isspace() or before in ";&|(") and (after.isspace() or after in ";&|)")


def _commands(line: str) -> list[tuple[int, int]]:
    """The (start, end) spans of the commands of a shell line: split at ``;``, ``&``, ``&&``,
    ``||`` and ``|`` outside quotes, backquotes, parentheses and groups (``$( … )``, ``( … )``,
    ``[[ … ]]`` and ``{ …; }`` stay whole)."""
    spans: list[tuple[int, int]] = []
    start, depth, quote, index = 0, 0, "", 0
    while index < len(line):
        char = line[index]
        if quote:
            if char == "\\" and quote != "'":
                index += 1
            elif char == quote:
                quote = ""
        elif char == "\\":
            index += 1
        elif char in "'\"`":
            quote = char
        elif char == "(" or (line.startswith("[[", index) and _word_at(line, index, 2)) or (
                char == "{" and _word_at(line, index, 1)):
            depth += 1
            index += 1 if char == "[" else 0
        elif char == ")" or (line.startswith("]]", index) and _word_at(line, index, 2)) or (
                char == "}" and _word_at(line, index, 1)):
            depth = max(depth - 1, 0)
            index += 1 if char == "]" else 0
        elif char in ";&|" and depth == 0:
            spans.append((start, index))
            while index + 1 < len(line) and line[index + 1] in ";&|":
                index += 1
            start = index + 1
        index += 1
    spans.append((start, len(line)))
    return spans


def _open_if(stack: list[_Frame]) -> _Frame | None:
    """The innermost open frame when it is an ``if`` (not a case, a group or a loop), else None."""
    return stack[-1] if stack and stack[-1].word is None and not stack[-1].group and not stack[-1].loop else None


def _if_structure(line: str, number: int, stack: list[_Frame]) -> tuple[Guard, ...]:
    """Follow the ``if``/``then``/``elif``/``else``/``fi`` words of one line, wherever on the line
    they are (``if C; then A; else B; fi``, ``A; else``, ``else B``, ``fi; B``), changing ``stack``;
    the line's guards: those every command on it runs under (a line with commands on two arms is
    guarded by neither arm), or for a line of no command, the guards it starts under. An ``if``
    condition still open at the end of the line (``then`` on the next line) is closed there."""

    def current() -> tuple[Guard, ...]:
        return tuple(g for frame in stack for g in frame.guards)

    start = current()
    commands: list[tuple[Guard, ...]] = []
    pending: list[Any] = []  # [kind, first, last, tests] of an if/elif/while/until test read so far

    def close() -> None:
        if not pending:
            return
        kind, first, last, tests = pending
        pending.clear()
        top = _open_if(stack)
        if kind == "elif" and top is None:
            return
        # a test that runs or assigns anything besides testing runs under the guards it is read at
        if any(not _PURE_TEST.match(t) or _TEST_EFFECT.search(t) for t in tests):
            outer = tuple(g for frame in stack[:-1] for g in frame.guards)
            commands.append(outer + _failed(top.tested) if kind == "elif" and top else current())
        tested = Guard(line[first:last].strip(), False, number)
        if kind in ("while", "until"):
            # the body runs (at least once) when the first test lets it in: as an `if` of it
            stack.append(_Frame((Guard(tested.predicate, kind == "until", number),), loop=True, awaiting_do=True))
        elif kind == "if":
            stack.append(_Frame((tested,), tested=(tested,)))
        elif kind == "elif" and top is not None:
            top.guards = _failed(top.tested) + (tested,)
            top.tested += (tested,)

    for begin, end in _commands(line):
        position = begin
        while position < end and line[position].isspace():
            position += 1
        while (word := _LEADING_WORD.match(line, position, end)) is not None:
            keyword = word.group(1)
            position = word.end()
            if keyword in ("if", "elif", "while", "until"):
                close()
                pending[:] = [keyword, position, position, []]
                break
            if keyword in ("then", "do", "else", "fi"):
                close()
            if keyword == "do":  # a while/until's own `do`, or a for/select loop's (no guard)
                if stack and stack[-1].loop and stack[-1].awaiting_do:
                    stack[-1].awaiting_do = False
                else:
                    stack.append(_Frame(loop=True))
            elif keyword == "done" and stack and stack[-1].loop:
                stack.pop()
            top = _open_if(stack)
            if keyword == "else" and top is not None and top.tested:
                top.guards = _failed(top.tested)  # every condition of the if failed
            elif keyword == "fi" and top is not None:
                stack.pop()
        text = line[position:end].strip()
        if not text:
            continue
        if pending:  # one command of the test (`if A && B; then`: A, then B)
            pending[2] = end
            pending[3].append(text)
        else:
            commands.append(current())
    if pending:  # a test going on on the next line (`[ A ] && \\`) keeps its end: decide() leaves it open
        pending[2] = max(pending[2], len(line.rstrip()))
    close()
    if not commands:
        return start
    common = commands[0]
    for guards in commands[1:]:
        size = 0
        while size < min(len(common), len(guards)) and common[size] == guards[size]:
            size += 1
        common = common[:size]
    return common


@lru_cache(maxsize=512)
def _case_structure(text: str) -> tuple[tuple[tuple[Guard, ...], ...], dict[int, str]]:
    """The guards of every line of ``text`` in one pass (every config launched through one
    script asks for the same lines' guards), then one past the last line: what is still open;
    and the command text of every line that opens or closes a case arm."""
    stack: list[_Frame] = []
    found: list[tuple[Guard, ...]] = []
    bodies: dict[int, str] = {}

    flat: tuple[Guard, ...] | None = None  # current()'s value until the stack changes
    nocase = "nocasematch" in text

    def current() -> tuple[Guard, ...]:
        nonlocal flat
        if flat is None:
            flat = tuple(g for frame in stack for g in frame.guards)
        return flat

    data = data_lines(text)
    for number, raw in enumerate(text.splitlines(), 1):
        if number in data:  # heredoc, `python3 -c "` or multi-line string text: guards unchanged
            found.append(current())
            continue
        line = strip_comment(raw)
        word = line.strip().rstrip(";")
        top = stack[-1] if stack else None
        if top is not None and top.word is not None and word == "esac":
            stack.pop()
            flat = None
            found.append(current())
            continue
        if top is not None and top.word is not None and top.expect_arm and word:
            arm = _CASE_ARM.match(line)
            if arm:
                patterns, body = arm.group(1).strip(), arm.group(2).strip()
                if top.open_ended or len(top.arms) >= _MAX_ARMS or nocase:
                    # after `;&` / `;;&` (bash runs or tests on), past _MAX_ARMS arms, or under
                    # nocasematch: the arm runs when the script says, not when its pattern says
                    top.guards = (Guard(case_predicate(top.word, patterns, decided=False), False, top.opened),)
                else:
                    top.guards = tuple(Guard(case_predicate(top.word, p), True, top.opened) for p in top.arms) + (
                        Guard(case_predicate(top.word, patterns), False, top.opened),)
                top.arms += (patterns,)
                top.expect_arm = False
                flat = None
                found.append(current())
                closed = _ARM_END.search(body)
                bodies[number] = body[:closed.start()].strip() if closed else body
                if closed:
                    top.expect_arm = True
                    top.open_ended = top.open_ended or _FALLS_THROUGH.search(body) is not None
                continue
        if top is not None and top.word is not None and not top.expect_arm and (closed := _ARM_END.search(line)):
            found.append(current())
            top.expect_arm = True
            top.open_ended = top.open_ended or _FALLS_THROUGH.search(line) is not None
            bodies[number] = line[:closed.start()].strip()
            continue
        if top is not None and top.group:  # the inner groups and function bodies a group holds
            if _BRACE_CLOSE.match(line):
                if top.depth:
                    top.depth -= 1
                else:
                    stack.pop()  # the group's own `}`: the line runs with the list's command
                    flat = None
                    found.append(current())
                    continue
            elif _BRACE_OPEN.search(line):
                top.depth += 1
        unquoted = _QUOTED.sub('""', line)
        listed = _LIST_GROUP.search(unquoted)
        command = unquoted[:listed.start()].strip() if listed else ""
        if command:  # `cmd && {` / `cmd || {`: the lines up to its `}` run only as cmd's status says
            found.append(current())
            stack.append(_Frame((Guard(command, listed.group(1) == "||", number),), group=True))
            flat = None
            continue
        opened = _CASE_OPEN.match(line)
        if opened:
            found.append(current())
            stack.append(_Frame(word=opened.group(1), expect_arm=True, opened=number))
            flat = None
            continue
        if not _CONTROL_WORD.search(_QUOTED.sub('""', line)):
            found.append(current())
            continue
        found.append(_if_structure(line, number, stack))
        flat = None
    found.append(current())
    return tuple(found), bodies

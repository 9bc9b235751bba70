"""Prove that added code only runs for appended concurrencies (Check `append`'s isolation rule).

An added line is isolated when an enclosing ``if`` (shell ``if …; then … fi`` or Python
``if …:``) has a predicate over the concurrency alone that is false for every existing
point. Anything that cannot be parsed is "cannot prove isolation", never a pass.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_SHELL_IF = re.compile(r"^\s*(if|elif)\s+(.*?)\s*(?:;\s*then)?\s*$")
_PY_IF = re.compile(r"^(\s*)(if|elif)\s+(.*?):\s*(?:#.*)?$")
_COMPARISON = re.compile(
    r"^\(*\s*\[*\s*\(*\s*\"?\$?\{?(?P<var>\w+)\}?\"?\s*(?P<op>-ge|-gt|-le|-lt|-eq|-ne|>=|<=|==|!=|>|<|=)"
    r"\s*\"?(?P<num>\d+)\"?\s*\)*\s*\]*\s*\)*$")
_OPS = {"-ge": ">=", "-gt": ">", "-le": "<=", "-lt": "<", "-eq": "==", "-ne": "!=", "=": "=="}
_STRUCTURE = re.compile(r"^\s*(then|fi|else|do|done|\}|\{)?\s*;?\s*$")


@dataclass(frozen=True)
class Unguarded:
    line: int
    text: str
    why: str


def evaluate(predicate: str, conc: int) -> bool | None:
    """Truth of a concurrency-only predicate at ``conc``; None when it is not one."""
    disjuncts = re.split(r"\|\||\s-o\s|\bor\b", predicate)
    results = []
    for disjunct in disjuncts:
        parts = re.split(r"&&|\s-a\s|\band\b", disjunct)
        values = [_compare(part.strip(), conc) for part in parts]
        if any(v is None for v in values):
            return None
        results.append(all(values))
    return any(results)


def _compare(text: str, conc: int) -> bool | None:
    text = text.strip().removeprefix("((").removesuffix("))").strip()
    text = re.sub(r"^\[\[?|\]\]?$", "", text).strip()
    match = _COMPARISON.match(text)
    if not match or "conc" not in match.group("var").lower():
        return None
    op = _OPS.get(match.group("op"), match.group("op"))
    number = int(match.group("num"))
    return {">=": conc >= number, ">": conc > number, "<=": conc <= number, "<": conc < number,
            "==": conc == number, "!=": conc != number}[op]


def exclusive(predicate: str, old: Iterable[int]) -> bool | None:
    """True when the predicate is false for every old concurrency; None if unparseable."""
    values = [evaluate(predicate, c) for c in old]
    if any(v is None for v in values):
        return None
    return not any(values)


def unguarded_lines(path: str, text: str, added: set[int], old: set[int]) -> list[Unguarded]:
    """Added lines of a file (1-based numbers) not isolated to appended concurrencies."""
    if path.endswith(".py"):
        return _python(text, added, old)
    if path.endswith((".sh", ".bash")) or "." not in path.rsplit("/", 1)[-1]:
        return _shell(text, added, old)
    return [Unguarded(n, "", "cannot prove isolation in this file type") for n in sorted(added)][:1]


def _shell(text: str, added: set[int], old: set[int]) -> list[Unguarded]:
    stack: list[tuple[str, bool]] = []  # (predicate, inside else-branch)
    found = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split(" #", 1)[0] if not raw.lstrip().startswith("#") else ""
        match = _SHELL_IF.match(line)
        word = line.strip().rstrip(";")
        if match and match.group(1) == "if":
            stack.append((match.group(2), False))
        elif match and stack:
            stack[-1] = (match.group(2), False)
        elif word == "else" and stack:
            stack[-1] = (stack[-1][0], True)
        elif word == "fi" and stack:
            stack.pop()
        elif number in added and line.strip() and not _STRUCTURE.match(line):
            found += _judge(number, raw, stack, old)
    return found


def _python(text: str, added: set[int], old: set[int]) -> list[Unguarded]:
    stack: list[tuple[int, str, bool]] = []  # (indent, predicate, else-branch)
    found = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        indent = len(raw) - len(raw.lstrip())
        while stack and indent <= stack[-1][0] and not (
                indent == stack[-1][0] and raw.strip().startswith(("elif", "else"))):
            stack.pop()
        match = _PY_IF.match(raw)
        if match and match.group(2) == "elif" and stack and stack[-1][0] == indent:
            stack[-1] = (indent, match.group(3), False)
        elif raw.strip().startswith("else") and stack and stack[-1][0] == indent:
            stack[-1] = (indent, stack[-1][1], True)
        elif match:
            stack.append((indent, match.group(3), False))
        elif number in added:
            found += _judge(number, raw, [(p, e) for _, p, e in stack], old)
    return found


def _judge(number: int, raw: str, stack: list[tuple[str, bool]], old: set[int]) -> list[Unguarded]:
    verdicts = [exclusive(pred, old) for pred, in_else in stack if not in_else]
    if any(v is True for v in verdicts):
        return []
    if not stack:
        why = "unconditional change reaches existing points"
    elif not verdicts:
        why = "in the else branch of a guard, which runs for existing points"
    elif all(v is False for v in verdicts):
        why = f"the guard also holds for an existing concurrency ({sorted(old)})"
    else:
        why = "cannot prove isolation: the guard is not a concurrency-only comparison"
    return [Unguarded(number, raw.strip(), why)]

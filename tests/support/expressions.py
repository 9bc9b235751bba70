"""A small evaluator for the GitHub Actions expression language (the subset our workflows use).

Used to test the real `if:` and `concurrency:` expressions from the workflow files against an
independent truth table. Semantics follow GitHub's documentation: loose `==` with numeric
coercion and case-insensitive strings, `&&`/`||` returning operand values, `.*` object filters,
and the status functions (`success()` is implied when an `if:` names none).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<string>'(?:[^']|'')*')
  | (?P<number>-?(?:0x[0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?))
  | (?P<op>==|!=|<=|>=|&&|\|\||[<>!()\[\].,*])
  | (?P<name>[A-Za-z_][A-Za-z0-9_-]*)
    """,
    re.VERBOSE,
)
STATUS_FUNCTIONS = ("success", "failure", "cancelled", "always")


class ExpressionError(ValueError):
    """The expression could not be parsed or evaluated."""


@dataclass(frozen=True)
class _Tok:
    kind: str
    text: str


def tokenize(text: str) -> list[_Tok]:
    tokens: list[_Tok] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match:
            raise ExpressionError(f"unexpected character {text[pos]!r} at {pos} in {text!r}")
        kind = match.lastgroup or ""
        if kind != "ws":
            tokens.append(_Tok(kind, match.group()))
        pos = match.end()
    return tokens


# ---- AST -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Literal:
    value: Any


@dataclass(frozen=True)
class Name:
    name: str


@dataclass(frozen=True)
class Index:
    target: Any
    key: Any  # an AST node, or the string "*" for a filter


@dataclass(frozen=True)
class Call:
    name: str
    args: tuple


@dataclass(frozen=True)
class Unary:
    op: str
    operand: Any


@dataclass(frozen=True)
class Binary:
    op: str
    left: Any
    right: Any


_PRECEDENCE = {"||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, "<=": 4, ">": 4, ">=": 4}


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.pos = 0

    def peek(self) -> _Tok | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, text: str | None = None) -> _Tok:
        tok = self.peek()
        if tok is None or (text is not None and tok.text != text):
            raise ExpressionError(f"expected {text or 'a token'} in {self.text!r}")
        self.pos += 1
        return tok

    def parse(self) -> Any:
        node = self.binary(1)
        if self.peek() is not None:
            raise ExpressionError(f"unexpected {self.peek().text!r} in {self.text!r}")
        return node

    def binary(self, min_prec: int) -> Any:
        left = self.unary()
        while True:
            tok = self.peek()
            prec = _PRECEDENCE.get(tok.text) if tok and tok.kind == "op" else None
            if prec is None or prec < min_prec:
                return left
            self.take()
            right = self.binary(prec + 1)
            left = Binary(tok.text, left, right)

    def unary(self) -> Any:
        tok = self.peek()
        if tok is not None and tok.text == "!":
            self.take()
            return Unary("!", self.unary())
        return self.postfix(self.primary())

    def primary(self) -> Any:
        tok = self.take()
        if tok.text == "(":
            node = self.binary(1)
            self.take(")")
            return node
        if tok.kind == "string":
            return Literal(tok.text[1:-1].replace("''", "'"))
        if tok.kind == "number":
            return Literal(_number(tok.text))
        if tok.kind == "name":
            lowered = tok.text.lower()
            if lowered in ("true", "false"):
                return Literal(lowered == "true")
            if lowered == "null":
                return Literal(None)
            nxt = self.peek()
            if nxt is not None and nxt.text == "(":
                return Call(lowered, self.arguments())
            return Name(tok.text)
        raise ExpressionError(f"unexpected {tok.text!r} in {self.text!r}")

    def arguments(self) -> tuple:
        self.take("(")
        args = []
        if self.peek() is not None and self.peek().text == ")":
            self.take(")")
            return ()
        while True:
            args.append(self.binary(1))
            if self.take().text == ")":
                return tuple(args)

    def postfix(self, node: Any) -> Any:
        while True:
            tok = self.peek()
            if tok is None:
                return node
            if tok.text == ".":
                self.take()
                key = self.take()
                node = Index(node, "*" if key.text == "*" else Literal(key.text))
            elif tok.text == "[":
                self.take()
                if self.peek() is not None and self.peek().text == "*":
                    self.take()
                    key: Any = "*"
                else:
                    key = self.binary(1)
                self.take("]")
                node = Index(node, key)
            else:
                return node


def _number(text: str) -> float:
    if text.lower().startswith(("0x", "-0x")):
        return float(int(text, 16))
    return float(text)


@lru_cache(maxsize=512)
def parse(text: str) -> Any:
    """Parse an expression (with or without the surrounding `${{ }}`); results are cached."""
    return _Parser(strip_braces(text)).parse()


def strip_braces(text: str) -> str:
    text = text.strip()
    if text.startswith("${{") and text.endswith("}}") and text.count("${{") == 1:
        return text[3:-2].strip()
    return text


# ---- evaluation ------------------------------------------------------------------------

class _Filtered(list):
    """The result of a `.*` filter: property access maps over its elements."""


def truthy(value: Any) -> bool:
    if value is None or value is False:
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return not (value == 0 or math.isnan(value))
    if isinstance(value, str):
        return value != ""
    return True


def to_number(value: Any) -> float:
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if text == "":
            return 0.0
        try:
            return _number(text)
        except ValueError:
            return math.nan
    return math.nan


def to_string(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, (int, str)):
        return str(value)
    return "Array" if isinstance(value, list) else "Object"


def loose_equal(left: Any, right: Any) -> bool:
    if isinstance(left, (list, dict)) or isinstance(right, (list, dict)):
        return left is right
    if type(left) is type(right) or (left is None and right is None):
        if isinstance(left, str):
            return left.casefold() == right.casefold()
        return left == right
    if isinstance(left, str) and isinstance(right, str):
        return left.casefold() == right.casefold()
    return to_number(left) == to_number(right)


def _compare(op: str, left: Any, right: Any) -> bool:
    if isinstance(left, str) and isinstance(right, str):
        a, b = left.casefold(), right.casefold()
    else:
        a, b = to_number(left), to_number(right)
        if math.isnan(a) or math.isnan(b):
            return False
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


def _index(target: Any, key: Any) -> Any:
    if isinstance(target, _Filtered):
        return _Filtered(v for v in (_index(item, key) for item in target) if v is not None)
    if isinstance(target, Mapping):
        if isinstance(key, str):
            for name, value in target.items():
                if str(name).casefold() == key.casefold():
                    return value
        return None
    if isinstance(target, list) and not isinstance(key, str):
        number = to_number(key)
        if not math.isnan(number) and number.is_integer() and 0 <= number < len(target):
            return target[int(number)]
    return None


def _filter(target: Any) -> Any:
    if isinstance(target, _Filtered):
        return _Filtered(child for item in target for child in _children(item))
    return _Filtered(_children(target))


def _children(value: Any) -> list:
    if isinstance(value, Mapping):
        return list(value.values())
    if isinstance(value, list):
        return list(value)
    return []


def _format(template: Any, *args: Any) -> str:
    text = to_string(template)
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "{" and text.startswith("{{", i):
            out.append("{")
            i += 2
        elif ch == "}" and text.startswith("}}", i):
            out.append("}")
            i += 2
        elif ch == "{":
            end = text.find("}", i)
            index_text = text[i + 1:end] if end != -1 else ""
            if not index_text.isdigit() or int(index_text) >= len(args):
                raise ExpressionError(f"format: bad placeholder in {text!r}")
            out.append(to_string(args[int(index_text)]))
            i = end + 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _contains(search: Any, item: Any) -> bool:
    if isinstance(search, list):
        return any(loose_equal(element, item) for element in search)
    return to_string(item).casefold() in to_string(search).casefold()


def _from_json(text: Any) -> Any:
    try:
        return json.loads(to_string(text))
    except json.JSONDecodeError as exc:
        raise ExpressionError(f"fromJSON: invalid JSON {text!r}: {exc}") from None


def _to_json(value: Any) -> str:
    return json.dumps(list(value) if isinstance(value, _Filtered) else value, indent=2)


def _join(value: Any, separator: Any = ",") -> str:
    if isinstance(value, list):
        return to_string(separator).join(to_string(v) for v in value)
    return to_string(value)


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "contains": _contains,
    "startswith": lambda s, p: to_string(s).casefold().startswith(to_string(p).casefold()),
    "endswith": lambda s, p: to_string(s).casefold().endswith(to_string(p).casefold()),
    "format": _format,
    "fromjson": _from_json,
    "tojson": _to_json,
    "join": _join,
}


@dataclass
class Context:
    """Named contexts (github, needs, inputs, matrix, ...) and the current job status."""

    values: dict[str, Any] = field(default_factory=dict)
    # "success" | "failure" | "cancelled": what the status functions see
    job_status: str = "success"

    def status(self, name: str) -> bool:
        if name == "always":
            return True
        if name == "cancelled":
            return self.job_status == "cancelled"
        if name == "failure":
            return self.job_status == "failure"
        return self.job_status == "success"


def evaluate(node: Any, context: Context) -> Any:
    if isinstance(node, Literal):
        return node.value
    if isinstance(node, Name):
        return _index(context.values, node.name)
    if isinstance(node, Index):
        target = evaluate(node.target, context)
        if node.key == "*":
            return _filter(target)
        return _index(target, evaluate(node.key, context))
    if isinstance(node, Unary):
        return not truthy(evaluate(node.operand, context))
    if isinstance(node, Binary):
        return _binary(node, context)
    if isinstance(node, Call):
        if node.name in STATUS_FUNCTIONS:
            if node.args:
                raise ExpressionError(f"{node.name}() takes no arguments")
            return context.status(node.name)
        function = _FUNCTIONS.get(node.name)
        if function is None:
            raise ExpressionError(f"unknown function {node.name}()")
        return function(*(evaluate(arg, context) for arg in node.args))
    raise ExpressionError(f"cannot evaluate {node!r}")


def _binary(node: Binary, context: Context) -> Any:
    left = evaluate(node.left, context)
    if node.op == "&&":
        return evaluate(node.right, context) if truthy(left) else left
    if node.op == "||":
        return left if truthy(left) else evaluate(node.right, context)
    right = evaluate(node.right, context)
    if node.op == "==":
        return loose_equal(left, right)
    if node.op == "!=":
        return not loose_equal(left, right)
    return _compare(node.op, left, right)


def _uses_status_function(node: Any) -> bool:
    if isinstance(node, Call):
        return node.name in STATUS_FUNCTIONS or any(_uses_status_function(a) for a in node.args)
    if isinstance(node, (Unary,)):
        return _uses_status_function(node.operand)
    if isinstance(node, Binary):
        return _uses_status_function(node.left) or _uses_status_function(node.right)
    if isinstance(node, Index):
        return _uses_status_function(node.target) or (
            node.key != "*" and _uses_status_function(node.key))
    return False


def evaluate_text(text: str, context: Context) -> Any:
    """Evaluate an expression string and return its value."""
    return evaluate(parse(text), context)


def evaluate_if(text: str | bool | None, context: Context) -> bool:
    """Evaluate a job or step `if:` the way the runner does (implicit `success() &&`)."""
    if text is None:
        return context.status("success")
    if isinstance(text, bool):
        return text and context.status("success")
    node = parse(str(text))
    if not _uses_status_function(node):
        return context.status("success") and truthy(evaluate(node, context))
    return truthy(evaluate(node, context))


def interpolate(text: str, context: Context) -> str:
    """Expand every `${{ … }}` in a string (used for concurrency group names)."""
    out: list[str] = []
    pos = 0
    while True:
        start = text.find("${{", pos)
        if start == -1:
            out.append(text[pos:])
            return "".join(out)
        end = text.find("}}", start)
        if end == -1:
            raise ExpressionError(f"unterminated ${{{{ in {text!r}")
        out.append(text[pos:start])
        out.append(to_string(evaluate_text(text[start + 3:end], context)))
        pos = end + 2

"""An evaluator for the GitHub Actions expression language, checked against GitHub's own.

Used by the tests to evaluate the real `if:`, `concurrency`, `name`, `strategy` and `with:`
expressions of our workflow files. Semantics follow GitHub's implementation (npm
`@actions/expressions`; tests/repo/test_support_expressions_differential.py compares the two on every
expression of our workflows): loose `==` (null and booleans become numbers, then a string meets
a number as a number; strings compare upper-cased), `&&`/`||` returning an operand, `.*`
filters, JavaScript number formatting, and the status functions (`success()` is implied when
an `if:` calls none). Unknown contexts and functions, and wrong argument counts, are parse
errors as on GitHub.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, localcontext
from functools import lru_cache
from typing import Any

STATUS_FUNCTIONS = ("success", "failure", "cancelled", "always")
CONTEXTS = ("github", "env", "vars", "job", "jobs", "steps", "runner", "secrets", "strategy",
            "matrix", "needs", "inputs")
_BOUNDARY = set("([)],.!><=&|")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")
_JS_DECIMAL = re.compile(r"[+-]?(?:Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\Z")
_JS_RADIX = re.compile(r"0(?:[xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)\Z")


class ExpressionError(ValueError):
    """The expression could not be parsed or evaluated."""


@dataclass(frozen=True)
class _Tok:
    kind: str  # "number" | "string" | "name" | "keyword" | "op"
    text: str
    value: Any = None


def _is_boundary(ch: str) -> bool:
    return ch in _BOUNDARY or ch.isspace()


def tokenize(text: str) -> list[_Tok]:
    """Split an expression into tokens the way GitHub's lexer does."""
    tokens: list[_Tok] = []
    pos = 0

    def previous() -> str | None:
        return tokens[-1].text if tokens and tokens[-1].kind == "op" else (
            "name" if tokens and tokens[-1].kind == "name" else None)

    while pos < len(text):
        ch = text[pos]
        if ch in " \t\r\n":
            pos += 1
            continue
        two = text[pos:pos + 2]
        if two in ("==", "!=", "<=", ">=", "&&", "||"):
            tokens.append(_Tok("op", two))
            pos += 2
        elif ch in "()[],*<>!":
            tokens.append(_Tok("op", ch))
            pos += 1
        elif ch == "." and previous() in ("name", "]", ")", "*"):
            tokens.append(_Tok("op", "."))
            pos += 1
        elif ch == "'":
            end = pos + 1
            while end < len(text) and (text[end] != "'" or text[end + 1:end + 2] == "'"):
                end += 2 if text[end] == "'" else 1
            if end >= len(text):
                raise ExpressionError(f"unterminated string at {pos + 1} in {text!r}")
            tokens.append(_Tok("string", text[pos:end + 1], text[pos + 1:end].replace("''", "'")))
            pos = end + 1
        elif ch.isdigit() or ch in "+-.":
            end = pos + 1
            while end < len(text) and (not _is_boundary(text[end]) or text[end] == "."):
                end += 1
            lexeme = text[pos:end]
            value = js_number(lexeme)
            if math.isnan(value):
                raise ExpressionError(f"unexpected symbol {lexeme!r} at {pos + 1} in {text!r}")
            tokens.append(_Tok("number", lexeme, value))
            pos = end
        else:
            end = pos
            while end < len(text) and not _is_boundary(text[end]):
                end += 1
            lexeme = text[pos:end] or ch
            after_dot = bool(tokens) and tokens[-1].text == "." and tokens[-1].kind == "op"
            keywords = {"true": True, "false": False, "null": None, "NaN": math.nan,
                        "Infinity": math.inf}
            if not _IDENTIFIER.match(lexeme):
                raise ExpressionError(f"unexpected symbol {lexeme!r} at {pos + 1} in {text!r}")
            if lexeme in keywords and not after_dot:
                value = keywords[lexeme]
                kind = "number" if isinstance(value, float) else "keyword"
                tokens.append(_Tok(kind, lexeme, value))
            else:
                tokens.append(_Tok("name", lexeme))
            pos = end
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
# name -> (minimum, maximum) number of arguments
_ARITY = {"contains": (2, 2), "startswith": (2, 2), "endswith": (2, 2), "format": (1, 255),
          "join": (1, 2), "tojson": (1, 1), "fromjson": (1, 1), "case": (3, 10**6),
          **{name: (0, 0) for name in STATUS_FUNCTIONS}}


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.pos = 0

    def peek(self) -> _Tok | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def peek_is(self, text: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.kind == "op" and tok.text == text

    def take(self, text: str | None = None) -> _Tok:
        tok = self.peek()
        if tok is None or (text is not None and not (tok.kind == "op" and tok.text == text)):
            raise ExpressionError(f"expected {text or 'a token'} in {self.text!r}")
        self.pos += 1
        return tok

    def parse(self) -> Any:
        if not self.tokens:
            raise ExpressionError("empty expression")
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
        if self.peek_is("!"):
            self.take()
            return Unary("!", self.unary())
        return self.postfix(self.primary())

    def primary(self) -> Any:
        tok = self.take()
        if tok.kind == "op" and tok.text == "(":
            node = self.binary(1)
            self.take(")")
            return node
        if tok.kind in ("string", "number", "keyword"):
            return Literal(tok.value)
        if tok.kind == "name":
            if self.peek_is("("):
                return self.call(tok.text)
            if tok.text.lower() not in CONTEXTS:
                raise ExpressionError(f"unrecognized named-value {tok.text!r} in {self.text!r}")
            return Name(tok.text)
        raise ExpressionError(f"unexpected {tok.text!r} in {self.text!r}")

    def call(self, name: str) -> Call:
        lowered = name.lower()
        self.take("(")
        args = []
        while not self.peek_is(")"):
            args.append(self.binary(1))
            if not self.peek_is(")"):
                self.take(",")
        self.take(")")
        if lowered not in _ARITY:
            raise ExpressionError(f"unrecognized function {name}() in {self.text!r}")
        low, high = _ARITY[lowered]
        if not low <= len(args) <= high or (lowered == "case" and len(args) % 2 == 0):
            raise ExpressionError(f"{name}() given {len(args)} arguments in {self.text!r}")
        return Call(lowered, tuple(args))

    def postfix(self, node: Any) -> Any:
        while True:
            if self.peek_is("."):
                self.take()
                key = self.take()
                if key.kind == "op" and key.text == "*":
                    node = Index(node, "*")
                elif key.kind in ("name", "keyword"):
                    node = Index(node, Literal(key.text))
                else:
                    raise ExpressionError(f"unexpected {key.text!r} after '.' in {self.text!r}")
            elif self.peek_is("["):
                self.take()
                if self.peek_is("*"):
                    self.take()
                    index: Any = "*"
                else:
                    index = self.binary(1)
                self.take("]")
                node = Index(node, index)
            else:
                return node


@lru_cache(maxsize=512)
def parse(text: str) -> Any:
    """Parse an expression (with or without the surrounding `${{ }}`); results are cached."""
    return _Parser(strip_braces(text)).parse()


def strip_braces(text: str) -> str:
    text = text.strip()
    if text.startswith("${{") and text.endswith("}}") and text.count("${{") == 1:
        return text[3:-2].strip()
    return text


# ---- values --------------------------------------------------------------------------

class _Filtered(list):
    """The result of a `.*` filter: property access maps over its elements."""


_MISSING = object()


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_primitive(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float, str))


def truthy(value: Any) -> bool:
    if value is None or value is False:
        return False
    if _is_number(value):
        return not (value == 0 or math.isnan(value))
    if isinstance(value, str):
        return value != ""
    return True


def js_number(text: str) -> float:
    """JavaScript's Number(string): what GitHub makes of a string compared with a number."""
    text = text.strip()
    if text == "":
        return 0.0
    if _JS_RADIX.match(text):
        return float(int(text[2:], {"x": 16, "o": 8, "b": 2}[text[1].lower()]))
    if _JS_DECIMAL.match(text):
        return float(text.replace("Infinity", "inf"))
    return math.nan


def to_number(value: Any) -> float:
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if _is_number(value):
        return float(value)
    if isinstance(value, str):
        return js_number(value)
    return math.nan


def _js_number_text(number: float) -> str:
    """JavaScript's Number.prototype.toString for a double."""
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    if number == 0:
        return "0"
    sign = "-" if number < 0 else ""
    mantissa, _, exponent = repr(abs(number)).partition("e")  # shortest round-trip digits
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    point = len(whole) + int(exponent or 0)  # the decimal point's place in whole+fraction
    point -= len(whole + fraction) - len((whole + fraction).lstrip("0"))
    digits = digits.rstrip("0")
    k, n = len(digits), point
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    exp = n - 1
    exp_text = ("+" if exp >= 0 else "-") + str(abs(exp))
    if k == 1:
        return f"{sign}{digits}e{exp_text}"
    return f"{sign}{digits[0]}.{digits[1:]}e{exp_text}"


def _number_to_string(value: float) -> str:
    try:
        number = float(value)
    except OverflowError:  # an integer beyond the double range, as JavaScript reads it
        number = math.inf if value > 0 else -math.inf
    if number == 0:
        return "0"
    if math.isfinite(number) and abs(number) < 1e21:
        # GitHub keeps at most 15 decimals: toFixed(15), then read back as a number
        with localcontext() as exact:
            exact.prec = 80
            rounded = Decimal(number).quantize(Decimal("1e-15"), rounding=ROUND_HALF_UP)
        number = float(rounded)
        if number == 0:
            return "0"
    return _js_number_text(number)


def to_string(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if _is_number(value):
        return _number_to_string(value)
    if isinstance(value, str):
        return value
    return "Array" if isinstance(value, list) else "Object"


def _upper(text: str) -> str:
    """GitHub's case folding for comparisons: upper case, except that a dotless ı stays."""
    if "ı" not in text:
        return text.upper()
    return "ı".join(part.upper() for part in text.split("ı"))


def _coerce(left: Any, right: Any) -> tuple[Any, Any]:
    if left is None or isinstance(left, bool):
        left = to_number(left)
    if right is None or isinstance(right, bool):
        right = to_number(right)
    if _is_number(left) and isinstance(right, str):
        right = js_number(right)
    elif isinstance(left, str) and _is_number(right):
        left = js_number(left)
    return left, right


def _kind(value: Any) -> str:
    if _is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def loose_equal(left: Any, right: Any) -> bool:
    if type(left) is str and type(right) is str:  # the common case, as the general path decides it
        return _upper(left) == _upper(right)
    if left is None and right is None:
        return True
    if isinstance(left, bool) and isinstance(right, bool):
        return left == right
    left, right = _coerce(left, right)
    if _kind(left) != _kind(right):
        return False
    if _is_number(left):
        return not (math.isnan(left) or math.isnan(right)) and left == right
    if isinstance(left, str):
        return _upper(left) == _upper(right)
    return left is right


def _less(left: Any, right: Any) -> bool:
    if isinstance(left, bool) and isinstance(right, bool):
        return not left and right
    left, right = _coerce(left, right)
    if _kind(left) != _kind(right):
        return False
    if _is_number(left):
        return not (math.isnan(left) or math.isnan(right)) and left < right
    if isinstance(left, str):
        return _upper(left) < _upper(right)
    return False


def _compare(op: str, left: Any, right: Any) -> bool:
    if op == "<":
        return _less(left, right)
    if op == ">":
        return _less(right, left)
    if op == "<=":
        return loose_equal(left, right) or _less(left, right)
    return loose_equal(left, right) or _less(right, left)


def _dict_get(target: Mapping, key: str) -> Any:
    wanted = key.lower()
    for name, value in target.items():
        if str(name).lower() == wanted:
            return value
    return _MISSING


def _dict_values(target: Mapping) -> list:
    seen: set[str] = set()
    values = []
    for name, value in target.items():
        if str(name).lower() not in seen:
            seen.add(str(name).lower())
            values.append(value)
    return values


def _index_parts(key: Any) -> tuple[str | None, int | None]:
    text = to_string(key) if _is_primitive(key) else None
    number = to_number(key)
    position = math.floor(number) if math.isfinite(number) and number >= 0 else None
    return text, position


def _lookup(target: Any, key: Any) -> Any:
    """The element at `key`, or _MISSING (an object reads the key's text, an array its number)."""
    if isinstance(target, Mapping):
        text = to_string(key) if _is_primitive(key) else None
        return _MISSING if text is None else _dict_get(target, text)
    if isinstance(target, list):
        _, position = _index_parts(key)
        return target[position] if position is not None and position < len(target) else _MISSING
    return _MISSING


def _index(target: Any, key: Any) -> Any:
    if isinstance(target, _Filtered):
        found = (_lookup(item, key) for item in target if isinstance(item, (Mapping, list)))
        return _Filtered(v for v in found if v is not _MISSING)
    value = _lookup(target, key)
    return None if value is _MISSING else value


def _filter(target: Any) -> Any:
    if isinstance(target, _Filtered):
        return _Filtered(child for item in target for child in _children(item))
    return _Filtered(_children(target))


def _children(value: Any) -> list:
    if isinstance(value, Mapping):
        return _dict_values(value)
    if isinstance(value, list):
        return list(value)
    return []


# ---- functions -----------------------------------------------------------------------

def _format(template: Any, *args: Any) -> str:
    text = to_string(template)
    out: list[str] = []
    index = 0
    while index < len(text):
        left, right = text.find("{", index), text.find("}", index)
        if left >= 0 and (right < 0 or right > left):
            if text[left + 1:left + 2] == "{":
                out.append(text[index:left + 1])
                index = left + 2
                continue
            digits = re.match(r"\d+", text[left + 1:])
            if right > left + 1 and digits:
                number = int(digits.group())
                if number >= len(args):
                    raise ExpressionError(f"format: {text!r} references more arguments than given")
                out.append(text[index:left])
                out.append(to_string(args[number]))
                index = right + 1
                continue
            raise ExpressionError(f"format: invalid format string {text!r}")
        if right >= 0:
            if text[right + 1:right + 2] != "}":
                raise ExpressionError(f"format: invalid format string {text!r}")
            out.append(text[index:right + 1])
            index = right + 2
        else:
            out.append(text[index:])
            break
    return "".join(out)


def _contains(search: Any, item: Any) -> bool:
    if _is_primitive(search):
        return _is_primitive(item) and to_string(item).lower() in to_string(search).lower()
    if isinstance(search, list):
        return any(loose_equal(item, element) for element in search)
    return False


def _starts(text: Any, prefix: Any) -> bool:
    return (_is_primitive(text) and _is_primitive(prefix)
            and _upper(to_string(text)).startswith(_upper(to_string(prefix))))


def _ends(text: Any, suffix: Any) -> bool:
    return (_is_primitive(text) and _is_primitive(suffix)
            and _upper(to_string(text)).endswith(_upper(to_string(suffix))))


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _from_json(text: Any) -> Any:
    source = to_string(text)
    if source.strip() == "":
        raise ExpressionError("fromJSON: empty input")
    try:
        return json.loads(source, parse_constant=_refuse_constant)
    except ValueError as exc:
        raise ExpressionError(f"fromJSON: invalid JSON {source!r}: {exc}") from None


def _json_text(value: Any, indent: str = "") -> str:
    """JavaScript's JSON.stringify(value, null, 2)."""
    inner = indent + "  "
    if value is None or (_is_number(value) and not math.isfinite(value)):
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if _is_number(value):
        return _js_number_text(float(value))
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        if not value:
            return "[]"
        return "[\n" + ",\n".join(inner + _json_text(v, inner) for v in value) + "\n" + indent + "]"
    pairs = []
    seen: set[str] = set()
    for key, item in value.items():
        if str(key).lower() not in seen:
            seen.add(str(key).lower())
            pairs.append(f"{inner}{json.dumps(str(key), ensure_ascii=False)}: {_json_text(item, inner)}")
    return "{\n" + ",\n".join(pairs) + "\n" + indent + "}" if pairs else "{}"


def _to_json(value: Any) -> str:
    return _json_text(value)


def _join(value: Any, separator: Any = ",") -> str:
    if _is_primitive(value):
        return to_string(value)
    if isinstance(value, list):
        sep = to_string(separator) if _is_primitive(separator) else ","
        return sep.join(to_string(v) for v in value)
    return ""


def _case(*args: Any) -> Any:
    for index in range(0, len(args) - 1, 2):
        if not isinstance(args[index], bool):
            raise ExpressionError("case: a predicate must be a boolean")
        if args[index]:
            return args[index + 1]
    return args[-1]


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "contains": _contains,
    "startswith": _starts,
    "endswith": _ends,
    "format": _format,
    "fromjson": _from_json,
    "tojson": _to_json,
    "join": _join,
    "case": _case,
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
    # by the node's exact class (the parser's), the most frequent first
    kind = type(node)
    if kind is Binary:
        return _binary(node, context)
    if kind is Literal:
        return node.value
    if kind is Name:
        value = _dict_get(context.values, node.name)
        return None if value is _MISSING else value
    if kind is Index:
        if type(node.key) is str and node.key == "*":
            return _filter(evaluate(node.target, context))
        key = evaluate(node.key, context)
        return _index(evaluate(node.target, context), key)
    if kind is Unary:
        return not truthy(evaluate(node.operand, context))
    if kind is Call:
        args = [evaluate(arg, context) for arg in node.args]
        if node.name in STATUS_FUNCTIONS:
            return context.status(node.name)
        return _FUNCTIONS[node.name](*args)
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
    if isinstance(node, Unary):
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
    node, uses_status = _parse_if(str(text))
    if not uses_status:
        return context.status("success") and truthy(evaluate(node, context))
    return truthy(evaluate(node, context))


@lru_cache(maxsize=512)
def _parse_if(text: str) -> tuple[Any, bool]:
    """An `if:` parsed, and whether it calls a status function (both depend on the text alone)."""
    node = parse(text)
    return node, _uses_status_function(node)


def interpolate(text: str, context: Context) -> str:
    """Expand every `${{ … }}` in a string (used for names, concurrency groups, inputs)."""
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

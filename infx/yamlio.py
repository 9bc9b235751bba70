"""The one safe path for every YAML file infx reads: bounded size, checked bytes, C loader.

Every YAML text (configs, changelog, world files, files read from a PR head) goes
through ``decode`` (for bytes) and ``load_text``. Hostile input ends in one located
InfxError, never a traceback or unbounded time and memory:

- size: at most ``max_yaml_bytes()`` bytes (the ``yaml_limits.file_bytes`` setting of
  infx/limits.yaml, or ``INFX_MAX_YAML_BYTES``);
- bytes: UTF-8 only; byte-order marks, UTF-16/32 and NUL bytes are named with their
  byte offset and line; undecodable bytes likewise;
- aliases: every ``*alias`` counts the nodes of the subtree it repeats; more than
  ``ALIAS_BUDGET`` repeated nodes in one document (a "billion laughs" bomb) is refused;
- nesting: deeper than ``MAX_DEPTH`` collections is refused (libyaml's recursive composer
  would crash the interpreter near 100,000 levels);
- nodes: more than ``max_yaml_nodes()`` in one document (``yaml_limits.document_nodes``, or
  ``INFX_MAX_YAML_NODES``) is refused before it is built.

The alias budget and the nesting depth stop bombs and are fixed; the size and node caps
grow with legitimate files, so they are settings, and going over one is a
``YamlLimitError`` naming the cap and the setting to raise (not a YAML syntax problem).

The checks cost nothing extra: one pass over libyaml's event stream counts and builds the
data at once; only documents using features that pass leaves to PyYAML (merge keys, rarer
tags, composer errors) are scanned first and then loaded by PyYAML itself.
"""

from __future__ import annotations

import codecs
import gc
import json
import os
import pickle
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, NoReturn

import yaml

from infx.errors import InfxError, Problem

try:
    _CLoader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - libyaml missing
    _CLoader = yaml.SafeLoader

# plain-scalar tag by its text: a config repeats the same few hundred scalars ("8", "true",
# "fp8", field names) thousands of times, and resolving runs regexes in Python
_PLAIN_TAGS: dict[str, str] = {}
_CACHE_MAX = 100_000


class _FastLoader(_CLoader):  # type: ignore[misc, valid-type]
    """The C safe loader with the implicit-tag resolution of scalars memoised."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if kind is yaml.ScalarNode and not self.yaml_path_resolvers:
            if not implicit[0]:
                return self.DEFAULT_SCALAR_TAG  # quoted or explicitly tagged '!'
            tag = _PLAIN_TAGS.get(value)
            if tag is None:
                tag = super().resolve(kind, value, implicit)
                if len(_PLAIN_TAGS) < _CACHE_MAX:
                    _PLAIN_TAGS[value] = tag
            return tag
        if not self.yaml_path_resolvers:  # the safe loaders have none: the default tags
            if kind is yaml.SequenceNode:
                return self.DEFAULT_SEQUENCE_TAG
            if kind is yaml.MappingNode:
                return self.DEFAULT_MAPPING_TAG
        return super().resolve(kind, value, implicit)

# infx/limits.yaml: the one file of input caps (its comment shows why the defaults are
# what they are). Read once, under small fixed caps of its own.
LIMITS_FILE = "infx/limits.yaml"
_YAML_SETTINGS = {"file_bytes": "INFX_MAX_YAML_BYTES", "document_nodes": "INFX_MAX_YAML_NODES"}

ALIAS_BUDGET = 10_000
MAX_DEPTH = 200


class YamlLimitError(InfxError):
    """A YAML input over a size or node cap: a setting to raise, not a file to fix."""

    def __init__(self, problem: Problem, cap: str) -> None:
        super().__init__(problem)
        self.cap = cap


@lru_cache(maxsize=1)
def limits_file() -> dict[str, Any]:
    """The sections of infx/limits.yaml (``yaml_limits``, ``archive_limits``)."""
    path = Path(__file__).with_name("limits.yaml")
    data = load_text(read_text(path, what="limits file", limit=1 << 16), LIMITS_FILE,
                     unique_keys=True, limit=1 << 16, nodes=1_000)
    if not isinstance(data, dict):
        raise InfxError(Problem("the limits file must be a mapping of sections",
                                file=LIMITS_FILE, fix="restore `yaml_limits:` and `archive_limits:`"))
    return data


@lru_cache(maxsize=1)
def _yaml_defaults() -> dict[str, int]:
    section = limits_file().get("yaml_limits")
    if not isinstance(section, dict):
        raise InfxError(Problem("missing `yaml_limits:` mapping", file=LIMITS_FILE,
                                fix="add `yaml_limits:` with " + " and ".join(_YAML_SETTINGS)))
    problems = [Problem(f"unknown YAML limit {key!r}", file=LIMITS_FILE, key=f"yaml_limits.{key}",
                        fix="one of: " + ", ".join(_YAML_SETTINGS))
                for key in section if key not in _YAML_SETTINGS]
    problems += [Problem(f"YAML limit {key} must be a positive integer, not {section.get(key)!r}",
                         file=LIMITS_FILE, key=f"yaml_limits.{key}",
                         fix="write a number (of bytes, or of nodes)")
                 for key in _YAML_SETTINGS
                 if type(section.get(key)) is not int or section[key] <= 0]
    if problems:
        raise InfxError(problems)
    return dict(section)


def _setting(name: str) -> int:
    """A YAML cap: its environment variable (a positive whole number) or infx/limits.yaml.

    Read when a file is read, so a bad value is a located error of the command that reads
    YAML (never an import failure)."""
    variable = _YAML_SETTINGS[name]
    raw = os.environ.get(variable, "").strip()
    if not raw:
        return _yaml_defaults()[name]
    try:
        value = int(raw.replace("_", ""))
    except ValueError:
        value = 0
    if value <= 0:
        default = _yaml_defaults()[name]
        unit = "bytes" if name == "file_bytes" else "nodes"
        raise InfxError(Problem(
            f"{variable}={raw!r} is not a positive whole number of {unit}",
            fix=f"set it to a number such as {default * 2}, or unset it for the default "
                f"{default:,} (yaml_limits.{name} in {LIMITS_FILE})"))
    return value


def max_yaml_bytes() -> int:
    """The size cap on one YAML file: ``INFX_MAX_YAML_BYTES`` or ``yaml_limits.file_bytes``."""
    return _setting("file_bytes")


def max_yaml_nodes() -> int:
    """The node cap on one YAML document: ``INFX_MAX_YAML_NODES`` or ``yaml_limits.document_nodes``."""
    return _setting("document_nodes")


def _raise_it(cap: str) -> str:
    return (f"if the file is legitimate, raise `{cap}` under `yaml_limits:` in {LIMITS_FILE} "
            f"(or set {_YAML_SETTINGS[cap]})")


_BOMS = (
    (codecs.BOM_UTF32_LE, "a UTF-32 byte-order mark (the file is UTF-32)"),
    (codecs.BOM_UTF32_BE, "a UTF-32 byte-order mark (the file is UTF-32)"),
    (codecs.BOM_UTF8, "a UTF-8 byte-order mark"),
    (codecs.BOM_UTF16_LE, "a UTF-16 byte-order mark (the file is UTF-16)"),
    (codecs.BOM_UTF16_BE, "a UTF-16 byte-order mark (the file is UTF-16)"),
)
_SAVE_AS_UTF8 = "save the file as UTF-8 without a byte-order mark"


class _UniqueKeyLoader(_FastLoader):  # type: ignore[misc, valid-type]
    """Loader that rejects duplicate mapping keys (YAML allows them silently)."""


_MERGE_TAG = "tag:yaml.org,2002:merge"


def _construct_unique_mapping(loader, node, deep=False):
    # Only keys written in this mapping can be duplicates; keys brought in by a
    # merge (`<<: *anchor`) may legitimately be overridden.
    seen: dict = {}
    for key_node, _ in node.value:
        if key_node.tag == _MERGE_TAG:
            continue
        key = loader.construct_object(key_node, deep=deep)
        try:
            duplicate = key in seen
        except TypeError:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping", node.start_mark, "found unhashable key",
                key_node.start_mark) from None
        if duplicate:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping",
                node.start_mark,
                f"found duplicate key {key!r}",
                key_node.start_mark,
            )
        seen[key] = True
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_unique_mapping
)


# --- bytes -> text -------------------------------------------------------------------------

def line_at(raw: bytes | str, offset: int) -> int:
    """1-based line holding position ``offset`` of ``raw``."""
    newline = b"\n" if isinstance(raw, bytes) else "\n"
    return raw.count(newline, 0, max(offset, 0)) + 1  # type: ignore[arg-type]


def _byte_problem(message: str, filename: str, raw: bytes, offset: int) -> InfxError:
    line = line_at(raw, offset)
    column = offset - (raw.rfind(b"\n", 0, offset) + 1) + 1
    return InfxError(Problem(f"{message} at byte offset {offset} (line {line}, column {column})",
                             file=filename, line=line, fix=_SAVE_AS_UTF8))


def check_size(size: int, filename: str, limit: int | None = None) -> None:
    """A clear error when a YAML input is larger than ``limit`` bytes."""
    limit = max_yaml_bytes() if limit is None else limit
    if size > limit:
        raise YamlLimitError(Problem(
            f"file is {size:,} bytes; YAML inputs are limited to {limit:,} bytes (the "
            "yaml_limits.file_bytes cap)", file=filename, fix=_raise_it("file_bytes")),
            "file_bytes")


def decode(raw: bytes, filename: str, limit: int | None = None) -> str:
    """UTF-8 text of ``raw``; size, byte-order marks, NUL bytes and bad UTF-8 are located errors."""
    limit = max_yaml_bytes() if limit is None else limit
    check_size(len(raw), filename, limit)
    for bom, what in _BOMS:
        if raw.startswith(bom):
            raise _byte_problem(f"file starts with {what}", filename, raw, 0)
    nul = raw.find(b"\0")
    if nul >= 0:
        hint = " (the file looks UTF-16 or UTF-32 encoded)" if raw.count(b"\0") * 4 >= len(raw) \
            else ""
        raise _byte_problem(f"file contains a NUL byte{hint}", filename, raw, nul)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = raw[exc.start:exc.start + 1].hex()
        raise _byte_problem(f"file is not valid UTF-8: byte 0x{bad} cannot be decoded",
                            filename, raw, exc.start) from None


def read_text(path: str | Path, *, what: str = "file", missing: str | None = None,
              fix: str = "check the path", limit: int | None = None) -> str:
    """A file's UTF-8 text; a missing, unreadable, oversized or non-UTF-8 file is an InfxError.

    ``missing`` replaces the default "<what> not found" message for an absent file.
    The size is checked before reading, so a huge file is never loaded.
    """
    limit = max_yaml_bytes() if limit is None else limit
    try:
        with Path(path).open("rb") as handle:
            check_size(os.fstat(handle.fileno()).st_size, str(path), limit)
            raw = handle.read(limit + 1)
    except FileNotFoundError:
        raise InfxError(Problem(missing or f"{what} not found", file=str(path), fix=fix)) from None
    except OSError as exc:
        raise InfxError(Problem(f"cannot read {what}: {exc.strerror or exc}", file=str(path),
                                fix=fix)) from None
    return decode(raw, str(path), limit)


# --- text -> data --------------------------------------------------------------------------

def _scan_events(text: str, filename: str, limit: int) -> None:
    """Exact nesting, node-count and alias-expansion check of the event stream.

    Stops at the first excess, so a hostile file costs at most ``limit`` events. The loop
    dispatches on the event's exact class (the C parser makes exactly these classes): it
    runs once per node of large files, so it is kept to a few operations per event.
    """
    parser = _FastLoader(text)
    next_event = parser.get_event
    sizes: dict[str, int] = {}  # anchor -> nodes in its subtree (aliases counted expanded)
    open_anchors: list[tuple[str | None, int]] = []  # per open collection: (anchor, start)
    total = 0  # nodes so far, every alias expanded
    repeated = 0
    try:
        while True:
            event = next_event()
            kind = type(event)
            if kind is _SCALAR:
                total += 1
                if event.anchor is not None:
                    sizes[event.anchor] = 1
                if total - repeated > limit:
                    _too_many_nodes(filename, event, limit)
            elif kind is _MAPPING_START or kind is _SEQUENCE_START:
                total += 1
                if total - repeated > limit:
                    _too_many_nodes(filename, event, limit)
                open_anchors.append((event.anchor, total))
                if len(open_anchors) > MAX_DEPTH:
                    raise _too_deep(filename, event.start_mark)
            elif kind is _MAPPING_END or kind is _SEQUENCE_END:
                if open_anchors:
                    anchor, start = open_anchors.pop()
                    if anchor is not None:
                        sizes[anchor] = total - start + 1
            elif kind is _ALIAS:
                if any(anchor == event.anchor for anchor, _ in open_anchors):
                    raise _recursive_alias(event.anchor, event, filename)
                size = sizes.get(event.anchor)
                if size is None:
                    continue  # undefined alias: the loader reports it with its line
                total += size
                repeated += size
                if repeated > ALIAS_BUDGET:
                    raise _over_alias_budget(event.anchor, event, filename)
            elif event is None or kind is _STREAM_END:
                return
    except yaml.MarkedYAMLError as exc:
        if _NESTING_LIMIT in (exc.problem or ""):  # libyaml's own cap, in builds that have it
            raise _too_deep(filename, exc.problem_mark) from None
        return  # the loader reports syntax errors with their line
    except yaml.YAMLError:
        return
    finally:
        parser.dispose()


# Newer libyaml builds (e.g. the one bundled in PyYAML 6.0.4 wheels) stop at 1,000 levels
# while their scanner looks ahead, which can happen before the parser hands over level 201.
_NESTING_LIMIT = "maximum nesting depth"


def _too_deep(filename: str, mark: Any) -> InfxError:
    return InfxError(Problem(
        f"YAML nesting is deeper than {MAX_DEPTH} levels", file=filename,
        line=mark.line + 1 if mark is not None else None, fix="flatten the data"))


def _recursive_alias(anchor: str, event: yaml.Event, filename: str) -> InfxError:
    return InfxError(Problem(
        f"recursive YAML alias '*{anchor}' (it refers to a collection that contains it)",
        file=filename, line=event.start_mark.line + 1, fix="remove the alias"))


def _over_alias_budget(anchor: str, event: yaml.Event, filename: str) -> InfxError:
    return InfxError(Problem(
        f"YAML aliases repeat more than {ALIAS_BUDGET:,} nodes (alias '*{anchor}' here); alias "
        "expansion is capped", file=filename, line=event.start_mark.line + 1,
        fix="write the data out instead of repeating anchors"))


_SCALAR, _ALIAS = yaml.ScalarEvent, yaml.AliasEvent
_MAPPING_START, _SEQUENCE_START = yaml.MappingStartEvent, yaml.SequenceStartEvent
_MAPPING_END, _SEQUENCE_END = yaml.MappingEndEvent, yaml.SequenceEndEvent
_STREAM_END, _DOCUMENT_START = yaml.StreamEndEvent, yaml.DocumentStartEvent


def _too_many_nodes(filename: str, event: yaml.Event, limit: int) -> NoReturn:
    raise YamlLimitError(Problem(
        f"YAML document has more than {limit:,} nodes (the yaml_limits.document_nodes cap)",
        file=filename, line=event.start_mark.line + 1, fix=_raise_it("document_nodes")),
        "document_nodes")


def load_text(text: str, filename: str, *, unique_keys: bool = False,
              limit: int | None = None, nodes: int | None = None) -> Any:
    """Parse YAML text safely; every failure is an InfxError naming file and line.

    One pass over libyaml's event stream checks the bounds (nesting, nodes, alias
    expansion) and builds the data at once (``_build``). A document that pass does not
    build itself (merge keys, tags beyond str/int/float/bool/null/timestamp, composer or
    constructor errors) is scanned and then loaded by PyYAML's own composer and
    constructor, whose results and messages the fast pass reproduces. ``limit`` (bytes) and
    ``nodes`` default to the settings (``max_yaml_bytes``, ``max_yaml_nodes``).
    """
    limit = max_yaml_bytes() if limit is None else limit
    nodes = max_yaml_nodes() if nodes is None else nodes
    if len(text) > limit // 4:  # characters; the exact byte count only when it matters
        check_size(len(text.encode("utf-8", "surrogatepass")), filename, limit)
    if text.startswith("\ufeff"):
        raise InfxError(Problem("file starts with a byte-order mark", file=filename, line=1,
                                fix=_SAVE_AS_UTF8))
    nul = text.find("\0")
    if nul >= 0:
        raise InfxError(Problem("file contains a NUL character", file=filename,
                                line=line_at(text, nul), fix=_SAVE_AS_UTF8))
    collecting = gc.isenabled()
    gc.disable()  # the loaded data holds no cycles; collecting while building it is pure cost
    try:
        with _yaml_errors(filename):
            data = _build(text, filename, unique_keys, nodes)
            if data is not _FALLBACK:
                return data
            _scan_events(text, filename, nodes)
            loader = (_UniqueKeyLoader if unique_keys else _FastLoader)(text)
            try:
                return loader.get_single_data()
            finally:
                loader.dispose()
    finally:
        if collecting:
            gc.enable()


def load_shared(text: str, filename: str, *, unique_keys: bool = False) -> Any:
    """``load_text`` once per process for a text, whichever ``unique_keys`` asks: the planner
    (duplicate keys refused) and the sign-off's tree readers (last one wins, as PyYAML) read
    the same large master configs, and one parse serves both. The result is shared: treat it
    as read-only, or take ``private_copy`` of it before changing anything."""
    data, strict = _parsed(text, filename, max_yaml_bytes(), max_yaml_nodes())
    if unique_keys and strict is not None:
        raise strict.with_traceback(None)
    return data


@lru_cache(maxsize=32)
def _parsed(text: str, filename: str, limit: int, nodes: int) -> tuple[Any, InfxError | None]:
    """(data, the unique-keys error or None): the text parsed with duplicate keys refused,
    and only when that fails, parsed again with the last key winning (an error there raises:
    the text is not YAML at all, or breaks a bound). A size or node cap is crossed at the
    same event whichever rule reads the keys, so that refusal is raised without the second
    parse (on a 20 MB config the second parse doubled the time to the error)."""
    try:
        return load_text(text, filename, unique_keys=True, limit=limit, nodes=nodes), None
    except YamlLimitError:
        raise
    except InfxError as strict:
        return load_text(text, filename, limit=limit, nodes=nodes), strict


def private_copy(data: Any) -> Any:
    """A deep copy of loaded YAML data that keeps its aliases shared as the load made them
    (pickle's copy: about eight times cheaper than parsing the text again)."""
    return pickle.loads(pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL))


def load_json_text(text: str, filename: str, *, limit: int | None = None) -> Any:
    """Parse JSON text (not as YAML: JSON's surrogate-pair escapes are not YAML's); located errors.

    A lone surrogate (an unpaired ``\\ud83d`` escape) cannot be written back as UTF-8, so it
    is refused here rather than failing later when the data is served.
    """
    limit = max_yaml_bytes() if limit is None else limit
    if len(text) > limit // 4:
        check_size(len(text.encode("utf-8", "surrogatepass")), filename, limit)
    if text.startswith("\ufeff"):
        raise InfxError(Problem("file starts with a byte-order mark", file=filename, line=1,
                                fix=_SAVE_AS_UTF8))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InfxError(Problem(f"invalid JSON: {exc.msg} (column {exc.colno})", file=filename,
                                line=exc.lineno, fix="correct the JSON syntax at this line")) from None
    except RecursionError:
        raise InfxError(Problem("JSON nesting is too deep to load", file=filename,
                                fix="flatten the data")) from None
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InfxError(Problem(f"invalid JSON: an unpaired surrogate escape ({exc.reason})",
                                file=filename, fix="escape characters outside the BMP as a "
                                "surrogate pair, or write them as UTF-8")) from None
    return data


@contextmanager
def _yaml_errors(filename: str) -> Iterator[None]:
    """PyYAML's exceptions as one located InfxError."""
    try:
        yield
    except yaml.MarkedYAMLError as exc:
        if _NESTING_LIMIT in (exc.problem or ""):
            raise _too_deep(filename, exc.problem_mark) from None
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        detail = exc.problem or str(exc)
        raise InfxError(
            Problem(f"invalid YAML: {detail}", file=filename, line=line,
                    fix="correct the YAML syntax at this line")
        ) from None
    except yaml.YAMLError as exc:
        raise InfxError(Problem(f"invalid YAML: {exc}", file=filename)) from None
    except RecursionError:
        raise InfxError(Problem("YAML nesting is too deep to load", file=filename,
                                fix="flatten the data")) from None
    except (TypeError, ValueError) as exc:
        # e.g. a list or mapping used as a mapping key: unhashable
        raise InfxError(Problem(f"invalid YAML: {exc}", file=filename,
                                fix="use plain scalars as mapping keys")) from None


# --- events -> data, in the same pass as the bounds ----------------------------------------

_TAG = "tag:yaml.org,2002:"
_STR_TAG, _SEQ_TAG, _MAP_TAG = (_TAG + name for name in ("str", "seq", "map"))
# scalar types whose constructors read only the node's own text (so equal text, equal value)
_VALUE_SCALARS = frozenset(_TAG + name for name in
                           ("null", "bool", "int", "float", "timestamp"))
_FALLBACK = object()  # _build's answer for a document it leaves to PyYAML
_NO_KEY = object()  # an open mapping waiting for its next key
_IN_SEQUENCE = object()  # the "pending key" of an open sequence (None is a valid key)
_VALUES: dict[tuple[str, str], Any] = {}  # value of a _VALUE_SCALARS scalar by (tag, text)


def _build(text: str, filename: str, unique_keys: bool, limit: int) -> Any:
    """The data of a one-document YAML text, checking the bounds event by event.

    Raises the bound errors of ``_scan_events`` and libyaml's syntax errors; returns
    ``_FALLBACK`` for anything it does not build exactly as PyYAML's safe loader does.
    An alias yields the same object as its anchor, as in PyYAML.
    """
    parser = _FastLoader(text)
    next_event = parser.get_event
    resolve = parser.resolve
    constructors = parser.yaml_constructors
    plain_tags, values = _PLAIN_TAGS, _VALUES
    # open collections: [container, pending key (mappings) or _IN_SEQUENCE, anchor,
    # node count at its start]
    stack: list[list[Any]] = []
    anchors: dict[str, tuple[Any, int]] = {}  # anchor -> (value, nodes in its subtree)
    open_anchors: set[str] = set()
    total = repeated = 0  # nodes so far (aliases expanded) and nodes repeated by aliases
    root: Any = _FALLBACK
    documents = 0
    try:
        while True:
            event = next_event()
            kind = type(event)
            if kind is _SCALAR:
                total += 1
                if total - repeated > limit:
                    _too_many_nodes(filename, event, limit)
                value = event.value
                tag = event.tag
                if tag is None or tag == "!":
                    if event.implicit[0]:
                        tag = plain_tags.get(value)
                        if tag is None:
                            tag = resolve(_ScalarNode, value, (True, False))
                    else:
                        tag = _STR_TAG
                if tag != _STR_TAG:
                    if tag not in _VALUE_SCALARS:
                        return _FALLBACK  # merge keys, binary, unknown tags, ...
                    key = (tag, value)
                    built = values.get(key, _NO_KEY)
                    if built is _NO_KEY:
                        built = constructors[tag](parser, _ScalarNode(
                            tag, value, event.start_mark, event.end_mark, event.style))
                        if len(values) < _CACHE_MAX:
                            values[key] = built
                    value = built
                anchor = event.anchor
                if anchor is not None:
                    if anchor in anchors:
                        return _FALLBACK  # duplicate anchor: the composer's error
                    anchors[anchor] = (value, 1)
            elif kind is _MAPPING_START or kind is _SEQUENCE_START:
                total += 1
                if total - repeated > limit:
                    _too_many_nodes(filename, event, limit)
                if len(stack) >= MAX_DEPTH:
                    raise _too_deep(filename, event.start_mark)
                tag = event.tag
                mapping = kind is _MAPPING_START
                if tag is not None and tag != "!" and tag != (_MAP_TAG if mapping else _SEQ_TAG):
                    return _FALLBACK  # !!set, !!omap, unknown collection tags
                anchor = event.anchor
                container: Any = {} if mapping else []
                if anchor is not None:
                    if anchor in anchors:
                        return _FALLBACK
                    anchors[anchor] = (container, 0)
                    open_anchors.add(anchor)
                stack.append([container, _NO_KEY if mapping else _IN_SEQUENCE, anchor, total])
                continue
            elif kind is _MAPPING_END or kind is _SEQUENCE_END:
                frame = stack.pop()
                value = frame[0]
                anchor = frame[2]
                if anchor is not None:
                    anchors[anchor] = (value, total - frame[3] + 1)
                    open_anchors.discard(anchor)
            elif kind is _ALIAS:
                anchor = event.anchor
                if anchor in open_anchors:
                    raise _recursive_alias(anchor, event, filename)
                known = anchors.get(anchor)
                if known is None:
                    return _FALLBACK  # undefined alias: the composer's error
                value, size = known
                total += size
                repeated += size
                if repeated > ALIAS_BUDGET:
                    raise _over_alias_budget(anchor, event, filename)
            elif kind is _DOCUMENT_START:
                documents += 1
                if documents > 1:
                    return _FALLBACK  # a second document: the composer's error
                continue
            elif kind is _STREAM_END:
                return None if root is _FALLBACK else root
            else:
                continue  # stream start, document end
            # a complete node: its value goes to the open collection (or is the document)
            if not stack:
                root = value
                continue
            frame = stack[-1]
            key = frame[1]
            if key is _IN_SEQUENCE:
                frame[0].append(value)
            elif key is _NO_KEY:
                if type(value) is list or type(value) is dict or (
                        unique_keys and value in frame[0]):
                    return _FALLBACK  # unhashable or duplicate key: the constructor's error
                frame[1] = value
            else:
                frame[0][key] = value
                frame[1] = _NO_KEY
    finally:
        parser.dispose()


_ScalarNode = yaml.ScalarNode


def load_file(path: str | Path, *, unique_keys: bool = False) -> Any:
    """Read and parse a YAML file; a missing file is a clear error."""
    return load_text(read_text(path), str(path), unique_keys=unique_keys)


def compose(text: str) -> yaml.Node | None:
    """The node tree of YAML text (C composer), or None when it does not parse.

    For locating lines only; call it on text that ``load_text`` accepted (or on a part of
    such text), so its size, aliases and nesting are already bounded.
    """
    try:
        return yaml.compose(text, Loader=_FastLoader)
    except (yaml.YAMLError, RecursionError):
        return None


def node_line(node: yaml.Node | None, path: list[Any]) -> int | None:
    """Best line (1-based) of ``path`` (keys / list indexes) under ``node``: the deepest reached."""
    line = node.start_mark.line + 1 if node is not None else None
    for step in path:
        if node is None:
            break
        nxt = None
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if key_node.value == str(step):
                    line = key_node.start_mark.line + 1
                    nxt = value_node
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int):
            if 0 <= step < len(node.value):
                nxt = node.value[step]
                line = nxt.start_mark.line + 1
        if nxt is None:
            break
        node = nxt
    return line


def find_line(text: str, path: list[Any]) -> int | None:
    """Best line (1-based) of the node at ``path`` (keys / list indexes) in YAML text.

    Composes the whole text, so it is meant for error reporting only.
    """
    node = compose(text)
    if node is None:
        return None
    return node_line(node, path)

"""Fast YAML loading (C loader) with line numbers recovered only when reporting."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from infx.errors import InfxError, Problem

try:
    _FastLoader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - libyaml missing
    _FastLoader = yaml.SafeLoader


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
        if key in seen:
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


def load_text(text: str, filename: str, *, unique_keys: bool = False) -> Any:
    """Parse YAML text; syntax errors become an InfxError naming file and line."""
    loader = _UniqueKeyLoader if unique_keys else _FastLoader
    try:
        return yaml.load(text, Loader=loader)  # noqa: S506 - safe loaders only
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        detail = exc.problem or str(exc)
        raise InfxError(
            Problem(f"invalid YAML: {detail}", file=filename, line=line,
                    fix="correct the YAML syntax at this line")
        ) from None
    except yaml.YAMLError as exc:
        raise InfxError(Problem(f"invalid YAML: {exc}", file=filename)) from None


def read_text(path: str | Path, *, what: str = "file", missing: str | None = None,
              fix: str = "check the path") -> str:
    """A file's UTF-8 text; a missing or unreadable file is an InfxError naming it.

    ``missing`` replaces the default "<what> not found" message for an absent file.
    """
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InfxError(Problem(missing or f"{what} not found", file=str(path), fix=fix)) from None
    except OSError as exc:
        raise InfxError(Problem(f"cannot read {what}: {exc.strerror or exc}", file=str(path),
                                fix=fix)) from None


def load_file(path: str | Path, *, unique_keys: bool = False) -> Any:
    """Read and parse a YAML file; a missing file is a clear error."""
    return load_text(read_text(path), str(path), unique_keys=unique_keys)


def find_line(text: str, path: list[Any]) -> int | None:
    """Best line (1-based) of the node at ``path`` (keys / list indexes) in YAML text.

    Walks the composed node tree (slow pure-Python loader) and so is meant for
    error reporting only. Returns the deepest line it could reach.
    """
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
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

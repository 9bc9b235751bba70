"""The sweep plan as one typed object: job rows in buckets plus the changelog metadata, read and written as the planner's JSON.

This module alone knows the plan's top-level keys (`tests/repo/test_architecture.py` keeps it
so). The JSON, as the reference planner prints it::

    {"single_node": {"1k1k": [row, ...], "8k1k": [...], "agentic": [...]},
     "multi_node": {...},
     "evals": [row, ...], "agentic_evals": [...], "multinode_evals": [...],
     "multinode_agentic_evals": [...],
     "changelog_metadata": {"base_ref": ..., "head_ref": ..., "entries": [...]}}

A bucket is addressed by its path: ``(node, name)`` for a benchmark bucket, ``(name,)`` for an
eval list. A plan read from a file or an artifact is hostile input: ``Plan.read``, ``Plan.parse`` and
``Plan.from_json`` take only that shape (a plan written by another tool may leave buckets out)
and reject anything else with one located error. Every operation returns a new plan and keeps
the key order, so a plan read and written back is the same JSON text. Pure but for ``Plan.read``.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from infx.errors import InfxError, Problem
from infx.plan.shaping import bucket_name, is_agentic, is_multi_node
from infx.yamlio import read_text

SINGLE_NODE = "single_node"
MULTI_NODE = "multi_node"
NODES = (SINGLE_NODE, MULTI_NODE)
EVALS, AGENTIC_EVALS = "evals", "agentic_evals"
MULTINODE_EVALS, MULTINODE_AGENTIC_EVALS = "multinode_evals", "multinode_agentic_evals"
EVAL_BUCKETS = (EVALS, AGENTIC_EVALS, MULTINODE_EVALS, MULTINODE_AGENTIC_EVALS)
METADATA = "changelog_metadata"
PLAN_FIX = "pass the JSON written by `infx plan` (or `infx reuse incremental`)"

Row = dict[str, Any]
BucketPath = tuple[str, ...]


class Place(NamedTuple):
    """Where a row sits: its bucket and its index in the bucket."""

    bucket: BucketPath
    index: int

    @property
    def path(self) -> tuple[str, ...]:
        """The row's place as the queue token names it: ``("single_node", "1k1k", "3")``."""
        return (*self.bucket, str(self.index))


def benchmark_bucket(row: Mapping[str, Any]) -> BucketPath:
    """The bucket a throughput row goes to: its node, then its sequence lengths (or agentic)."""
    return (MULTI_NODE if is_multi_node(row) else SINGLE_NODE, bucket_name(row))


def eval_bucket(row: Mapping[str, Any]) -> str:
    """The eval list an eval row goes to."""
    if is_multi_node(row):
        return MULTINODE_AGENTIC_EVALS if is_agentic(row) else MULTINODE_EVALS
    return AGENTIC_EVALS if is_agentic(row) else EVALS


def _shown(key: str) -> str:
    """A key from the input, quoted and cut short (it is hostile text)."""
    text = repr(key)
    return text if len(text) <= 60 else text[:57] + "..."


def _invalid(message: str, where: str | None, key: str | None = None, line: int | None = None
             ) -> InfxError:
    return InfxError(Problem(message, file=where, line=line, key=key, fix=PLAN_FIX))


def _check_rows(rows: object, name: str, where: str | None) -> None:
    if not isinstance(rows, list):
        raise _invalid(f"plan bucket {name} is not a list of rows", where, name)
    for index, row in enumerate(rows):
        if not isinstance(row, dict):
            raise _invalid(f"row {index} of bucket {name} is not a JSON object", where, name)


def _check(value: object, where: str | None) -> dict[str, Any]:
    """The plan object itself when it has the plan's shape, else one located error."""
    if not isinstance(value, dict):
        raise _invalid("the plan is not a JSON object", where)
    for key, item in value.items():
        if key in NODES:
            if not isinstance(item, dict):
                raise _invalid(f"plan key {key} is not a JSON object of buckets", where, key)
            for name, rows in item.items():
                _check_rows(rows, f"{key}.{name}", where)
        elif key in EVAL_BUCKETS:
            _check_rows(item, key, where)
        elif key == METADATA:
            if not isinstance(item, dict):
                raise _invalid(f"plan key {METADATA} is not a JSON object", where, METADATA)
            entries = item.get("entries", [])
            if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
                raise _invalid(f"{METADATA}.entries is not a list of JSON objects", where,
                               f"{METADATA}.entries")
        else:
            raise _invalid(f"the plan has an unknown key {_shown(key)} (known: "
                           f"{', '.join((*NODES, *EVAL_BUCKETS, METADATA))})", where)
    return value


class _Duplicate(ValueError):
    pass


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Duplicate(key)
            seen.add(key)
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    """A JSON number literal as a float; one too large for a double (1e999) is refused, since
    it would be read as infinity and written back as the non-JSON `Infinity`."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:40]} is not a finite JSON number")
    return value


class Plan:
    """A sweep plan: benchmark buckets per node, eval lists, and the changelog metadata."""

    __slots__ = ("_doc",)

    def __init__(self, doc: Mapping[str, Any]) -> None:
        """Wrap a plan object, checked as ``from_json`` checks it."""
        self._doc = _check(dict(doc) if isinstance(doc, Mapping) else doc, None)

    @classmethod
    def _of(cls, doc: dict[str, Any]) -> Plan:
        plan = cls.__new__(cls)
        plan._doc = doc
        return plan

    # --- building, reading and writing ---------------------------------------------------

    @classmethod
    def assemble(cls, rows: Iterable[tuple[BucketPath, Row]], metadata: Mapping[str, Any] | None
                 ) -> Plan:
        """The planner's plan: both nodes and every eval list present (empty ones too), the rows
        appended to their buckets in order, then the metadata."""
        doc: dict[str, Any] = {SINGLE_NODE: {}, MULTI_NODE: {}}
        doc.update({name: [] for name in EVAL_BUCKETS})
        for path, row in rows:
            if len(path) == 2 and path[0] in NODES:
                doc[path[0]].setdefault(path[1], []).append(row)
            elif len(path) == 1 and path[0] in EVAL_BUCKETS:
                doc[path[0]].append(row)
            else:
                raise ValueError(f"no plan bucket {path!r}")
        if metadata is not None:
            doc[METADATA] = dict(metadata)
        return cls._of(doc)

    @classmethod
    def from_json(cls, value: object, where: str | None = None) -> Plan:
        """The plan a JSON value holds; a wrong shape is one InfxError located in ``where``."""
        return cls._of(_check(value, where))

    @classmethod
    def parse(cls, text: str, where: str | None = None) -> Plan:
        """The plan in a JSON text (a repeated key, NaN, Infinity or a number too large for a
        double is an error, never a guess)."""
        try:
            value = json.loads(text, object_pairs_hook=_unique, parse_constant=_no_constant,
                               parse_float=_finite)
        except json.JSONDecodeError as exc:
            raise _invalid(f"the plan is not valid JSON: {exc.msg} at line {exc.lineno}, column "
                           f"{exc.colno}", where, line=exc.lineno) from None
        except _Duplicate as exc:
            raise _invalid(f"the plan repeats the key {_shown(str(exc))} in one object", where) from None
        except RecursionError:
            raise _invalid("the plan nests too deeply", where) from None
        except ValueError as exc:
            raise _invalid(f"the plan is not valid JSON: {exc}", where) from None
        return cls.from_json(value, where)

    @classmethod
    def read(cls, path: str | Path) -> Plan:
        """The plan in a file (the size cap and UTF-8 of every file infx reads, then ``parse``)."""
        return cls.parse(read_text(path, what="the plan", fix=PLAN_FIX), str(path))

    def to_json(self) -> dict[str, Any]:
        """The plan as a JSON object (a copy: changing it leaves the plan as it was)."""
        return copy.deepcopy(self._doc)

    def dump(self) -> str:
        """One compact line, as the reference prints it."""
        return json.dumps(self._doc, separators=(",", ":"), ensure_ascii=False)

    # --- reading rows ----------------------------------------------------------------------

    def buckets(self) -> list[tuple[BucketPath, list[Row]]]:
        """Every bucket present, in plan order: single-node, then multi-node, then the eval lists."""
        found: list[tuple[BucketPath, list[Row]]] = []
        for node in NODES:
            found += [((node, name), rows) for name, rows in self._doc.get(node, {}).items()]
        found += [((key,), rows) for key, rows in self._doc.items() if key in EVAL_BUCKETS]
        return found

    def bucket(self, path: BucketPath) -> list[Row]:
        """The rows of one bucket ([] when the plan does not have it)."""
        if len(path) == 2 and path[0] in NODES:
            return list(self._doc.get(path[0], {}).get(path[1], []))
        if len(path) == 1 and path[0] in EVAL_BUCKETS:
            return list(self._doc.get(path[0], []))
        return []

    def rows(self) -> list[Row]:
        """Every job row, in plan order (benchmark buckets, then the eval lists)."""
        return [row for _, rows in self.buckets() for row in rows]

    @property
    def metadata(self) -> Mapping[str, Any] | None:
        """The changelog metadata, or None when the plan has none."""
        return self._doc.get(METADATA)

    def entries(self) -> list[Mapping[str, Any]]:
        """The planned changelog entries as the metadata records them."""
        return list((self.metadata or {}).get("entries", []))

    # --- new plans -------------------------------------------------------------------------

    def _rebuilt(self, change: Callable[[list[Row], BucketPath], list[Row]]) -> Plan:
        doc: dict[str, Any] = {}
        for key, value in self._doc.items():
            if key in NODES:
                doc[key] = {name: change(rows, (key, name)) for name, rows in value.items()}
            elif key in EVAL_BUCKETS:
                doc[key] = change(value, (key,))
            else:
                doc[key] = value
        return Plan._of(doc)

    def map_rows(self, change: Callable[[Row, Place], Row]) -> Plan:
        """A plan whose every row is ``change(row, place)``."""
        return self._rebuilt(lambda rows, path: [change(row, Place(path, index))
                                                 for index, row in enumerate(rows)])

    def filter_rows(self, keep: Callable[[Row, Place], bool]) -> Plan:
        """A plan of the rows for which ``keep(row, place)`` holds (empty buckets stay)."""
        return self._rebuilt(lambda rows, path: [row for index, row in enumerate(rows)
                                                 if keep(row, Place(path, index))])

    def with_metadata(self, key: str, value: Any) -> Plan:
        """A plan whose metadata also records ``key``; a plan without metadata stays as it is."""
        if METADATA not in self._doc:
            return self
        return Plan._of({**self._doc, METADATA: {**self._doc[METADATA], key: value}})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Plan) and self._doc == other._doc

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        counts = ", ".join(f"{'.'.join(path)}={len(rows)}" for path, rows in self.buckets() if rows)
        return f"Plan({counts or 'no rows'})"

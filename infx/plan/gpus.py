"""The GPUs a matrix row occupies: one count for the plan summary and the result rows' `num_gpus`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _whole(value: Any, default: int = 1) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def worker_gpus(parts: Mapping[str, Any], workers: bool = False) -> int:
    """tp x pp x pcp-size of a row or of one side of a disaggregated row (times its num-worker
    when `workers`); a missing or non-integer factor counts as 1."""
    count = _whole(parts.get("tp")) * _whole(parts.get("pp")) * _whole(parts.get("pcp-size"))
    return count * (_whole(parts.get("num-worker")) if workers else 1)


def row_gpus(row: Mapping[str, Any]) -> int:
    """All GPUs of a row: every worker of both sides of a disaggregated row, else one replica."""
    prefill, decode = row.get("prefill"), row.get("decode")
    if isinstance(prefill, Mapping) and isinstance(decode, Mapping):
        return worker_gpus(prefill, workers=True) + worker_gpus(decode, workers=True)
    return worker_gpus(row)

"""Which check runs belong to a sweep's benchmark and eval families."""

from __future__ import annotations

from infx.signoff import sweeps


def test_families() -> None:
    assert sweeps.family("single-node 8k1k / dsr1 fp4 c4") == "benchmark"
    assert sweeps.family("multi-node agentic / x") == "benchmark"
    assert sweeps.family("agentic eval / x") == "eval"
    assert sweeps.family("multi-node agentic eval / x") == "eval"
    for ignored in ("canary / x", "collect-evals", "collect-results", "Tests / pytest", "CodeQL"):
        assert sweeps.family(ignored) is None

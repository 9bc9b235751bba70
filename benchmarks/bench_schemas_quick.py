"""infx.schemas' quick pass against jsonschema at scale: 1,000 random documents per packaged schema, 1,000 mutated worlds and check tables.

tests/unit/core/test_schemas_quick.py runs the same three properties (random documents from each
schema's vocabulary: 25 a schema; mutated shipped worlds: 300; mutated check tables: 150) so the
unit suite stays fast; this runs each on --count examples and prints the first disagreement.
Run: python benchmarks/bench_schemas_quick.py [--count N]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "unit" / "core"))

import test_schemas_quick as suite  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _on_schema(prop, path: Path):
    def on_schema(data) -> None:
        prop(path, data)
    return on_schema


def run(name: str, count: int, prop) -> bool:
    started = time.perf_counter()
    try:
        settings(max_examples=count, deadline=None, database=None,
                 suppress_health_check=[HealthCheck.too_slow])(given(data=st.data())(prop))()
    except AssertionError as exc:
        print(f"{name}: FAIL after {time.perf_counter() - started:.1f} s: {exc}")
        return False
    print(f"{name}: {count} examples agree ({count / (time.perf_counter() - started):.0f}/s)")
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1_000)
    args = parser.parse_args()
    ok = True
    random_documents = suite.test_the_quick_pass_never_accepts_what_jsonschema_rejects.hypothesis.inner_test
    for path in suite.SCHEMAS:
        ok &= run(path.name, args.count, _on_schema(random_documents, path))
    for prop in (suite.test_the_quick_pass_matches_jsonschema_on_mutated_worlds,
                 suite.test_the_quick_pass_matches_jsonschema_on_a_mutated_check_table):
        ok &= run(prop.__name__, args.count, prop.hypothesis.inner_test)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

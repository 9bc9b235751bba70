"""Aggregate per-job result files (downloaded artifacts) into one JSON array, and tabulate evals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from infx.errors import InfxError, Problem


def collect_rows(directory: Path, pattern: str = "*.json") -> list[Any]:
    """Every JSON file under `directory` (sorted by path); arrays are flattened into rows."""
    rows: list[Any] = []
    for path in sorted(directory.rglob(pattern)):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InfxError(Problem(f"result file is not valid JSON: {exc}", file=str(path),
                                    fix="check the job that produced this artifact")) from None
        rows.extend(data if isinstance(data, list) else [data])
    return rows


def eval_table(rows: list[dict]) -> str:
    """Markdown table of eval scores for the step summary."""
    if not rows:
        return "### Evals\n\nNo eval results were collected.\n"
    lines = ["### Evals", "", "| model | hw | framework | precision | conc | task | score |",
             "|---|---|---|---|---:|---|---:|"]
    for row in rows:
        score = row.get("score", row.get("em_strict"))
        cells = [row.get("model_prefix") or row.get("model"), row.get("hw"), row.get("framework"),
                 row.get("precision"), row.get("conc"), row.get("task"),
                 f"{score:.4f}" if isinstance(score, (int, float)) else score]
        lines.append("| " + " | ".join("" if c is None else str(c).replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"

"""Load and validate ``configs/runners.yaml`` (runner labels and hardware records)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from infx import yamlio
from infx.config import schemacheck
from infx.config.yamlpath import format_path, line_of
from infx.errors import InfxError, Problem


@dataclass(frozen=True)
class Runners:
    """Runner labels -> concrete runner names, plus per-label hardware records."""

    name: str
    labels: dict[str, list[str]]
    hardware: dict[str, dict[str, int]] = field(default_factory=dict)

    def nodes(self, label: str) -> list[str]:
        """Concrete runner names carrying ``label`` (empty when the label is unknown)."""
        return self.labels.get(label, [])


def load_runners(path: str | Path) -> Runners:
    """Read and validate a runners file."""
    text = yamlio.read_text(path, missing=f"Runner config file '{path}' does not exist.",
                     fix="pass --runner-config with the runners.yaml path")
    return load_runners_from_text(str(path), text)


def load_runners_from_text(name: str, text: str) -> Runners:
    """Validate runners YAML given as text (``name`` is used in error messages)."""
    data = yamlio.load_text(text, name, unique_keys=True)
    if not isinstance(data, dict) or not isinstance(data.get("labels"), dict):
        raise InfxError(Problem("Runner config must define a labels mapping", file=name,
                                line=line_of(text, ["labels"]) if isinstance(data, dict) else 1,
                                key="labels",
                                fix="write 'labels:' with '<label>: [<runner-name>, ...]' items"))
    if not schemacheck.quick_valid("runners", data):
        raise InfxError(_problems(name, text, data))
    return Runners(name=name, labels=data["labels"], hardware=data.get("hardware") or {})


def _problems(name: str, text: str, data: dict) -> list[Problem]:
    problems = []
    for path, message in schemacheck.schema_errors("runners", data):
        text_message = _runner_message(path, message)
        problems.append(Problem(f"Runner config failed validation at {format_path(path) or 'top level'}: "
                                f"{text_message}", file=name, line=line_of(text, path),
                                key=str(path[1]) if len(path) > 1 else None,
                                fix="list each label's runner names: '<label>:' then '- <runner>' lines"))
    return problems


def _runner_message(path: list, message: str) -> str:
    if len(path) == 2 and path[0] == "labels":
        if "must be of type array" in message:
            return f"Runner config entry '{path[1]}' must be a list"
        if "empty list" in message:
            return f"Runner config entry '{path[1]}' cannot be an empty list"
    if len(path) == 3 and path[0] == "labels" and "must be of type string" in message:
        return f"Runner config entry '{path[1]}' must contain only strings"
    return message


def unknown_label_problems(configs, runners: Runners) -> list[Problem]:
    """One warning per runner label the runners file lacks, at its first config, naming every
    config that uses it (PRODUCT §4.1: unknown labels warn, they never block)."""
    users: dict[str, list[str]] = {}
    for key in configs:
        label = configs[key]["runner"]
        if label not in runners.labels:
            users.setdefault(label, []).append(key)
    problems = []
    for label, keys in users.items():
        shown = ", ".join(keys[:5]) + (f" and {len(keys) - 5} more" if len(keys) > 5 else "")
        problem = configs.locate(keys[0], ["runner"], (
            f"runner label '{label}' is not defined in {runners.name}; no runner will pick up the "
            f"jobs of {len(keys)} config(s): {shown}"), fix=f"add '{label}' under 'labels'")
        problem.level = "warning"
        problems.append(problem)
    return problems


def unknown_runner_problems(configs, runners: Runners, keys=None) -> list[Problem]:
    """Warnings for config keys whose runner label is not defined in the runners file."""
    problems = []
    for key in keys if keys is not None else configs:
        label = configs[key]["runner"]
        if label not in runners.labels:
            problem = configs.locate(key, ["runner"], (
                f"runner label '{label}' of config '{key}' is not defined in {runners.name}; "
                "no runner will pick these jobs up"), fix=f"add '{label}' under 'labels'")
            problem.level = "warning"
            problems.append(problem)
    return problems

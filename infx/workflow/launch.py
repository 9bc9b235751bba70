"""Turn one matrix row into environment variables and run the runner's launch script with them."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from infx.errors import InfxError, Problem
from infx.plan import identity
from infx.plan.launch_graph import NODE_ROLE_VARIABLES, exported_variables, row_settings
from infx.results import normalise, power

_ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]*")
# Names a row can never set: the runner's and the job's own variables, the launcher's settings
# (INFX_*), credentials (HF_TOKEN and the other Hugging Face variables) and the shell's.
_PROTECTED_PREFIXES = ("GITHUB_", "RUNNER_", "ACTIONS_", "LD_", "PYTHON", "BASH", "INFX_", "HF_",
                       "HUGGING_FACE_", "DOCKER_")
_PROTECTED_NAMES = {"PATH", "HOME", "SHELL", "USER", "IFS", "ENV", "CI", "CONFIG_JSON", "RESULT_NAME",
                    "RESULTS_DIR", "LOGS_DIR", "TMPDIR", "PWD", "SHELLOPTS", "PS4", "CDPATH", "GLOBIGNORE",
                    "POSIXLY_CORRECT", "HOSTNAME", "RESULTS", "LOGS", "NODE_RANK", "NUM_NODES", "HEAD_NODE",
                    "PREFILL_NODE_COUNT", "DECODE_NODE_COUNT"}
# What an additional-settings item may not set either (row fields may, being planner output):
# where the job's tools connect and what they trust (proxies, CA bundles, git and Modal
# credentials), how Slurm places it and which node or GPUs a process is, what starts with
# every program (loaders), and the launcher's own choice of a multi-node launch
_SETTING_PROTECTED_PREFIXES = ("GIT_", "SBATCH_", "SRUN_", "SALLOC_", "MODAL_", "SSL_", "CURL_", "REQUESTS_",
                               "NODE_", "PERL", "GCONV_", "OPENSSL_", "XDG_", "SSH_", "AWS_", "AZURE_", "GOOGLE_",
                               "HUGGINGFACE_", "TRANSFORMERS_CACHE", "KUBE", "CONTAINER_HOST")
_SETTING_PROTECTED_NAMES = {"HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY", "FTP_PROXY", "SLURM_CONF",
                            "SLURM_JOB_ID", "SLURM_NODEID", "SLURM_PROCID", "SLURM_LOCALID", "RANK",
                            "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "CUDA_VISIBLE_DEVICES",
                            "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "PROMPT_COMMAND", "PREFILL_TP",
                            "DECODE_TP", "MALLOC_CONF", "JAVA_TOOL_OPTIONS", "RESULT_FILENAME", "RESULT_DIR",
                            "BENCHMARK_LOGS_DIR", "AIPERF_EXPERIMENTAL_FAST"} | NODE_ROLE_VARIABLES
GPUS_PER_NODE = 8  # an MI355X node; INFX_GPUS_PER_NODE in the runner's environment overrides it
_STOP_GRACE = 90  # seconds a cancelled launcher gets to remove its containers
_RUNNER_PREFIX = re.compile(r"[A-Za-z0-9.-]+")
_UNSAFE_NAME_CHARS = re.compile(r"[^A-Za-z0-9._-]+")


def env_name(path: tuple[str, ...]) -> str:
    return "_".join(part.replace("-", "_").upper() for part in path)


def _scalar(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _flatten(row: Mapping[str, Any], prefix: tuple[str, ...] = ()) -> dict[str, str]:
    env: dict[str, str] = {}
    for key, value in row.items():
        path = prefix + (str(key),)
        if isinstance(value, Mapping):
            env.update(_flatten(value, path))
        elif isinstance(value, list):
            if all(not isinstance(v, (Mapping, list)) for v in value):
                env[env_name(path)] = " ".join(_scalar(v) for v in value)
            else:
                env[env_name(path)] = json.dumps(value, separators=(",", ":"))
        else:
            env[env_name(path)] = _scalar(value)
    return env


def row_env(row: Mapping[str, Any]) -> dict[str, str]:
    """Every row field as UPPER_SNAKE env vars (nested keys joined by `_`), the variables the
    reference's launch exports (infx.plan.launch_graph.exported_variables), the row's NAME=value
    additional-settings, and CONFIG_JSON."""
    if not isinstance(row, Mapping):
        raise InfxError(Problem("matrix row is not a JSON object", key="config"))
    env = _flatten(row)
    # what the reference's templates and launchers export besides the fields; its NAME=value
    # additional-settings are exported after the fields (one definition: infx.plan.launch_graph)
    for name, value in exported_variables(row).items():
        env.setdefault(name, value)
    for name, value in row_settings(row).items():
        if name in env:
            raise InfxError(Problem(f"additional-settings item {name}= would replace the row's own {name}",
                                    key=name, fix="remove the item; the row's field or the launch sets it"))
        if name in _SETTING_PROTECTED_NAMES or name.startswith(_SETTING_PROTECTED_PREFIXES):
            raise InfxError(Problem(f"additional-settings item {name}= sets a variable the launch, its "
                                    "network access or its node placement depends on", key=name,
                                    fix="remove the item (a setting tunes the benchmark, not the runner)"))
        env[name] = value
    for name, value in env.items():
        if not _ENV_NAME.fullmatch(name):
            raise InfxError(Problem(f"row field becomes an invalid env var name {name!r}", key=name))
        if name in _PROTECTED_NAMES or name.startswith(_PROTECTED_PREFIXES):
            raise InfxError(Problem(f"row field or setting would override the protected variable {name}",
                                    key=name, fix="rename the field in the planner output, or the "
                                                  "NAME=value item of additional-settings"))
        if "\0" in value:
            raise InfxError(Problem(f"row field {name} contains a NUL byte", key=name))
    env.setdefault("ISL", "0")  # agentic rows have no fixed sequence lengths
    env.setdefault("OSL", "0")
    # the reference's benchmark library shortens AgentX profiles when this is 1 (agentx-fast)
    env["AIPERF_EXPERIMENTAL_FAST"] = "1" if row.get("agentx-fast") is True else "0"
    env["CONFIG_JSON"] = json.dumps(row, separators=(",", ":"), sort_keys=True)
    return env


def _role_nodes(row: Mapping[str, Any], role: str, gpus_per_node: int) -> int:
    """Nodes one side of a disaggregated row needs: `<ROLE>_NODES=n` in its additional-settings,
    else its workers' GPUs (num-worker x tp x pp x pcp-size) over whole nodes."""
    side = row.get(role)
    if not isinstance(side, Mapping):
        raise InfxError(Problem(f"multi-node row has no {role} block", key=role))
    for setting in side.get("additional-settings") or []:
        name, sep, value = str(setting).partition("=")
        if sep and name.strip() == f"{role.upper()}_NODES":
            if not value.strip().isdigit():
                raise InfxError(Problem(f"{role} setting {setting!r} is not a node count", key=role,
                                        fix=f"write {role.upper()}_NODES=<whole number>"))
            return int(value.strip())
    try:
        gpus = 1
        for field in ("num-worker", "tp", "pp", "pcp-size"):
            value = side.get(field, 1)
            if isinstance(value, float) and value.is_integer():
                value = int(value)  # JSON numbers as GitHub's toJSON writes them
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(field)
            gpus *= value
    except ValueError as exc:
        raise InfxError(Problem(f"{role}.{exc} of the row is not a whole number", key=role)) from None
    return -(-gpus // gpus_per_node)


def node_counts(row: Mapping[str, Any], gpus_per_node: int = GPUS_PER_NODE) -> tuple[int, int] | None:
    """(prefill nodes, decode nodes) of a multi-node row (one with prefill/decode workers), None for
    a single-node row. A row's own `node-count` (newer planners add it) must agree."""
    if not isinstance(row.get("prefill"), Mapping) and not isinstance(row.get("decode"), Mapping):
        return None
    prefill = _role_nodes(row, "prefill", gpus_per_node)
    decode = _role_nodes(row, "decode", gpus_per_node) if isinstance(row.get("decode"), Mapping) else 0
    given = row.get("node-count")
    if prefill + decode < 1 or given is not None and given != prefill + decode:
        raise InfxError(Problem(
            f"the row needs {prefill} prefill and {decode} decode node(s)"
            + (f" but says node-count {given}" if given is not None else ""), key="node-count",
            fix="check num-worker/tp/pp and PREFILL_NODES=/DECODE_NODES= of the row's search-space entry"))
    return prefill, decode


def launch_script(runner_name: str, root: Path) -> Path:
    """`runners/launch_<prefix>.sh`, where the prefix is the runner name before its first `_`."""
    prefix = runner_name.split("_", 1)[0]
    if not _RUNNER_PREFIX.fullmatch(prefix):
        raise InfxError(Problem(f"runner name {runner_name!r} has no usable prefix", key="RUNNER_NAME"))
    script = root / "runners" / f"launch_{prefix}.sh"
    if not script.is_file():
        raise InfxError(Problem(f"no launch script for runner {runner_name}", file=str(script),
                                fix=f"add runners/launch_{prefix}.sh"))
    return script


def result_name(row: Mapping[str, Any], runner_name: str) -> str:
    """A unique, artifact-safe result name: the row's identity plus the node it ran on."""
    node = _UNSAFE_NAME_CHARS.sub("-", runner_name).strip("-") or "runner"
    return f"{identity.result_slug(row)}_{node}"


def check_job_name(row: Mapping[str, Any]) -> None:
    """A row that carries a `job-name` (added by the shard step) must carry its own identity's."""
    given = row.get(identity.JOB_NAME_FIELD)
    if given is not None and given != identity.job_name(row):
        raise InfxError(Problem(
            f"the row's job-name {given!r} is not its identity {identity.job_name(row)!r}",
            key=identity.JOB_NAME_FIELD, fix="pass the rows exactly as `python -m infx.workflow shard` wrote them"))


def artifact_prefix(row: Mapping[str, Any]) -> str:
    """`eval_` for eval-only rows, `bmk_agentic_` for agentic rows, else `bmk_`."""
    if row.get("eval-only"):
        return "eval_"
    if row.get("scenario-type") == "agentic-coding":
        return "bmk_agentic_"
    return "bmk_"


def _fresh_dir(path: Path) -> Path:
    """An empty directory (self-hosted runners keep workspaces between jobs)."""
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path.resolve()


def run_launch(row: Mapping[str, Any], runner_name: str, root: Path, base_env: Mapping[str, str],
               results_dir: Path | None = None) -> int:
    """Run the launch script with the row's variables added to the environment.

    The script gets, besides the row's variables (which can never override these):
    RESULT_NAME, RESULTS_DIR (normalised rows go here, then into the artifact),
    INFX_RAW_DIR (empty; the benchmark writes its raw output here, see ``finish``),
    INFX_POWER_DIR (empty; the GPU power samples go here, the job's `power_*` artifact) and, for a
    multi-node row, INFX_NODES, INFX_PREFILL_NODES and INFX_DECODE_NODES (``node_counts``).
    """
    script = launch_script(runner_name, root)
    variables = row_env(row)
    results = _fresh_dir(results_dir if results_dir is not None else root / "results")
    raw = _fresh_dir(raw_dir(results))
    samples = _fresh_dir(power_dir(results))
    env = dict(base_env)
    env.update(variables)
    env.update(RESULT_NAME=result_name(row, runner_name), RESULTS_DIR=str(results), INFX_RAW_DIR=str(raw),
               INFX_POWER_DIR=str(samples), INFX_ROW_VARS=" ".join(sorted(variables)))
    nodes = node_counts(row, _gpus_per_node(base_env))
    if nodes is not None:
        env.update(INFX_NODES=str(sum(nodes)), INFX_PREFILL_NODES=str(nodes[0]), INFX_DECODE_NODES=str(nodes[1]))
    return _run_until_done(["bash", str(script)], env, root)


def _gpus_per_node(env: Mapping[str, str]) -> int:
    text = env.get("INFX_GPUS_PER_NODE", "").strip()
    if not text:
        return GPUS_PER_NODE
    if not text.isdigit() or int(text) < 1:
        raise InfxError(Problem(f"INFX_GPUS_PER_NODE={text!r} is not a positive whole number",
                                key="INFX_GPUS_PER_NODE", fix="fix the runner's .env file"))
    return int(text)


def _run_until_done(command: list[str], env: dict[str, str], cwd: Path) -> int:
    """Run the launcher; if this process is cancelled (SIGINT/SIGTERM), pass SIGTERM on and give
    the launcher time to remove its containers before giving up on it."""
    process = subprocess.Popen(command, env=env, cwd=cwd)
    received: list[int] = []

    def forward(signum: int, _frame: object) -> None:
        received.append(signum)
        process.send_signal(signal.SIGTERM)

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        code = process.wait()
        if received:
            return 128 + received[0]
        return code
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if process.poll() is None:
            try:
                process.wait(timeout=_STOP_GRACE)
            except subprocess.TimeoutExpired:
                process.kill()


def launcher_problems(rows: list[Mapping[str, Any]], runners: Any, root: Path,
                      runners_file: str) -> list[Problem]:
    """Plan-time check: every runner that may take a row's job has a launcher in this repository.

    A row's `runner` is a label of configs/runners.yaml; each runner carrying it selects
    runners/launch_<name before the first _>.sh. A missing launcher would only fail on the GPU node.
    A label runners.yaml does not list is a warning (PRODUCT §4.1: the real data has such labels,
    served by runners outside this file), never an error; a listed runner without a launcher is.
    """
    problems: list[Problem] = []
    reported: set[str] = set()
    for row in rows:
        label = str(row.get("runner", ""))
        if label in reported:
            continue
        nodes = runners.nodes(label)
        if not nodes:
            reported.add(label)
            problems.append(Problem(f"runner label {label!r} of job {identity.job_name(row)!r} is not in "
                                    f"{runners_file}; no runner listed there takes its jobs", file=runners_file,
                                    key=label, fix=f"add the label {label} with its runners to {runners_file}",
                                    level="warning"))
            continue
        for prefix in sorted({node.split("_", 1)[0] for node in nodes}):
            script = f"runners/launch_{prefix}.sh"
            if not _RUNNER_PREFIX.fullmatch(prefix) or not (root / script).is_file():
                reported.add(label)
                problems.append(Problem(
                    f"runner label {label!r} includes runners named {prefix}_*, which have no launcher "
                    f"{script}", file=runners_file, key=label,
                    fix=f"add {script} (see runners/launch_mi355x-amds.sh) or remove those runners from the label"))
    return problems


def raw_dir(results_dir: Path) -> Path:
    """Where a job's raw benchmark/lm-eval output lands: next to, never inside, RESULTS_DIR."""
    return results_dir.parent / (results_dir.name + "-raw")


def power_dir(results_dir: Path) -> Path:
    """Where the launcher writes a job's GPU power samples (infx.results.power), next to RESULTS_DIR."""
    return results_dir.parent / (results_dir.name + "-power")


def read_power(row: Mapping[str, Any], samples: Path) -> tuple[list[power.NodeSamples], int]:
    """Every node's power samples of the job (none when the launcher wrote none) and how many of
    the nodes serve prefill (multi-node rows; node ranks below it)."""
    nodes = []
    for path in sorted(samples.glob(f"{power.SAMPLES_PREFIX}*{power.SAMPLES_SUFFIX}")) if samples.is_dir() else []:
        rank = path.name.removeprefix(power.SAMPLES_PREFIX).removesuffix(power.SAMPLES_SUFFIX)
        if rank.isdigit() and not path.is_symlink():
            nodes.append(power.parse_samples(path.read_text(encoding="utf-8", errors="replace"), int(rank)))
    counts = node_counts(row)
    return nodes, counts[0] if counts else 0


def _power_report(rows: list[dict[str, Any]], samples: Path, row: Mapping[str, Any]) -> None:
    """Write power_validation.json next to the samples, and fail a row that requires power
    (`require-power: true`) when a measurement is invalid; otherwise power is best effort."""
    checked = [{"conc": r["conc"], "power_valid": r.get("power_valid"),
                "reasons": power.explain(r.get("power_invalid_reasons", []))} for r in rows]
    if samples.is_dir():
        (samples / "power_validation.json").write_text(json.dumps(checked, indent=1) + "\n", encoding="utf-8")
    invalid = [r for r in rows if r.get("power_valid") != 1]
    if row.get("require-power") is True and invalid:
        raise InfxError(Problem(
            f"the row requires power, but the measurement at concurrency {invalid[0]['conc']} is invalid: "
            + power.explain(invalid[0].get("power_invalid_reasons", [])), key="require-power",
            fix="check amd-smi on the runner's nodes (the job's power_* artifact has the samples)"))


def finish(row: Mapping[str, Any], runner_name: str, results_dir: Path) -> list[Path]:
    """Normalise the job's raw output into RESULTS_DIR; returns the files written.

    Benchmark rows: every `benchmark*.json` of the raw directory (the client's JSON, one per
    concurrency) becomes one schema row; they are written as `<RESULT_NAME>.json`.
    Eval rows: the lm-eval `results*.json` (and `samples*.jsonl`) files are copied with a
    `meta_env.json` naming the row, and must yield valid eval rows.
    """
    raw = raw_dir(results_dir)
    name = result_name(row, runner_name)
    if row.get("eval-only"):
        return _finish_eval(row, runner_name, raw, results_dir, name)
    runs = {}
    for path in sorted(raw.glob("benchmark*.json")) if raw.is_dir() else []:
        try:
            runs[path.name] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InfxError(Problem(f"the benchmark result is not readable JSON: {exc}", file=str(path),
                                    fix="check the benchmark client's output")) from None
    if not runs:
        raise InfxError(Problem(f"the benchmark wrote no result (no benchmark*.json in {raw})",
                                file=str(raw), fix="check the launcher and recipe logs"))
    nodes, prefill_nodes = read_power(row, power_dir(results_dir))
    try:
        rows = normalise.benchmark_rows(row, runs, runner_name, name, nodes, prefill_nodes)
    except normalise.ResultError as exc:
        raise InfxError(Problem(str(exc), file=str(raw), fix="check the benchmark client's output")) from None
    out = results_dir / f"{name}.json"
    out.write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    _power_report(rows, power_dir(results_dir), row)
    return [out]


def _finish_eval(row: Mapping[str, Any], runner_name: str, raw: Path, results_dir: Path,
                 name: str) -> list[Path]:
    files: dict[str, bytes] = {}
    for path in sorted(raw.rglob("*")) if raw.is_dir() else []:
        if path.is_file() and not path.is_symlink() and (
                path.name.startswith("results") and path.suffix == ".json"
                or path.name.startswith("samples") and path.suffix == ".jsonl"):
            files[path.relative_to(raw).as_posix()] = path.read_bytes()
    meta = normalise.eval_meta(row, runner_name)
    failed: list[int] = []
    if "eval_concs" in meta:
        concs = frozenset(c for path in files if (c := normalise.result_conc(path)) is not None)
        unrequested = sorted(concs - set(meta["eval_concs"]))
        if unrequested:
            raise InfxError(Problem(f"the batched eval wrote results for concurrencies {unrequested} it was "
                                    f"not asked for ({meta['eval_concs']})", file=str(raw),
                                    fix="check the recipe's eval concurrencies"))
        meta |= normalise.batch_manifest(meta["eval_concs"], concs)
        failed = meta["failed_eval_concs"]
    files[normalise.META_FILE] = json.dumps(meta, indent=1, sort_keys=True).encode() + b"\n"
    job = normalise.eval_job("eval_" + name, files)
    if isinstance(job, str):
        raise InfxError(Problem(job, file=str(raw), fix="check the lm-eval output of the job"))
    for row_out in job.rows:
        problem = normalise.row_problem(row_out, normalise.EVAL)
        if problem:
            raise InfxError(Problem(f"eval row {row_out['source']} breaks the schema: {problem}", file=str(raw)))
    written = []
    for relative, data in files.items():
        target = results_dir / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written.append(target)
    if failed:
        raise InfxError(Problem(f"the batched eval has no result for concurrencies {failed} (the manifest "
                                f"{normalise.META_FILE} records them as failed)", file=str(raw),
                                fix="check the lm-eval output and server log of those concurrencies"))
    return written

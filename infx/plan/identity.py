"""A matrix row's identity: the one definition job names, result names and Check `sweep` derive from.

A row's identity is every field of the row except scheduling annotations. It is shown in
two forms, both pure functions of the row alone (so they are deterministic and can be
recomputed anywhere the row is known):

- the **job name** GitHub shows for the row's benchmark job, e.g.
  ``dsr1 fp4 mi355x sglang 8k1k TP8/EP8/DPA mtp c64 #1a2b3c4d``: the readable
  distinguishing fields (model prefix, precision, runner, framework, sequence lengths or
  scenario, parallel layout, spec decoding, KV offload, concurrency, eval kind) followed by
  ``#`` and a digest of the whole identity. The digest makes the name injective even for
  fields that are not shown (image, model, router, worker settings, …) or when the readable
  part is cut to stay within MAX_JOB_NAME;
- the **result slug**, the same identity made safe for artifact and file names.

Check `sweep` reads the job names back with ``parse_job_name``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# Fields added to a row after planning (by the shard step or a scheduler); never identity.
JOB_NAME_FIELD = "job-name"
# the row's fingerprint (infx.plan.fingerprint), added by the plan job; also the result-row field
FINGERPRINT_FIELD = "fingerprint"
ANNOTATIONS = frozenset({JOB_NAME_FIELD, FINGERPRINT_FIELD, "priority", "queue-token", "skip-queue-pr"})
DIGEST_LENGTH = 8
# Our bound for the matrix job's own name. GitHub shows check runs as
# "<caller job name> / <job name>"; the longest caller name in run-sweep.yml is ~35
# characters, so the check run name stays well below GitHub's display and storage limits.
MAX_JOB_NAME = 100
# An adopter's sweep (`infx init`'s run-sweep.yml) is one job with this id calling our reusable
# sweep, infx-run-sweep.yml; GitHub names every job of it `sweep / <job name>`, so a row's check
# run is `sweep / <shard caller> / <row>` where ours is `<shard caller> / <row>`.
ADOPTED_SWEEP_JOB = "sweep"
_MAX_TOKEN = 40
_MAX_CONC_TEXT = 24
_UNSAFE_TOKEN = re.compile(r"[\s\x00-\x1f\x7f]+")
_UNSAFE_SLUG = re.compile(r"[^A-Za-z0-9.+-]+")
_DIGEST = re.compile(rf"#([0-9a-f]{{{DIGEST_LENGTH}}})$")


def identity_fields(row: Mapping[str, Any]) -> dict[str, Any]:
    """The row without its scheduling annotations: what makes it this row."""
    return {str(key): value for key, value in row.items() if key not in ANNOTATIONS}


def _canonical(value: Any) -> Any:
    """Integral floats as ints (GitHub's expression engine reads JSON numbers as doubles)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    return value


def canonical_json(row: Mapping[str, Any]) -> str:
    """The identity as canonical JSON: two rows are the same row iff these texts are equal."""
    return json.dumps(_canonical(identity_fields(row)), sort_keys=True, separators=(",", ":"),
                      ensure_ascii=True)


def digest(row: Mapping[str, Any]) -> str:
    """First DIGEST_LENGTH hex digits of sha256 over the canonical JSON of the identity."""
    return hashlib.sha256(canonical_json(row).encode("ascii")).hexdigest()[:DIGEST_LENGTH]


def _token(value: Any) -> str:
    """A field value as one name token: no whitespace or control characters, bounded length."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, float) and value.is_integer():
        text = str(int(value))
    else:
        text = "" if value is None else str(value)
    text = _UNSAFE_TOKEN.sub("-", text).strip("-") or "-"
    return text[:_MAX_TOKEN]


def _seq(row: Mapping[str, Any]) -> str:
    if row.get("scenario-type") == "agentic-coding":
        return "agentic"
    isl, osl = row.get("isl"), row.get("osl")
    named = {(1024, 1024): "1k1k", (8192, 1024): "8k1k"}
    if (isl, osl) in named:
        return named[(isl, osl)]
    return f"{_token(isl)}_{_token(osl)}"


def _layout(parts: Mapping[str, Any], worker: bool = False) -> str:
    """`TP8[/PP2][/DCP2][/PCP2][/EP8][/DPA]`; a worker block adds its worker count."""
    text = f"TP{_token(parts.get('tp'))}"
    for field, label in (("pp", "PP"), ("dcp-size", "DCP"), ("pcp-size", "PCP"), ("ep", "EP")):
        value = parts.get(field)
        if value not in (None, 1):
            text += f"/{label}{_token(value)}"
    if parts.get("dp-attn") is True:
        text += "/DPA"
    if worker:
        text = f"{_token(parts.get('num-worker'))}x{text}"
    return text


def result_layout(result: Mapping[str, Any]) -> str:
    """The parallel layout of a benchmark result row (infx.results), written as the row's job name
    writes it: `TP8/EP8/DPA`, or `P1xTP8 D2xTP8/EP8` for a disaggregated row."""
    def parts(prefix: str) -> dict[str, Any]:
        return {"tp": result.get(prefix + "tp"), "pp": result.get(prefix + "pp"),
                "dcp-size": result.get(prefix + "dcp_size"), "pcp-size": result.get(prefix + "pcp_size"),
                "ep": result.get(prefix + "ep"), "dp-attn": result.get(prefix + "dp_attention"),
                "num-worker": result.get(prefix + "num_workers")}

    if result.get("is_multinode") is True:
        return f"P{_layout(parts('prefill_'), worker=True)} D{_layout(parts('decode_'), worker=True)}"
    return _layout(parts(""))


def _conc(value: Any) -> str:
    if isinstance(value, list):
        text = "x".join(_token(v) for v in value)
        if len(text) > _MAX_CONC_TEXT and value:
            text = f"{_token(value[0])}..{_token(value[-1])}n{len(value)}"
        return "c" + text
    return "c" + _token(value)


def _kv(row: Mapping[str, Any]) -> str | None:
    mode = row.get("kv-offloading")
    if mode in (None, "none"):
        return None
    backend = row.get("kv-offload-backend")
    name = backend.get("name") if isinstance(backend, Mapping) else backend
    return f"kv-{_token(mode)}" + (f"-{_token(name)}" if name else "")


def _eval(row: Mapping[str, Any]) -> str | None:
    if not row.get("eval-only"):
        return None
    if row.get("eval-all-concs"):
        return "eval@all"
    if row.get("eval-conc") is not None:
        return f"eval@c{_token(row.get('eval-conc'))}"
    return "eval"


def readable_tokens(row: Mapping[str, Any]) -> list[str]:
    """The shown part of the identity, most significant first (the first four are fixed)."""
    tokens = [_token(row.get(f)) for f in ("model-prefix", "precision", "runner", "framework")]
    tokens.append(_seq(row))
    prefill, decode = row.get("prefill"), row.get("decode")
    if isinstance(prefill, Mapping) or isinstance(decode, Mapping):
        tokens.append("P" + _layout(prefill if isinstance(prefill, Mapping) else {}, worker=True))
        tokens.append("D" + _layout(decode if isinstance(decode, Mapping) else {}, worker=True))
    else:
        tokens.append(_layout(row))
    spec = row.get("spec-decoding")
    if spec not in (None, "none"):
        tokens.append(_token(spec))
    tokens += [t for t in (_kv(row),) if t]
    tokens.append(_conc(row.get("conc")))
    if row.get("agentx-fast") is True:  # the short AgentX profile (infx.plan.agentx_fast)
        tokens.append("fast")
    tokens += [t for t in (_eval(row),) if t]
    return tokens


def job_name(row: Mapping[str, Any]) -> str:
    """The GitHub job name of the row's benchmark job (at most MAX_JOB_NAME characters)."""
    suffix = " #" + digest(row)
    text = " ".join(readable_tokens(row))
    room = MAX_JOB_NAME - len(suffix)
    if len(text) > room:
        text = text[:room - 1].rstrip() + "~"
    return text + suffix


def result_slug(row: Mapping[str, Any]) -> str:
    """The identity as an artifact/file-name-safe slug (letters, digits, `.`, `+`, `-`, `_`)."""
    tokens = [_UNSAFE_SLUG.sub("-", t).strip("-") or "-" for t in readable_tokens(row)]
    return "_".join(tokens) + "_" + digest(row)


@dataclass(frozen=True)
class JobIdentity:
    """What Check `sweep` reads back from a benchmark job's name."""

    model_prefix: str
    precision: str
    runner: str
    framework: str
    digest: str

    def matches(self, entry: Mapping[str, Any]) -> bool:
        """The job ran a row of this master-config entry (its four fixed fields)."""
        wanted = [_token(entry.get(f)) for f in ("model-prefix", "precision", "runner", "framework")]
        return [self.model_prefix, self.precision, self.runner, self.framework] == wanted


def sweep_job_name(check_name: str) -> str:
    """A check-run name as run-sweep.yml names the job (`<shard caller> / <row>`): an adopter's
    `sweep / ` in front (ADOPTED_SWEEP_JOB) is dropped, every other name is kept as it is."""
    prefix = f"{ADOPTED_SWEEP_JOB} / "
    return check_name[len(prefix):] if check_name.startswith(prefix) else check_name


def row_job_name(check_name: str) -> str:
    """The row's own job name inside a check-run name `[sweep / ]<shard caller> / <job name>`."""
    name = sweep_job_name(check_name)
    return name.split(" / ", 1)[1] if " / " in name else name


def matches_legacy_name(name: str, entry: Mapping[str, Any]) -> bool:
    """A job name without our digest (sweeps older than the row identity, e.g. the seed
    worlds of real PRs) names this master-config entry: its leading tokens are the entry's
    model prefix and precision, then its runner or the runner's GPU word (``mi355x`` for
    ``cluster:mi355x-amds``), then its framework. A name with a digest never matches here
    (``parse_job_name`` decides it exactly)."""
    job = row_job_name(name)
    tokens = job.split(" ")
    if _DIGEST.search(job) or len(tokens) < 5:
        return False
    runner = str(entry.get("runner") or "")
    runner_words = {_token(runner), *re.split(r"[:\-]", runner)} - {""}
    return (tokens[0] == _token(entry.get("model-prefix")) and tokens[1] == _token(entry.get("precision"))
            and tokens[2] in runner_words and tokens[3] == _token(entry.get("framework")))


def parse_job_name(name: str) -> JobIdentity | None:
    """The identity in a job name (or a check-run name `<caller> / <job name>`); None if the
    name was not made by ``job_name``."""
    job = row_job_name(name)
    match = _DIGEST.search(job)
    tokens = job.split(" ")
    if match is None or len(tokens) < 6:
        return None
    return JobIdentity(*tokens[:4], digest=match.group(1))

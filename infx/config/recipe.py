"""Declarative serving recipes (configs/recipes/<config-key>.yaml): load, validate, render.

A master-config key links to its recipe by naming convention: the recipe of key ``K`` is
``configs/recipes/K.yaml`` and must say ``config-key: K``. The recipe is the single source
of the serving command: engine flags, environment, benchmark client and speculative
decoding settings, rendered into the engine's own spelling by :func:`render`.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from infx.config.policy import validate_document
from infx.errors import InfxError, Problem
from infx.yamlio import find_line, read_text

RECIPE_DIR = "configs/recipes"
ROLES = ("prefill", "decode", "router")

# engine -> (draft method -> the engine's algorithm name)
_SGLANG_ALGORITHMS = {"mtp": "EAGLE", "eagle3": "EAGLE3", "dspark": "DSPARK"}


def recipe_path(config_key: str) -> str:
    """Repository path of the recipe linked to a master-config key."""
    return f"{RECIPE_DIR}/{config_key}.yaml"


@dataclass(frozen=True)
class SpecDecoding:
    method: str
    draft_model: str
    num_draft_tokens: int
    thinking: str
    variant: str | None = None
    draft_revision: str | None = None
    synthetic_acceptance: float | None = None


@dataclass(frozen=True)
class Recipe:
    config_key: str
    engine: str
    image: str
    model: str
    parallelism: tuple[dict, ...]
    client_harness: str
    client_endpoint: str
    client_args: tuple[str, ...] = ()
    server_args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    files: tuple[str, ...] = ()
    quantization: str | None = None
    kv_cache_dtype: str | None = None
    upstream_recipe: str | None = None
    spec: SpecDecoding | None = None
    source: str = ""
    # disaggregated deployments: role (prefill | decode | router) -> that role's own flags
    roles: dict[str, tuple[str, ...]] = field(default_factory=dict)


def parse_recipe(text: str, filename: str) -> Recipe:
    """Validate recipe YAML text; the file name must match its ``config-key``."""
    data = validate_document("recipe", text, filename)
    key = data["config-key"]
    stem = Path(filename).name.removesuffix(".yaml")
    if Path(filename).name.endswith(".yaml") and stem != key:
        raise InfxError(Problem(
            f"config-key {key!r} does not match the file name {stem!r}", file=filename,
            line=find_line(text, ["config-key"]), key="config-key",
            fix=f"rename the file to {key}.yaml or set config-key: {stem}"))
    spec = data.get("spec-decoding")
    _check_spec(spec, text, filename)
    client = data["client"]
    return Recipe(
        config_key=key, engine=data["engine"], image=data["image"], model=data["model"],
        parallelism=tuple(data["parallelism"]), client_harness=client["harness"],
        client_endpoint=client["endpoint"], client_args=tuple(client.get("args", ())),
        server_args=tuple(data.get("server-args", ())),
        env={k: _env_text(v) for k, v in data.get("env", {}).items()},
        files=tuple(data.get("files", ())), quantization=data.get("quantization"),
        kv_cache_dtype=data.get("kv-cache-dtype"), upstream_recipe=data.get("upstream-recipe"),
        spec=_spec(spec) if spec else None, source=filename,
        roles={role: tuple(data["disagg"][role]["args"]) for role in ROLES if role in data.get("disagg", {})})


def _check_spec(spec: dict | None, text: str, filename: str) -> None:
    if not spec:
        return
    al = spec.get("synthetic-acceptance")
    k = spec["num-draft-tokens"]
    if al is not None and not 1 <= al <= k + 1:
        raise InfxError(Problem(
            f"synthetic-acceptance {al} is outside [1, num-draft-tokens + 1] = [1, {k + 1}]",
            file=filename, line=find_line(text, ["spec-decoding", "synthetic-acceptance"]),
            key="spec-decoding.synthetic-acceptance",
            fix="use the golden AL for this model, thinking mode and draft length"))


def _spec(spec: dict) -> SpecDecoding:
    al = spec.get("synthetic-acceptance")
    return SpecDecoding(
        method=spec["method"], draft_model=spec["draft-model"],
        num_draft_tokens=spec["num-draft-tokens"], thinking=spec["thinking"],
        variant=spec.get("variant"), draft_revision=spec.get("draft-revision"),
        synthetic_acceptance=float(al) if al is not None else None)


def _env_text(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def load_recipe(path: str | Path) -> Recipe:
    """Read and validate one recipe file from disk."""
    text = read_text(path, what="recipe file", fix="add configs/recipes/<config-key>.yaml")
    return parse_recipe(text, str(path))


@dataclass(frozen=True)
class Launch:
    """A recipe rendered into engine flags, environment and client flags."""

    server_args: tuple[str, ...]
    env: dict[str, str]
    client_args: tuple[str, ...]
    role_args: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def server_command(self) -> str:
        return " ".join(self.server_args)

    def lines(self) -> list[str]:
        """Everything a launch sets, one item per line, for line-based scanners."""
        env = [f"export {name}={shlex.quote(value)}" for name, value in sorted(self.env.items())]
        roles = [" ".join(args) for _, args in sorted(self.role_args.items())]
        return env + [self.server_command(), *roles, " ".join(self.client_args)]


def render(recipe: Recipe) -> Launch:
    """The serving command, environment and client flags the recipe stands for."""
    args = [f"--model {recipe.model}", *_parallel_args(recipe)]
    if recipe.quantization:
        args.append(f"--quantization {recipe.quantization}")
    if recipe.kv_cache_dtype:
        args.append(f"--kv-cache-dtype {recipe.kv_cache_dtype}")
    env = dict(recipe.env)
    if recipe.spec:
        spec_args, spec_env = _spec_settings(recipe.engine, recipe.spec)
        args += spec_args
        env.update(spec_env)
    args += recipe.server_args
    client = [f"--endpoint {recipe.client_endpoint}", *recipe.client_args]
    return Launch(tuple(args), env, tuple(client), dict(recipe.roles))


def _parallel_args(recipe: Recipe) -> list[str]:
    arm = recipe.parallelism[0]
    args = [f"--tensor-parallel-size {arm['tp']}"]
    if arm.get("ep", 1) > 1:
        args.append(f"--expert-parallel-size {arm['ep']}")
    if arm.get("dp", 1) > 1:
        args.append(f"--data-parallel-size {arm['dp']}")
    if arm.get("dp-attention"):
        args.append("--enable-dp-attention")
    return args


def _spec_settings(engine: str, spec: SpecDecoding) -> tuple[list[str], dict[str, str]]:
    k, al = spec.num_draft_tokens, spec.synthetic_acceptance
    standalone = spec.draft_model != "embedded"
    if engine == "vllm":
        conf: dict[str, Any] = {"method": spec.method, "num_speculative_tokens": k}
        if standalone:
            conf["model"] = spec.draft_model
        if al is not None:
            conf.update(rejection_sample_method="synthetic", synthetic_acceptance_length=al)
        return [f"--speculative-config '{json.dumps(conf, separators=(',', ':'))}'"], {}
    if engine == "sglang":
        args = [f"--speculative-algorithm {_SGLANG_ALGORITHMS[spec.method]}",
                f"--speculative-num-steps {k}", "--speculative-eagle-topk 1",
                f"--speculative-num-draft-tokens {k + 1}"]
        if standalone:
            args.append(f"--speculative-draft-model-path {spec.draft_model}")
        env = {} if al is None else {
            "SGLANG_SIMULATE_ACC_LEN": f"{al:.2f}", "SGLANG_SIMULATE_ACC_METHOD": "match-expected",
            "SGLANG_SIMULATE_ACC_TOKEN_MODE": "real-draft-token"}
        return args, env
    if engine == "atom":
        args = [f"--method {spec.method}", f"--num-speculative-tokens {k}"]
        if standalone:
            args.append(f"--draft-model {spec.draft_model}")
        if al is not None:
            args.append(f"--spec-decode-acceptance-length {al:.2f}")
        return args, {}
    # TensorRT-LLM counts accepted draft tokens only: the golden AL minus the bonus token
    env = {} if al is None else {"TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS": f"{al - 1:.2f}"}
    return [f"--max-draft-len {k}"], env

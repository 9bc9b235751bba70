"""Check 3 (recipe): vLLM/SGLang configs link a merged upstream recipe whose settings match."""

from __future__ import annotations

import re
from dataclasses import dataclass

from infx.config.recipe import render
from infx.signoff.affected import AffectedConfig, affected_configs, config_where
from infx.signoff.model import Evidence, ExternalPull, Outcome, Status
from infx.signoff.policy_common import detail_lines, detail_section, fail_closed, failed, policy
from infx.signoff.scan import added_lines, flag_values, mentions_flag

_PULL = re.compile(r"https?://github\.com/([\w.-]+/[\w.-]+)/pull/(\d+)", re.IGNORECASE)
_URL = re.compile(r"https?://[^\s)>\]]+")
_PR_REPOS = {"vllm": "vllm-project/recipes", "sglang": "sgl-project/sglang"}
_PAGES = {"vllm": ("recipes.vllm.ai/",), "sglang": ("docs.sglang.io/cookbook/", "docs.sglang.ai/cookbook/")}
_COOKBOOK_DIRS = ("docs/cookbook/", "docs_new/")
# production-useful flags compared with the upstream recipe, with their accepted spellings
MAJOR_FLAGS: dict[str, tuple[str, ...]] = {
    "--tensor-parallel-size": ("--tensor-parallel-size", "--tp", "--tp-size", "tensor_parallel_size"),
    "--expert-parallel-size": ("--expert-parallel-size", "--ep", "--ep-size", "expert_parallel_size"),
    "--data-parallel-size": ("--data-parallel-size", "--dp", "--dp-size", "data_parallel_size"),
    "--enable-dp-attention": ("--enable-dp-attention", "enable_dp_attention"),
    "--quantization": ("--quantization", "quantization"),
    "--kv-cache-dtype": ("--kv-cache-dtype", "kv_cache_dtype"),
    "--attention-backend": ("--attention-backend", "attention_backend"),
    "--moe-runner-backend": ("--moe-runner-backend", "moe_runner_backend"),
    "--enable-flashinfer-allreduce-fusion": ("--enable-flashinfer-allreduce-fusion",),
}


@dataclass(frozen=True)
class Setting:
    flag: str
    value: str | None  # None: a switch without a value


@fail_closed("Upstream recipe")
def run(evidence: Evidence) -> Outcome:
    engines = policy(evidence).doc("engines")["recipe-engines"]
    configs = [c for c in affected_configs(evidence) if c.framework in engines]
    if not configs:
        return Outcome(Status.NA, "no vLLM/SGLang serving config is affected; the upstream "
                       "recipe rule covers only vllm/sglang (incl. dynamo and disagg) frameworks")
    urls = _URL.findall(detail_section(evidence.signoff.body))
    failures, passes = [], []
    for config in configs:
        verdict = _judge(evidence, config, engines[config.framework], urls)
        (passes if verdict.startswith("ok:") else failures).append(verdict.removeprefix("ok:"))
    if failures:
        return failed(failures, passes)
    return Outcome(Status.PASS, "; ".join(passes), tuple(passes))


def _judge(evidence: Evidence, config: AffectedConfig, engine: str, urls: list[str]) -> str:
    where = config_where(evidence, config)
    links = [u for u in urls if _is_engine_link(u, engine)]
    if not links:
        return (f"{where} ({config.framework}): no {engine} upstream recipe link "
                f"({_PR_REPOS[engine]} PR or {' / '.join(_PAGES[engine])} page) in the "
                "Additional detail section")
    reasons = []
    for link in links:
        text, problem = _upstream_text(evidence, link, engine)
        if problem:
            reasons.append(problem)
            continue
        missing = _missing_settings(config, text, evidence.signoff.body)
        if _disaggregated(config) and not all(re.search(role, text, re.I) for role in ("prefill", "decode")):
            missing.append("the prefill/decode (disaggregated) roles — an aggregated example does not "
                           "cover a disaggregated config")
        if missing:
            reasons.append(f"{link} lacks {', '.join(missing)}")
            continue
        state = "is merged" if _PULL.match(link) else "is published"
        return f"ok:{where}: {link} {state} and lists the production settings " \
               f"({', '.join(_describe(s) for s in required_settings(config))})"
    return f"{where} ({config.framework}): " + "; ".join(reasons)


def _disaggregated(config: AffectedConfig) -> bool:
    return bool(config.entry.get("disagg")) or any("prefill" in lane for lane in config.lanes)


def _is_engine_link(url: str, engine: str) -> bool:
    pull = _PULL.match(url)
    if pull:
        return pull.group(1).lower() == _PR_REPOS[engine]
    return any(page in url.lower() for page in _PAGES[engine])


def _upstream_text(evidence: Evidence, url: str, engine: str) -> tuple[str, str | None]:
    pull = _PULL.match(url)
    if not pull:
        if url not in evidence.external_texts or evidence.external_texts[url] is None:
            return "", f"published page {url} could not be read, so its settings could not be verified"
        return evidence.external_texts[url] or "", None
    ref = f"{pull.group(1)}#{pull.group(2)}"
    info: ExternalPull | None = evidence.external_pulls.get(ref)
    if info is None:
        return "", f"merge status of {ref} could not be verified"
    if not info.merged_at:
        state = "draft" if info.draft else info.state
        return "", f"{ref} is not merged (state: {state})"
    if not info.files:
        return "", f"the changed files of {ref} could not be read, so its recipe could not be verified"
    if engine == "sglang" and not any(f.filename.startswith(_COOKBOOK_DIRS) for f in info.files):
        return "", f"{ref} does not touch the SGLang cookbook (docs/cookbook/)"
    text = "\n".join(ln.text for f in info.files for ln in added_lines(f.filename, f.patch))
    if not text:
        return "", f"the recipe text of {ref} could not be read"
    return text, None


def required_settings(config: AffectedConfig) -> list[Setting]:
    """Model, parallelism, quantization, KV dtype and kernel backends of the config."""
    settings = [Setting("--model", str(config.entry.get("model", "")))]
    args = render(config.recipe).server_args if config.recipe else ()
    for arg in args:
        flag, _, value = arg.partition(" ")
        if flag in MAJOR_FLAGS and flag != "--tensor-parallel-size":
            settings.append(Setting(flag, value.strip() or None))
    # every role counts: single-node lanes, and prefill/decode workers of disaggregated lanes
    roles = [lane.get(role) for lane in config.lanes for role in ("prefill", "decode")]
    roles = [r for r in roles if isinstance(r, dict)] + [lane for lane in config.lanes if "tp" in lane]
    tps = sorted({int(role.get("tp", 0)) for role in roles} - {0})
    if config.recipe:
        tps = sorted({arm["tp"] for arm in config.recipe.parallelism} | set(tps))
    settings += [Setting("--tensor-parallel-size", str(tp)) for tp in tps]
    return settings


def _missing_settings(config: AffectedConfig, text: str, body: str) -> list[str]:
    exempt = [ln.lower() for ln in detail_lines(body) if "inferencex-only" in ln.lower()
              or "inferencex only" in ln.lower()]
    missing = []
    for setting in required_settings(config):
        if _found(setting, text) or _justified(setting, exempt):
            continue
        missing.append(_describe(setting))
    return missing


def _found(setting: Setting, text: str) -> bool:
    if setting.flag == "--model":
        name = setting.value or ""
        return bool(name) and (name in text or name.rsplit("/", 1)[-1] in text)
    spellings = MAJOR_FLAGS.get(setting.flag, (setting.flag,))
    for line in text.splitlines():
        for spelling in spellings:
            if setting.value is None and mentions_flag(line, spelling):
                return True
            if setting.value is not None and setting.value in flag_values(line, spelling):
                return True
    return False


def _justified(setting: Setting, exempt_lines: list[str]) -> bool:
    if setting.flag == "--tensor-parallel-size":
        token = f"tp{setting.value}"
        return any(token in ln.replace(" ", "") for ln in exempt_lines)
    name = setting.flag.lstrip("-")
    return any(name in ln or name.replace("-", "_") in ln for ln in exempt_lines)


def _describe(setting: Setting) -> str:
    return setting.flag if setting.value is None else f"{setting.flag} {setting.value}"

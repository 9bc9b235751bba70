"""Check `recipe`: vLLM/SGLang configs link a merged upstream recipe whose settings match."""

from __future__ import annotations

import re
from dataclasses import dataclass

from infx.config.recipe import render
from infx.signoff.model import Evidence, ExternalPull, Outcome, Status
from infx.signoff.rules import recipe_pages
from infx.signoff.rules.affected import AffectedConfig, affected_configs, config_where
from infx.signoff.rules.policy_reads import (
    EvidenceGap,
    detail_lines,
    detail_section,
    fail_closed,
    failed,
    policy,
)
from infx.signoff.rules.scan import Line, flag_values, hunks, join_continuations, mentions_flag
from infx.signoff.swept import judged_configs
from infx.signoff.table import Settings

_PULL = re.compile(r"https?://github\.com/([\w.-]+/[\w.-]+)/pull/(\d+)", re.IGNORECASE)
_PR_REPOS = {"vllm": "vllm-project/recipes", "sglang": "sgl-project/sglang"}
_ARCHIVED = ("github.com/sgl-project/sgl-cookbook", "github.com/sgl-project/sgl-docs")
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
# how an upstream command line says which role of a disaggregated deployment it starts
ROLE_WORDS = {
    "prefill": ("prefill", "kv_producer"),
    "decode": ("decode", "kv_consumer"),
    "router": ("router", "proxy", "frontend", "load balancer", "load-balancer"),
}
# settings judged by a word in the role's command rather than a --flag value
_NAMED = ("transport", "router", "kv-offload", "sku")


@dataclass(frozen=True)
class Setting:
    flag: str  # a --flag, or "transport" / "router" / "sku" (a named part of the deployment)
    value: str | None  # None: a switch without a value
    family: str | None = None  # production family of a policy flag (scheduling, graph, ...)


@dataclass(frozen=True)
class RecipeRules:
    """configs/policy/recipe.yaml for one engine."""

    families: dict[str, str]  # production flag -> its family
    defaults: dict[str, str]  # flag -> the engine's documented default value
    phrases: tuple[str, ...]  # words that make a sign-off line a justified exclusion


def recipe_rules(doc: dict, engine: str) -> RecipeRules:
    """The production-flag families, ``engine``'s documented defaults and justification phrases."""
    families = {flag: family for family, flags in doc["production-flags"].items() for flag in flags}
    return RecipeRules(families, dict(doc["documented-defaults"].get(engine, {})),
                       tuple(p.lower() for p in doc["justification-phrases"]))


@fail_closed("Upstream recipe")
def run(evidence: Evidence, settings: Settings) -> Outcome:
    reader = policy(evidence)
    engines = reader.doc("engines")["recipe-engines"]
    # a config affected only through a shared harness file the PR changed keeps its serving
    # settings: it is judged only when the plan sweeps it (infx.signoff.swept)
    configs = [c for c in judged_configs(evidence, affected_configs(evidence)) if c.framework in engines]
    if not configs:
        return Outcome(Status.NA, "no vLLM/SGLang serving config is affected; the upstream "
                       "recipe rule covers only vllm/sglang (incl. dynamo and disagg) frameworks")
    urls = [recipe_pages.clean(u) for u in recipe_pages.LINK.findall(detail_section(evidence.signoff.body))]
    # the published-page mapping is read only when a link is not a GitHub pull request
    known = _sites(reader) if any(not _PULL.match(u) for u in urls) else ()
    failures, passes = [], []
    for config in configs:
        engine = engines[config.framework]
        verdict = _judge(evidence, config, engine, urls, known, recipe_rules(reader.doc("recipe"), engine))
        (passes if verdict.startswith("ok:") else failures).append(verdict.removeprefix("ok:"))
    if failures:
        return failed(failures, passes)
    return Outcome(Status.PASS, "; ".join(passes), tuple(passes))


def _sites(reader) -> tuple[recipe_pages.Site, ...]:
    try:
        return recipe_pages.sites(reader.doc("recipe-pages"))
    except EvidenceGap as gap:
        raise EvidenceGap(f"{gap}, so published recipe pages cannot be mapped to their upstream "
                          f"source; restore {recipe_pages.POLICY} on the default branch") from None


def _judge(evidence: Evidence, config: AffectedConfig, engine: str, urls: list[str],
           known: tuple[recipe_pages.Site, ...], rules: RecipeRules) -> str:
    where = f"{config_where(evidence, config)} ({config.framework})"
    links = [u for u in urls if _is_engine_link(u, engine, known)]
    if not links:
        return f"{where}: " + _no_link_reason(urls, engine, known)
    try:
        required = required_settings(config, rules)
    except ValueError as exc:
        return f"{where}: {exc}"
    reasons = []
    for link in links:
        text, problem, shown = _upstream_text(evidence, link, engine, known)
        if problem:
            reasons.append(problem)
            continue
        missing = _missing_settings(required, text, evidence.signoff.body, rules.phrases)
        if missing:
            reasons.append(f"{shown} lacks {missing}")
            continue
        listed = "; ".join(f"{role}: {', '.join(_describe(s) for s in settings) or 'command shown'}"
                           for role, settings in required.items())
        state = "merged" if _PULL.match(link) else "published"
        return f"ok:{where}: {shown} is {state} and lists the production settings ({listed})"
    return f"{where}: " + "; ".join(reasons)


def _no_link_reason(urls: list[str], engine: str, known: tuple[recipe_pages.Site, ...]) -> str:
    """Why no accepted link was found, naming the near miss the reviewer posted, if any."""
    repo = _PR_REPOS[engine]
    wanted = f"a merged {repo} PR" + (" touching docs/cookbook/" if engine == "sglang" else "")
    sites = " / ".join(recipe_pages.hosts(known, engine)) if known else f"the sites {recipe_pages.POLICY} maps"
    archived = [u for u in urls if any(a in u.lower() for a in _ARCHIVED)]
    if archived:
        return (f"{archived[0]} is an archived SGLang cookbook copy, which does not count on its own; "
                f"link {wanted} in the Additional detail section")
    loose = [u for u in urls if f"github.com/{repo}/" in u.lower()]
    if loose:
        return (f"{loose[0]} is a branch, commit or file in {repo}, not a merged PR; "
                f"link {wanted} in the Additional detail section")
    unmapped = [u for u in urls if "github.com" not in u.lower() and recipe_pages.site_for(u, known) is None]
    if unmapped:
        return (f"{unmapped[0]} is not on a recipe site {recipe_pages.POLICY} maps to its upstream "
                f"source, so it cannot be verified; link {wanted} or a {sites} page in the Additional "
                f"detail section, or add the site with its source repository to {recipe_pages.POLICY}")
    return (f"no {engine} upstream recipe link ({repo} PR or {sites} page) in the "
            f"Additional detail section; a claim of similarity to the official recipe is not a link")


def _disaggregated(config: AffectedConfig) -> bool:
    return bool(config.entry.get("disagg")) or any("prefill" in lane for lane in config.lanes)


def _is_engine_link(url: str, engine: str, known: tuple[recipe_pages.Site, ...]) -> bool:
    pull = _PULL.match(url)
    if pull:
        return pull.group(1).lower() == _PR_REPOS[engine]
    site = recipe_pages.site_for(url, known)
    return site is not None and site.engine == engine


def _upstream_text(evidence: Evidence, url: str, engine: str,
                   known: tuple[recipe_pages.Site, ...]) -> tuple[str, str | None, str]:
    """(recipe text, why it cannot be used, how the link is named in the verdict)."""
    pull = _PULL.match(url)
    if not pull:
        return _page_text(evidence, url, engine, known)
    ref = f"{pull.group(1)}#{pull.group(2)}"
    info: ExternalPull | None = evidence.external_pulls.get(ref)
    if info is None:
        return "", f"merge status of {ref} could not be verified", url
    if not info.merged_at:
        state = "draft" if info.draft else info.state
        return "", f"{ref} is not merged (state: {state})", url
    if not info.files:
        return "", f"the changed files of {ref} could not be read, so its recipe could not be verified", url
    if engine == "sglang" and not any(f.filename.startswith(_COOKBOOK_DIRS) for f in info.files):
        return "", f"{ref} does not touch the SGLang cookbook (docs/cookbook/)", url
    text = "\n".join(ln.text for f in info.files
                     for ln in join_continuations(_recipe_lines(f.filename, f.patch)))
    if not text:
        return "", f"the recipe text of {ref} could not be read", url
    return text, None, url


def _page_text(evidence: Evidence, url: str, engine: str,
               known: tuple[recipe_pages.Site, ...]) -> tuple[str, str | None, str]:
    """A published page judged on its upstream source file (PRODUCT §4.8): the page itself is
    never fetched; the trusted mapping names the repository, ref and path that were read."""
    source = recipe_pages.resolve(url, known)
    if isinstance(source, str):
        return "", (f"{source}; link such a page or the merged {_PR_REPOS[engine]} PR, or map this "
                    f"page in {recipe_pages.POLICY}"), url
    shown = f"{url} (source {source.repo}/{source.path} at {source.ref})"
    if source.key not in evidence.external_files:
        return "", (f"the source of published page {url} ({source.repo}/{source.path} at "
                    f"{source.ref}) was not read, so its settings could not be verified"), shown
    text = evidence.external_files[source.key]
    if text is None:
        return "", (f"published page {url} maps to {source.repo}/{source.path} at {source.ref}, which "
                    f"does not exist; correct the page's mapping in {recipe_pages.POLICY} or link the "
                    f"merged {_PR_REPOS[engine]} PR that added the recipe"), shown
    lines = [Line(source.path, number, line) for number, line in enumerate(text.splitlines(), 1)
             if line.strip()]
    return "\n".join(ln.text for ln in join_continuations(lines)), None, shown


def _recipe_lines(path: str, patch: str | None) -> list[Line]:
    """Added lines of an upstream recipe file, kept whole: in markdown a leading ``#`` starts a
    heading (which often names the model and SKU), not a comment."""
    return [Line(path, hl.number, hl.text) for hunk in hunks(patch) for hl in hunk
            if hl.kind == "+" and hl.text.strip()]


def required_settings(config: AffectedConfig, rules: RecipeRules) -> dict[str, list[Setting]]:
    """Per role, the production settings upstream must show: ``agg`` for an aggregated config;
    ``shared`` (model, SKU, quantization, backends, production flags), ``prefill``, ``decode``
    and ``router`` for a disaggregated one.
    A config without a runner SKU, or a disaggregated one without a declared KV transport,
    raises ValueError."""
    if not config.sku:
        raise ValueError("the config declares no runner, so its SKU could not be compared with the "
                         "upstream recipe")
    shared = [Setting("--model", str(config.entry.get("model", ""))), Setting("sku", config.sku)]
    args = render(config.recipe).server_args if config.recipe else ()
    shared += [s for s in _compared_flags(args, rules) if not _parallel_flag(s.flag)]
    shared += _offload_backends(config)
    if not _disaggregated(config):
        return {"agg": shared + _agg_parallelism(config)}
    transport = config.entry.get("kv-p2p-transfer")
    if not transport:
        raise ValueError("the disaggregated config declares no KV transport (kv-p2p-transfer), so the "
                         "PD transport could not be compared with the upstream recipe")
    roles: dict[str, list[Setting]] = {"shared": shared}
    for role in ("prefill", "decode"):
        roles[role] = _role_parallelism(config, role) + [Setting("transport", str(transport))]
        roles[role] += _role_flags(config, role, rules)
    # a PD deployment always has a router/frontend: its command must be shown even when the
    # config names neither a router component nor router flags
    roles["router"] = []
    router = config.entry.get("router")
    if isinstance(router, dict) and router.get("name"):
        roles["router"].append(Setting("router", str(router["name"])))
    roles["router"] += _role_flags(config, "router", rules, every_flag=True)
    return roles


def _compared_flags(args: tuple[str, ...] | list[str], rules: RecipeRules,
                    every_flag: bool = False) -> list[Setting]:
    """The major and production-family flags among ``--flag value`` items (all of them when
    ``every_flag``), minus production flags set to the engine's documented default."""
    settings = []
    for arg in args:
        flag, _, raw = arg.partition(" ")
        value = _unquote(raw.strip()) or None
        family = rules.families.get(flag)
        if family and _is_default(value, rules.defaults.get(flag)):
            continue
        if every_flag or family or flag in MAJOR_FLAGS:
            settings.append(Setting(flag, value, family))
    return settings


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _is_default(value: str | None, default: str | None) -> bool:
    if value is None or default is None:
        return False
    try:
        return float(value) == float(default)
    except ValueError:
        return value.lower() == default.lower()


def _offload_backends(config: AffectedConfig) -> list[Setting]:
    """KV-cache offload backends (HiCache, LMCache, …) the lanes turn on: a production cache
    setting that the upstream recipe must show."""
    names = []
    for lane in config.lanes:
        backend = lane.get("kv-offload-backend")
        if str(lane.get("kv-offloading", "none")).lower() != "none" and isinstance(backend, dict) \
                and backend.get("name"):
            names.append(str(backend["name"]))
    return [Setting("kv-offload", name) for name in dict.fromkeys(names)]


def _parallel_flag(flag: str) -> bool:
    return flag in ("--tensor-parallel-size", "--expert-parallel-size", "--data-parallel-size",
                    "--enable-dp-attention")


def _agg_parallelism(config: AffectedConfig) -> list[Setting]:
    arms = [lane for lane in config.lanes if "tp" in lane]
    settings = _parallelism([(lane.get("tp"), lane.get("ep"), lane.get("dp-attn")) for lane in arms])
    if config.recipe:
        settings += _parallelism([(arm["tp"], arm.get("ep"), arm.get("dp-attention"))
                                  for arm in config.recipe.parallelism])
    return list(dict.fromkeys(settings))


def _role_parallelism(config: AffectedConfig, role: str) -> list[Setting]:
    workers = [lane[role] for lane in config.lanes if isinstance(lane.get(role), dict)]
    return _parallelism([(w.get("tp"), w.get("ep"), w.get("dp-attn")) for w in workers])


def _parallelism(arms: list[tuple[object, object, object]]) -> list[Setting]:
    settings: list[Setting] = []
    for tp, ep, dp_attention in arms:
        if tp:
            settings.append(Setting("--tensor-parallel-size", str(tp)))
        if ep and int(str(ep)) > 1:
            settings.append(Setting("--expert-parallel-size", str(ep)))
        if dp_attention is True:
            settings.append(Setting("--enable-dp-attention", None))
    return list(dict.fromkeys(settings))


def _role_flags(config: AffectedConfig, role: str, rules: RecipeRules,
                every_flag: bool = False) -> list[Setting]:
    args = config.recipe.roles.get(role, ()) if config.recipe else ()
    return _compared_flags(args, rules, every_flag)


def _missing_settings(required: dict[str, list[Setting]], text: str, body: str,
                      phrases: tuple[str, ...]) -> str:
    """``role: setting, …; role: …`` for what the upstream text does not show ("" if all)."""
    exempt = [ln.lower() for ln in detail_lines(body) if any(phrase in ln.lower() for phrase in phrases)]
    lines = [Line("upstream", None, ln) for ln in text.splitlines()]
    found = []
    for role, settings in required.items():
        scoped = _role_lines(lines, role)
        if not scoped:
            found.append(f"{role}: the {role} role is not shown (an aggregated example does not cover "
                         "a disaggregated config)")
            continue
        missing = [_describe(s) for s in settings
                   if not any(_found(s, ln.text) for ln in scoped) and not _justified(s, exempt)]
        if missing:
            found.append(f"{role}: {', '.join(missing)}")
    return "; ".join(found)


def _role_lines(lines: list[Line], role: str) -> list[Line]:
    if role in ("shared", "agg"):
        return lines
    return [ln for ln in lines if any(word in ln.text.lower() for word in ROLE_WORDS[role])]


def _found(setting: Setting, line: str) -> bool:
    if setting.flag == "sku":
        # MI355X, mi355x and "MI355X:" all name the SKU; mi355x-amds (a runner) does not
        return re.search(rf"(?<![a-z0-9]){re.escape(setting.value or '')}(?![a-z0-9-])", line.lower()) is not None
    if setting.flag == "--model":
        name = setting.value or ""
        return bool(name) and (name in line or name.rsplit("/", 1)[-1] in line)
    if setting.flag in _NAMED:
        word = re.escape((setting.value or "").lower().replace("_", "-"))
        return bool(setting.value) and re.search(rf"(?<![\w-]){word}(?![\w-])",
                                                  line.lower().replace("_", "-")) is not None
    for spelling in MAJOR_FLAGS.get(setting.flag, (setting.flag,)):
        if setting.value is None and mentions_flag(line, spelling):
            return True
        if setting.value is not None and setting.value in flag_values(line, spelling):
            return True
    return False


def _justified(setting: Setting, exempt_lines: list[str]) -> bool:
    if setting.flag == "--tensor-parallel-size":
        token = f"tp{setting.value}"
        return any(token in ln.replace(" ", "") for ln in exempt_lines)
    name = (setting.value or "") if setting.flag in _NAMED else setting.flag.lstrip("-")
    return bool(name) and any(name in ln or name.replace("-", "_") in ln for ln in exempt_lines)


def _describe(setting: Setting) -> str:
    if setting.flag == "sku":
        return f"SKU {setting.value}"
    if setting.flag in _NAMED:
        return f"{setting.flag} {setting.value}"
    text = setting.flag if setting.value is None else f"{setting.flag} {setting.value}"
    return f"{text} ({setting.family} setting)" if setting.family else text

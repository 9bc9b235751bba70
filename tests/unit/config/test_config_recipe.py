"""infx.config.recipe: declarative serving recipes load, validate and render per engine."""

from __future__ import annotations

import json
import re

import pytest

from infx.config.policy import golden_refs, reader_for_directory
from infx.config.recipe import load_recipe, parse_recipe, recipe_path, render
from infx.errors import InfxError
from infx.yamlio import load_file

BASE = """config-key: k-fp8-mi355x-{engine}-agentic-mtp
engine: {engine}
image: img:1
model: org/model
parallelism:
  - {{tp: 4, ep: 2}}
kv-cache-dtype: fp8
env: {{FOO: 1, 'ON': true}}
client:
  harness: aiperf
  endpoint: /v1/chat/completions
  args: [--endpoint-type chat]
spec-decoding:
  method: {method}
  draft-model: {draft}
  num-draft-tokens: 3
  thinking: 'on'
  synthetic-acceptance: 2.78
"""


def recipe(engine="vllm", method="eagle3", draft="org/draft"):
    text = BASE.format(engine=engine, method=method, draft=draft)
    return parse_recipe(text, recipe_path(f"k-fp8-mi355x-{engine}-agentic-mtp"))


def test_every_shipped_recipe_is_valid_and_named_after_its_key(repo_root):
    paths = sorted((repo_root / "configs" / "recipes").glob("*.yaml"))
    assert len(paths) >= 20
    for path in paths:
        loaded = load_recipe(path)
        assert loaded.config_key == path.stem
        assert render(loaded).server_args


def test_recipes_cover_the_mi355x_spec_decode_keys(repo_root, upstream_dir):
    master = load_file(upstream_dir / "configs" / "amd-master.yaml")
    wanted = set()
    for key, entry in master.items():
        if not entry["runner"].removeprefix("cluster:").startswith("mi355x"):
            continue
        lanes = [lane for items in entry["scenarios"].values() for it in items for lane in it.get("search-space", [])]
        if any(lane.get("spec-decoding", "none") != "none" for lane in lanes) or re.search(r"-mtp|eagle|dspark", key):
            wanted.add(key)
    have = {p.stem for p in (repo_root / "configs" / "recipes").glob("*.yaml")}
    assert wanted <= have, sorted(wanted - have)


def test_agentic_recipes_pin_the_golden_al(repo_root):
    reader = reader_for_directory(repo_root)
    refs = golden_refs(reader.doc("golden"))
    for path in sorted((repo_root / "configs" / "recipes").glob("*agentic*.yaml")):
        spec = load_recipe(path).spec
        prefix = load_file(path)["model"]
        ref = next((r for r in refs if r.method == spec.method and r.variant == spec.variant
                    and r.prefix in path.stem), None)
        assert ref is not None, (path.name, prefix)
        golden = reader.golden_curve(ref.file)[ref.model_key][f"thinking_{spec.thinking}"][spec.num_draft_tokens]
        assert spec.synthetic_acceptance == pytest.approx(golden), path.name


def test_file_name_must_match_key():
    text = BASE.format(engine="vllm", method="mtp", draft="embedded")
    with pytest.raises(InfxError) as info:
        parse_recipe(text, "configs/recipes/other.yaml")
    assert info.value.problems[0].line == 1
    assert "does not match the file name" in str(info.value)


def test_schema_errors_are_located():
    text = BASE.format(engine="tgi", method="mtp", draft="embedded")
    with pytest.raises(InfxError) as info:
        parse_recipe(text, "configs/recipes/k-fp8-mi355x-tgi-agentic-mtp.yaml")
    problem = info.value.problems[0]
    assert problem.key == "engine" and problem.line == 2


def test_synthetic_acceptance_must_fit_the_draft_length():
    text = BASE.format(engine="vllm", method="mtp", draft="embedded").replace("2.78", "4.5")
    with pytest.raises(InfxError, match=r"outside \[1, num-draft-tokens \+ 1\]"):
        parse_recipe(text, recipe_path("k-fp8-mi355x-vllm-agentic-mtp"))


def test_boolean_looking_keys_are_rejected():
    text = BASE.format(engine="vllm", method="mtp", draft="embedded").replace("'ON'", "ON")
    with pytest.raises(InfxError, match="read by YAML as the boolean True"):
        parse_recipe(text, recipe_path("k-fp8-mi355x-vllm-agentic-mtp"))


def test_unquoted_thinking_on_is_rejected():
    text = BASE.format(engine="vllm", method="mtp", draft="embedded").replace("thinking: 'on'", "thinking: on")
    with pytest.raises(InfxError):
        parse_recipe(text, recipe_path("k-fp8-mi355x-vllm-agentic-mtp"))


def test_render_vllm():
    launch = render(recipe("vllm"))
    command = launch.server_command()
    assert "--model org/model --tensor-parallel-size 4 --expert-parallel-size 2" in command
    conf = json.loads(re.search(r"--speculative-config '(.*?)'", command).group(1))
    assert conf == {"method": "eagle3", "num_speculative_tokens": 3, "model": "org/draft",
                    "rejection_sample_method": "synthetic", "synthetic_acceptance_length": 2.78}
    assert launch.env == {"FOO": "1", "ON": "1"}
    assert launch.client_args == ("--endpoint /v1/chat/completions", "--endpoint-type chat")


def test_render_sglang_atom_trt():
    sglang = render(recipe("sglang", "mtp", "embedded"))
    assert sglang.env["SGLANG_SIMULATE_ACC_LEN"] == "2.78"
    assert "--speculative-algorithm EAGLE" in sglang.server_command()
    assert "--speculative-num-steps 3" in sglang.server_command()
    atom = render(recipe("atom", "eagle3"))
    assert "--spec-decode-acceptance-length 2.78" in atom.server_command()
    assert "--draft-model org/draft" in atom.server_command()
    trt = render(recipe("trt", "mtp", "embedded"))
    assert trt.env["TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS"] == "1.78"


def test_lines_are_line_scannable():
    lines = render(recipe("sglang", "mtp", "embedded")).lines()
    assert lines[0].startswith("export ")
    assert any(ln.startswith("--endpoint") for ln in lines)


def test_recipes_agree_with_our_master_config(repo_root):
    master = load_file(repo_root / "configs" / "amd-master.yaml")
    recipes = {p.stem: load_recipe(p) for p in (repo_root / "configs" / "recipes").glob("*.yaml")}
    for key, loaded in recipes.items():
        assert key in master, f"{key}: recipe without a master-config entry"
        assert (loaded.image, loaded.model) == (master[key]["image"], master[key]["model"]), key
    for key, entry in master.items():
        lanes = [lane for items in entry["scenarios"].values() for it in items for lane in it.get("search-space", [])]
        if any(lane.get("spec-decoding", "none") != "none" for lane in lanes):
            assert key in recipes, f"{key}: spec-decode config without configs/recipes/{key}.yaml"


def test_disagg_roles_are_parsed_and_rendered_as_launch_lines():
    text = BASE.format(engine="sglang", method="mtp", draft="embedded") + (
        "disagg:\n  decode:\n    args: [--moe-runner-backend aiter]\n  router:\n    args: [--policy random]\n")
    loaded = parse_recipe(text, recipe_path("k-fp8-mi355x-sglang-agentic-mtp"))
    assert loaded.roles == {"decode": ("--moe-runner-backend aiter",), "router": ("--policy random",)}
    lines = render(loaded).lines()
    assert "--moe-runner-backend aiter" in lines and "--policy random" in lines


def test_disagg_block_rejects_unknown_roles():
    text = BASE.format(engine="sglang", method="mtp", draft="embedded") + "disagg:\n  encode:\n    args: [--x]\n"
    with pytest.raises(InfxError) as info:
        parse_recipe(text, recipe_path("k-fp8-mi355x-sglang-agentic-mtp"))
    assert info.value.problems[0].key == "disagg.encode"  # the unknown role itself, at its line

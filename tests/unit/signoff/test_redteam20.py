"""Red team 20: launch content the shell readers misread — an option given twice (the engine's
and the client's argparse keep the last value), and a model-config edit made through
transformers' own API rather than by naming config.json."""

from __future__ import annotations

import pytest
from lib.chat_scripts import chat_status
from lib.signoff_policy_support import with_head_file, world_evidence

from infx.signoff.checks import arch, golden, patch
from infx.signoff.model import Status
from infx.signoff.table import load_table

SETTINGS = load_table().settings

# --- Check golden: the draft length is the first of two settings, the engine runs the last ------

GLM_SCRIPT = "benchmarks/single_node/agentic/glm5.2_fp4_b300_atom_mtp.sh"


def _glm(old: str, new: str):
    evidence = world_evidence("scenario5")
    text = evidence.head_files[GLM_SCRIPT]
    assert old in text
    return with_head_file(evidence, GLM_SCRIPT, text.replace(old, new))


def test_scenario5_pins_the_golden_al_of_three_draft_tokens():
    """The control: 3 draft tokens, AL 2.99 = glm5.2_mtp.yaml thinking_on[3]."""
    assert golden.run(world_evidence("scenario5"), SETTINGS).status == Status.PASS


@pytest.mark.parametrize("again", ["--num-speculative-tokens 5", "--num-speculative-tokens=5",
                                   "--num-speculative 5"])
def test_a_draft_length_given_again_is_the_one_the_server_runs(again):
    evidence = _glm("--num-speculative-tokens 3", f"--num-speculative-tokens 3 {again}")
    assert golden.run(evidence, SETTINGS).status != Status.PASS


# --- Check chat: the chat endpoint named first, a raw one last ----------------------------------

@pytest.mark.parametrize("client", [
    "vllm bench serve --backend openai-chat --endpoint /v1/chat/completions "
    "--backend openai --endpoint /v1/completions --model x\n",
    "vllm bench serve --endpoint-type openai-chat --endpoint /v1/chat/completions "
    "--endpoint-type openai --endpoint /v1/completions --model x\n",
])
def test_a_chat_endpoint_overridden_later_on_the_same_command_is_raw(client):
    assert chat_status(client) == Status.FAIL


@pytest.mark.parametrize("client", [
    "vllm bench serve --backend openai --endpoint /v1/completions --backend openai-chat "
    "--endpoint /v1/chat/completions --model x\n",  # the chat settings come last: they are the ones run
    "python -m sglang.bench_serving --backend sglang-oai-chat --model x\n",  # not the raw sglang-oai
])
def test_a_chat_setting_given_last_is_the_one_run(client):
    assert chat_status(client) == Status.PASS


def test_the_raw_client_alone_fails():
    """The control: the same client with only the raw settings is rejected today."""
    assert chat_status("vllm bench serve --backend openai --endpoint /v1/completions --model x\n") == Status.FAIL


# --- Check arch: num_hidden_layers cut through AutoConfig.save_pretrained ----------------------

ATOM_SCRIPT = "benchmarks/multi_node/amd_utils/server_atom.sh"
HELPER = "benchmarks/multi_node/amd_utils/prepare_model.py"
SAVE_PRETRAINED = ("from transformers import AutoConfig\n"
                   "cfg = AutoConfig.from_pretrained(MODEL_DIR)\n"
                   "cfg.num_hidden_layers = 30\n"
                   "cfg.save_pretrained(MODEL_DIR)\n")


def _seed003(line: str, extra: dict[str, str] | None = None):
    evidence = world_evidence("seed003")
    text = evidence.head_files[ATOM_SCRIPT]
    evidence = with_head_file(evidence, ATOM_SCRIPT, text.replace("set -euo pipefail\n", f"set -euo pipefail\n{line}\n"))
    for path, body in (extra or {}).items():
        evidence = with_head_file(evidence, path, body)
    return evidence


def test_a_json_dump_of_config_json_with_fewer_layers_fails():
    """The control: the same cut written back with json.dump to config.json is found today."""
    helper = ('import json, sys\np = sys.argv[1] + "/config.json"\ncfg = json.load(open(p))\n'
              'cfg["num_hidden_layers"] = 30\njson.dump(cfg, open(p, "w"))\n')
    outcome = arch.run(_seed003(f'python3 "$(dirname "$0")/{HELPER.rsplit("/", 1)[1]}" "$MODEL"',
                                {HELPER: helper}), SETTINGS)
    assert outcome.status == Status.FAIL and "num_hidden_layers=30" in outcome.reason


@pytest.mark.parametrize("line, extra", [
    # an inline program in the server script
    ("python3 - <<'PY'\nMODEL_DIR = \"/models/minimax\"\n" + SAVE_PRETRAINED + "PY", None),
    # a Python helper the server script runs (an added file under benchmarks/)
    (f'python3 "$(dirname "$0")/{HELPER.rsplit("/", 1)[1]}" "$MODEL"',
     {HELPER: "import sys\nMODEL_DIR = sys.argv[1]\n" + SAVE_PRETRAINED}),
])
def test_a_layer_cut_saved_through_transformers_is_an_override(line, extra):
    assert arch.run(_seed003(line, extra), SETTINGS).status == Status.FAIL


# --- Check patch: an engine source file found through the engine module's __file__ --------------

ENGINE_DIR = "$(python3 -c 'import atom, os; print(os.path.dirname(atom.__file__))')"
TUNE = "benchmarks/multi_node/amd_utils/tune_attention.py"


def test_an_engine_file_found_through_find_spec_is_an_engine_path():
    """The control: the same rewrite through importlib's find_spec (a policy engine path) fails."""
    line = ('sed -i "s/causal=True/causal=False/" "$(python3 -c \'import importlib.util; '
            'print(importlib.util.find_spec(\\"atom\\").origin)\')"')
    assert patch.run(_seed003(line), SETTINGS).status == Status.FAIL


@pytest.mark.parametrize("line, extra", [
    (f'sed -i "s/causal=True/causal=False/" "{ENGINE_DIR}/model_executor/attention.py"', None),
    (f'python3 "$(dirname "$0")/{TUNE.rsplit("/", 1)[1]}"',
     {TUNE: "import pathlib\nimport atom\n"
            "target = pathlib.Path(atom.__file__).parent / 'model_executor' / 'attention.py'\n"
            "target.write_text(target.read_text().replace('causal=True', 'causal=False'))\n"}),
])
def test_a_rewrite_of_the_engines_source_found_through_its_module_is_patching(line, extra):
    assert patch.run(_seed003(line, extra), SETTINGS).status == Status.FAIL


def test_a_helper_writing_next_to_its_own_file_is_no_patching():
    """The control: a program's own `__file__` (not an engine module's) locates nothing of the
    engine; writing a file next to it is no patching."""
    helper = ("import json, pathlib\nout = pathlib.Path(__file__).parent / 'warm.json'\n"
              "out.write_text(json.dumps({'ok': True}))\n")
    outcome = patch.run(_seed003(f'python3 "$(dirname "$0")/{TUNE.rsplit("/", 1)[1]}"', {TUNE: helper}), SETTINGS)
    assert outcome.status != Status.FAIL, outcome.reason

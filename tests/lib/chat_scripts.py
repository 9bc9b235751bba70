"""Check `chat` on a hand-written launch script, tests only: the scenario5 world's ATOM script
replaced by a server line and the given body (the red-team modules' shared fixture)."""

from __future__ import annotations

from infx.signoff.checks.chat import run
from infx.signoff.model import Status
from infx.signoff.rules.affected import AffectedConfig
from infx.signoff.table import load_table
from lib.signoff_policy_support import with_head_file, world_evidence

SETTINGS = load_table().settings
SCRIPT = "benchmarks/single_node/agentic/glm5.2_fp4_b300_atom_mtp.sh"
SERVER = ('python -m atom.entrypoints.openai_server --model "$MODEL" -tp 8 \\\n'
          '  --kv_cache_dtype fp8 --method mtp --num-speculative-tokens 3 \\\n'
          '  --spec-decode-acceptance-length 2.99 &\n')
BENCH = 'bench() {\n  aiperf profile --endpoint-type chat --url x\n}\n'
RAW = "aiperf profile --endpoint /v1/completions\n"


def chat_status(body: str) -> Status:
    """Check chat's status with ``body`` after the server line as the config's script."""
    evidence = world_evidence("scenario5")
    outcome = run(with_head_file(evidence, SCRIPT, "#!/usr/bin/env bash\n" + SERVER + body), SETTINGS)
    return outcome.status


def agentic_config() -> AffectedConfig:
    """A bare agentic vLLM spec-decode config, for the readers that take one."""
    return AffectedConfig("m-fp4-b200-vllm-agentic-mtp", {"framework": "vllm", "model-prefix": "m"}, "added", "m.yaml")

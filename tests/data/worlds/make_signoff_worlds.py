"""Build the sign-off world files signoff_seed000.yaml, signoff_seed003.yaml and
signoff_seed003_stale.yaml in this folder.

The worlds rebuild seed PR threads 000 (PASS) and 003 (REJECTED, then PASS; the stale world
is 003 before the second sign-off was posted) from
../shared/reference/seed-pr-threads/ for the fake GitHub server. Policy texts (checklist
template, eval thresholds, configs/policy, golden AL curves) are embedded from the repository
as it is when the script runs, so re-run it after changing them:

    python tests/data/worlds/make_signoff_worlds.py [OUTPUT_DIR]
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]
OUT = Path(__file__).resolve().parent


def sha(seed: str) -> str:
    return hashlib.sha1(seed.encode()).hexdigest()


class Literal(str):
    pass


def _lit(dumper, data):
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|")


yaml.SafeDumper.add_representer(Literal, _lit)


def lit(text):
    return Literal(text) if "\n" in text else text


def deep_lit(obj):
    if isinstance(obj, dict):
        return {k: deep_lit(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [deep_lit(v) for v in obj]
    if isinstance(obj, str):
        return lit(obj)
    return obj


def repo_text(path: str) -> str:
    return (ROOT / path).read_text(encoding="utf-8")


CHECKLIST = repo_text("PR_REVIEW_CHECKLIST.md")
POLICY_GLOBS = ("configs/policy/*.yaml", "configs/golden_al_distribution/*.yaml")
POLICY = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
          for pattern in POLICY_GLOBS for p in sorted(ROOT.glob(pattern))}
THRESHOLDS = repo_text("configs/evals/thresholds.yaml")
# the files above come from the repository; tests compare worlds without them
EMBEDDED = frozenset({"PR_REVIEW_CHECKLIST.md", "configs/evals/thresholds.yaml", *POLICY})
CODEOWNERS = """* @SemiAnalysisAI/core

# AMD master config
configs/amd-master.yaml @billishyahao @chunfangamd @seungrokj @yctseng0211 @1am9trash

# NVIDIA master config
configs/nvidia-master.yaml @ankur-singh @kedarpotdar-nv @SemiAnalysisAI/core

# PoR for Models & general direction
MODELS.md @ankur-singh @chunfangamd @SemiAnalysisAI/core

# OperatorX experimental
experimental/operatorx/ @hbarclay
"""

# The seed repository's own sweep workflow and the template it calls (fixed texts, not this
# project's files): provenance compares them between a run's commit and the default branch.
SWEEP_WORKFLOWS = {
    ".github/workflows/run-sweep.yml": """name: Run Sweep
on:
  pull_request:
    branches: [main]
    types: [synchronize, labeled, ready_for_review]
    paths: [perf-changelog.yaml]
  push:
    branches: [main]
    paths: [perf-changelog.yaml]
permissions: {}
jobs:
  agentic:
    name: agentic
    uses: ./.github/workflows/benchmark-tmpl.yml
    with: {bucket: agentic}
  multi-node:
    name: multi-node 8k1k
    uses: ./.github/workflows/benchmark-tmpl.yml
    with: {bucket: multi_node.8k1k}
  eval:
    name: eval
    uses: ./.github/workflows/benchmark-tmpl.yml
    with: {bucket: eval}
""",
    ".github/workflows/benchmark-tmpl.yml": """name: Benchmark
on:
  workflow_call:
    inputs:
      bucket: {type: string, required: true}
permissions: {}
jobs:
  run:
    runs-on: [self-hosted, mi355x]
    steps:
      - uses: actions/checkout@de0fac2e4500dabe0009e67214ff5f5447ce83dd # v6.0.2
        with: {persist-credentials: false}
      - name: Launch
        env: {BUCKET: "${{ inputs.bucket }}"}
        run: bash benchmarks/launch.sh "$BUCKET"
""",
}


def template_body():
    lines = CHECKLIST.split("```")[1].strip("\n").split("\n")
    return lines


def signoff(signer, detail_lines, checked=True, drop=(), unchecked=(), escape_checked=False):
    out = []
    for line in template_body():
        if line.startswith("### Additional"):
            break
        if any(d in line for d in drop):
            continue
        if "[ ]" in line:
            tick = checked and not any(u in line for u in unchecked)
            if "cannot reasonably be satisfied" in line:
                tick = escape_checked
            line = line.replace("[ ]", "[x]" if tick else "[ ]", 1)
        out.append(line.rstrip())
    while out and not out[-1]:
        out.pop()
    out += ["", "### Additional detail section:"] + detail_lines + ["", f"Signed: @{signer}"]
    return "\n".join(out)


VLLM_ENTRY = """minimaxm3-fp4-mi355x-vllm-agentic-mtp:
  image: vllm/vllm-openai-rocm:v0.27.1
  model: amd/MiniMax-M3-MXFP4
  model-prefix: minimaxm3
  runner: cluster:mi355x-amds
  precision: fp4
  framework: vllm
  multinode: false
  scenarios:
    agentic-coding:
    - dram-utilization: 0.20
      search-space:
      - { tp: 4, kv-offloading: none, conc-list: [1, 2, 4, 8], spec-decoding: mtp }
"""


AGENTIC_SCRIPT = """#!/usr/bin/env bash
set -euo pipefail
export ATOM_PA_FLYDSL=1
export ATOM_PA_FLYDSL_PLAN=1
atom serve "$MODEL" --tensor-parallel-size "$TP" --kv_cache_dtype fp8 \\
  --method eagle3 --draft-model Inferact/MiniMax-M3-EAGLE3-GQA --num-speculative-tokens 3 \\
  --spec-decode-acceptance-length 2.78
aiperf profile --endpoint /v1/chat/completions --endpoint-type chat --apply-chat-template \\
  --extra-inputs thinking_mode:enabled
"""


def atom_entry(image):
    return f"""minimaxm3-fp4-mi355x-atom-agentic-mtp:
  image: {image}
  model: amd/MiniMax-M3-MXFP4
  model-prefix: minimaxm3
  runner: cluster:mi355x-amds
  precision: fp4
  framework: atom
  multinode: false
  scenarios:
    agentic-coding:
    - dram-utilization: 0.20
      search-space:
      - {{ tp: 4, kv-offloading: none, conc-list: [1, 2, 4, 5, 8, 10, 12, 15, 20, 24, 28, 32], spec-decoding: mtp }}
      - {{ tp: 2, kv-offloading: none, conc-list: [1, 2], spec-decoding: mtp }}
      - {{ tp: 2, kv-offloading: dram, conc-list: [20, 25, 30], spec-decoding: mtp }}
      - {{ tp: 4, kv-offloading: dram, conc-list: [40, 48], spec-decoding: mtp }}
"""


CHANGELOG_BASE = """- config-keys:
    - minimaxm3-fp4-mi355x-vllm-agentic-mtp
  description:
    - "Add MiniMax-M3 MXFP4 AgentX on MI355X via vLLM"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/3189
"""


def seed000():
    repo = "SemiAnalysisAI/InferenceX"
    old_main, main = sha("seed000-old-main"), sha("seed000-main")
    sweep = "7bbb0ec775dd86b8f6ebb3c4e345cdfe283b1c1a"
    head = "296a93ad6c8fa017e83fb5f404f09f2efc16e1c4"
    run_id = 35873197630
    script = "benchmarks/single_node/agentic/minimaxm3_fp4_mi355x_atom_mtp.sh"
    base_files = {
        "CODEOWNERS": CODEOWNERS,
        "PR_REVIEW_CHECKLIST.md": CHECKLIST,
        "configs/evals/thresholds.yaml": THRESHOLDS,
        "configs/amd-master.yaml": VLLM_ENTRY + "\n" + atom_entry("rocm/atom-dev:nightly_202609171455"),
        "perf-changelog.yaml": CHANGELOG_BASE,
        script: "#!/usr/bin/env bash\nset -euo pipefail\natom serve \"$MODEL\" --tensor-parallel-size \"$TP\"\n",
        "utils/telemetry.py": "def filter_csv(rows):\n    return rows\n",
        "README.md": "# InferenceX\n",
    } | SWEEP_WORKFLOWS | POLICY
    commits = {
        old_main: {"parents": [], "message": "main before the PR", "files": base_files},
        main: {"parents": [old_main], "message": "telemetry: filter CSV", "files_from": old_main,
               "files": {"utils/telemetry.py": "def filter_csv(rows):\n    return [r for r in rows if r]\n"}},
        sweep: {"parents": [old_main], "message": "perf(amd): enable MiniMax-M3 ATOM FlyDSL decode",
                "files_from": old_main, "files": {
                    "configs/amd-master.yaml": VLLM_ENTRY + "\n" + atom_entry("rocm/atom-dev:nightly_202609231248"),
                    script: AGENTIC_SCRIPT,
                    "perf-changelog.yaml": CHANGELOG_BASE + """
- config-keys:
    - minimaxm3-fp4-mi355x-atom-agentic-mtp
  description:
    - "Enable ATOM FlyDSL paged decode (ROCm/ATOM#2366); bump to rocm/atom-dev:nightly_202609231248"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXX
  eval-concs: [48]
"""}},
        head: {"parents": [sweep, main], "message": "Merge branch 'main'", "files_from": sweep,
               "files": {"utils/telemetry.py": "def filter_csv(rows):\n    return [r for r in rows if r]\n"}},
    }
    cells = [(4, c) for c in (1, 2, 4, 5, 8, 10, 12, 15, 20, 24, 28, 32)] + [(2, 1), (2, 2)] + \
            [(2, 20), (2, 25), (2, 30), (4, 40), (4, 48)]
    runs = []
    for i, (tp, conc) in enumerate(cells):
        runs.append({"id": 70000 + i, "name": f"agentic / minimaxm3 fp4 mi355x atom tp{tp} c{conc}",
                     "status": "completed", "conclusion": "success",
                     "started_at": "2026-09-23T14:00:00Z", "completed_at": "2026-09-23T16:00:00Z",
                     "details_url": f"https://github.com/{repo}/actions/runs/{run_id}/job/{90000 + i}"})
    runs.append({"id": 70100, "name": "agentic eval / minimaxm3 fp4 mi355x atom tp4 c48",
                 "status": "completed", "conclusion": "success",
                 "started_at": "2026-09-23T14:00:00Z", "completed_at": "2026-09-23T16:30:00Z",
                 "details_url": f"https://github.com/{repo}/actions/runs/{run_id}/job/90100"})
    for j, name in enumerate(["collect-evals", "collect-results", "calc-success-rate"]):
        runs.append({"id": 70200 + j, "name": name, "status": "completed", "conclusion": "success",
                     "completed_at": "2026-09-23T17:00:00Z",
                     "details_url": f"https://github.com/{repo}/actions/runs/{run_id}/job/{90200 + j}"})
    head_runs = [
        {"id": 80001, "name": "Tests / pytest", "status": "completed", "conclusion": "failure",
         "completed_at": "2026-09-24T09:00:00Z",
         "details_url": f"https://github.com/{repo}/actions/runs/36000000001/job/95001"},
        {"id": 80002, "name": "lint", "status": "completed", "conclusion": "success",
         "completed_at": "2026-09-24T09:00:00Z",
         "details_url": f"https://github.com/{repo}/actions/runs/36000000002/job/95002"},
    ]
    # 19 points: 8 on the P90 frontier, 11 dominated
    points = []
    for k, (tp, conc) in enumerate(cells):
        if k < 8:
            x, y = 10.0 * (k + 1), 100.0 * (k + 1)
        else:
            x, y = 12.0 + 5 * (k - 8), 90.0 - k
        points.append({"hw": "mi355x-amds_0", "infmax_model_prefix": "minimaxm3", "model_prefix": "minimaxm3",
                       "framework": "atom", "precision": "fp4", "spec_decoding": "mtp",
                       "scenario_type": "agentic-coding", "tp": tp, "conc": conc,
                       "image": "rocm/atom-dev:nightly_202609231248",
                       "tput_per_gpu": y, "p90_e2el": x, "p75_e2el": x * 0.8, "median_e2el": x * 0.6})
    evals = [{"model_prefix": "minimaxm3", "hw": "MI355X", "framework": "atom", "precision": "fp4",
              "spec_decoding": "mtp", "isl": 8192, "osl": 1024, "tp": 4, "ep": 1, "conc": 48,
              "dp_attention": "false", "is_multinode": False, "task": "minimax_m3_full",
              "em_strict": 0.97, "em_strict_se": 0.017, "score": 0.97, "score_name": "em_strict",
              "score_se": 0.017, "n_eff": 102, "infrastructure_success": True, "integration_error": None,
              "source": "eval_minimaxm3_tp4_c48/results_2026-09-23T16-20-00.json"}]
    signer = "chunfangamd"
    detail = [
        "- Upstream recipe: framework atom, so the vLLM-recipes / SGLang-cookbook rule is N/A; the ATOM recipe gained ATOM_PA_FLYDSL=1 in ROCm/ATOM#2366 (MERGED).",
        "- Draft-model precision record: Inferact/MiniMax-M3-EAGLE3-GQA@96692486, shipped BF16, loaded by the pinned image without a quant config, effective BF16; draft KV FP8 inherited from the target. SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE is not set.",
        f"- Sweep and evals: run {run_id} on in-PR commit 7bbb0ec7; minimax_m3_full em_strict 0.97 (n=102).",
        "- Golden AL: --spec-decode-acceptance-length 2.78 with 3 draft tokens, thinking on (minimaxm3_eagle3_gqa thinking_on[3]).",
        "- Pareto coverage: 1 curve, 19 measured points, 0 invalid, 8 on the P90 frontier.",
    ]
    world = {
        "repo": repo, "default_branch": "main", "now": "2026-09-24T12:00:00Z",
        "token_login": "github-actions[bot]", "branches": {"main": main},
        "commits": commits,
        "collaborators": {"chunfangamd": {"permission": "write", "role_name": "write"},
                          "yhl-amd": {"permission": "write", "role_name": "write"},
                          "billishyahao": {"permission": "write", "role_name": "write"},
                          "seungrokj": {"permission": "write", "role_name": "write"},
                          "functionstackx": {"permission": "admin", "role_name": "admin"}},
        "teams": {"SemiAnalysisAI/core": ["functionstackx"]},
        "codeowners_errors": [],
        "pulls": [{
            "number": 3412, "title": "perf(amd): enable MiniMax-M3 ATOM FlyDSL decode",
            "body": "Enable the MiniMax-M3 paged-decode optimization from ROCm/ATOM#2366 in the existing MI355X AgentX recipe.",
            "user": "yhl-amd", "state": "open", "draft": False, "merged": False, "merged_at": None,
            "base": {"ref": "main", "sha": main},
            "head": {"ref": "yhl-amd/minimaxm3-flydsl", "sha": head, "repo": repo},
            "labels": ["full-sweep-fail-fast"], "commits": [sweep, head],
            "comments": [
                {"id": 5001, "user": "github-actions[bot]", "author_association": "NONE",
                 "body": "<!-- infx-welcome -->\nThanks for the contribution!",
                 "created_at": "2026-09-23T10:00:00Z", "updated_at": "2026-09-23T10:00:00Z"},
                {"id": 5002, "user": signer, "author_association": "COLLABORATOR",
                 "body": f"/reuse-sweep-run {run_id}",
                 "created_at": "2026-09-24T08:00:00Z", "updated_at": "2026-09-24T08:00:00Z"},
                {"id": 5003, "user": signer, "author_association": "COLLABORATOR",
                 "body": signoff(signer, detail, escape_checked=True),
                 "created_at": "2026-09-24T09:30:00Z", "updated_at": "2026-09-24T09:30:00Z"},
            ],
            "reviews": [], "review_comments": [],
        }],
        "check_runs": {sweep: runs, head: head_runs},
        "statuses": {},
        "workflow_runs": [
            {"id": run_id, "name": "Run Sweep", "path": ".github/workflows/run-sweep.yml",
             "event": "pull_request", "status": "completed", "conclusion": "success",
             "head_sha": sweep, "head_branch": "yhl-amd/minimaxm3-flydsl", "run_attempt": 2,
             "created_at": "2026-09-23T13:00:00Z",
             "artifacts": [
                 {"name": "eval_results_all", "expired": False, "files": {"agg_eval_all.json": evals}},
                 {"name": "results_bmk", "expired": False, "files": {"agg_bmk.json": points}},
             ]},
            head_status_run(35873197701, head, "yhl-amd/minimaxm3-flydsl", "2026-09-24T09:00:00Z"),
        ],
    }
    return world


def head_status_run(run_id: int, sha: str, branch: str, created_at: str) -> dict:
    """The sign-off workflow's run for a push (pull_request synchronize): GitHub's own record
    of when the PR head became `sha`, which binds a later sign-off to it."""
    return {"id": run_id, "name": "codeowner-signoff-verify", "path": ".github/workflows/signoff-verify.yml",
            "event": "pull_request", "status": "completed", "conclusion": "success",
            "head_sha": sha, "head_branch": branch, "run_attempt": 1, "created_at": created_at,
            "artifacts": []}


def seed003():
    repo = "SemiAnalysisAI/InferenceX"
    main = sha("seed003-main")
    sweep = "e1f3943" + sha("seed003-sweep")[7:]
    head = sha("seed003-head")
    run_id = 28761627583
    image = "rocm/atom-dev:nightly_202607011530"

    def disagg(prec):
        return f"""minimaxm3-{prec}-mi355x-atom-disagg-mtp:
  image: {image}
  model: amd/MiniMax-M3-{prec.upper()}
  model-prefix: minimaxm3
  runner: cluster:mi355x-amds
  precision: {prec}
  framework: atom-disagg
  multinode: true
  disagg: true
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - {{ spec-decoding: none, conc-list: [16, 32, 64, 128, 256, 512],
          prefill: {{ num-worker: 1, tp: 8, ep: 1, dp-attn: false }},
          decode: {{ num-worker: 1, tp: 8, ep: 8, dp-attn: true }} }}
    - isl: 8192
      osl: 1024
      search-space:
      - {{ spec-decoding: none, conc-list: [16, 32, 64, 128, 256],
          prefill: {{ num-worker: 1, tp: 8, ep: 1, dp-attn: false }},
          decode: {{ num-worker: 1, tp: 8, ep: 8, dp-attn: true }} }}
"""
    base_master = VLLM_ENTRY
    pr_master = VLLM_ENTRY + "\n" + disagg("fp4") + "\n" + disagg("fp8")
    base_files = {
        "CODEOWNERS": CODEOWNERS, "PR_REVIEW_CHECKLIST.md": CHECKLIST,
        "configs/evals/thresholds.yaml": THRESHOLDS, "configs/amd-master.yaml": base_master,
        "perf-changelog.yaml": CHANGELOG_BASE,
        "benchmarks/multi_node/amd_utils/server_atom.sh": "#!/usr/bin/env bash\natom serve \"$MODEL\" $MODEL_FLAGS\n",
        "benchmarks/multi_node/amd_utils/models_atom.yaml": "minimaxm3:\n  block_size: 128\n",
        "README.md": "# InferenceX\n",
    } | SWEEP_WORKFLOWS | POLICY
    commits = {
        main: {"parents": [], "message": "main", "files": base_files},
        sweep: {"parents": [main], "message": "refactor server_atom.sh; add minimaxm3 atom-disagg mtp",
                "files_from": main, "files": {
                    "configs/amd-master.yaml": pr_master,
                    "benchmarks/multi_node/amd_utils/server_atom.sh": "#!/usr/bin/env bash\nsource models_atom.sh\natom serve \"$MODEL\" $MODEL_FLAGS $ROLE_FLAGS\n",
                    "benchmarks/multi_node/amd_utils/models_atom.yaml": "minimaxm3:\n  block_size: 128\n  mem_fraction: 0.9\n",
                    "perf-changelog.yaml": CHANGELOG_BASE + """
- config-keys:
    - minimaxm3-fp4-mi355x-atom-disagg-mtp
    - minimaxm3-fp8-mi355x-atom-disagg-mtp
  description:
    - "Add MiniMax-M3 FP4/FP8 MI355X ATOM disagg recipes; refactor server_atom.sh"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/1902
"""}},
        head: {"parents": [sweep], "message": "docs: note per-role flags", "files_from": sweep,
               "files": {"README.md": "# InferenceX\n\nPer-role ATOM flags live in models_atom.yaml.\n"}},
    }
    runs = []
    n = 0
    for sc in ("1k1k", "8k1k"):
        for prec in ("fp4", "fp8"):
            for conc in (16, 32, 64, 128, 256):
                n += 1
                runs.append({"id": 60000 + n, "name": f"multi-node {sc} / minimaxm3 {prec} mi355x atom-disagg c{conc}",
                             "status": "completed", "conclusion": "success",
                             "completed_at": "2026-07-02T10:00:00Z",
                             "details_url": f"https://github.com/{repo}/actions/runs/{run_id}/job/{61000 + n}"})
    for prec in ("fp4", "fp8"):
        for sc in ("1k1k", "8k1k"):
            n += 1
            runs.append({"id": 60000 + n, "name": f"multi-node eval / minimaxm3 {prec} mi355x atom-disagg {sc}",
                         "status": "completed", "conclusion": "success",
                         "completed_at": "2026-07-02T11:00:00Z",
                         "details_url": f"https://github.com/{repo}/actions/runs/{run_id}/job/{61000 + n}"})
    for sc in ("1k1k", "8k1k"):
        n += 1
        runs.append({"id": 60000 + n, "name": f"single-node {sc} / none",
                     "status": "completed", "conclusion": "skipped",
                     "completed_at": "2026-07-02T09:00:00Z",
                     "details_url": f"https://github.com/{repo}/actions/runs/{run_id}/job/{61000 + n}"})
    evals = []
    for prec, scores in (("fp4", (0.9424, 0.9424)), ("fp8", (0.9530, 0.9416))):
        for (isl, osl), score in zip(((1024, 1024), (8192, 1024)), scores, strict=True):
            evals.append({"model_prefix": "minimaxm3", "hw": "MI355X", "framework": "atom-disagg",
                          "precision": prec, "spec_decoding": "none", "isl": isl, "osl": osl,
                          "is_multinode": True, "prefill_tp": 8, "decode_tp": 8, "conc": 64,
                          "task": "gsm8k", "em_strict": score, "score": score, "score_name": "em_strict",
                          "n_eff": 1319, "infrastructure_success": True, "integration_error": None})
    points = []
    for prec in ("fp4", "fp8"):
        for isl in (1024, 8192):
            for k, conc in enumerate((16, 32, 64, 128, 256)):
                points.append({"hw": "mi355x-amds", "infmax_model_prefix": "minimaxm3", "framework": "atom-disagg",
                               "precision": prec, "spec_decoding": "none", "isl": isl, "osl": 1024,
                               "conc": conc, "image": image, "disagg": True, "is_multinode": True,
                               "tput_per_gpu": 500.0 * (k + 1), "median_e2el": 2.0 * (k + 1)})
    stale = "\n".join([
        "As a PR reviewer and CODEOWNER, I have reviewed this and have:",
        "- [x] Verified that as of the moment of typing this, this is the latest version of PR_REVIEW_CHECKLIST.md",
        "- [x] Verified that the general code quality meets the InferenceX standard and does not make the code quality any worse.",
        "- [x] Verified that this PR has passed PR validation. https://inferencex.semianalysis.com/inference?unofficialRun=28761627583",
        "- [x] Verified that this PR passes evals. https://inferencex.semianalysis.com/evaluation?unofficialRun=28761627583",
        "- [x] If a company claims vLLM/SGLang support on their hardware, the vLLM/SGLang submission was made before additional frameworks (TRT-LLM, ATOM, etc.).",
        "- [ ] Verified that the single-node recipes are similar to the official vLLM recipes and/or the SGLang cookbook:",
        "  - [ ] If they are not, a PR has been opened in the vLLM recipe repo or SGLang repo and linked below:",
        "- [ ] If any of the above criteria cannot reasonably be satisfied, I have provided additional reasoning below.",
        "",
        "### Additional detail section:",
        "- insert any additional info here",
        "",
        "Signed: billishyahao",
    ])
    full = signoff("billishyahao", [
        "- Multi-node atom-disagg submission: the vLLM/SGLang recipe requirement does not apply to framework atom-disagg.",
        "- All added lanes set DECODE_MTP_SIZE=0, so spec decoding is inactive (no draft, no golden AL).",
        "- Pareto: 4 curves with 5 measured points each, all on the frontier.",
    ])
    world = {
        "repo": repo, "default_branch": "main", "now": "2026-07-03T12:00:00Z",
        "token_login": "github-actions[bot]", "branches": {"main": main},
        "commits": commits,
        "collaborators": {"billishyahao": {"permission": "write", "role_name": "write"},
                          "seungrokj": {"permission": "write", "role_name": "write"},
                          "chunfangamd": {"permission": "write", "role_name": "write"},
                          "functionstackx": {"permission": "admin", "role_name": "admin"}},
        "teams": {"SemiAnalysisAI/core": ["functionstackx"]},
        "codeowners_errors": [],
        "pulls": [{
            "number": 1902, "title": "[AMD] MiniMax-M3 FP4/FP8 MI355X ATOMESH (disagg): (0701) refactor config",
            "body": "Refactor server_atom.sh and models_atom.yaml; add minimaxm3-fp4/fp8-mi355x-atom-disagg-mtp.",
            "user": "seungrokj", "state": "open", "draft": False, "merged": False, "merged_at": None,
            "base": {"ref": "main", "sha": main},
            "head": {"ref": "seungrokj/atomesh-0701", "sha": head, "repo": repo},
            "labels": ["full-sweep-fail-fast"], "commits": [sweep, head],
            "comments": [
                {"id": 2001, "user": "seungrokj", "author_association": "COLLABORATOR",
                 "body": "@chunfangamd @billishyahao can you plz review this\nrecipe is at ROCm/ATOM#1447",
                 "created_at": "2026-07-02T12:00:00Z", "updated_at": "2026-07-02T12:00:00Z"},
                {"id": 2002, "user": "seungrokj", "author_association": "COLLABORATOR",
                 "body": "/reuse-sweep-run", "created_at": "2026-07-02T12:05:00Z",
                 "updated_at": "2026-07-02T12:05:00Z"},
                {"id": 2003, "user": "billishyahao", "author_association": "COLLABORATOR",
                 "body": stale, "created_at": "2026-07-03T08:00:00Z", "updated_at": "2026-07-03T08:00:00Z"},
                {"id": 2004, "user": "billishyahao", "author_association": "COLLABORATOR",
                 "body": full, "created_at": "2026-07-03T09:00:00Z", "updated_at": "2026-07-03T09:00:00Z"},
            ],
            "reviews": [], "review_comments": [],
        }],
        "check_runs": {sweep: runs},
        "statuses": {},
        "workflow_runs": [
            {"id": run_id, "name": "Run Sweep", "path": ".github/workflows/run-sweep.yml",
             "event": "pull_request", "status": "completed", "conclusion": "success",
             "head_sha": sweep, "head_branch": "seungrokj/atomesh-0701", "run_attempt": 1,
             "created_at": "2026-07-02T08:00:00Z",
             "artifacts": [
                 {"name": "eval_results_all", "expired": False, "files": {"agg_eval_all.json": evals}},
                 {"name": "results_bmk", "expired": False, "files": {"agg_bmk.json": points}},
             ]},
            head_status_run(28761627601, head, "seungrokj/atomesh-0701", "2026-07-02T13:00:00Z"),
        ],
    }
    return world


def before_full_template(world: dict) -> dict:
    """Seed 003 as it stood before the full template was posted: only the stale sign-off 2003."""
    world["now"] = "2026-07-03T08:30:00Z"
    pull = world["pulls"][0]
    pull["comments"] = [c for c in pull["comments"] if c["id"] != 2004]
    return world


def seed003_stale():
    return before_full_template(seed003())


HEADER = ("# {what}\n# Rebuilt from reference/seed-pr-threads/{seed} for the sign-off bot tests\n"
          "# (generated by make_signoff_worlds.py; trees are trimmed to the files the checks read).\n")
WORLDS = (
    ("signoff_seed000.yaml", seed000, "000_2ae5ef07e36395b1.txt",
     "Seed 000: a PASS sign-off on an ATOM AgentX image bump"),
    ("signoff_seed003.yaml", seed003, "003_7544061e0bc53ba4.txt",
     "Seed 003: a stale checklist (REJECTED), then the full template (PASS)"),
    ("signoff_seed003_stale.yaml", seed003_stale, "003_7544061e0bc53ba4.txt",
     "Seed 003 before the full template was posted: the stale checklist alone (REJECTED)"),
)


def render(builder, seed: str, what: str) -> str:
    text = yaml.dump(deep_lit(builder()), Dumper=yaml.SafeDumper, sort_keys=False,
                     allow_unicode=True, width=1000)
    return HEADER.format(what=what, seed=seed) + text


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else OUT
    out.mkdir(parents=True, exist_ok=True)
    for name, builder, seed, what in WORLDS:
        text = render(builder, seed, what)
        (out / name).write_text(text, encoding="utf-8")
        print("wrote", out / name, len(text))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

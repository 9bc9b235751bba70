"""Check 9 (chat): spec-decode benchmarks send prompts through the model's chat template."""

from __future__ import annotations

import re

from infx.signoff.affected import (
    affected_configs,
    config_where,
    draft_size_zero,
    is_spec_decode,
    launch_lines,
)
from infx.signoff.model import Evidence, Outcome, Status
from infx.signoff.policy_common import fail_closed, failed
from infx.signoff.scan import Line

# client settings that apply the chat template (AIPerf, bench-serving, srt-slurm, helpers)
_CHAT = re.compile(r"/v1/chat/completions|--endpoint-type[ =]chat\b|--apply-chat-template"
                   r"|--use-chat-template|\bopenai-chat\b|use_chat_template\s*[:=]\s*true"
                   r"|endpoint_type\s*[:=]\s*[\"']?chat\b", re.IGNORECASE)
_RAW = re.compile(r"/v1/completions\b|--endpoint-type[ =]completions\b|--backend[ =](?:openai|vllm|sglang)\b"
                  r"(?!-chat)", re.IGNORECASE)


@fail_closed("Chat-template use")
def run(evidence: Evidence) -> Outcome:
    configs = affected_configs(evidence)
    judged, failures, skipped = [], [], []
    for config in configs:
        lines = launch_lines(evidence, config)
        if not is_spec_decode(config, lines):
            if draft_size_zero(config):
                skipped.append(f"{config.key} sets the draft size to 0 on every lane")
            continue
        where = config_where(evidence, config)
        chat = _first(lines, _CHAT)
        raw = _first(lines, _RAW)
        if chat:
            judged.append(f"{where}: client uses the chat template ({chat.where()}: {_clip(chat.text)})")
        elif raw:
            failures.append(f"{where}: spec-decode benchmark drives raw completions without a chat "
                            f"template at {raw.where()}: {_clip(raw.text)}")
        else:
            failures.append(f"{where}: the benchmark client could not be verified to use a chat "
                            "template (no chat endpoint or template flag in its recipe or launch files)")
    if failures:
        return failed(failures, judged)
    if not judged:
        reason = "no spec-decode config is added or changed"
        return Outcome(Status.NA, reason + (f" ({'; '.join(skipped)})" if skipped else ""))
    return Outcome(Status.PASS, "; ".join(judged), tuple(judged))


def _first(lines: list[Line], pattern: re.Pattern[str]) -> Line | None:
    return next((ln for ln in lines if pattern.search(ln.text)), None)


def _clip(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"

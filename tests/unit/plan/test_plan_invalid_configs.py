"""Invalid master configs of real PRs (the older ``seq-len-configs`` layout) never crash the planner."""

from __future__ import annotations

import json
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lib.changelog_support import fixture_f_repo, git

from infx.cli import main as infx_main
from infx.config.master import MAX_REPORTED, load_master_configs_from_texts
from infx.errors import InfxError


def older_layout_entry(index: int) -> str:
    """A master entry as the reference wrote them before ``scenarios`` (seq-len-configs)."""
    return textwrap.dedent(f"""\
        old{index}-fp8-h100-vllm:
          image: vllm/vllm-openai:v0.9.0
          model: example/old-{index}
          model-prefix: old
          runner: h100
          precision: fp8
          framework: vllm
          multinode: false
          seq-len-configs:
          - isl: 1024
            osl: 1024
            search-space:
            - {{ tp: 8, conc-start: 4, conc-end: 64 }}
        """)


@pytest.fixture
def repo(tmp_path, test_data, monkeypatch):
    fixture_f_repo(tmp_path, test_data)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    return tmp_path


def test_plan_with_more_invalid_entries_than_reported_fails_located(repo, capsys):
    count = MAX_REPORTED + 5
    master = repo / "configs" / "f-master.yaml"
    master.write_text(master.read_text() + "".join(older_layout_entry(i) for i in range(count)))
    changelog = repo / "perf-changelog.yaml"
    changelog.write_text(changelog.read_text() + "- config-keys:\n    - alpha-fp8-h100-vllm\n"
                         "  description:\n    - \"Change\"\n  pr-link: XXX\n")
    base = git(repo, "rev-parse", "HEAD")
    git(repo, "commit", "-q", "-am", "older layout")
    head = git(repo, "rev-parse", "HEAD")
    code = infx_main(["plan", "--base-ref", base, "--head-ref", head])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert "Traceback" not in err and "KeyError" not in err
    lines = err.strip().splitlines()
    assert len(lines) == MAX_REPORTED + 1
    assert all(line.startswith("error: configs/f-master.yaml:") for line in lines[:-1])
    assert "[old0-fp8-h100-vllm]" in lines[0] and "'scenarios'" in lines[0]
    # two schema problems per entry (missing scenarios, unknown seq-len-configs): 60 in all
    assert lines[-1].startswith(f"error: and {2 * count - MAX_REPORTED} more problem(s)")


def test_every_invalid_entry_is_kept_from_semantic_rules():
    """An invalid entry after the reported ones is still never handed to the semantic rules."""
    text = "".join(older_layout_entry(i) for i in range(MAX_REPORTED * 2))
    with pytest.raises(InfxError) as caught:
        load_master_configs_from_texts([("configs/old-master.yaml", text)])
    assert "and 75 more problem(s)" in caught.value.problems[-1].message


# --- fuzz: master configs in the older layout ------------------------------------------------

_SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-3, 300), st.text(max_size=6),
                    st.sampled_from(["h100", "mi355x", "fp8", "vllm", "sglang", "true"]))
_WORKER = st.dictionaries(st.sampled_from(["num-worker", "tp", "ep", "dp-attn",
                                           "additional-settings"]), _SCALAR, max_size=5)
_ITEM = st.dictionaries(
    st.sampled_from(["tp", "ep", "dp-attn", "conc-start", "conc-end", "conc-list",
                     "spec-decoding", "prefill", "decode"]),
    st.one_of(_SCALAR, st.lists(st.integers(0, 128), max_size=3), _WORKER), max_size=6)
_SEQ = st.dictionaries(st.sampled_from(["isl", "osl", "search-space"]),
                       st.one_of(_SCALAR, st.lists(_ITEM, max_size=3)), max_size=3)
_ENTRY = st.dictionaries(
    st.sampled_from(["image", "model", "model-prefix", "runner", "precision", "framework",
                     "multinode", "disagg", "seq-len-configs", "scenarios", "router"]),
    st.one_of(_SCALAR, st.lists(_SEQ, max_size=2),
              st.fixed_dictionaries({"fixed-seq-len": st.lists(_SEQ, max_size=2)})),
    max_size=11)


_BASE = {"image": "vllm/vllm-openai:v0.9.0", "model": "example/old", "model-prefix": "old",
         "runner": "h100", "precision": "fp8", "framework": "vllm", "multinode": False,
         "seq-len-configs": [{"isl": 1024, "osl": 1024,
                              "search-space": [{"tp": 8, "conc-start": 4, "conc-end": 64}]}]}


@st.composite
def older_entry(draw) -> object:
    """The older-layout entry with some fields dropped or replaced, or something else entirely."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.one_of(_ENTRY, _SCALAR))
    dropped = draw(st.sets(st.sampled_from(sorted(_BASE)), max_size=3))
    entry = {name: value for name, value in _BASE.items() if name not in dropped}
    entry.update(draw(_ENTRY.map(lambda extra: dict(list(extra.items())[:2]))))
    return entry


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(older_entry(), max_size=40))
def test_fuzz_older_layout_never_tracebacks(entries):
    configs = {f"old{index}-fp8-h100-vllm": entry for index, entry in enumerate(entries)}
    text = json.dumps(configs)  # JSON is YAML: the loader reads it as a master file
    try:
        loaded = load_master_configs_from_texts([("configs/fuzz-master.yaml", text)])
    except InfxError as error:
        assert error.problems
        assert all(problem.message for problem in error.problems)
        assert len(error.problems) <= MAX_REPORTED + 1
    else:
        assert set(loaded) == set(configs)

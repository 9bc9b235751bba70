"""Config-key resolution in the planner's (``*`` only) and the generator's (globs) dialects."""

from __future__ import annotations

import pytest

from infx.config.keys import KeyResolutionError, Wildcards, resolve_config_keys

STAR, GLOB = Wildcards.STAR, Wildcards.GLOB

ORDER = ["config-b", "config-a", "other"]


def test_wildcards_follow_master_order_and_dedupe():
    assert resolve_config_keys(["config-*", "config-a"], ORDER, STAR) == ["config-b", "config-a"]
    assert resolve_config_keys(["other", "config-*"], ORDER, STAR) == ["other", "config-b",
                                                                  "config-a"]
    assert resolve_config_keys(["*"], ORDER, STAR) == ORDER


def test_question_mark_is_literal_and_errors_name_the_key():
    with pytest.raises(KeyResolutionError, match="Config key 'config-\\?' not found"):
        resolve_config_keys(["config-?"], ORDER, STAR)
    with pytest.raises(KeyResolutionError,
                       match="No config keys matched the wildcard pattern 'zeta-\\*'"):
        resolve_config_keys(["config-a", "zeta-*"], ORDER, STAR)


def test_regex_characters_in_keys_are_literal():
    assert resolve_config_keys(["qwen3.5-*"], ["qwen3.5-a", "qwen3x5-b"], STAR) == ["qwen3.5-a"]


def test_the_generator_dialect_speaks_globs_and_its_own_words():
    assert resolve_config_keys(["config-?"], ORDER, GLOB) == ["config-b", "config-a"]
    assert resolve_config_keys(["config-[a]*"], ORDER, GLOB) == ["config-a"]
    with pytest.raises(KeyResolutionError, match="Pattern 'zeta-\\*' matched no config keys."):
        resolve_config_keys(["zeta-*"], ORDER, GLOB)
    with pytest.raises(KeyResolutionError, match="Config key\\(s\\) not found: zeta."):
        resolve_config_keys(["zeta"], ORDER, GLOB)

"""infx.signoff.swept: the config keys the PR's plan sweeps."""

from __future__ import annotations

from lib.project_trees import BASE, KEY, MASTER, SIBLING

from infx.signoff.swept import swept_keys

CHANGELOG = "perf-changelog.yaml"


def _entry(key: str, pr: int) -> str:
    return f"- config-keys:\n    - {key}\n  description:\n    - bump\n  pr-link: https://github.com/o/r/pull/{pr}\n"


def test_appended_entries_name_the_swept_keys():
    head = BASE | {CHANGELOG: BASE[CHANGELOG].rstrip("\n") + "\n\n" + _entry(KEY, 9)}
    assert swept_keys(head, BASE) == [KEY]
    assert swept_keys(BASE, BASE) == []


def test_an_entry_a_squash_put_before_later_entries_still_names_its_keys():
    # real #2700: the squash inserted the PR's entry above one merged meanwhile (Check append
    # judges the byte contract); the keys it sweeps are still those of the entry it adds
    base = BASE | {CHANGELOG: BASE[CHANGELOG].rstrip("\n") + "\n\n" + _entry(SIBLING, 8)}
    text = base[CHANGELOG]
    cut = text.rindex("- config-keys:")
    head = base | {CHANGELOG: text[:cut] + _entry(KEY, 9) + "\n" + text[cut:]}
    assert swept_keys(head, base) == [KEY]
    assert MASTER in head

"""Check `template`: the sign-off carries every item of the current checklist template, checked or explained."""

from __future__ import annotations

import re

from infx.inert import code, link
from infx.signoff.model import Evidence, Outcome, Status
from infx.signoff.rules.policy_reads import first_trusted_file
from infx.signoff.table import Anchor, Settings
from infx.signoff.trigger import checklist
from infx.signoff.trigger.checklist import Item

_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_URL = re.compile(r"https?://\S+")
_WORD = re.compile(r"[a-z0-9_]+(?:[-.][a-z0-9_]+)*")
JACCARD_MIN = 0.5


def words(text: str) -> frozenset[str]:
    """Case-folded words of a line with markdown links reduced to their text and URLs dropped."""
    text = _URL.sub(" ", _LINK.sub(r"\1", text)).lower().replace("`", "").replace("*", "")
    return frozenset(_WORD.findall(text))


def has_all(anchor_words: tuple[str, ...], line_words: frozenset[str]) -> bool:
    return all(any(word in token for token in line_words) for word in anchor_words)


def anchor_for(item: Item, anchors: tuple[Anchor, ...]) -> Anchor | None:
    """The most specific anchor whose words all occur in the template item."""
    fitting = [a for a in anchors if has_all(a.words, words(item.text))]
    return max(fitting, key=lambda a: len(a.words), default=None)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def _match_score(t_words: frozenset[str], s_words: frozenset[str],
                 anchor: Anchor | None) -> float | None:
    """How well a sign-off item answers a template item: exact words 3, the item's anchor words
    1 and up, else the word overlap when it is high enough; None when it does not answer it."""
    similarity = _jaccard(t_words, s_words)
    if t_words == s_words:
        return 3.0
    if anchor is not None and has_all(anchor.words, s_words):
        return 1.0 + len(anchor.words) / 10 + similarity
    return similarity if similarity >= JACCARD_MIN else None


def match_items(template: tuple[Item, ...], signed: tuple[Item, ...],
                anchors: tuple[Anchor, ...]) -> dict[int, Item]:
    """Template item index -> the sign-off item that answers it (one-to-one, best score first)."""
    signed_words = [words(item.text) for item in signed]
    scored = []
    for t_index, t_item in enumerate(template):
        t_words, anchor = words(t_item.text), anchor_for(t_item, anchors)
        for s_index, s_words in enumerate(signed_words):
            score = _match_score(t_words, s_words, anchor)
            if score is not None:
                scored.append((-score, t_index, s_index))
    matched: dict[int, Item] = {}
    used: set[int] = set()
    for _, t_index, s_index in sorted(scored):
        if t_index not in matched and s_index not in used:
            matched[t_index] = signed[s_index]
            used.add(s_index)
    return matched


def run(evidence: Evidence, settings: Settings) -> Outcome:
    path, text = first_trusted_file(evidence, settings.checklist_paths)
    if text is None:
        return Outcome(Status.FAIL, "the checklist template could not be read from the default "
                       "branch, so the sign-off cannot be compared with it.")
    template = checklist.template_items(text)
    if not template:
        return Outcome(Status.FAIL, f"{path} on the default branch has no {code('## Template')} block "
                       "with checklist items.")
    parsed = checklist.parse(evidence.signoff.body)
    matched = match_items(template, parsed.items, settings.template_anchors)
    missing, unexplained = [], []
    for index, item in enumerate(template):
        anchor = anchor_for(item, settings.template_anchors)
        label = anchor.label if anchor else _short(item.text)
        answer = matched.get(index)
        if answer is None:
            missing.append(label)
        elif not answer.checked and not _excused(anchor, parsed):
            unexplained.append(label)
    if not missing and not unexplained:
        return Outcome(Status.PASS, f"every item of the current {path} template "
                       f"({len(template)} items) is present and checked or explained.")
    parts = []
    if missing:
        parts.append(f"the sign-off is missing {len(missing)} current-template item(s) "
                     f"({'; '.join(missing)})")
    if unexplained:
        parts.append(f"leaves {len(unexplained)} item(s) unchecked with no explanation in the "
                     f"Additional detail section ({'; '.join(unexplained)})")
    url = f"https://github.com/{evidence.repo}/blob/{evidence.default_branch}/{path}"
    return Outcome(Status.FAIL, " and ".join(parts) + f"; re-post it from the current template "
                   f"in {link(path, url)}.")


def _excused(anchor: Anchor | None, parsed: checklist.Checklist) -> bool:
    if anchor is not None and anchor.escape_hatch:
        return True
    if parsed.detail_is_placeholder or anchor is None or parsed.detail is None:
        return False
    return any(has_all(anchor.words, words(line)) for line in parsed.detail.split("\n"))


def _short(text: str) -> str:
    plain = " ".join(_URL.sub("", _LINK.sub(r"\1", text)).split())
    return plain if len(plain) <= 60 else plain[:57] + "..."

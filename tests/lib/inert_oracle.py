"""Every renderer of untrusted text, and the oracle that judges its output with GitHub's renderer.

A renderer takes one untrusted string and returns the markdown the product would post, with
that string in every place untrusted text reaches (verdict rows, report tables and chart
titles, step summaries, acknowledgement summaries). The oracle renders the markdown with
cmark-gfm (GitHub's renderer, with its extensions: tables, autolinks, strikethrough, tag
filter) and compares it with the same renderer fed a harmless word: the HTML must have the
same tags, attributes and table cells (nothing the product did not write) and the text
outside code no mention, issue reference or emoji shortcode. Shared by tests/unit/core/test_inert.py
(a small generated count) and benchmarks/bench_inert.py (>= 20,000 strings per renderer).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable
from functools import cache
from html.parser import HTMLParser

import cmarkgfm
from cmarkgfm.cmark import Options

from infx.config.thresholds import Thresholds
from infx.github.models import Job
from infx.inert import SENTINELS
from infx.report import build as sweep_report
from infx.retest.failed import rerun_summary
from infx.reuse.ack import rejected_summary
from infx.signoff import render as verdict_render
from infx.signoff.model import Outcome, Status
from infx.signoff.table import load_table
from infx.signoff.verdict import from_outcomes
from infx.workflow import collect
from infx.workflow.shard import Duplicate
from infx.workflow.shard_summary import shard_summary

REPO = "acme/bench"
HARMLESS = "zq"
# GitHub's mention, team-mention and reference filters run on the rendered text (not code)
MENTION = re.compile(r"(?<![\w`/])@[A-Za-z0-9][A-Za-z0-9-]*(?:/[\w.-]+)?")
REFERENCE = re.compile(r"(?<![\w&/])(?:[\w.-]+/[\w.-]+)?#\d+\b")
SHORTCODE = re.compile(r":[a-z0-9_+-]+:")

# what opens structure: autolink triggers, HTML, entities, mentions, table pipes, code, links,
# emphasis, line separators, and the inert module's own sentinels
TRIGGERS = ("www.", "WWW.", "http://", "https://", "ftp://", "mailto:", "xmpp:", "a@b.co", "@", "@org/team",
            "#1", "GH-1", ":+1:", ":x:", "<img src=//x/y.png>", "<a href=//e>", "</td>", "</details>",
            "<!--", "-->", "<br>", "&#64;", "&lt;", "&amp;", "&#x7c;", "`", "``", "```", "~~~", "|",
            "\\|", "[", "]", "](//e)", "![", "(", ")", "*", "**", "_", "__", "~", "~~", "\\", ">",
            "#", "-", "+", "1.", "=", "\n", "\r", "\r\n", "\u2028", "\u2029", "\x85", "\x0b", "\x0c",
            "\t", " ", "\u200b", "\u202e", "\ue000", "\ue001", "\ue002", "\ue003", "\ue004", "x", "e.co",
            ".", "!", ":", "/", "//", "'", '"', "\x00")
PUNCTUATION = tuple("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


class Html(HTMLParser):
    """Start tags with their attributes, comments, and the text outside code and links."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, tuple]] = []
        self.text: list[str] = []
        self.cells: list[list[str]] = []  # the text of each table cell
        self.inside = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append((tag, tuple(attrs)))
        self.inside += tag in ("code", "a", "pre")
        if tag in ("td", "th"):
            self.cells.append([])

    def handle_endtag(self, tag: str) -> None:
        self.inside -= tag in ("code", "a", "pre")

    def handle_data(self, data: str) -> None:
        if self.cells:
            self.cells[-1].append(data)
        if not self.inside:
            self.text.append(data)

    def handle_comment(self, data: str) -> None:
        self.tags.append(("!--", (data,)))


def rendered(markdown: str) -> Html:
    html = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    parsed = Html()
    parsed.feed(html)
    parsed.close()
    return parsed


def composed(text: str) -> str:
    """Untrusted text as it reaches a reason the bot composes (an f-string around evidence): the
    inert module's private-use sentinels there are the bot's own code spans and links (see
    infx/inert.py), so generated strings carry none; raw values (cells, names) keep them."""
    return "".join(ch for ch in text if ch not in SENTINELS)


# ---- the renderers --------------------------------------------------------------------------------


def verdict_rows(text: str) -> str:
    text = composed(text)
    table = load_table()
    outcomes = {spec.id: Outcome(Status.PASS if Status.PASS in spec.statuses else Status.NA, "fine.")
                for spec in table.checks}
    outcomes["chat"] = Outcome(Status.FAIL, f"script.sh:8: {text}", (f"detail {text}",))
    context = verdict_render.Context(marker="codeowner-signoff-verify", assessed_sha="a" * 40, signer="alice",
                                     evidence_digest="0123456789abcdef", repo=REPO)
    return verdict_render.render(from_outcomes(table, outcomes), context)


def report_tables(text: str) -> str:
    job_url = f"https://github.com/{REPO}/actions/runs/7/job/1"
    jobs = (Job(1, f"single-node 1k1k / {text}", conclusion="failure", html_url=job_url),
            Job(2, f"evals / {text} 2", conclusion="failure"))
    evals = [{"task": text, "job_name": text, "model_prefix": text, "precision": text, "hw": text,
              "framework": text, "conc": text, "score": 0.5, "infrastructure_success": True, "source": text},
             {"task": "gsm8k", "job_name": f"{text} 2", "model_prefix": text, "conc": 4, "score": 0.9,
              "infrastructure_success": True}]
    bench = [{"model_prefix": text, "hw": text, "framework": text, "precision": text, "isl": text, "osl": 1,
              "job_name": text, "conc": text, "tp": text, "median_e2el": 1.0 + i, "tput_per_gpu": 10.0 + i} for i in range(2)]
    reason = composed(text)
    checks = (sweep_report.CheckResult(1, text, Outcome(Status.FAIL, reason, (reason, reason))),)
    report = sweep_report.Report(
        repo=REPO, pr_number=1, run_id=7, run_attempt=1, head_sha="b" * 40, jobs=jobs,
        configs={text: {"model-prefix": text}}, claimed={text: 3}, benchmark_rows=bench, eval_rows=evals,
        thresholds=Thresholds(default={"gsm8k": 0.5}, models={text: {"gsm8k": 0.8}}),
        thresholds_source=text, checks=checks, problems=(reason,))
    return sweep_report.render(report)


def report_notes(text: str) -> str:
    """The report's prose paths: unreadable jobs, floors and reuse, each with a reason from evidence."""
    text = composed(text)
    report = sweep_report.Report(repo=REPO, pr_number=1, run_id=7, run_attempt=1, head_sha="b" * 40,
                                 jobs=text, reused=text, eval_rows=[], thresholds=text, checks=text)
    return sweep_report.render(report)


def step_summaries(text: str) -> str:
    rows = [{"job_name": text, "source": text, "conc": text, "task": text, "score": 0.5, "score_name": text,
             "n_eff": 3, "infrastructure_success": False, "integration_error": {"type": text}},
            {"job_name": text, "source": text, "conc": 1, "task": text, "score": None, "score_name": None,
             "n_eff": None, "infrastructure_success": True, "integration_error": None}]
    bench = [{"job_name": text, "conc": text, "tput_per_gpu": 1.0, "input_tput_per_gpu": 2.0,
              "output_tput_per_gpu": 3.0, "median_e2el": text}]
    shards = shard_summary({text: [{}]}, (Duplicate(text, text, 2),), [{"job-name": text}])
    return "\n".join([shards, collect.summary(rows, "eval"), collect.summary(bench, "benchmark")])


def acknowledgement_summaries(text: str) -> str:
    return "\n\n".join([rejected_summary(12, composed(text)), rerun_summary(12, composed(text), (text, f"{text} 2"))])


RENDERERS: dict[str, Callable[[str], str]] = {
    "verdict rows": verdict_rows,
    "report tables and charts": report_tables,
    "report notes": report_notes,
    "step summaries": step_summaries,
    "acknowledgement summaries": acknowledgement_summaries,
}


@cache
def _expected(renderer: Callable[[str], str]) -> Html:
    return rendered(renderer(HARMLESS))


def generate(rng: random.Random, pieces: int = 12) -> str:
    """One hostile string: triggers, each maybe after a punctuation character, and random text."""
    out = []
    for _ in range(rng.randint(1, pieces)):
        roll = rng.random()
        if roll < 0.45:
            out.append(rng.choice(TRIGGERS))
        elif roll < 0.85:
            out.append(rng.choice(PUNCTUATION) + rng.choice(TRIGGERS))
        else:
            out.append("".join(chr(rng.randint(0x20, 0x7e)) for _ in range(rng.randint(1, 3))))
    return "".join(out)


def problems(renderer: Callable[[str], str], text: str) -> list[str]:
    """What the untrusted `text` made of the renderer's output that a harmless word does not."""
    expected, got = _expected(renderer), rendered(renderer(text))
    found = []
    # text that is empty once made one line may drop a code span the product would have written;
    # it never adds a tag, an attribute or a cell
    extra = Counter(got.tags) - Counter(expected.tags)
    if extra:
        found.append(f"tags the product did not write: {sorted(extra)[:3]}")
    if len(got.cells) != len(expected.cells):
        found.append(f"{len(got.cells)} table cells, {len(expected.cells)} written")
    else:  # a cell the untrusted text does not reach shows what the product wrote (no shifted column)
        for want, have in zip(expected.cells, got.cells, strict=True):
            if HARMLESS not in "".join(want) and "".join(want) != "".join(have):
                found.append(f"cell {''.join(want)!r} shows {''.join(have)!r}")
                break
    shown = "".join(got.text)
    for name, pattern in (("mention", MENTION), ("reference", REFERENCE), ("shortcode", SHORTCODE)):
        forged = set(pattern.findall(shown)) - set(pattern.findall("".join(expected.text)))
        if forged:
            found.append(f"{name}: {sorted(forged)[:3]}")
    return found

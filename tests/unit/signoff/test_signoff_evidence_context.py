"""The lazy evidence context: each check's declared `needs` (checks.yaml) are what it reads, each
piece is read once on first need, and a piece that cannot be read makes the verdict `error` naming it."""

from __future__ import annotations

import copy
from dataclasses import fields, replace
from typing import ClassVar

import pytest

from infx import yamlio
from infx.errors import InfxError
from infx.signoff import evidence as ev
from infx.signoff import pipeline as publish
from infx.signoff.model import Evidence
from infx.signoff.table import CheckTable, load_table
from infx.signoff.trigger.gating import SignoffRef, Trigger
from infx.signoff.verdict import run_check

# (world, PR, sign-off comment): verdicts of every kind, a team owner, a recipe page, reuse commands
CASES = [
    ("signoff_seed000.yaml", 3412, 5003),
    ("signoff_seed003.yaml", 1902, 2004),
    ("signoff_seed003_stale.yaml", 1902, 2003),
    ("trust_catch_all_team.yaml", 3412, 5003),
    ("trust_recipe_page.yaml", 3601, 9601),
    ("trust_reuse_read_member.yaml", 3412, 5003),
    ("trust_reuse_private_member.yaml", 3412, 5003),
    ("trust_drift.yaml", 3412, 5003),
    ("trust_fork_forged.yaml", 3412, 5003),
    ("signoff_seed000.yaml+bypass", 3412, 5003),
]
SEED_HEAD = "296a93ad6c8fa017e83fb5f404f09f2efc16e1c4"


def world_of(request, name: str) -> dict:
    """A world file; `+bypass`: with an admin's Pareto bypass of the head before the sign-off."""
    name, _, variant = name.partition("+")
    world = yamlio.load_file(request.config.rootpath / "tests/data/worlds" / name)
    if variant == "bypass":
        world["pulls"][0]["comments"].insert(-1, {
            "id": 5010, "user": "functionstackx", "author_association": "MEMBER",
            "body": f"/pareto-bypass {SEED_HEAD}", "created_at": "2026-09-24T09:00:00Z",
            "updated_at": "2026-09-24T09:00:00Z"})
    return world


def table_of(name: str) -> CheckTable:
    """The check table; `+bypass`: asking for more frontier points than the sweep has, so
    Check `pareto` warns and reports the bypass (read with the bypass's author's permission)."""
    table = load_table()
    if name.endswith("+bypass"):
        table = replace(table, settings=replace(table.settings, recommended_frontier_points=50))
    return table


def verify_capturing_scope(fake, pr: int, comment: int, monkeypatch,
                           table: CheckTable | None = None) -> tuple[publish.Result, Evidence]:
    """A real verification, and a copy of the evidence as scope left it (before any piece)."""
    scoped: list[Evidence] = []
    provide = ev.Context.provide

    def spy(self, specs, *also):
        if not scoped:
            scoped.append(copy.deepcopy(self.evidence))
        return provide(self, specs, *also)

    monkeypatch.setattr(ev.Context, "provide", spy)
    trigger = Trigger(True, "test", pr, SignoffRef("issue_comment", comment))
    result = publish.verify(fake.client(), fake.world["repo"], trigger, publish.Options(), table)
    monkeypatch.undo()
    assert scoped, result.reason
    return result, scoped[0]


def closure(names: tuple[str, ...]) -> list[str]:
    """The pieces `names` come after too, in reading order."""
    wanted, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name not in wanted:
            wanted.add(name)
            todo.extend(ev.PIECES[name].after)
    return [name for name in ev.PIECES if name in wanted]


# what scope reads before any piece (the PR, the sign-off, its changed files, the default
# branch's files), and the record of failed reads every piece writes to (the actor's permission
# that scope also reads into `collaborators` is no check's evidence)
SCOPE = frozenset({"repo", "default_branch", "now", "pr", "signoff", "files", "default_branch_files",
                   "read_errors", "unreadable"})


class Watched(Evidence):
    """Evidence that notes which of its fields are read (a check's own `replace` copies too)."""

    touched: ClassVar[set[str]] = set()

    def __getattribute__(self, name: str):
        if not name.startswith("_"):
            Watched.touched.add(name)
        return super().__getattribute__(name)


def watched(evidence: Evidence) -> Watched:
    return Watched(**{f.name: getattr(evidence, f.name) for f in fields(Evidence)})


def test_every_need_the_table_declares_is_a_piece_of_the_evidence_layer() -> None:
    declared = {name for spec in load_table().checks for name in spec.needs}
    assert declared and declared <= set(ev.PIECES)
    assert set(publish.PUBLISHING) <= set(ev.PIECES)


@pytest.mark.parametrize(("name", "pr", "comment"), CASES, ids=[c[0] for c in CASES])
def test_each_check_decides_the_same_on_only_the_pieces_it_declares(request, fake_github, monkeypatch,
                                                                    name, pr, comment) -> None:
    """Read with only a check's `needs`, on a fresh server, every check concludes what it
    concluded on the whole evidence of the real verdict: a piece it reads but does not
    declare would be unread here (its outcome would differ), and nothing else is read."""
    world = world_of(request, name)
    table = table_of(name)
    result, scoped = verify_capturing_scope(fake_github(copy.deepcopy(world)), pr, comment, monkeypatch,
                                            table)
    assert result.verdict is not None, result.reason
    full = {row.spec.id: row.outcome for row in result.verdict.rows}
    for spec in table.checks:
        fake = fake_github(copy.deepcopy(world))
        reader = ev.Reader(fake.client(), world["repo"], table.settings.max_api_calls)
        context = ev.Context(reader, copy.deepcopy(scoped), table.settings)
        alone = context.provide([spec])
        assert context.read == closure(spec.needs), spec.id
        assert run_check(spec, alone, table.settings) == full[spec.id], spec.id
        assert reader.calls < result.api_calls, spec.id


def test_a_piece_is_read_once_in_reading_order_and_an_unknown_one_is_refused(request, fake_github,
                                                                            monkeypatch) -> None:
    world = world_of(request, "signoff_seed000.yaml")
    _, scoped = verify_capturing_scope(fake_github(copy.deepcopy(world)), 3412, 5003, monkeypatch)
    fake = fake_github(copy.deepcopy(world))
    reader = ev.Reader(fake.client(), world["repo"], 150)
    context = ev.Context(reader, scoped, load_table().settings)
    context.need("timeline", "commits")  # asked together: read in the layer's order
    assert context.read == ["commits", "timeline"]
    assert scoped.commits and scoped.timeline is not None and scoped.head_files == {}
    calls = reader.calls
    context.need("commits", "timeline")
    assert reader.calls == calls and fake.count("GET", r"/pulls/3412/commits$") == 1
    context.need("sweep runs")  # what it comes after first, each once
    assert context.read == ["commits", "timeline", "head tree", "base tree", "branch runs", "branch pulls",
                            "sweep runs"]
    assert scoped.head_files and scoped.check_runs and scoped.branch_runs
    with pytest.raises(InfxError, match="no such piece of evidence: sweep"):
        context.need("sweep")


def test_a_piece_that_cannot_be_read_makes_the_verdict_an_error_naming_it(request, fake_github) -> None:
    """The reuse command's head tree (the swept commit's, read again for it once the sweep's
    own read of it failed) answers 502 every time: recorded under the piece's name, so the
    verdict comment says what could not be read, instead of the run ending without one."""
    world = world_of(request, "trust_reuse_private_member.yaml")
    world.setdefault("faults", []).append({"path": "/tarball/7bbb0ec775dd86b8f6ebb3c4e345cdfe283b1c1a",
                                           "status": 502})
    fake = fake_github(world)
    trigger = Trigger(True, "test", 3412, SignoffRef("issue_comment", 5003))
    result = publish.verify(fake.client(), world["repo"], trigger, publish.Options())
    assert result.kind == "error" and result.status == "error"
    assert set(result.evidence.unreadable) >= {"reuse command", "tree:7bbb0ec775dd86b8f6ebb3c4e345cdfe283b1c1a"}
    assert "- reuse command: " in result.body and result.posted


@pytest.mark.parametrize(("name", "pr", "comment"), CASES, ids=[c[0] for c in CASES])
def test_each_check_reads_only_fields_of_scope_and_of_the_pieces_it_declares(
        request, fake_github, monkeypatch, name, pr, comment) -> None:
    """Every field of the evidence a check reads (on the whole evidence of a real verdict) is
    scope's or filled by a piece it declares (or one that piece comes after)."""
    world = world_of(request, name)
    table = table_of(name)
    result, _ = verify_capturing_scope(fake_github(copy.deepcopy(world)), pr, comment, monkeypatch, table)
    evidence_fields = {f.name for f in fields(Evidence)}
    for row in result.verdict.rows:
        allowed = SCOPE | {f for piece in closure(row.spec.needs) for f in ev.PIECES[piece].fills}
        Watched.touched = set()
        assert run_check(row.spec, watched(result.evidence), table.settings) == row.outcome
        assert (Watched.touched & evidence_fields) - allowed == set(), row.spec.id
    if name.endswith("+bypass"):  # the case reaches what it is for
        assert "recorded by @functionstackx (repository admin)" in next(
            row.outcome.reason for row in result.verdict.rows if row.spec.id == "pareto")


def test_the_report_reads_only_what_its_checks_need(request, fake_github) -> None:
    """The sweep report's snapshot (Checks sweep, evals, pareto) never reads team memberships,
    which it does not need: on a token that cannot read teams it still has its rows, while the
    verdict, whose CODEOWNER check needs them, is `error` naming the teams."""
    from infx.report.snapshot import snapshot

    world = world_of(request, "trust_no_app.yaml")
    fake = fake_github(copy.deepcopy(world))
    shot = snapshot(fake.client(), world["repo"], 3412)
    assert shot.problem is None and [spec.id for spec, _ in shot.rows] == ["sweep", "evals", "pareto"]
    assert fake.count("GET", r"/teams/") == 0 and shot.evidence.team_members == {}
    fake = fake_github(copy.deepcopy(world))
    trigger = Trigger(True, "test", 3412, SignoffRef("issue_comment", 5003))
    result = publish.verify(fake.client(), world["repo"], trigger, publish.Options())
    assert result.kind == "error" and any(key.startswith("team:") for key in result.evidence.unreadable)

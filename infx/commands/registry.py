"""Every slash command in one table: its grammar, who may use it, help text, examples and the workflow that answers it.

The welcome comment and the `/help` answer are generated from this table, and a line that
nearly spells one of its commands (a known name with the wrong arguments, a name cut short at a
hyphen, a typo within edit distance 2) is answered with the command it probably meant. The
shape follows Prow's plugin help (usage, description, who can use it, examples); the lines
themselves are parsed by infx.commands.grammar, by the rendered-text rules of
infx.commands.rendered.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from infx.commands.authorization import AUTHORIZED_PERMISSIONS, ELEVATED_ROLES
from infx.commands.grammar import (
    APPROVE_SWEEP_COMMAND,
    HELP_COMMAND,
    PARETO_BYPASS_COMMAND,
    RETEST_ALIAS,
    RETEST_COMMAND,
    REUSE_COMMAND,
    REVERIFY_COMMAND,
    USE_ALIAS,
    is_approve_sweep_line,
    is_bypass_line,
    is_help_line,
    is_retest_line,
    is_reverify_line,
    parse_line,
    slash_lines,
)
from infx.inert import code

# role_name values of the collaborator permission API that may use each command
RETEST_ROLES = frozenset({"triage", "write", "maintain", "admin"})
BYPASS_ROLES = frozenset({"admin"})
APPROVE_SWEEP_ROLES = ELEVATED_ROLES  # infx.commands.fork_approval
REVERIFY_ROLES = ELEVATED_ROLES  # or the signer of the sign-off being re-verified
EVERYONE: frozenset[str] = frozenset()  # no role needed (bots are never answered)
NEAR_MISS_DISTANCE = 2
# other bots' commands (Prow's), never a near-miss of ours: `/approve` approves a PR there, it is
# no `/approve-sweep` cut short
OTHER_TOOLS_COMMANDS = frozenset({"/approve", "/lgtm", "/assign", "/unassign", "/cc", "/hold"})


@dataclass(frozen=True)
class SlashCommand:
    """One command as a reader meets it: the spellings it accepts and what it does."""

    kind: str  # stable id: reuse | retest | bypass | approve-sweep | help | reverify
    usages: tuple[str, ...]  # every accepted spelling, the canonical one first
    line: Callable[[str], bool]  # does one line (alone) hold the command? (infx.commands.grammar)
    roles: frozenset[str]  # role_name values that may use it; EVERYONE = any human
    who: str
    who_zh: str
    summary: str  # one line, for the welcome comment
    summary_zh: str
    help: str
    help_zh: str
    examples: tuple[str, ...]
    workflow: str | None  # the workflow that listens for it (None: read when a sign-off is verified)
    # whether a 👎 is also followed by its reason in the kind's status comment (infx.commands.status);
    # the reuse acknowledgement never posts reply comments (PRODUCT §4.6): reaction and step summary
    replies: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        """The command words (`/reuse-sweep-run`, `/use`): the first word of each usage."""
        return tuple(dict.fromkeys(usage.split()[0] for usage in self.usages))

    @property
    def usage(self) -> str:
        return " or ".join(self.usages)


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand(
        kind="reuse",
        usages=(f"{REUSE_COMMAND} [run_id]", f"{USE_ALIAS} <run_id>"),
        line=lambda text: parse_line(text) is not None,
        roles=AUTHORIZED_PERMISSIONS,
        who="write, maintain or admin (pinning a run that did not succeed: maintain or admin)",
        who_zh="write、maintain 或 admin 权限（指定一次未成功的运行需要 maintain 或 admin）",
        summary="Reuse a green sweep of this PR instead of sweeping again",
        summary_zh="复用本 PR 已通过的一次扫描，而不是重新扫描",
        help="Reuse a green sweep of this PR instead of sweeping again; without a run id the "
             "newest covering run is chosen. It covers the PR as it was when the command was "
             "posted: a later push that changes the plan or benchmark files needs a new command.",
        help_zh="复用本 PR 已通过的一次扫描，而不是重新扫描；不写 run id 时自动选择最新的覆盖运行。"
                "它只对发出命令时的 PR 有效：之后改变计划或基准文件的推送需要重新发出命令。",
        examples=(REUSE_COMMAND, f"{USE_ALIAS} 24680135791"),
        workflow="reuse-command.yml",
    ),
    SlashCommand(
        kind="retest",
        usages=(RETEST_COMMAND, RETEST_ALIAS),
        line=is_retest_line,
        roles=RETEST_ROLES,
        who="triage, write, maintain or admin",
        who_zh="triage、write、maintain 或 admin 角色",
        summary="Re-run the failed rows of the PR's newest sweep",
        summary_zh="重新运行本 PR 最新一次扫描中失败的行",
        help="Re-run only the failed and cancelled rows of the PR's newest sweep, when it ran on "
             "the current head (GitHub's re-run of failed jobs; rows that passed are kept).",
        help_zh="只重新运行本 PR 最新一次扫描中失败或被取消的行（该扫描须在当前 head 上运行；通过的行保留）。",
        examples=(RETEST_COMMAND, RETEST_ALIAS),
        workflow="retest-command.yml",
        replies=True,
    ),
    SlashCommand(
        kind="bypass",
        usages=(f"{PARETO_BYPASS_COMMAND} <sha>",),
        line=is_bypass_line,
        roles=BYPASS_ROLES,
        who="admin",
        who_zh="admin",
        summary="Record an admin bypass of the Pareto-coverage check for one commit",
        summary_zh="为一个提交记录管理员对 Pareto 覆盖检查的豁免",
        help="Record an admin's bypass of the Pareto-coverage check for one commit (the full "
             "40-character sha), read when a sign-off is verified; the verdict reports it, it "
             "never passes a check by itself.",
        help_zh="为某个提交（完整的 40 位 sha）记录管理员对 Pareto 覆盖检查的豁免，在验证签核时读取；"
                "签核结论会报告它，它本身不会让检查通过。",
        examples=(f"{PARETO_BYPASS_COMMAND} {'0123456789abcdef' * 2}01234567",),
        workflow=None,
    ),
    SlashCommand(
        kind="approve-sweep",
        usages=(f"{APPROVE_SWEEP_COMMAND} <sha>",),
        line=is_approve_sweep_line,
        roles=APPROVE_SWEEP_ROLES,
        who="maintain or admin",
        who_zh="maintain 或 admin 角色",
        summary="Approve a fork PR's exact head commit for a sweep",
        summary_zh="批准来自 fork 的 PR 的当前 head 提交进行扫描",
        help="Approve a fork PR's head commit (the full 40-character sha, after reading it) for a "
             "sweep: the default branch's run-sweep.yml then sweeps exactly that commit, with the "
             "PR's files as data, as its one primary sweep label asks. Any later push drops the "
             "approval (the sweep label is removed with a note); the new head needs a new one.",
        help_zh="批准来自 fork 的 PR 的 head 提交（完整的 40 位 sha，阅读后再批准）进行扫描：默认分支的 "
                "run-sweep.yml 会按 PR 唯一的主扫描标签，把 PR 的文件仅作为数据扫描这个提交。之后的任何推送都会"
                "撤销批准（扫描标签会被移除并附说明）；新的 head 需要重新批准。",
        examples=(f"{APPROVE_SWEEP_COMMAND} {'0123456789abcdef' * 2}01234567",),
        workflow="fork-sweep.yml",
    ),
    SlashCommand(
        kind="help",
        usages=(HELP_COMMAND,),
        line=is_help_line,
        roles=EVERYONE,
        who="anyone",
        who_zh="任何人",
        summary="List these commands in one comment",
        summary_zh="用一条评论列出这些命令",
        help="List these commands in one comment on the PR (kept up to date, never repeated).",
        help_zh="在 PR 上用一条评论列出这些命令（原地更新，不会重复发布）。",
        examples=(HELP_COMMAND,),
        workflow="slash-commands.yml",
    ),
    SlashCommand(
        kind="reverify",
        usages=(REVERIFY_COMMAND,),
        line=is_reverify_line,
        roles=REVERIFY_ROLES,
        who="the signer of the newest sign-off, or maintain or admin",
        who_zh="最新签核的签核人，或 maintain 或 admin 角色",
        summary="Verify the newest CODEOWNER sign-off again on the current head",
        summary_zh="在当前 head 上重新验证最新的 CODEOWNER 签核",
        help="Verify the PR's newest standing sign-off again on the current head, as a dispatch "
             "of signoff-verify.yml would (after a fix to the evidence, such as a re-run sweep).",
        help_zh="在当前 head 上重新验证 PR 最新的有效签核，等同于手动触发 signoff-verify.yml"
                "（例如证据修正后，如重新运行扫描之后）。",
        examples=(REVERIFY_COMMAND,),
        workflow="signoff-verify.yml",
    ),
)
BY_KIND = {entry.kind: entry for entry in COMMANDS}
RULE = ("A command counts only on a line of its own, as GitHub shows it: never inside code, a "
        "quote or an HTML comment.")
RULE_ZH = "命令必须单独成行，并按 GitHub 显示的文本计算：代码、引用或 HTML 注释中的命令不算。"


def command(kind: str) -> SlashCommand:
    return BY_KIND[kind]


def _code(text: str) -> str:
    return f"`{text}`"


def welcome_lines(chinese: bool = False) -> list[str]:
    """One bullet per command for the welcome comment: its spellings, what it does, who may use it."""
    if chinese:
        return [f"  - {' 或 '.join(map(_code, e.usages))}：{e.summary_zh}。使用者：{e.who_zh}。" for e in COMMANDS]
    return [f"  - {' or '.join(map(_code, e.usages))}: {e.summary}. Who: {e.who}." for e in COMMANDS]


HELP_MARKER_NAME = "infx-help"


def help_body() -> str:
    """The `/help` answer: every command with who may use it, what it does and examples."""
    rows = ["| Command | Who may use it | What it does | Examples |", "|---|---|---|---|"]
    for entry in COMMANDS:
        examples = "<br>".join(map(_code, entry.examples))
        rows.append(f"| {' or '.join(map(_code, entry.usages))} | {entry.who} | {entry.help} | {examples} |")
    rows_zh = ["| 命令 | 谁可以使用 | 作用 |", "|---|---|---|"]
    rows_zh += [f"| {' 或 '.join(map(_code, e.usages))} | {e.who_zh} | {e.help_zh} |" for e in COMMANDS]
    return ("**Slash commands on this PR**\n\n" + "\n".join(rows) + f"\n\n{RULE} A command "
            "nearly spelled (a typo, missing arguments) gets a 😕 reaction and the suggestion in "
            "its workflow run's summary; a refused one a 👎 and the reason in that command's "
            "status comment.\n\n---\n\n**本 PR 可用的斜杠命令**\n\n" + "\n".join(rows_zh)
            + f"\n\n{RULE_ZH}\n")


# ---- near-misses ------------------------------------------------------------------------------


@dataclass(frozen=True)
class NearMiss:
    """A line that is almost a command: what was typed and what it probably meant."""

    typed: str  # the line, stripped
    meant: SlashCommand
    why: str
    usage: str  # the spelling to suggest

    @property
    def suggestion(self) -> str:
        """The suggestion as text for infx.inert.render_inert (what was typed is a code span)."""
        return f"{code(self.typed)} is not a command as written ({self.why}); did you mean {code(self.usage)}?"


def distance(a: str, b: str, limit: int = NEAR_MISS_DISTANCE) -> int:
    """Levenshtein distance of a and b, or limit + 1 once it is known to exceed `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous = list(range(len(b) + 1))
    for i, char in enumerate(a, 1):
        current = [i]
        for j, other in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char != other)))
        if min(current) > limit:
            return limit + 1
        previous = current
    return min(previous[-1], limit + 1)


def _usage_of(entry: SlashCommand, name: str) -> str:
    return next(u for u in entry.usages if u.split()[0] == name)


def _meant(word: str) -> tuple[SlashCommand, str, str] | None:
    """(command, why, usage to suggest) for a `/word` line that is no command, or None."""
    lowered = word.lower()
    if lowered in OTHER_TOOLS_COMMANDS:
        return None
    best: tuple[int, int, SlashCommand, str, str] | None = None
    for order, entry in enumerate(COMMANDS):
        for name in entry.names:
            if lowered == name:
                why = "commands are lower case" if word != name else "its arguments do not match"
                return entry, why, _usage_of(entry, name)
            if lowered.split("-")[0] == name.split("-")[0]:
                found = (0, order, entry, "no command is spelled so", entry.usages[0])
            elif (d := distance(lowered, name)) <= NEAR_MISS_DISTANCE:
                found = (d, order, entry, "no command is spelled so", _usage_of(entry, name))
            else:
                continue
            if best is None or found[:2] < best[:2]:
                best = found
    return None if best is None else best[2:]


def near_misses(body: str | None) -> tuple[NearMiss, ...]:
    """Every line (typed on its own and shown as plain text) that starts like a slash command
    but is none of the registry's, and nearly spells one; lines that are commands never are."""
    found = []
    for word, line in slash_lines(body):
        if any(entry.line(line) for entry in COMMANDS):
            continue
        meant = _meant(word)
        if meant is not None:
            found.append(NearMiss(line, *meant))
    return tuple(dict.fromkeys(found))


def holds_command(body: str | None, kind: str) -> bool:
    """Does the comment hold the command as a line of its own, as shown?"""
    entry = BY_KIND[kind]
    return any(entry.line(line) for _, line in slash_lines(body))

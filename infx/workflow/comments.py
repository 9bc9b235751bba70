"""Texts of the bot's PR comments: the welcome comment and the results-link comment."""

from __future__ import annotations

from infx.commands.registry import RULE, RULE_ZH, welcome_lines
from infx.plan.labels import MODIFIER_LABELS

WELCOME_MARKER_NAME = "infx-welcome"
RESULTS_MARKER_NAME = "infx-results-link"
SIGNOFF_PHRASE = "As a PR reviewer and CODEOWNER, I have reviewed this and have:"
RESULTS_BASE_URL = "https://inferencex.semianalysis.com"


def welcome_body(repo: str, default_branch: str = "main") -> str:
    """Welcome comment: English first, then Chinese, same content."""
    checklist = f"https://github.com/{repo}/blob/{default_branch}/PR_REVIEW_CHECKLIST.md"
    modifiers = ", ".join(f"`{m}`" for m in MODIFIER_LABELS)
    commands = "\n".join(welcome_lines())
    commands_zh = "\n".join(welcome_lines(chinese=True))
    english = f"""Thanks for opening this PR! Four things to know:

- **Requesting a sweep:** GPU sweeps run only on labeled PRs and only for the entries you append \
to `perf-changelog.yaml`. Add exactly one of these labels: `full-sweep-fail-fast` (recommended; \
a failure cancels the rest of its job family), `full-sweep-enabled` (every job runs to the end) \
or `sweep-enabled` (a quick check at the lowest concurrency). The first two run the lowest-concurrency \
row alone first as a canary, and nothing else if it fails; `full-sweep-fail-fast-no-canary` and \
`non-canary-full-sweep-enabled` skip the canary. Optional modifiers: {modifiers}. \
The changelog is validated on every push, labeled or not.
- **Sign-off:** a CODEOWNER of the changed files reviews the PR and posts the [review \
checklist]({checklist}) as a PR comment. The comment must start with the exact phrase \
`{SIGNOFF_PHRASE}` so that the sign-off bot verifies it; the bot then posts its verdict and sets \
the `codeowner-signoff-verify` status.
- **Commands** in a PR comment ({RULE[0].lower()}{RULE[1:-1]}; `/help` lists them in a comment):
{commands}
- **After merging:** the author is responsible for the post-merge CI on `{default_branch}` \
being green. Flaky jobs usually pass when re-run; please re-run them and make sure they pass."""
    chinese = f"""感谢提交 PR！请注意以下四点：

- **申请扫描：** GPU 扫描只在带标签的 PR 上运行，并且只针对你追加到 `perf-changelog.yaml` 的条目。\
请只添加以下标签中的一个：`full-sweep-fail-fast`（推荐；一个任务失败会取消同一任务组的其余任务）、\
`full-sweep-enabled`（所有任务都运行到结束）或 `sweep-enabled`（只用最低并发做快速检查）。\
前两者会先单独运行并发最低的一行作为金丝雀（canary），它失败则其余任务都不启动；\
`full-sweep-fail-fast-no-canary` 和 `non-canary-full-sweep-enabled` 不运行金丝雀。\
可选修饰标签：{modifiers}。无论是否有标签，每次推送都会校验 changelog。
- **签核：** 由被修改文件的 CODEOWNER 审阅 PR，并以 PR 评论的形式提交[审阅清单]({checklist})。\
评论必须以原文短语 `{SIGNOFF_PHRASE}` 开头，签核机器人才会进行验证；随后机器人会发布结论并设置 \
`codeowner-signoff-verify` 状态。
- **命令**（写在 PR 评论中；{RULE_ZH.rstrip("。")}；`/help` 会用一条评论列出全部命令）：
{commands_zh}
- **合并之后：** PR 作者需要确保 `{default_branch}` 上合并后的 CI 全部通过。偶发失败通常重新运行即可通过；\
请重新运行失败的任务并确认其通过。"""
    return f"{english}\n\n---\n\n{chinese}\n"


def results_link_body(run_id: int, base_url: str = RESULTS_BASE_URL) -> str:
    """Links to the run's performance and accuracy results (the marker carries the run id)."""
    return (
        f"View unofficial run (performance): {base_url}/inference?unofficialRun={run_id}\n\n"
        f"View unofficial run (accuracy): {base_url}/evaluation?unofficialRun={run_id}\n"
    )


def should_update_results_link(current_run: int | None, run_id: int) -> bool:
    """Never regress the link to an older run (run ids grow over time; re-runs keep their id)."""
    return current_run is None or run_id >= current_run

"""GitHub REST JSON shapes (API version 2022-11-28) built from world entries."""

from __future__ import annotations

import base64
import hashlib
import zlib
from typing import Any

from infx.github.fake import world as W
from infx.github.fake.pr_files import FileChange

WEB = "https://github.com"
ACTIONS_APP_ID = 15368  # the GitHub Actions app, owner of workflow jobs' check runs


def stable_id(text: str) -> int:
    """A deterministic positive id for things the world names only by text."""
    return zlib.crc32(text.encode()) % 90_000_000 + 10_000_000


def node_id(kind: str, ident: Any) -> str:
    return base64.b64encode(f"0:{kind}{ident}".encode()).decode()


def blob_sha(text: str) -> str:
    data = text.encode()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()  # noqa: S324 - git's id


class Shapes:
    """Builds response bodies; `api` is the server's own base URL so links resolve back to it."""

    def __init__(self, api: str, world: dict) -> None:
        self.api = api.rstrip("/")
        self.world = world

    def repo_url(self, full_name: str | None = None) -> str:
        return f"{self.api}/repos/{full_name or self.world['repo']}"

    def user(self, login: str | None) -> dict | None:
        if login is None:
            return None
        bot = login.endswith("[bot]")
        url = f"{self.api}/users/{login}"
        return {
            "login": login, "id": stable_id(login), "node_id": node_id("User", login),
            "avatar_url": f"https://avatars.githubusercontent.com/u/{stable_id(login)}?v=4",
            "gravatar_id": "", "url": url,
            "html_url": f"{WEB}/{login}" if not bot else f"{WEB}/apps/{login[:-5]}",
            "followers_url": f"{url}/followers", "following_url": f"{url}/following{{/other_user}}",
            "gists_url": f"{url}/gists{{/gist_id}}", "starred_url": f"{url}/starred{{/owner}}{{/repo}}",
            "subscriptions_url": f"{url}/subscriptions", "organizations_url": f"{url}/orgs",
            "repos_url": f"{url}/repos", "events_url": f"{url}/events{{/privacy}}",
            "received_events_url": f"{url}/received_events",
            "type": "Bot" if bot else "User", "site_admin": False,
        }

    def repository(self, full_name: str | None = None) -> dict:
        full_name = full_name or self.world["repo"]
        owner, name = full_name.split("/")
        url = self.repo_url(full_name)
        templates = {f"{key}_url": f"{url}/{path}" for key, path in _REPO_URL_TEMPLATES.items()}
        return templates | {
            "id": stable_id(full_name), "node_id": node_id("Repository", full_name),
            "name": name, "full_name": full_name, "private": False,
            "owner": self.user(owner) | {"type": "Organization"},
            "html_url": f"{WEB}/{full_name}", "description": None, "fork": False,
            "url": self.repo_url(full_name), "default_branch": self.world["default_branch"],
            "visibility": "public", "archived": False, "disabled": False,
            "created_at": "2024-01-01T00:00:00Z", "updated_at": self.world["now"],
            "pushed_at": self.world["now"],
            "git_url": f"git://github.com/{full_name}.git", "ssh_url": f"git@github.com:{full_name}.git",
            "clone_url": f"{WEB}/{full_name}.git", "svn_url": f"{WEB}/{full_name}",
            "homepage": None, "size": 0, "language": None, "license": None, "mirror_url": None,
            "stargazers_count": 0, "watchers_count": 0, "watchers": 0, "forks_count": 0,
            "forks": 0, "open_issues_count": len(self.world["pulls"]),
            "open_issues": len(self.world["pulls"]), "has_issues": True, "has_projects": False,
            "has_downloads": True, "has_wiki": False, "has_pages": False, "is_template": False,
            "topics": [], "web_commit_signoff_required": False, "custom_properties": {},
        }

    def label(self, name: str, full_name: str | None = None) -> dict:
        return {
            "id": stable_id("label:" + name), "node_id": node_id("Label", name),
            "url": f"{self.repo_url(full_name)}/labels/{name}", "name": name,
            "color": "ededed", "default": False, "description": None,
        }

    def issue_comment(self, pull: dict, comment: dict) -> dict:
        cid = comment["id"]
        reactions = comment.get("reactions", [])
        body = {k: v for k, v in comment.items() if k not in ("reactions", "user")}
        return body | {
            "id": cid, "node_id": node_id("IssueComment", cid),
            "url": f"{self.repo_url()}/issues/comments/{cid}",
            "html_url": f"{WEB}/{self.world['repo']}/pull/{pull['number']}#issuecomment-{cid}",
            "issue_url": f"{self.repo_url()}/issues/{pull['number']}",
            "user": self.user(comment["user"]), "body": comment["body"],
            "created_at": comment["created_at"], "updated_at": comment["updated_at"],
            "author_association": comment["author_association"],
            "performed_via_github_app": None,
            "reactions": self.reaction_rollup(reactions, f"{self.repo_url()}/issues/comments/{cid}"),
        }

    def reaction_rollup(self, reactions: list[dict], url: str) -> dict:
        counts = {k: 0 for k in ("+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes")}
        for reaction in reactions:
            counts[reaction["content"]] += 1
        return {"url": f"{url}/reactions", "total_count": len(reactions)} | counts

    def reaction(self, reaction: dict) -> dict:
        return {
            "id": reaction["id"], "node_id": node_id("Reaction", reaction["id"]),
            "user": self.user(reaction["user"]), "content": reaction["content"],
            "created_at": reaction.get("created_at", self.world["now"]),
        }

    def pull_ref(self, ref: dict) -> dict:
        full_name = ref["repo"]
        return {
            "label": f"{full_name.split('/')[0]}:{ref['ref']}", "ref": ref["ref"], "sha": ref["sha"],
            "user": self.user(full_name.split("/")[0]), "repo": self.repository(full_name),
        }

    def pull(self, pull: dict, changes: list[FileChange] | None = None) -> dict:
        number = pull["number"]
        url = f"{self.repo_url()}/pulls/{number}"
        issue_url = f"{self.repo_url()}/issues/{number}"
        extra = {k: v for k, v in pull.items() if k not in _PULL_WORLD_KEYS}
        shape = extra | {
            "url": url, "id": stable_id(f"pull:{self.world['repo']}#{number}"),
            "node_id": node_id("PullRequest", number),
            "html_url": f"{WEB}/{self.world['repo']}/pull/{number}",
            "diff_url": f"{WEB}/{self.world['repo']}/pull/{number}.diff",
            "patch_url": f"{WEB}/{self.world['repo']}/pull/{number}.patch",
            "issue_url": issue_url, "commits_url": f"{url}/commits",
            "review_comments_url": f"{url}/comments",
            "review_comment_url": f"{self.repo_url()}/pulls/comments{{/number}}",
            "comments_url": f"{issue_url}/comments",
            "statuses_url": f"{self.repo_url()}/statuses/{pull['head']['sha']}",
            "number": number, "state": pull["state"], "locked": False, "title": pull["title"],
            "user": self.user(pull["user"]), "body": pull["body"],
            "labels": [self.label(name) for name in pull["labels"]],
            "created_at": pull["created_at"], "updated_at": pull["updated_at"],
            "closed_at": pull.get("closed_at", pull["merged_at"]),
            "merged_at": pull["merged_at"], "draft": pull["draft"], "merged": pull["merged"],
            "mergeable": None, "mergeable_state": "unknown",
            "merge_commit_sha": pull.get("merge_commit_sha"),
            "head": self.pull_ref(pull["head"]), "base": self.pull_ref(pull["base"]),
            "author_association": pull.get("author_association", "CONTRIBUTOR"),
            "comments": len(pull["comments"]), "review_comments": len(pull["review_comments"]),
            "commits": len(pull["commits"]), "maintainer_can_modify": False,
            "assignee": None, "assignees": [], "requested_reviewers": [], "requested_teams": [],
            "milestone": None, "auto_merge": None, "active_lock_reason": None,
            "rebaseable": None, "merged_by": self.user(pull.get("merged_by")),
            "_links": {rel: {"href": href} for rel, href in {
                "self": url, "html": f"{WEB}/{self.world['repo']}/pull/{number}",
                "issue": issue_url, "comments": f"{issue_url}/comments",
                "review_comments": f"{url}/comments",
                "review_comment": f"{self.repo_url()}/pulls/comments{{/number}}",
                "commits": f"{url}/commits",
                "statuses": f"{self.repo_url()}/statuses/{pull['head']['sha']}"}.items()},
        }
        if changes is not None:
            shape["changed_files"] = len(changes)
            shape["additions"] = sum(c.additions for c in changes)
            shape["deletions"] = sum(c.deletions for c in changes)
        return shape

    def pull_simple(self, pull: dict) -> dict:
        """The "simple" pull request list endpoints serve: no counts, merge state or merger."""
        shape = {k: v for k, v in self.pull(pull).items() if k not in _FULL_PULL_ONLY}
        # GitHub's pull-request-simple labels always carry a description string
        shape["labels"] = [{**label, "description": label["description"] or ""} for label in shape["labels"]]
        return shape

    def issue(self, pull: dict) -> dict:
        number = pull["number"]
        url = f"{self.repo_url()}/issues/{number}"
        return {
            "url": url, "repository_url": self.repo_url(),
            "labels_url": f"{url}/labels{{/name}}", "comments_url": f"{url}/comments",
            "events_url": f"{url}/events",
            "html_url": f"{WEB}/{self.world['repo']}/pull/{number}",
            "id": stable_id(f"issue:{self.world['repo']}#{number}"),
            "node_id": node_id("Issue", number), "number": number, "title": pull["title"],
            "user": self.user(pull["user"]), "labels": [self.label(n) for n in pull["labels"]],
            "state": pull["state"], "locked": False, "assignee": None, "assignees": [],
            "milestone": None, "comments": len(pull["comments"]),
            "created_at": pull["created_at"], "updated_at": pull["updated_at"],
            "closed_at": pull.get("closed_at", pull["merged_at"]),
            "author_association": pull.get("author_association", "CONTRIBUTOR"),
            "active_lock_reason": None, "performed_via_github_app": None,
            "state_reason": pull.get("state_reason"), "timeline_url": f"{url}/timeline",
            "reactions": self.reaction_rollup([], url), "closed_by": None,
            "draft": pull["draft"], "body": pull["body"],
            "pull_request": {
                "url": f"{self.repo_url()}/pulls/{number}",
                "html_url": f"{WEB}/{self.world['repo']}/pull/{number}",
                "diff_url": f"{WEB}/{self.world['repo']}/pull/{number}.diff",
                "patch_url": f"{WEB}/{self.world['repo']}/pull/{number}.patch",
                "merged_at": pull["merged_at"],
            },
        }

    def file_change(self, change: FileChange, head_sha: str, head_tree: dict,
                    full_name: str | None = None) -> dict:
        text = head_tree.get(change.filename, "")
        shape = {
            "sha": blob_sha(text) if change.status != "removed" else "0" * 40,
            "filename": change.filename, "status": change.status,
            "additions": change.additions, "deletions": change.deletions,
            "changes": change.changes,
            "blob_url": f"{WEB}/{full_name or self.world['repo']}/blob/{head_sha}/{change.filename}",
            "raw_url": f"{WEB}/{full_name or self.world['repo']}/raw/{head_sha}/{change.filename}",
            "contents_url": f"{self.repo_url(full_name)}/contents/{change.filename}?ref={head_sha}",
        }
        if change.patch:
            shape["patch"] = change.patch
        if change.previous_filename:
            shape["previous_filename"] = change.previous_filename
        return shape

    def commit(self, sha: str, full_name: str | None = None) -> dict:
        entry = self.world["commits"][sha]
        author = entry.get("author")
        date = entry.get("date", self.world["now"])
        person = {"name": author or "unknown", "email": f"{author or 'unknown'}@users.noreply.github.com",
                  "date": date}
        url = f"{self.repo_url(full_name)}/commits/{sha}"
        return {
            "sha": sha, "node_id": node_id("Commit", sha), "url": url,
            "html_url": f"{WEB}/{full_name or self.world['repo']}/commit/{sha}",
            "comments_url": f"{url}/comments",
            "commit": {
                "url": f"{self.repo_url(full_name)}/git/commits/{sha}",
                "author": person, "committer": person,
                "message": entry.get("message", ""), "comment_count": 0,
                "tree": {"sha": hashlib.sha1(sha.encode()).hexdigest(),  # noqa: S324
                         "url": f"{self.repo_url(full_name)}/git/trees/{sha}"},
            },
            "author": self.user(author), "committer": self.user(author),
            "parents": [{"sha": p, "url": f"{self.repo_url(full_name)}/commits/{p}",
                         "html_url": f"{WEB}/{full_name or self.world['repo']}/commit/{p}"}
                        for p in entry.get("parents", [])],
        }

    def timeline_event(self, pull: dict, event: dict, index: int) -> dict:
        """One event of GET /issues/{n}/timeline: a `committed` event is the git commit (no
        id or created_at, as GitHub lists it); any other is an issue event."""
        if event["event"] == "committed":
            sha = event["sha"]
            entry = self.world["commits"].get(sha, {})
            author = entry.get("author")
            person = {"name": author or "unknown",
                      "email": f"{author or 'unknown'}@users.noreply.github.com",
                      "date": entry.get("date", self.world["now"])}
            url = f"{self.repo_url()}/git/commits/{sha}"
            return {
                "sha": sha, "node_id": node_id("Commit", sha), "url": url,
                "html_url": f"{WEB}/{self.world['repo']}/commit/{sha}",
                "author": person, "committer": person,
                "tree": {"sha": hashlib.sha1(sha.encode()).hexdigest(),  # noqa: S324
                         "url": f"{self.repo_url()}/git/trees/{sha}"},
                "message": entry.get("message", ""),
                "parents": [{"sha": p, "url": f"{self.repo_url()}/git/commits/{p}",
                             "html_url": f"{WEB}/{self.world['repo']}/commit/{p}"}
                            for p in entry.get("parents", [])],
                "verification": {"verified": False, "reason": "unsigned", "signature": None,
                                 "payload": None, "verified_at": None},
                "event": "committed",
            }
        ident = event.get("id") or stable_id(f"timeline:{pull['number']}:{index}:{event['event']}")
        commit = event.get("commit_id")
        return {
            "id": ident, "node_id": node_id("Event", ident),
            "url": f"{self.repo_url()}/issues/events/{ident}",
            "actor": self.user(event.get("actor") or pull.get("user") or "octocat"),
            "event": event["event"], "commit_id": commit,
            "commit_url": f"{self.repo_url()}/commits/{commit}" if commit else None,
            "created_at": event.get("created_at", self.world["now"]),
            "performed_via_github_app": None,
        }

    def review(self, pull: dict, review: dict) -> dict:
        rid = review["id"]
        extra = {k: v for k, v in review.items() if k != "user"}
        html = f"{WEB}/{self.world['repo']}/pull/{pull['number']}#pullrequestreview-{rid}"
        return extra | {
            "_links": {"html": {"href": html},
                       "pull_request": {"href": f"{self.repo_url()}/pulls/{pull['number']}"}},
            "id": rid, "node_id": node_id("PullRequestReview", rid),
            "user": self.user(review["user"]), "body": review.get("body") or "",
            "state": review["state"],
            "html_url": f"{WEB}/{self.world['repo']}/pull/{pull['number']}#pullrequestreview-{rid}",
            "pull_request_url": f"{self.repo_url()}/pulls/{pull['number']}",
            "author_association": review.get("author_association", "MEMBER"),
            "submitted_at": review.get("submitted_at", self.world["now"]),
            "commit_id": review.get("commit_id", pull["head"]["sha"]),
        }

    def review_comment(self, pull: dict, comment: dict) -> dict:
        cid = comment["id"]
        extra = {k: v for k, v in comment.items() if k != "user"}
        created = comment.get("created_at", self.world["now"])
        return extra | {
            "id": cid, "node_id": node_id("PullRequestReviewComment", cid),
            "url": f"{self.repo_url()}/pulls/comments/{cid}",
            "html_url": f"{WEB}/{self.world['repo']}/pull/{pull['number']}#discussion_r{cid}",
            "pull_request_url": f"{self.repo_url()}/pulls/{pull['number']}",
            "user": self.user(comment["user"]), "body": comment["body"],
            "path": comment.get("path"), "line": comment.get("line"),
            "commit_id": comment.get("commit_id", pull["head"]["sha"]),
            "original_commit_id": comment.get("commit_id", pull["head"]["sha"]),
            "created_at": created, "updated_at": comment.get("updated_at", created),
            "author_association": comment.get("author_association", "MEMBER"),
            "pull_request_review_id": comment.get("pull_request_review_id"),
            "diff_hunk": comment.get("diff_hunk", ""), "position": comment.get("line"),
            "original_position": comment.get("line"), "original_line": comment.get("line"),
            "start_line": None, "original_start_line": None, "start_side": None,
            "side": comment.get("side", "RIGHT"),
            "reactions": self.reaction_rollup([], f"{self.repo_url()}/pulls/comments/{cid}"),
            "_links": {"self": {"href": f"{self.repo_url()}/pulls/comments/{cid}"},
                       "html": {"href": f"{WEB}/{self.world['repo']}/pull/{pull['number']}#discussion_r{cid}"},
                       "pull_request": {"href": f"{self.repo_url()}/pulls/{pull['number']}"}},
        }

    def status(self, sha: str, status: dict) -> dict:
        return {
            "url": f"{self.repo_url()}/statuses/{sha}",
            "avatar_url": None, "id": status["id"], "node_id": node_id("StatusContext", status["id"]),
            "state": status["state"], "description": status.get("description"),
            "target_url": status.get("target_url"), "context": status["context"],
            "created_at": status.get("created_at", self.world["now"]),
            "updated_at": status.get("created_at", self.world["now"]),
            "creator": self.user(status["creator"]),  # GitHub records who set every status
        }

    def check_run(self, sha: str, run: dict) -> dict:
        extra = {k: v for k, v in run.items() if k not in _CHECK_RUN_WORLD_KEYS}
        return extra | {
            "id": run["id"], "node_id": node_id("CheckRun", run["id"]), "head_sha": sha,
            "external_id": run.get("external_id", str(run["id"])), "url": f"{self.repo_url()}/check-runs/{run['id']}",
            # a job's page is its details_url; a check run an app wrote has its own page
            "html_url": (f"{WEB}/{self.world['repo']}/runs/{run['id']}" if "app" in run
                         else run.get("details_url")),
            "details_url": run.get("details_url"),
            "status": run["status"], "conclusion": run.get("conclusion"),
            "started_at": run.get("started_at"), "completed_at": run.get("completed_at"),
            "name": run["name"],
            "output": self.check_output(run),
            "check_suite": {"id": self.check_suite_id(sha, run)},
            "app": self.app_of(run),
            "pull_requests": [],
        }

    def check_output(self, run: dict) -> dict:
        """A check run's `output`: its annotations are counted and served on their own URL."""
        output = run.get("output") or {}
        annotations = output.get("annotations") or []
        return {"title": output.get("title"), "summary": output.get("summary"),
                "text": output.get("text"),
                "annotations_count": output.get("annotations_count", len(annotations)),
                "annotations_url": f"{self.repo_url()}/check-runs/{run['id']}/annotations"}

    def app_of(self, run: dict) -> dict:
        """The app that owns a check run: the one that wrote it (the world's `app`), else
        GitHub Actions (a workflow job, or a check run written with a GITHUB_TOKEN)."""
        app = run.get("app") or {}
        if not app or app.get("slug") == "github-actions":
            return self.actions_app()
        slug = app["slug"]
        return {
            "id": int(app.get("id", 1)), "client_id": f"Iv1.{stable_id(slug):016x}"[:20],
            "slug": slug, "node_id": node_id("App", slug), "name": slug,
            "owner": self.user(self.world["repo"].split("/")[0]) | {"type": "Organization"},
            "description": "", "external_url": f"{WEB}/apps/{slug}",
            "html_url": f"{WEB}/apps/{slug}",
            "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
            "permissions": dict((self.world.get("app") or {}).get("permissions", {})),
            "events": [],
        }

    def actions_app(self) -> dict:
        """The GitHub Actions app that owns workflow check runs."""
        return {
            "id": ACTIONS_APP_ID, "client_id": "Iv1.05c79e9ad1f6bdfa", "slug": "github-actions",
            "node_id": "MDM6QXBwMTUzNjg=", "name": "GitHub Actions",
            "owner": self.user("github") | {"type": "Organization"},
            "description": "Automate your workflow from idea to production",
            "external_url": "https://help.github.com/en/actions",
            "html_url": "https://github.com/apps/github-actions",
            "created_at": "2018-07-30T09:30:17Z", "updated_at": "2024-04-10T20:33:16Z",
            "permissions": {"actions": "write", "checks": "write", "contents": "write",
                            "metadata": "read", "pull_requests": "write", "statuses": "write"},
            "events": ["check_run", "pull_request", "push", "workflow_dispatch"],
        }

    def public_user(self, login: str) -> dict:
        """`GET /users/{login}` and `GET /user`: the simple user plus the profile fields."""
        return self.user(login) | {
            "name": None, "company": None, "blog": "", "location": None, "email": None,
            "hireable": None, "bio": None, "twitter_username": None, "public_repos": 0,
            "public_gists": 0, "followers": 0, "following": 0,
            "created_at": "2020-01-01T00:00:00Z", "updated_at": self.world["now"],
        }

    def check_suite_id(self, sha: str, check_run: dict) -> int:
        """A job's check run is in its workflow run's suite; any other in its commit's."""
        run_id = W.run_of_check_run(check_run)
        return stable_id(f"suite:{run_id}") if run_id is not None else stable_id(f"suite:{sha}")

    def job(self, run: dict, check_run: dict, attempt: int) -> dict:
        """A workflow job: the check run as the Actions API shows it within its run."""
        jid = check_run["id"]
        run_url = f"{self.repo_url()}/actions/runs/{run['id']}"
        html = (check_run.get("details_url")
                or f"{WEB}/{self.world['repo']}/actions/runs/{run['id']}/job/{jid}")
        labels = check_run.get("labels", ["self-hosted"])
        runner = check_run.get("runner_name")
        completed = check_run["status"] == "completed"
        return {
            "id": jid, "run_id": run["id"], "run_url": run_url, "run_attempt": attempt,
            "node_id": node_id("CheckRun", jid), "head_sha": run["head_sha"],
            "url": f"{self.repo_url()}/actions/jobs/{jid}", "html_url": html,
            "status": check_run["status"], "conclusion": check_run.get("conclusion"),
            "created_at": check_run.get("started_at") or run.get("created_at", self.world["now"]),
            "started_at": check_run.get("started_at") or run.get("created_at", self.world["now"]),
            "completed_at": check_run.get("completed_at"), "name": check_run["name"],
            "steps": check_run.get("steps", [{
                "name": "Run job", "status": check_run["status"],
                "conclusion": check_run.get("conclusion"), "number": 1,
                "started_at": check_run.get("started_at"),
                "completed_at": check_run.get("completed_at")}] if completed else []),
            "check_run_url": f"{self.repo_url()}/check-runs/{jid}", "labels": labels,
            "runner_id": stable_id(f"runner:{runner}") if runner else None,
            "runner_name": runner, "runner_group_id": 1 if runner else None,
            "runner_group_name": "Default" if runner else None,
            "workflow_name": run.get("name", "CI"), "head_branch": run.get("head_branch"),
        }

    def workflow_run(self, run: dict) -> dict:
        rid = run["id"]
        url = f"{self.repo_url()}/actions/runs/{rid}"
        created = run.get("created_at", self.world["now"])
        extra = {k: v for k, v in run.items() if k not in ("artifacts", "head_repository")}
        head_repo = run.get("head_repository", self.world["repo"])
        return extra | {
            "id": rid, "node_id": node_id("WorkflowRun", rid), "name": run.get("name", "CI"),
            "path": run.get("path", ".github/workflows/ci.yml"),
            "display_title": run.get("display_title", run.get("name", "CI")),
            "run_number": run.get("run_number", 1), "run_attempt": run.get("run_attempt", 1),
            "event": run.get("event", "push"), "status": run.get("status", "completed"),
            "conclusion": run.get("conclusion"), "workflow_id": stable_id(run.get("path", "ci")),
            "head_sha": run["head_sha"], "head_branch": run.get("head_branch"),
            "url": url, "html_url": f"{WEB}/{self.world['repo']}/actions/runs/{rid}",
            "jobs_url": f"{url}/jobs", "logs_url": f"{url}/logs",
            "artifacts_url": f"{url}/artifacts", "cancel_url": f"{url}/cancel",
            "rerun_url": f"{url}/rerun", "check_suite_url": f"{self.repo_url()}/check-suites/{stable_id(f'suite:{rid}')}",
            "workflow_url": f"{self.repo_url()}/actions/workflows/{stable_id(run.get('path', 'ci'))}",
            "created_at": created, "updated_at": run.get("updated_at", created),
            "run_started_at": run.get("run_started_at", created),
            "pull_requests": run.get("pull_requests", []),
            "check_suite_id": stable_id(f"suite:{rid}"),
            "check_suite_node_id": node_id("CheckSuite", rid), "previous_attempt_url": (
                f"{url}/attempts/{run.get('run_attempt', 1) - 1}"
                if run.get("run_attempt", 1) > 1 else None),
            "head_commit": self._head_commit(run["head_sha"]),
            "actor": self.user(run.get("actor", "octocat")),
            "triggering_actor": self.user(run.get("actor", "octocat")),
            "repository": self.repository(), "head_repository": self.fork_aware(head_repo),
        }

    def fork_aware(self, full_name: str) -> dict:
        """A repository shape; one other than the world's own is a fork of it."""
        shape = self.repository(full_name)
        if full_name.lower() != self.world["repo"].lower():
            shape["fork"] = True
        return shape

    def _head_commit(self, sha: str) -> dict | None:
        entry = self.world["commits"].get(sha)
        if entry is None:
            return None
        author = entry.get("author") or "unknown"
        person = {"name": author, "email": f"{author}@users.noreply.github.com"}
        return {"id": sha, "tree_id": hashlib.sha1(sha.encode()).hexdigest(),  # noqa: S324
                "message": entry.get("message", ""), "timestamp": entry.get("date", self.world["now"]),
                "author": person, "committer": person}

    def artifact(self, run: dict, artifact: dict, size: int) -> dict:
        aid = artifact["id"]
        url = f"{self.repo_url()}/actions/artifacts/{aid}"
        created = artifact.get("created_at", run.get("created_at", self.world["now"]))
        return {
            "id": aid, "node_id": node_id("Artifact", aid), "name": artifact["name"],
            "size_in_bytes": size, "url": url, "archive_download_url": f"{url}/zip",
            "expired": bool(artifact.get("expired", False)), "created_at": created,
            "updated_at": created, "expires_at": artifact.get("expires_at", "2099-01-01T00:00:00Z"),
            "digest": None,
            "workflow_run": {"id": run["id"], "repository_id": stable_id(self.world["repo"]),
                             "head_repository_id": stable_id(run.get("head_repository",
                                                                     self.world["repo"])),
                             "head_branch": run.get("head_branch"), "head_sha": run["head_sha"]},
        }

    def content_file(self, path: str, text: str, ref: str) -> dict:
        data = text.encode()
        encoded = base64.b64encode(data).decode()
        wrapped = "\n".join(encoded[i:i + 60] for i in range(0, len(encoded), 60)) + "\n"
        return self._content_entry(path, "file", blob_sha(text), len(data), ref) | {
            "content": wrapped, "encoding": "base64",
        }

    def content_dir_entry(self, path: str, kind: str, text: str | None, ref: str) -> dict:
        sha = blob_sha(text) if text is not None else hashlib.sha1(path.encode()).hexdigest()  # noqa: S324
        return self._content_entry(path, kind, sha, len(text.encode()) if text else 0, ref)

    def _content_entry(self, path: str, kind: str, sha: str, size: int, ref: str) -> dict:
        url = f"{self.repo_url()}/contents/{path}?ref={ref}"
        html = f"{WEB}/{self.world['repo']}/{'blob' if kind == 'file' else 'tree'}/{ref}/{path}"
        git = f"{self.repo_url()}/git/{'blobs' if kind == 'file' else 'trees'}/{sha}"
        return {
            "name": path.rsplit("/", 1)[-1], "path": path, "sha": sha, "size": size,
            "url": url, "html_url": html, "git_url": git,
            "download_url": (f"https://raw.githubusercontent.com/{self.world['repo']}/{ref}/{path}"
                             if kind == "file" else None),
            "type": kind, "_links": {"self": url, "git": git, "html": html},
        }


_FULL_PULL_ONLY = {"merged", "mergeable", "rebaseable", "mergeable_state", "merged_by",
                   "comments", "review_comments", "maintainer_can_modify", "commits",
                   "additions", "deletions", "changed_files"}
_CHECK_RUN_WORLD_KEYS = {"output", "run_id", "run_attempt", "labels", "runner_name", "steps", "app"}
_PULL_WORLD_KEYS = {"comments", "reviews", "review_comments", "commits", "labels", "user", "head",
                    "base"}

_REPO_URL_TEMPLATES = {
    "archive": "{archive_format}{/ref}", "assignees": "assignees{/user}",
    "blobs": "git/blobs{/sha}", "branches": "branches{/branch}",
    "collaborators": "collaborators{/collaborator}", "comments": "comments{/number}",
    "commits": "commits{/sha}", "compare": "compare/{base}...{head}",
    "contents": "contents/{+path}", "contributors": "contributors",
    "deployments": "deployments", "downloads": "downloads", "events": "events",
    "forks": "forks", "git_commits": "git/commits{/sha}", "git_refs": "git/refs{/sha}",
    "git_tags": "git/tags{/sha}", "hooks": "hooks", "issue_comment": "issues/comments{/number}",
    "issue_events": "issues/events{/number}", "issues": "issues{/number}",
    "keys": "keys{/key_id}", "labels": "labels{/name}", "languages": "languages",
    "merges": "merges", "milestones": "milestones{/number}",
    "notifications": "notifications{?since,all,participating}", "pulls": "pulls{/number}",
    "releases": "releases{/id}", "stargazers": "stargazers", "statuses": "statuses/{sha}",
    "subscribers": "subscribers", "subscription": "subscription", "tags": "tags",
    "teams": "teams", "trees": "git/trees{/sha}",
}

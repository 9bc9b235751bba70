"""Routes for a repository: itself, branches, commits, compare, contents, tarballs, CODEOWNERS."""

from __future__ import annotations

import gzip
import io
import tarfile

from infx.github.fake import world as W
from infx.github.fake.http import HttpError, Request, Response, not_found
from infx.github.fake.pr_files import tree_changes
from infx.github.fake.routes.common import (
    Route,
    State,
    check_signed,
    epoch,
    or_404,
    own_repo,
    registrar,
    sha_of,
    storage_redirect,
)

ROUTES: list[Route] = []
route = registrar(ROUTES)


CODEOWNERS_PATHS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")


CONTENTS_JSON_LIMIT = 1024 * 1024  # larger files: JSON without content, raw media type only


CONTENTS_RAW_LIMIT = 100 * 1024 * 1024


@route("GET", "{R}")
def get_repo(state: State, req: Request, owner: str, name: str) -> Response:
    full_name = f"{owner}/{name}"
    if full_name.lower() != state.world["repo"].lower() and full_name not in state.world["external"]:
        raise not_found()
    return Response(body=state.shapes(req).repository(full_name))


@route("GET", "{R}/branches/(?P<branch>(?!.*/protection(?:/|$)).+)")
def get_branch(state: State, req: Request, owner: str, name: str, branch: str) -> Response:
    own_repo(state, owner, name)
    sha = state.world["branches"].get(branch)
    if sha is None:
        raise HttpError(404, "Branch not found")
    shapes = state.shapes(req)
    url = f"{shapes.repo_url()}/branches/{branch}"
    return Response(body={
        "name": branch, "commit": shapes.commit(sha), "protected": False,
        "protection": {"enabled": False, "required_status_checks": {
            "enforcement_level": "off", "contexts": [], "checks": []}},
        "protection_url": f"{url}/protection",
        "_links": {"self": url, "html": f"https://github.com/{state.world['repo']}/tree/{branch}"}})


@route("GET", "{R}/commits/(?P<ref>[^/]+)")
def get_commit(state: State, req: Request, owner: str, name: str, ref: str) -> Response:
    own_repo(state, owner, name)
    sha = sha_of(state, ref)
    shapes = state.shapes(req)
    parents = state.world["commits"][sha].get("parents", [])
    base = state.tree(parents[0]) if parents else {}
    changes = tree_changes(base, state.tree(sha))
    files = [shapes.file_change(c, sha, state.tree(sha)) for c in changes]
    return Response(body=shapes.commit(sha) | {"files": files, "stats": {
        "additions": sum(c.additions for c in changes),
        "deletions": sum(c.deletions for c in changes),
        "total": sum(c.changes for c in changes)}})


def _ancestors(world: dict, start: str) -> list[str]:
    """A commit and its ancestors, breadth first."""
    seen, queue = [], [start]
    while queue:
        sha = queue.pop(0)
        if sha in seen or sha not in world["commits"]:
            continue
        seen.append(sha)
        queue.extend(world["commits"][sha].get("parents") or [])
    return seen


def merge_base(world: dict, a: str, b: str) -> str | None:
    """The best common ancestor of two commits: the first ancestor of `b`, breadth first,
    that is also an ancestor of `a` (enough for the histories worlds describe)."""
    of_a = set(_ancestors(world, a))
    return next((sha for sha in _ancestors(world, b) if sha in of_a), None)


@route("GET", "{R}/compare/(?P<base>[^/.]+)\\.\\.\\.(?P<head>[^/.]+)")
def compare(state: State, req: Request, owner: str, name: str, base: str, head: str) -> Response:
    """Three-dot compare: the changes of `head` since its merge base with `base` (at most
    300 files, as GitHub lists them)."""
    own_repo(state, owner, name)
    base_sha, head_sha = sha_of(state, base), sha_of(state, head)
    common = merge_base(state.world, base_sha, head_sha)
    if common is None:
        raise not_found()
    shapes = state.shapes(req)
    tree = state.tree(head_sha)
    changes = tree_changes(state.tree(common), tree)
    done = set(_ancestors(state.world, common))
    ahead = [c for c in _ancestors(state.world, head_sha) if c not in done]
    behind = [c for c in _ancestors(state.world, base_sha) if c not in done]
    web = f"https://github.com/{owner}/{name}/compare/{base}...{head}"
    return Response(body={
        "url": f"{req.api}/repos/{owner}/{name}/compare/{base}...{head}", "html_url": web,
        "permalink_url": f"https://github.com/{owner}/{name}/compare/{base_sha[:7]}...{head_sha[:7]}",
        "diff_url": f"{web}.diff", "patch_url": f"{web}.patch",
        "status": "identical" if head_sha == base_sha else ("ahead" if not behind else
                                                             ("behind" if not ahead else "diverged")),
        "ahead_by": len(ahead), "behind_by": len(behind), "total_commits": len(ahead),
        "base_commit": shapes.commit(base_sha), "merge_base_commit": shapes.commit(common),
        "commits": [shapes.commit(sha) for sha in reversed(ahead)],
        "files": [shapes.file_change(c, head_sha, tree) for c in changes[:300]]})


@route("GET", "{R}/contents(?:/(?P<path>.*))?")
def get_contents(state: State, req: Request, owner: str, name: str, path: str | None) -> Response:
    if f"{owner}/{name}" in state.world["external"]:
        return _external_contents(state, req, f"{owner}/{name}", path)
    own_repo(state, owner, name)
    ref = req.query.get("ref") or state.world["default_branch"]
    sha = W.resolve_ref(state.world, ref)
    if sha is None:
        raise HttpError(404, f"No commit found for the ref {ref}")
    path = (path or "").strip("/")
    tree = state.tree(sha)
    shapes = state.shapes(req)
    if path in tree:
        size = len(tree[path].encode())
        if size > CONTENTS_RAW_LIMIT:
            raise HttpError(403, "This API returns blobs up to 100 MB in size. The requested "
                                 "blob is too large to fetch via the API",
                            [{"resource": "Blob", "field": "data", "code": "too_large"}])
        if "raw" in req.headers.get("accept", ""):
            return Response(body=tree[path].encode(), content_type="application/vnd.github.raw")
        if size > CONTENTS_JSON_LIMIT:  # GitHub: 1-100 MB only with the raw media type
            return Response(body=shapes.content_file(path, tree[path], ref)
                            | {"content": "", "encoding": "none"})
        return Response(body=shapes.content_file(path, tree[path], ref))
    prefix = f"{path}/" if path else ""
    children: dict[str, str | None] = {}
    for file_path, text in tree.items():
        if file_path.startswith(prefix):
            head, _, rest = file_path[len(prefix):].partition("/")
            children[prefix + head] = None if rest else text
    if not children:
        raise not_found()
    return Response(body=[
        shapes.content_dir_entry(p, "file" if t is not None else "dir", t, ref)
        for p, t in sorted(children.items())
    ])


def _external_contents(state: State, req: Request, full_name: str, path: str | None) -> Response:
    """A file of another repository (a published recipe page's source): `external.<repo>.files`
    maps a ref to its files; anything else, directories included, is GitHub's 404."""
    ref = req.query.get("ref") or "main"
    files = (state.world["external"][full_name].get("files") or {}).get(ref)
    if files is None:
        raise HttpError(404, f"No commit found for the ref {ref}")
    text = or_404(files.get((path or "").strip("/")))
    body = state.shapes(req).content_file(path or "", text, ref)
    if "raw" in req.headers.get("accept", ""):
        return Response(body=text.encode(), content_type="application/vnd.github.raw")
    return Response(body=body)


@route("GET", "{R}/tarball(?:/(?P<ref>.+))?")
def tarball_link(state: State, req: Request, owner: str, name: str, ref: str | None) -> Response:
    own_repo(state, owner, name)
    sha = or_404(W.resolve_ref(state.world, ref or state.world["default_branch"]))
    return storage_redirect(state, req, f"/_fake/tarball/{owner}/{name}/{sha}")


@route("GET", "/_fake/tarball/(?P<owner>[^/]+)/(?P<name>[^/]+)/(?P<sha>[0-9a-f]{40})",
       origin="storage")
def tarball(state: State, req: Request, owner: str, name: str, sha: str) -> Response:
    check_signed(state, req)
    own_repo(state, owner, name)
    if sha not in state.world["commits"]:
        raise not_found()
    return Response(body=make_tarball(f"{owner}-{name}-{sha[:7]}", state.tree(sha),
                                      epoch(state.world)),
                    content_type="application/x-gzip")


def make_tarball(top: str, tree: dict[str, str], mtime: float) -> bytes:
    """A gzip'd tar of a tree under one top directory, like GitHub's codeload archives."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for path in sorted(tree):
            data = tree[path].encode()
            info = tarfile.TarInfo(f"{top}/{path}")
            info.size = len(data)
            info.mtime = int(mtime)
            info.mode = 0o644
            archive.addfile(info, io.BytesIO(data))
    # the fastest deflate level: an archive's bytes are no contract, its members are (level 9
    # took 0.11 s for a real tree of 1 MB, two of them in every verdict; level 1 takes 0.02 s)
    return gzip.compress(raw.getvalue(), compresslevel=1, mtime=int(mtime))


@route("GET", "{R}/codeowners/errors")
def codeowners_errors(state: State, req: Request, owner: str, name: str) -> Response:
    """GitHub answers 404 when the ref has no CODEOWNERS in .github/, the root or docs/."""
    own_repo(state, owner, name)
    ref = req.query.get("ref") or state.world["default_branch"]
    sha = W.resolve_ref(state.world, ref)
    if sha is None or not any(p in state.tree(sha) for p in CODEOWNERS_PATHS):
        raise not_found()
    return Response(body={"errors": state.world["codeowners_errors"]})


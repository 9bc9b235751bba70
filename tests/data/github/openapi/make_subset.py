"""Regenerate subset.json: the operations of GitHub's OpenAPI description the fake serves.

    npm pack @octokit/openapi@23.0.2 && tar xzf octokit-openapi-23.0.2.tgz
    python tests/data/github/openapi/make_subset.py package/generated/api.github.com.deref.json

Keeps, for every (method, path template) that a fake-server route answers, the JSON schema
of each response status, minus prose (description, examples) to stay small. The licence of
the description (MIT, Octokit contributors) is LICENSE beside this file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE = "@octokit/openapi"
VERSION = "23.0.2"
PROSE = {"description", "example", "examples", "summary", "externalDocs", "title"}


def sample_path(template: str) -> str:
    """A concrete path for an OpenAPI template (`{owner}` -> `o`, numbers -> 1, ...)."""
    from infx.github.fake.routes import sample_value

    out = template
    while "{" in out:
        start, end = out.index("{"), out.index("}")
        out = out[:start] + sample_value(out[start + 1:end]) + out[end + 1:]
    return out


def strip(node):
    if isinstance(node, dict):
        return {k: strip(v) for k, v in node.items()
                if not (k in PROSE and not isinstance(v, dict) or k in ("examples", "example"))}
    if isinstance(node, list):
        return [strip(v) for v in node]
    return node


def main(source: str) -> None:
    from infx.github.fake import routes

    spec = json.loads(Path(source).read_text())
    if spec["info"]["version"] != VERSION:
        raise SystemExit(f"expected {PACKAGE}@{VERSION}, got {spec['info']['version']}")
    operations = {}
    for template, item in sorted(spec["paths"].items()):
        for method, op in item.items():
            if method.upper() not in ("GET", "POST", "PATCH", "PUT", "DELETE"):
                continue
            if routes.match(method.upper(), sample_path(template)) is None:
                continue
            responses = {}
            for status, answer in op["responses"].items():
                content = (answer.get("content") or {})
                media = content.get("application/json") or next(iter(content.values()), None)
                responses[status] = strip(media["schema"]) if media and "schema" in media else None
            entry = {"operationId": op["operationId"], "responses": responses}
            request = ((op.get("requestBody") or {}).get("content") or {}).get("application/json")
            if request and "schema" in request and template.endswith("/check-runs" if method == "post"
                                                                     else "/check-runs/{check_run_id}"):
                entry["request"] = strip(request["schema"])  # the bots' check-run writes are validated too
            operations[f"{method.upper()} {template}"] = entry
    out = {"source": f"{PACKAGE}@{VERSION} generated/api.github.com.deref.json",
           "openapi": spec["openapi"], "operations": operations}
    (HERE / "subset.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"{len(operations)} operations written")


if __name__ == "__main__":
    main(sys.argv[1])

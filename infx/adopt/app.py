"""The sign-off GitHub App: the permissions its bot jobs use, and the App manifest built from them."""

from __future__ import annotations

import json

# What the App's installation token is asked for, the union over the bot jobs of their
# `actions/create-github-app-token` `permission-*` inputs (a test keeps the two equal), plus the
# metadata read every App has. Keys are the manifest's names (`pull_requests`, `members`).
PERMISSIONS: dict[str, str] = {
    "actions": "read",  # list the sweep's runs and jobs, download their artifacts
    "checks": "write",  # read check runs of the PR's commits; write the verdict's check run
    "contents": "read",  # trees at the PR's commits, compare, CODEOWNERS
    "issues": "write",  # the verdict comment on the PR conversation
    "members": "read",  # organization team membership (Check codeowner)
    "metadata": "read",  # mandatory for every App: repository and collaborator permission reads
    "pull_requests": "read",  # the PR, its files, commits, comments and reviews
    "statuses": "write",  # set codeowner-signoff-verify
}
# The bot runs inside Actions workflows and mints its tokens there: the App receives no webhooks.
EVENTS: list[str] = []


def token_input(permission: str) -> str:
    """The create-github-app-token input that asks for one manifest permission."""
    return "permission-" + permission.replace("_", "-")


def manifest(name: str, homepage: str) -> dict:
    """A GitHub App manifest (POST it from the 'create an App from a manifest' form)."""
    return {
        "name": name,
        "url": homepage,
        "description": "The infx CODEOWNER sign-off bot: verdict comments, the verdict check run and the "
                       "codeowner-signoff-verify commit status.",
        "public": False,
        "hook_attributes": {"url": homepage, "active": False},
        "default_permissions": dict(PERMISSIONS),
        "default_events": list(EVENTS),
    }


def manifest_text(name: str, homepage: str) -> str:
    return json.dumps(manifest(name, homepage), indent=2) + "\n"

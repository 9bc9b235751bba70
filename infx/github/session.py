"""One way for commands to get a GitHub client: the real API, or a world file replayed locally."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from infx.errors import InfxError, Problem


@contextmanager
def open_client(world: Path | None = None) -> Iterator:
    """A ``GitHubClient``: the fake server for ``--world``, else the API from the environment."""
    from infx.github.client import GitHubClient

    if world is not None:
        from infx.github.fake import FakeGitHub

        with FakeGitHub(world) as fake:
            yield fake.client()
        return
    if not (os.environ.get("GH_TOKEN") or os.environ.get("GITHUB_TOKEN")):
        raise InfxError(Problem("GH_TOKEN or GITHUB_TOKEN is required", key="token",
                                fix="pass the workflow token through env: GITHUB_TOKEN"))
    yield GitHubClient.from_env()


def world_option(function):
    """The ``--world FILE`` option shared by every command that talks to GitHub."""
    return click.option("--world", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                        default=None,
                        help="Replay against a world file on the fake GitHub server.")(function)

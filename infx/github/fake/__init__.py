"""A local GitHub REST server that serves a world file (format: docs/world-format.md)."""

from infx.github.fake.server import FakeGitHub
from infx.github.fake.world import load_world, tree_at

__all__ = ["FakeGitHub", "load_world", "tree_at"]

"""The sign-off bot's client interface is a subset of the real client's, signature for signature."""

from __future__ import annotations

import inspect

import pytest

from infx.github.client import GitHubClient
from infx.reuse.ports import ReuseClient
from infx.signoff.ports import SignoffClient


def members(protocol: type) -> list[str]:
    return [name for name in vars(protocol) if not name.startswith("_")]


@pytest.mark.parametrize("protocol", [SignoffClient, ReuseClient])
def test_the_real_client_provides_every_member_with_the_same_parameters(protocol: type) -> None:
    assert members(protocol)
    for name in members(protocol):
        wanted = vars(protocol)[name]
        real = inspect.getattr_static(GitHubClient, name, None)
        assert real is not None, f"GitHubClient has no {name}"
        if isinstance(wanted, property):
            assert isinstance(real, property), name
            continue
        want = [(p.name, p.kind) for p in inspect.signature(wanted).parameters.values()]
        have = [(p.name, p.kind) for p in inspect.signature(real).parameters.values()]
        assert want == have, f"{protocol.__name__}.{name} does not match GitHubClient.{name}"


@pytest.mark.parametrize("package, protocol", [("signoff", SignoffClient), ("reuse", ReuseClient)])
def test_the_package_calls_nothing_outside_its_interface(package: str, protocol: type) -> None:
    """Every `client.<name>` the package's modules use is declared on the interface."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[3] / "infx" / package
    used = {m for path in root.rglob("*.py")
            for m in re.findall(r"\bclient\.([a-z_]+)", path.read_text(encoding="utf-8"))}
    assert used <= set(members(protocol)), used - set(members(protocol))

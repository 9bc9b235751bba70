"""infx.github.app_auth through the fake server: the sign-off App's installation token and login."""

import pytest

from infx.errors import InfxError
from infx.github.client import GitHubClient


def _app_key() -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                             serialization.NoEncryption()).decode()


@pytest.mark.parametrize("installation", ["", "77"])
def test_from_env_as_the_github_app_uses_an_installation_token(fake_github, installation) -> None:
    world = {"repo": "acme/widgets", "commits": {"a" * 40: {"parents": [], "files": {"x": "1\n"}}},
             "branches": {"main": "a" * 40},
             "teams": {"acme/core": ["root"]},
             "app": {"id": 5, "slug": "infx-signoff", "installation_id": 77,
                     "permissions": {"members": "read", "statuses": "write"}}}
    fake = fake_github(world)
    env = {"GITHUB_API_URL": fake.url, "INFX_APP_ID": "5", "INFX_APP_PRIVATE_KEY": _app_key(),
           "INFX_APP_INSTALLATION_ID": installation, "GITHUB_REPOSITORY": "acme/widgets",
           "GITHUB_TOKEN": "workflow-token-never-used"}
    client = GitHubClient.from_env(env=env)
    assert client.team_membership("acme", "core", "root") == "active"
    minted = fake.matching("POST", "/app/installations/77/access_tokens")
    assert len(minted) == 1 and fake.count("GET", "/repos/acme/widgets/installation") == (0 if installation else 1)
    team_read = fake.matching("GET", "/orgs/acme/teams/core/memberships/root")[-1]
    assert team_read["authorization"]  # the installation token, not the workflow's


def test_an_app_not_installed_on_the_repository_says_what_to_do(fake_github) -> None:
    world = {"repo": "acme/widgets", "commits": {"a" * 40: {"parents": [], "files": {"x": "1\n"}}},
             "branches": {"main": "a" * 40}}
    fake = fake_github(world)
    env = {"GITHUB_API_URL": fake.url, "INFX_APP_ID": "5", "INFX_APP_PRIVATE_KEY": _app_key(),
           "GITHUB_REPOSITORY": "acme/widgets"}
    with pytest.raises(InfxError, match="not installed on acme/widgets"):
        GitHubClient.from_env(env=env)


def _app_world() -> dict:
    return {"repo": "acme/widgets", "commits": {"a" * 40: {"parents": [], "files": {"x": "1\n"}}},
            "branches": {"main": "a" * 40},
            "app": {"id": 5, "slug": "infx-signoff", "installation_id": 77,
                    "permissions": {"statuses": "write"}}}


def test_the_login_comes_from_the_environment_the_client_is_built_from(fake_github, monkeypatch) -> None:
    monkeypatch.delenv("INFX_BOT_LOGIN", raising=False)
    fake = fake_github(_app_world())
    env = {"GITHUB_API_URL": fake.url, "INFX_APP_ID": "5", "INFX_APP_PRIVATE_KEY": _app_key(),
           "INFX_APP_INSTALLATION_ID": "77", "GITHUB_REPOSITORY": "acme/widgets",
           "INFX_BOT_LOGIN": "infx-signoff[bot]"}
    assert GitHubClient.from_env(env=env).login == "infx-signoff[bot]"
    assert fake.count("GET", "/user") == 0


def test_an_app_without_its_login_never_takes_the_actions_bots_comments(fake_github, monkeypatch) -> None:
    """GET /user is refused to installation tokens: falling back to github-actions[bot] would
    make the App edit that bot's marker comments and never find its own."""
    monkeypatch.delenv("INFX_BOT_LOGIN", raising=False)
    fake = fake_github(_app_world())
    env = {"GITHUB_API_URL": fake.url, "INFX_APP_ID": "5", "INFX_APP_PRIVATE_KEY": _app_key(),
           "INFX_APP_INSTALLATION_ID": "77", "GITHUB_REPOSITORY": "acme/widgets"}
    with pytest.raises(InfxError, match="INFX_BOT_LOGIN"):
        _ = GitHubClient.from_env(env=env).login

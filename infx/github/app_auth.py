"""The sign-off GitHub App's installation auth: its settings from the environment, checked, for PyGithub."""

from __future__ import annotations

from typing import Any

from infx.errors import InfxError, Problem
from infx.github.failures import network_problem

ENV_APP_ID = "INFX_APP_ID"
ENV_APP_KEY = "INFX_APP_PRIVATE_KEY"
ENV_APP_INSTALLATION = "INFX_APP_INSTALLATION_ID"


def app_installation_auth(app_id: str, private_key: str, base_url: str,
                          installation_id: str | None, repo: str | None) -> Any:
    """PyGithub's installation auth for a GitHub App (a JWT signed with the App's key, traded
    for an hour-long installation token, renewed by PyGithub as needed). The installation is
    INFX_APP_INSTALLATION_ID, else the App's installation on `repo` (one API call)."""
    from github import Auth, GithubException, GithubIntegration
    from requests.exceptions import RequestException

    if not str(app_id).strip().isdigit():
        raise InfxError(Problem(f"{ENV_APP_ID}={app_id!r} is not a GitHub App id", key=ENV_APP_ID,
                                fix="set it to the App's numeric id (its settings page, 'App ID')"))
    if installation_id and not str(installation_id).strip().isdigit():
        raise InfxError(Problem(f"{ENV_APP_INSTALLATION}={installation_id!r} is not an installation id",
                                key=ENV_APP_INSTALLATION,
                                fix="set it to the number at the end of the installation's settings URL, or unset it"))
    app = Auth.AppAuth(int(str(app_id).strip()), private_key)
    try:
        app.token  # noqa: B018 - signs a JWT now: a bad key is an error here, not mid-command
    except Exception as exc:  # noqa: BLE001 - PyJWT and cryptography raise several kinds
        raise InfxError(Problem(f"{ENV_APP_KEY} cannot sign a GitHub App token "
                                f"({type(exc).__name__}: {exc})", key=ENV_APP_KEY,
                                fix="set it to the App's private key, the whole PEM text from "
                                    "-----BEGIN RSA PRIVATE KEY----- to the END line")) from None
    if not installation_id:
        if not repo or "/" not in repo:
            raise InfxError(Problem("the GitHub App's installation is unknown", key=ENV_APP_INSTALLATION,
                                    fix=f"set {ENV_APP_INSTALLATION}, or pass --repo / set GITHUB_REPOSITORY"))
        owner, name = repo.split("/", 1)
        try:
            installation_id = str(GithubIntegration(auth=app, base_url=base_url)
                                  .get_repo_installation(owner, name).id)
        except GithubException as exc:
            raise InfxError(Problem(f"the GitHub App {app_id} is not installed on {repo} "
                                    f"(GitHub answered {exc.status})", key=ENV_APP_ID,
                                    fix="install the App on the repository (README: Sign-off GitHub App)")) from None
        except RequestException as exc:
            raise network_problem(exc, base_url) from None
    return app.get_installation_auth(int(installation_id))

"""Published recipe pages -> the upstream GitHub file each is built from (configs/policy/recipe-pages.yaml)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from infx.config.policy import policy_path
from infx.errors import InfxError, Problem

POLICY = policy_path("recipe-pages")
# one URL path segment a `{name}` may stand for: never `.`/`..`, never an escape or a slash
_SEGMENT = r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}"
_PLACEHOLDER = re.compile(r"\{([a-z]+)\}")
# a link in the sign-off's text, as Check `recipe` reads it (and evidence gathering before it)
LINK = re.compile(r"https?://[^\s)>\]]+")
_TRAILING = ".,;:!?'\"*`"  # sentence punctuation or markdown emphasis glued to a link


@dataclass(frozen=True)
class PageRule:
    page: str  # URL path pattern, e.g. /{org}/{model}
    source: str  # file path pattern in the repository, e.g. models/{org}/{model}.yaml
    pattern: re.Pattern[str]


@dataclass(frozen=True)
class Site:
    hosts: tuple[str, ...]
    engine: str
    repo: str
    ref: str
    rules: tuple[PageRule, ...]


@dataclass(frozen=True)
class PageSource:
    """Where a published page comes from: ``path`` in ``repo`` at ``ref``."""

    url: str
    engine: str
    repo: str
    ref: str
    path: str

    @property
    def key(self) -> str:
        """The evidence key of the source file's text."""
        return source_key(self.repo, self.ref, self.path)


def source_key(repo: str, ref: str, path: str) -> str:
    return f"{repo}/{path} at {ref}"


def sites(doc: dict) -> tuple[Site, ...]:
    """The sites of a validated recipe-pages policy document.

    A ``source`` naming a placeholder its ``page`` does not define is a located InfxError."""
    found = []
    for entry in doc["sites"]:
        rules = []
        for item in entry["pages"]:
            names = _PLACEHOLDER.findall(item["page"])
            missing = set(_PLACEHOLDER.findall(item["source"])) - set(names)
            if missing or len(names) != len(set(names)):
                raise InfxError(Problem(
                    f"page {item['page']} -> source {item['source']}: a placeholder of the source "
                    "is not defined by the page, or the page repeats one", file=POLICY,
                    fix="use each {name} once in `page` and only those names in `source`"))
            rules.append(PageRule(item["page"], item["source"], _compile(item["page"])))
        found.append(Site(tuple(h.lower() for h in entry["hosts"]), entry["engine"], entry["repo"],
                          entry["ref"], tuple(rules)))
    return tuple(found)


def _compile(page: str) -> re.Pattern[str]:
    parts, end = [], 0
    for match in _PLACEHOLDER.finditer(page):
        parts.append(re.escape(page[end:match.start()]))
        parts.append(f"(?P<{match.group(1)}>{_SEGMENT})")
        end = match.end()
    parts.append(re.escape(page[end:].rstrip("/")))
    return re.compile("".join(parts) + "/?")


def clean(url: str) -> str:
    """A link as posted in prose, without the sentence punctuation glued to its end."""
    return url.rstrip(_TRAILING)


def host_of(url: str) -> str | None:
    """The lower-case host of an http(s) link without credentials or port, else None."""
    try:
        parts = urlsplit(clean(url))
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or parts.username is not None \
            or parts.password is not None or port is not None or not parts.hostname:
        return None
    return parts.hostname.lower()


def site_for(url: str, known: tuple[Site, ...]) -> Site | None:
    """The mapped site a link points at (whatever its path), if any."""
    host = host_of(url)
    return next((s for s in known if host in s.hosts), None) if host else None


def resolve(url: str, known: tuple[Site, ...]) -> PageSource | str:
    """The source file of a published page, or why the link cannot be mapped (a sentence)."""
    site = site_for(url, known)
    if site is None:
        return f"{clean(url)} is not on a recipe site {POLICY} maps to its upstream source"
    path = urlsplit(clean(url)).path
    for rule in site.rules:
        match = rule.pattern.fullmatch(path)
        if match:
            source = rule.source.format_map(match.groupdict())
            return PageSource(clean(url), site.engine, site.repo, site.ref, source)
    shapes = ", ".join(f"{site.hosts[0]}{rule.page}" for rule in site.rules)
    return (f"{clean(url)} is not a recipe page of {site.hosts[0]} that {POLICY} maps to a source "
            f"file (recognised: {shapes})")


def hosts(known: tuple[Site, ...], engine: str) -> list[str]:
    """The hosts of ``engine``'s mapped sites, for messages."""
    return [host for site in known if site.engine == engine for host in site.hosts]

"""Remove secrets from files before a job uploads them as artifacts (GitHub masks logs, not artifacts).

`python -m infx.workflow.scrub DIR...` rewrites every regular file under each DIR in place:
the values of the secrets named by $INFX_SCRUB_SECRETS (default: HF_TOKEN) found in the
environment, and anything shaped like a Hugging Face or GitHub token, become `***`. Symbolic
links are removed (an upload would follow them out of the folder). It prints how many
replacements it made per file, never what it replaced.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

MASK = b"***"
DEFAULT_SECRETS = ("HF_TOKEN",)
# token shapes: Hugging Face user/org tokens and GitHub's token families
TOKEN_SHAPES = re.compile(
    rb"\bhf_[A-Za-z0-9]{20,}|\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}")
MIN_SECRET_LENGTH = 4  # shorter values would mask ordinary text and reveal the secret's shape


def secret_values(env: Mapping[str, str]) -> list[bytes]:
    names = env.get("INFX_SCRUB_SECRETS", ",".join(DEFAULT_SECRETS)).split(",")
    values = {env.get(name.strip(), "") for name in names if name.strip()}
    return sorted((v.encode() for v in values if len(v) >= MIN_SECRET_LENGTH), key=len, reverse=True)


def scrub_bytes(data: bytes, secrets: Iterable[bytes]) -> tuple[bytes, int]:
    """(data with every secret and token-shaped string masked, number of replacements)."""
    count = 0
    for secret in secrets:
        count += data.count(secret)
        data = data.replace(secret, MASK)
    data, found = TOKEN_SHAPES.subn(MASK, data)
    return data, count + found


def scrub_tree(root: Path, secrets: list[bytes]) -> dict[str, int]:
    """Scrub every file under root in place; return replacements per changed file."""
    changed: dict[str, int] = {}
    if not root.exists():
        return changed
    for path in sorted(root.rglob("*")) if root.is_dir() else [root]:
        if path.is_symlink():
            path.unlink()
            changed[str(path)] = changed.get(str(path), 0)
            continue
        if not path.is_file():
            continue
        data = path.read_bytes()
        cleaned, count = scrub_bytes(data, secrets)
        if count:
            path.write_bytes(cleaned)
            changed[str(path)] = count
    return changed


def main(argv: list[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    folders = sys.argv[1:] if argv is None else argv
    if not folders:
        print("usage: python -m infx.workflow.scrub DIR...", file=sys.stderr)
        return 2
    secrets = secret_values(os.environ if env is None else env)
    for folder in folders:
        if not Path(folder).exists():
            # not an error: a job that failed early leaves some folders unwritten
            print(f"warning: {folder}: no such file or folder, nothing scrubbed "
                  f"(check the name if it should exist)", file=sys.stderr)
            continue
        for path, count in scrub_tree(Path(folder), secrets).items():
            what = f"{count} secret(s) masked" if count else "symbolic link removed"
            print(f"{path}: {what}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Hostile inputs, generated: alias bombs, deep nesting, bad encodings, huge files, archive bombs.

Shared by the tests and by ``benchmarks/bench_hostile.py`` (which runs each one under
``/usr/bin/time -v``). Every function returns the file's bytes.
"""

from __future__ import annotations

import io
import tarfile
import zipfile
import zlib
from functools import lru_cache

MIB = 1024 * 1024

ENTRY = """{key}:
  image: vllm/vllm-openai:v0.11.0
  model: example/alpha-fp8
  model-prefix: alpha
  runner: h100
  precision: fp8
  framework: vllm
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - {{ tp: 8, conc-list: [4, 8] }}
"""


def valid_config(key: str = "alpha-fp8-h100-vllm") -> bytes:
    """One valid master-config entry (runner label h100)."""
    return ENTRY.format(key=key).encode()


def alias_bomb(levels: int = 9) -> bytes:
    """Billion laughs: each level repeats the previous one ten times (10**levels leaves)."""
    lines = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for level in range(1, levels + 1):
        items = ", ".join([f"*l{level - 1}"] * 10)
        lines.append(f"l{level}: &l{level} [{items}]")
    return ("\n".join(lines) + "\n").encode()


def alias_in_field() -> bytes:
    """A valid config entry whose scenario list is an alias bomb."""
    bomb = alias_bomb(7).decode().replace("\n", "\n  ")
    return (ENTRY.format(key="alpha-fp8-h100-vllm") + "bomb-holder:\n  " + bomb).encode()


def recursive_alias() -> bytes:
    return b"alpha: &a\n  scenarios: [*a]\n"


def deep_flow(depth: int = 100_000) -> bytes:
    return b"key: " + b"[" * depth + b"]" * depth + b"\n"


def deep_block(depth: int = 100_000) -> bytes:
    return b"key:\n" + b"- " * depth + b"x\n"


def latin1() -> bytes:
    return valid_config().replace(b"example/alpha-fp8", "exampl\u00e9/alpha".encode("latin-1"))


def utf16(bom: bool = True) -> bytes:
    text = valid_config().decode()
    return text.encode("utf-16" if bom else "utf-16-le")


def utf8_bom() -> bytes:
    return b"\xef\xbb\xbf" + valid_config()


def nul_byte() -> bytes:
    return valid_config().replace(b"  model-prefix", b"\0 model-prefix")


def crlf() -> bytes:
    return valid_config().replace(b"\n", b"\r\n")


def unhashable_key() -> bytes:
    return b"? [a, b]\n: 1\n"


@lru_cache(maxsize=2)
def huge_config(megabytes: int = 20) -> bytes:
    """Many valid entries, ``megabytes`` MB in total. Kept once made (bytes cannot be
    changed): the in-process and the CLI tests of one worker read the same text."""
    size = megabytes * 1_000_000
    one = len(valid_config("k-000000"))
    return b"".join(valid_config(f"k-{index:06d}") for index in range(size // one + 1))


def tar_bomb(top: str, path: str, mebibytes: int, small: dict[str, str] | None = None) -> bytes:
    """A gzip'd tarball like GitHub's (one top folder) whose file ``path`` is ``mebibytes``
    MiB of zeros, compressed about 1000:1, followed by the ``small`` files."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: a gzip stream, as codeload serves
    parts = []
    info = tarfile.TarInfo(f"{top}/{path}")
    info.size = mebibytes * MIB
    parts.append(packer.compress(info.tobuf(format=tarfile.USTAR_FORMAT)))
    zeros = bytes(MIB)
    for _ in range(mebibytes):
        parts.append(packer.compress(zeros))
    tail = io.BytesIO()
    with tarfile.open(fileobj=tail, mode="w", format=tarfile.USTAR_FORMAT) as archive:
        for name, text in (small or {}).items():
            data = text.encode()
            member = tarfile.TarInfo(f"{top}/{name}")
            member.size = len(data)
            archive.addfile(member, io.BytesIO(data))
    parts.append(packer.compress(tail.getvalue()))
    parts.append(packer.flush())
    return b"".join(parts)


def zip_bomb(name: str, mebibytes: int) -> bytes:
    """A zip (like an artifact download) whose member ``name`` inflates to ``mebibytes`` MiB
    of zeros, compressed about 1000:1."""
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        with archive.open(info, "w", force_zip64=True) as member:
            zeros = bytes(MIB)
            for _ in range(mebibytes):
                member.write(zeros)
    return raw.getvalue()


def zip_many(entries: int) -> bytes:
    """A zip listing ``entries`` empty members (about 85 bytes each), plus an
    `agg_eval_all.json` so the artifact is the one the sign-off reads."""
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr("agg_eval_all.json", "[]")
        for index in range(entries):
            archive.writestr(zipfile.ZipInfo(f"{index:x}"), b"")
    return raw.getvalue()


CONFIG_CASES = {
    "alias-bomb": alias_bomb,
    "alias-in-field": alias_in_field,
    "recursive-alias": recursive_alias,
    "deep-flow": deep_flow,
    "deep-block": deep_block,
    "latin-1": latin1,
    "utf-16": utf16,
    "utf-16-no-bom": lambda: utf16(bom=False),
    "utf-8-bom": utf8_bom,
    "nul": nul_byte,
    "unhashable-key": unhashable_key,
    "huge-20mb": huge_config,
}

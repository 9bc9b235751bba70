"""Bounded archive reading: artifact zips and repository tarballs, streamed under size caps."""

from __future__ import annotations

import gzip
import tarfile
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import IO, Any

from infx.errors import InfxError, Problem
from infx.yamlio import LIMITS_FILE, limits_file

CHUNK = 256 * 1024  # read size: large enough to keep per-call overhead off inflating
# tar header records (pax / GNU long names) are read whole by tarfile: keep them small
MAX_HEADER_RECORD = 1024 * 1024


class ArchiveLimitError(InfxError):
    """An archive (or its download) is bigger than a configured cap: the run ends in `error`."""

    def __init__(self, what: str, limit: str, value: int, detail: str) -> None:
        super().__init__(Problem(f"{what}: {detail} exceeds the {limit} cap of {value:,} bytes"
                                 if limit != "members" else
                                 f"{what}: {detail} exceeds the cap of {value:,} members",
                                 key=f"archive_limits.{limit}",
                                 fix=f"raise `{limit}` in {LIMITS_FILE} if the "
                                     "archive is legitimate"))
        self.limit = limit


class ArchiveFormatError(InfxError):
    """The bytes served are not the archive they claim to be."""


@dataclass(frozen=True)
class ArchiveLimits:
    """Caps for one download: compressed bytes fetched, one member, all members kept, the
    whole expanded stream (tarballs), and the number of entries."""

    download_bytes: int
    member_bytes: int
    total_bytes: int
    expanded_bytes: int
    members: int

    @classmethod
    def from_mapping(cls, data: dict[str, Any], source: str = LIMITS_FILE) -> ArchiveLimits:
        known = {f.name for f in fields(cls)}
        problems = [Problem(f"unknown archive limit {key!r}", file=source, key=key,
                            fix="one of: " + ", ".join(sorted(known)))
                    for key in data if key not in known]
        problems += [Problem(f"archive limit {key} must be a positive integer, not {value!r}",
                             file=source, key=key, fix="write a number of bytes (or members)")
                     for key, value in data.items()
                     if key in known and (not isinstance(value, int) or isinstance(value, bool)
                                          or value <= 0)]
        problems += [Problem(f"missing archive limit {key!r}", file=source, key=key,
                             fix="add it under `archive_limits:`")
                     for key in sorted(known - set(data))]
        if problems:
            raise InfxError(problems)
        return cls(**data)


@lru_cache(maxsize=1)
def default_limits() -> ArchiveLimits:
    """The caps shipped in infx/limits.yaml (section `archive_limits:`)."""
    section = limits_file().get("archive_limits")
    if not isinstance(section, dict):
        raise InfxError(Problem("missing `archive_limits:` mapping", file=LIMITS_FILE))
    return ArchiveLimits.from_mapping(section)


Wanted = Callable[[str], bool]


def read_zip(source: IO[bytes], what: str, limits: ArchiveLimits,
             wanted: Wanted | None = None) -> dict[str, bytes]:
    """Members of a zip (name -> bytes), declared sizes checked before anything is inflated
    and actual sizes counted while inflating (a lying header cannot get past the caps)."""
    try:
        _check_central_directory(source, what, limits)
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
        raise ArchiveFormatError(f"{what} is not a readable zip archive ({exc})") from None
    with archive:
        infos = archive.infolist()
        if len(infos) > limits.members:
            raise ArchiveLimitError(what, "members", limits.members, f"{len(infos):,} entries")
        chosen = [i for i in infos if not i.is_dir() and (wanted is None or wanted(i.filename))]
        declared = 0
        for info in chosen:
            if info.file_size > limits.member_bytes:
                raise ArchiveLimitError(what, "member_bytes", limits.member_bytes,
                                        f"member {info.filename} ({info.file_size:,} bytes)")
            declared += info.file_size
            if declared > limits.total_bytes:
                raise ArchiveLimitError(what, "total_bytes", limits.total_bytes,
                                        f"{declared:,}+ bytes of members")
        members: dict[str, bytes] = {}
        total = 0
        for info in chosen:
            try:
                with archive.open(info) as handle:
                    data = _read_capped(handle, what, info.filename, limits, total)
            except (zipfile.BadZipFile, zlib.error, OSError, EOFError, NotImplementedError,
                    RuntimeError, ValueError) as exc:
                raise ArchiveFormatError(f"{what}: member {info.filename} cannot be read "
                                         f"({exc})") from None
            total += len(data)
            members[info.filename] = data
        return members


# bytes of central directory allowed per member: a file header is 46 bytes plus its name,
# extra field and comment; artifact paths are short, so 1 KiB each is generous
CENTRAL_BYTES_PER_MEMBER = 1024


def _check_central_directory(source: IO[bytes], what: str, limits: ArchiveLimits) -> None:
    """Count the entries of a zip before `zipfile` builds an object for each: a small
    download can list hundreds of thousands of empty entries. Every entry of the central
    directory starts with its signature, so counting signatures bounds the entries from
    above (a name holding the bytes only over-counts); the count stops past the cap."""
    end = zipfile._EndRecData(source)  # the end-of-central-directory record, or None
    if not end:
        raise zipfile.BadZipFile("no end of central directory record")
    size = end[zipfile._ECD_SIZE]
    declared = end[zipfile._ECD_ENTRIES_TOTAL]
    if declared > limits.members:
        raise ArchiveLimitError(what, "members", limits.members, f"{declared:,} entries")
    if size > limits.members * CENTRAL_BYTES_PER_MEMBER:
        raise ArchiveLimitError(what, "members", limits.members,
                                f"a {size:,}-byte list of entries (room for more)")
    stop = end[zipfile._ECD_LOCATION]
    if end[zipfile._ECD_SIGNATURE] == zipfile.stringEndArchive64:
        stop -= zipfile.sizeEndCentDir64 + zipfile.sizeEndCentDir64Locator
    source.seek(max(stop - size, 0))
    entries = source.read(size).count(b"PK\x01\x02")
    source.seek(0)
    if entries > limits.members:
        raise ArchiveLimitError(what, "members", limits.members,
                                f"{entries:,} entries (the header declares {declared:,})")


def read_tarball(source: IO[bytes], what: str, limits: ArchiveLimits,
                 wanted: Wanted | None = None) -> dict[str, str]:
    """path -> text of the regular UTF-8 files of a gzip'd tarball (GitHub's one top directory
    removed), streamed: members not wanted are skipped without being kept, and the expanded
    stream, each member kept and their sum are capped."""
    stream = _CappedReader(gzip.GzipFile(fileobj=source, mode="rb"), what, limits)
    tree: dict[str, str] = {}
    total = 0
    count = 0
    try:
        with tarfile.open(fileobj=stream, mode="r|", tarinfo=_BoundedTarInfo,
                          bufsize=CHUNK) as archive:
            for member in archive:
                count += 1
                if count > limits.members:
                    raise ArchiveLimitError(what, "members", limits.members,
                                            f"more than {limits.members:,} entries")
                _, _, path = member.name.partition("/")
                if not member.isfile() or not path or (wanted is not None and not wanted(path)):
                    continue
                if member.size > limits.member_bytes:
                    raise ArchiveLimitError(what, "member_bytes", limits.member_bytes,
                                            f"file {path} ({member.size:,} bytes)")
                handle = archive.extractfile(member)
                if handle is None:
                    continue
                data = _read_capped(handle, what, path, limits, total)
                total += len(data)
                try:
                    tree[path] = data.decode("utf-8")
                except UnicodeDecodeError:
                    total -= len(data)  # binary files are not evidence
    except (tarfile.TarError, gzip.BadGzipFile, zlib.error, EOFError, OSError, ValueError) as exc:
        raise ArchiveFormatError(f"{what} is not a readable gzip'd tar archive ({exc})") from None
    return tree


def _read_capped(handle: IO[bytes], what: str, name: str, limits: ArchiveLimits,
                 kept: int) -> bytes:
    parts = []
    size = 0
    while True:
        chunk = handle.read(CHUNK)
        if not chunk:
            return b"".join(parts)
        size += len(chunk)
        if size > limits.member_bytes:
            raise ArchiveLimitError(what, "member_bytes", limits.member_bytes,
                                    f"member {name} (more than {size:,} bytes)")
        if kept + size > limits.total_bytes:
            raise ArchiveLimitError(what, "total_bytes", limits.total_bytes,
                                    f"{kept + size:,}+ bytes of members")
        parts.append(chunk)


class _CappedReader:
    """A read-only stream that stops with an error past `expanded_bytes`."""

    def __init__(self, inner: IO[bytes], what: str, limits: ArchiveLimits) -> None:
        self.inner, self.what, self.limits = inner, what, limits
        self.count = 0

    def read(self, size: int = -1) -> bytes:
        room = self.limits.expanded_bytes - self.count
        if size is None or size < 0 or size > room + 1:
            size = room + 1
        data = self.inner.read(size)
        self.count += len(data)
        if self.count > self.limits.expanded_bytes:
            raise ArchiveLimitError(self.what, "expanded_bytes", self.limits.expanded_bytes,
                                    "the expanded archive")
        return data

    def close(self) -> None:
        self.inner.close()


class _BoundedTarInfo(tarfile.TarInfo):
    """tarfile reads pax and GNU long-name records into memory whole: refuse huge ones."""

    def _proc_gnulong(self, tarfile):  # noqa: ANN001, ANN202 - tarfile's own hook
        _check_header_record(self)
        return super()._proc_gnulong(tarfile)

    def _proc_pax(self, tarfile):  # noqa: ANN001, ANN202 - tarfile's own hook
        _check_header_record(self)
        return super()._proc_pax(tarfile)


def _check_header_record(info: tarfile.TarInfo) -> None:
    if info.size > MAX_HEADER_RECORD:
        raise tarfile.HeaderError(f"a {info.size:,}-byte header record (over "
                                  f"{MAX_HEADER_RECORD:,})")

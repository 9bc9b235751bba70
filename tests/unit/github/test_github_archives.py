"""Archive reading under caps: zip and tar bombs end in a named cap error with bounded memory."""

import gzip
import io
import tarfile
import tracemalloc
import zipfile

import pytest

from infx.errors import InfxError
from infx.github.archives import (
    ArchiveFormatError,
    ArchiveLimitError,
    ArchiveLimits,
    default_limits,
    read_tarball,
    read_zip,
)

MB = 1024 * 1024
SMALL = ArchiveLimits(download_bytes=8 * MB, member_bytes=2 * MB, total_bytes=4 * MB,
                      expanded_bytes=16 * MB, members=100)


def zip_of(members: dict[str, bytes]) -> io.BytesIO:
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    raw.seek(0)
    return raw


def zeros_zip(name: str, size: int) -> io.BytesIO:
    """A zip bomb: `size` zero bytes deflate to about size/1000."""
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        info = zipfile.ZipInfo(name)
        info.compress_type = zipfile.ZIP_DEFLATED
        with archive.open(info, "w", force_zip64=True) as member:
            chunk = bytes(MB)
            for _ in range(size // MB):
                member.write(chunk)
    raw.seek(0)
    return raw


def tarball_of(members: dict[str, bytes], top: str = "acme-repo-abc1234") -> io.BytesIO:
    raw = io.BytesIO()
    with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9) as zipped:
        with tarfile.open(fileobj=zipped, mode="w|", format=tarfile.PAX_FORMAT) as archive:
            for name, data in members.items():
                info = tarfile.TarInfo(f"{top}/{name}")
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
    raw.seek(0)
    return raw


class ZerosFile(io.RawIOBase):
    """`size` zero bytes without holding them in memory."""

    def __init__(self, size: int) -> None:
        self.left = size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = min(len(buffer), self.left)
        buffer[:n] = bytes(n)
        self.left -= n
        return n


def zeros_tarball(size: int, name: str = "big.bin") -> io.BytesIO:
    raw = io.BytesIO()
    with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9) as zipped:
        with tarfile.open(fileobj=zipped, mode="w|") as archive:
            info = tarfile.TarInfo(f"top/{name}")
            info.size = size
            archive.addfile(info, io.BufferedReader(ZerosFile(size)))
            small = tarfile.TarInfo("top/after.txt")
            small.size = 2
            archive.addfile(small, io.BytesIO(b"hi"))
    raw.seek(0)
    return raw


def peak_while(fn, *args, **kwargs):
    """(exception or result, peak traced bytes) of one call."""
    tracemalloc.start()
    try:
        try:
            outcome = fn(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - returned for the assertions
            outcome = exc
        return outcome, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_shipped_limits_load_from_config():
    limits = default_limits()
    assert limits.member_bytes == 32 * MB and limits.download_bytes == 100 * MB
    assert limits.members == 20_000


@pytest.mark.parametrize("data,message", [
    ({"member_bytes": 0}, "must be a positive integer"),
    ({"member_bytes": "1"}, "must be a positive integer"),
    ({"nope": 1}, "unknown archive limit"),
    ({}, "missing archive limit"),
])
def test_bad_limits_are_located_errors(data, message):
    full = {"download_bytes": 1, "member_bytes": 1, "total_bytes": 1, "expanded_bytes": 1,
            "members": 1}
    with pytest.raises(InfxError, match=message):
        ArchiveLimits.from_mapping({**full, **data} if data else {})


def test_zip_members_and_wanted_paths():
    blob = zip_of({"a.json": b"[1]", "dir/b.txt": b"b", "skip.bin": b"x" * 10})
    assert read_zip(blob, "artifact x", SMALL) == {"a.json": b"[1]", "dir/b.txt": b"b",
                                                   "skip.bin": b"x" * 10}
    blob.seek(0)
    assert read_zip(blob, "artifact x", SMALL, wanted=lambda p: p.endswith(".json")) == {
        "a.json": b"[1]"}


def test_zip_bomb_is_refused_from_its_declared_size_before_inflating():
    bomb = zeros_zip("agg_eval_all.json", 64 * MB)
    assert len(bomb.getvalue()) < MB
    outcome, peak = peak_while(read_zip, bomb, "artifact eval_results_all (7)", SMALL)
    assert isinstance(outcome, ArchiveLimitError) and outcome.limit == "member_bytes"
    assert "artifact eval_results_all (7)" in str(outcome) and "2,097,152" in str(outcome)
    assert peak < 4 * MB


def test_many_members_within_the_member_cap_hit_the_total_cap():
    blob = zip_of({f"m{i}.json": bytes(MB + i) for i in range(8)})
    outcome, peak = peak_while(read_zip, blob, "artifact many", SMALL)
    assert isinstance(outcome, ArchiveLimitError) and outcome.limit == "total_bytes"
    assert peak < 4 * MB


def test_too_many_zip_entries():
    blob = zip_of({f"e{i}": b"" for i in range(101)})
    with pytest.raises(ArchiveLimitError, match="cap of 100 members"):
        read_zip(blob, "artifact entries", SMALL)


def test_entries_are_counted_before_zipfile_builds_them():
    blob = zip_of({f"{i:x}": b"" for i in range(30_000)})  # 30,000 empty entries, ~2.5 MB
    outcome, peak = peak_while(read_zip, blob, "artifact many", SMALL)
    assert isinstance(outcome, ArchiveLimitError) and "30,000 entries" in str(outcome)
    assert peak < 4 * MB  # refused from the end record: no object per entry was built


def test_an_end_record_that_lies_about_the_entry_count_is_caught_by_counting():
    blob = bytearray(zip_of({f"{i:x}": b"" for i in range(1000)}).getvalue())
    end = blob.rfind(b"PK\x05\x06")
    blob[end + 8:end + 12] = (1).to_bytes(2, "little") * 2  # "1 entry" on this disk and in all
    with pytest.raises(ArchiveLimitError, match="1,000 entries .the header declares 1."):
        read_zip(io.BytesIO(bytes(blob)), "artifact liar", SMALL)


def test_a_bloated_entry_list_is_refused_by_its_size():
    blob = zip_of({"x" * 2000 + f"{i}": b"" for i in range(60)})  # 60 names of 2 KB: 120 KB list
    with pytest.raises(ArchiveLimitError, match="-byte list of entries"):
        read_zip(blob, "artifact long names", SMALL)


def test_a_zip_header_that_lies_about_its_size_cannot_inflate_past_it():
    blob = bytearray(zip_of({"a.json": bytes(3 * MB)}).getvalue())
    # shrink the declared size in the central directory (offset 24 of the entry) to 1 KB
    central = blob.rfind(b"PK\x01\x02")
    blob[central + 24:central + 28] = (1024).to_bytes(4, "little")
    with pytest.raises(ArchiveFormatError, match="cannot be read"):
        read_zip(io.BytesIO(bytes(blob)), "artifact liar", SMALL)


@pytest.mark.parametrize("body", [b"", b"<html>not a zip</html>", b"PK\x03\x04garbage"])
def test_bodies_that_are_not_zips(body):
    with pytest.raises(ArchiveFormatError, match="not a readable zip archive"):
        read_zip(io.BytesIO(body), "artifact y", SMALL)


def test_tarball_drops_the_top_directory_binary_and_unwanted_files():
    blob = tarball_of({"a.yaml": b"x: 1\n", "b/c.md": b"# c\n", "img.png": b"\xff\xd8\xff"})
    assert read_tarball(blob, "tarball", SMALL) == {"a.yaml": "x: 1\n", "b/c.md": "# c\n"}
    blob.seek(0)
    assert read_tarball(blob, "tarball", SMALL, wanted=lambda p: p.startswith("b/")) == {
        "b/c.md": "# c\n"}


def test_tar_bomb_in_a_skipped_file_hits_the_expanded_cap_with_bounded_memory():
    bomb = zeros_tarball(64 * MB)
    assert len(bomb.getvalue()) < MB
    outcome, peak = peak_while(read_tarball, bomb, "the tarball of acme/repo at abc", SMALL,
                               wanted=lambda p: p.endswith(".txt"))
    assert isinstance(outcome, ArchiveLimitError) and outcome.limit == "expanded_bytes"
    assert "the tarball of acme/repo at abc" in str(outcome) and "16,777,216" in str(outcome)
    assert peak < 4 * MB


def test_tar_bomb_in_a_wanted_file_hits_the_member_cap_before_reading():
    outcome, peak = peak_while(read_tarball, zeros_tarball(8 * MB), "tarball", SMALL)
    assert isinstance(outcome, ArchiveLimitError) and outcome.limit == "member_bytes"
    assert "big.bin" in str(outcome) and peak < 4 * MB


def test_tar_total_cap_and_entry_cap():
    blob = tarball_of({f"f{i}.txt": b"a" * (MB + 1) for i in range(5)})
    with pytest.raises(ArchiveLimitError, match="total_bytes"):
        read_tarball(blob, "tarball", SMALL)
    with pytest.raises(ArchiveLimitError, match="cap of 100 members"):
        read_tarball(tarball_of({f"e{i}": b"" for i in range(101)}), "tarball", SMALL)


def test_huge_pax_header_is_refused_without_reading_it():
    raw = io.BytesIO()
    with gzip.GzipFile(fileobj=raw, mode="wb") as zipped:
        with tarfile.open(fileobj=zipped, mode="w|", format=tarfile.PAX_FORMAT) as archive:
            info = tarfile.TarInfo("top/x.txt")
            info.pax_headers = {"comment": "z" * (2 * MB)}
            archive.addfile(info, io.BytesIO(b""))
    raw.seek(0)
    outcome, peak = peak_while(read_tarball, raw, "tarball", SMALL)
    assert isinstance(outcome, ArchiveFormatError) and "header record" in str(outcome)
    assert peak < 4 * MB


@pytest.mark.parametrize("body", [b"", b"not gzip at all", gzip.compress(b"not a tar" * 100, mtime=0)],
                         ids=["empty", "not gzip", "gzip of no tar"])
def test_bodies_that_are_not_tarballs(body):
    with pytest.raises(ArchiveFormatError, match="not a readable gzip'd tar archive"):
        read_tarball(io.BytesIO(body), "tarball", SMALL)


def test_members_a_reader_does_not_want_are_skipped_past_a_bomb_of_other_files():
    """Members a reader skips (``wanted``) beyond the member and total caps are skipped in the
    stream: only the expanded-stream cap still bounds the download. (The verdict reads every
    commit whole, so a bomb in a commit it reads is an ArchiveLimitError naming the cap.)"""
    kept = {"perf-changelog.yaml": "- config-keys: [k]\n", "configs/amd-master.yaml": "k: {}\n",
            "benchmarks/run.sh": "serve\n", "runners/launch.sh": "go\n"}
    bomb = {"docs/huge.txt": b"a" * (3 * MB)}  # over the 2 MiB member cap
    bomb |= {f"vendor/f{i}.txt": b"b" * (MB - 1) for i in range(6)}  # over the 4 MiB total
    members = bomb | {path: text.encode() for path, text in kept.items()}
    with pytest.raises(ArchiveLimitError, match="member_bytes"):
        read_tarball(tarball_of(members), "the tarball of o/r at aaaa", SMALL)
    outcome, peak = peak_while(read_tarball, tarball_of(members), "the tarball of o/r at aaaa",
                               SMALL, wanted=kept.__contains__)
    assert outcome == kept
    assert peak < 2 * MB

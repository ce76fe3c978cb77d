"""Upload reading (arena.hosting.archives): what is accepted, and the words of each refusal."""

from __future__ import annotations

import io
import stat
import zipfile

import pytest

from arena.hosting.archives import UploadError, UploadLimits, read_upload, unpack_stored

LIMITS = UploadLimits(upload_bytes=64 << 10, unpacked_bytes=256 << 10, files=10)
BOT = b"from avenue_sdk import Bot\n\n\nclass Mine(Bot):\n    pass\n"


def zipped(files: dict[str, bytes], links: tuple[str, ...] = ()) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
        for name in links:
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            z.writestr(info, "/etc/shadow")
    return out.getvalue()


def test_a_single_file_is_stored_as_a_normalised_archive() -> None:
    archive = read_upload("mine.py", BOT, "mine:Mine", LIMITS)
    assert unpack_stored(archive.data) == {"mine.py": BOT}
    assert len(archive.sha256) == 64
    # the same code gives the same stored bytes, whatever the upload's own metadata
    assert read_upload("C:\\bots\\mine.py", BOT, "mine:Mine", LIMITS).sha256 == archive.sha256


def test_a_zip_with_a_package_and_vendored_code() -> None:
    files = {"pkg/__init__.py": b"", "pkg/bot.py": BOT, "vendor/lib.py": b"X = 1\n"}
    archive = read_upload("mine.zip", zipped(files), "pkg.bot:Mine", LIMITS)
    assert unpack_stored(archive.data) == files


@pytest.mark.parametrize(
    ("filename", "data", "entry", "says"),
    [
        ("mine.py", b"", "mine:Mine", "empty"),
        ("mine.py", BOT, "mine", "expected module:Class"),
        ("mine.py", BOT, "mine:Mine:X", "expected module:Class"),
        ("mine.py", BOT, "other:Mine", "must be mine:ClassName"),
        ("mine.py", b"\xff\xfe", "mine:Mine", "not UTF-8"),
        ("mine.exe", BOT, "mine:Mine", "upload a .py file or a .zip"),
        ("mine.py", b"#" * (65 << 10), "mine:Mine", "at most 65,536"),
        ("mine.zip", b"PK not really", "mine:Mine", "not a readable zip"),
        ("mine.zip", zipped({"other.py": BOT}), "mine:Mine", "module 'mine' is not in"),
        ("mine.zip", zipped({"../mine.py": BOT}), "mine:Mine", "relative paths"),
        ("mine.zip", zipped({"/etc/mine.py": BOT}), "mine:Mine", "relative paths"),
        ("mine.zip", zipped({"mine.py": BOT}, links=("x.py",)), "mine:Mine", "links"),
        ("mine.zip", zipped({f"m{i}.py": b"" for i in range(11)}), "m0:M", "more than 10"),
        # 1 MiB of zeros compresses to ~1 KiB: counted as read, not as declared
        (
            "mine.zip",
            zipped({"mine.py": BOT, "pad.bin": bytes(1 << 20)}),
            "mine:Mine",
            "unpacks to more than",
        ),
    ],
)
def test_refusals_say_what_is_wrong(filename: str, data: bytes, entry: str, says: str) -> None:
    with pytest.raises(UploadError, match=says):
        read_upload(filename, data, entry, LIMITS)

"""Upload reading (arena.hosting.archives): what is accepted, and the words of each refusal."""

from __future__ import annotations

import io
import re
import stat
import zipfile
from pathlib import Path

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


def _zip_id(value: object) -> str | None:
    """A zip's test id by its size: its bytes hold the time it was made, and the
    ids must be the same in every pytest-xdist worker."""
    if isinstance(value, bytes) and value.startswith(b"PK\x03\x04"):
        return f"zip-{len(value)}-bytes"
    return None


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
    ids=_zip_id,
)
def test_refusals_say_what_is_wrong(filename: str, data: bytes, entry: str, says: str) -> None:
    with pytest.raises(UploadError, match=says):
        read_upload(filename, data, entry, LIMITS)


# ---------------------------------------------------------------- names a host can unpack
# Before these limits, each of the archives below passed every upload check and then
# killed the bot host that unpacked it (ENAMETOOLONG, FileExistsError, ...). The default
# limits are tested, as the API applies them; every accepted archive is unpacked with the
# bot host's own ``unpack`` onto the real file system.

DEFAULT = UploadLimits()
NAME_LIMIT = 100  # DEFAULT.name_bytes (test_the_default_limits)
PATH_LIMIT = 200  # DEFAULT.path_bytes
DEPTH_LIMIT = 16  # DEFAULT.depth


def test_the_default_limits() -> None:
    got = (DEFAULT.name_bytes, DEFAULT.path_bytes, DEFAULT.depth, DEFAULT.files)
    assert got == (NAME_LIMIT, PATH_LIMIT, DEPTH_LIMIT, 500)


def zipped_entries(names: list[str]) -> bytes:
    """A zip of ``names`` in this order: a name ending in ``/`` is a folder entry, any other
    a file (the entry point ``mine:Mine`` is added first)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mine.py", BOT)
        for name in names:
            z.writestr(name, b"" if name.endswith("/") else b"X = 1\n")
    return out.getvalue()


def accepted_and_unpacks(names: list[str], tmp: Path) -> dict[str, bytes]:
    """Read the archive of ``names`` with the default limits, then unpack what is stored
    exactly as a bot host does (``arena.adapters.bothost.sandbox.unpack``, under a temporary
    folder): it must come back byte for byte."""
    from arena.adapters.bothost.sandbox import discard, unpack

    archive = read_upload("mine.zip", zipped_entries(names), "mine:Mine", DEFAULT)
    files = unpack_stored(archive.data)
    root = unpack(files, into=str(tmp))
    try:
        back = {
            str(p.relative_to(root)): p.read_bytes() for p in Path(root).rglob("*") if p.is_file()
        }
    finally:
        discard(root)
    assert back == files
    return files


def refused(names: list[str]) -> str:
    with pytest.raises(UploadError) as caught:
        read_upload("mine.zip", zipped_entries(names), "mine:Mine", DEFAULT)
    return str(caught.value)


@pytest.mark.parametrize(
    "size", [1, NAME_LIMIT - 1, NAME_LIMIT, NAME_LIMIT + 1, 255, 256, 300, 4096]
)
@pytest.mark.parametrize("where", ["file", "folder", "deeper folder", "file in folders"])
def test_every_name_length_around_the_limit(size: int, where: str, tmp_path: Path) -> None:
    name = "n" * size
    member = {
        "file": name,
        "folder": f"{name}/x.py",
        "deeper folder": f"a/{name}/b/x.py",
        "file in folders": f"a/b/{name}",
    }[where]
    if size <= NAME_LIMIT:
        assert member in accepted_and_unpacks([member], tmp_path)
        return
    said = refused([member])
    assert f"is {size:,} bytes; a file or folder name may be at most {NAME_LIMIT} bytes" in said
    assert said.startswith(repr(member[:60]))  # which member (cut: the limit says the rest)


def path_of(size: int) -> str:
    """A member path of exactly ``size`` bytes, of names of 49 bytes (well inside their own
    limit) and a shorter last one."""
    parts: list[str] = []
    left = size
    while left > 50:
        parts.append("p" * 49)
        left -= 50
    parts.append("f" * left)
    path = "/".join(parts)
    assert len(path) == size
    return path


@pytest.mark.parametrize("size", [PATH_LIMIT - 1, PATH_LIMIT, PATH_LIMIT + 1, 255, 256, 1000, 4096])
def test_every_path_length_around_the_limit(size: int, tmp_path: Path) -> None:
    member = path_of(size)
    if size <= PATH_LIMIT:
        assert member in accepted_and_unpacks([member], tmp_path)
        return
    said = refused([member])
    assert f"the path is {size:,} bytes; a member's path may be at most {PATH_LIMIT} bytes" in said
    assert said.startswith(repr(member[:60]))


@pytest.mark.parametrize("depth", [1, DEPTH_LIMIT - 1, DEPTH_LIMIT, DEPTH_LIMIT + 1, 50, 99])
def test_every_depth_around_the_limit(depth: int, tmp_path: Path) -> None:
    member = "/".join(["d"] * (depth - 1) + ["x.py"])
    assert len(member) <= PATH_LIMIT  # the depth is what is tested, not the length
    if depth <= DEPTH_LIMIT:
        assert member in accepted_and_unpacks([member], tmp_path)
        return
    said = refused([member])
    assert f"{depth} names deep; a member's path may be at most {DEPTH_LIMIT} deep" in said


def test_folder_entries_obey_the_limits_too() -> None:
    # never stored, but an archive naming such a folder is refused before anything is read
    assert "at most 100 bytes" in refused(["n" * 300 + "/"])
    assert "at most 200 bytes" in refused([path_of(201) + "/"])
    assert "deep" in refused(["d/" * 17])


@pytest.mark.parametrize(
    "name",
    [
        "é.py",  # 2 bytes in UTF-8
        "日本.py",  # 3 bytes each
        "🤖.py",  # 4 bytes
        "pkg/ü/x.py",  # a folder
        "e" * 40 + "é" * 34 + ".py",  # under the limit in characters, over it in bytes
        "ｍine.py",  # a full-width letter that NFKC folds into ASCII
        "mine\u0301.py",  # a combining accent (NFC and NFD differ)
        "a\u200bb.py",  # a zero-width space
    ],
)
def test_names_are_ascii_only(name: str) -> None:
    # zipfile writes these with the UTF-8 flag: the archive's names are what they look like
    said = refused([name])
    assert "relative paths of ASCII letters" in said and repr(name) in said


def test_an_undeclared_encoding_is_refused_too() -> None:
    # without the UTF-8 flag a zip's names are cp437: byte 0x82 reads as 'é'
    data = bytearray(zipped_entries(["caf#.py"]))
    for _ in range(2):  # the local header and the central directory
        data[data.index(b"caf#.py") + 3] = 0x82
    with pytest.raises(UploadError, match=r"'café\.py': member names must be relative paths"):
        read_upload("mine.zip", bytes(data), "mine:Mine", DEFAULT)


def test_as_many_files_as_the_limit_and_not_one_more(tmp_path: Path) -> None:
    many = [f"f/{i}.py" for i in range(DEFAULT.files - 1)]  # mine.py is the 500th
    assert len(accepted_and_unpacks(many, tmp_path)) == DEFAULT.files
    assert f"more than {DEFAULT.files} files" in refused([*many, "one-more.py"])


@pytest.mark.parametrize(
    ("names", "file", "other"),
    [
        (["x", "x/y.py"], "x", "x/y.py"),
        (["x/y.py", "x"], "x", "x/y.py"),
        (["a/b", "a/b/c/d.py"], "a/b", "a/b/c/d.py"),
        (["a/b/c/d.py", "a/b"], "a/b", "a/b/c/d.py"),
        (["a/b/c/d.py", "a/b/c"], "a/b/c", "a/b/c/d.py"),
        # a folder entry of the same name, in either order
        (["x/", "x"], "x", "x/"),
        (["x", "x/"], "x", "x/"),
        (["x", "x/y/"], "x", "x/y/"),
    ],
)
def test_a_file_that_is_also_a_folder(names: list[str], file: str, other: str) -> None:
    said = refused(names)
    assert said == (
        f"{file!r} is a file, and also a folder in the archive ({other!r}): "
        "a name may be one or the other"
    )


@pytest.mark.parametrize(
    ("names", "one", "two"),
    [
        (["X.py", "x.py"], "X.py", "x.py"),
        (["x.py", "X.py"], "X.py", "x.py"),
        (["Pkg/a.py", "pkg/b.py"], "Pkg", "pkg"),  # two folders that one file system merges
        (["X", "x/y.py"], "X", "x"),  # a file and a folder, apart only in case
        (["x/y/Z.py", "x/y/z.py"], "x/y/Z.py", "x/y/z.py"),
        (["MINE.py"], "MINE.py", "mine.py"),
    ],
)
def test_paths_that_differ_only_in_case(names: list[str], one: str, two: str) -> None:
    # distinct on Linux, one file on a case-insensitive file system (a developer's copy of
    # the stored archive, a host whose temporary folder is such): refused everywhere
    assert f"{one!r} and {two!r} differ only in case" in refused(names)


def test_what_is_not_a_clash_is_accepted(tmp_path: Path) -> None:
    names = ["x.py", "x/y.py", "xy", "x-y/z.py", "a/", "a/b/", "a/b/c.py", "a/b/c.pyc"]
    files = accepted_and_unpacks(names, tmp_path)
    assert sorted(files) == ["a/b/c.py", "a/b/c.pyc", "mine.py", "x-y/z.py", "x.py", "x/y.py", "xy"]


@pytest.mark.parametrize(
    "size", [1, NAME_LIMIT - 1, NAME_LIMIT, NAME_LIMIT + 1, 150, 255, 256, 300]
)
def test_a_single_file_name_obeys_the_name_limit(size: int) -> None:
    stem = "m" * (size - 3) if size > 3 else "m"
    name = f"{stem}.py"
    if len(name) <= NAME_LIMIT:
        assert read_upload(name, BOT, f"{stem}:Mine", DEFAULT).files == {name: BOT}
        return
    entry = f"{stem}:M"
    says = (
        f"the name is {len(name)} bytes; a file or folder name may be at most 100"
        if len(entry) <= 200
        else f"the entry point is {len(entry)} characters; at most 200"  # its column's limit
    )
    with pytest.raises(UploadError, match=re.escape(says)) as caught:
        read_upload(name, BOT, entry, DEFAULT)
    assert len(entry) > 200 or str(caught.value).startswith(repr(name[:60]))


@pytest.mark.parametrize("size", [201, 300, 4096])
def test_an_entry_point_longer_than_its_column_is_refused(size: int) -> None:
    stem = "m" * (size - 5)
    with pytest.raises(UploadError, match=f"the entry point is {size:,} characters; at most 200"):
        read_upload(f"{stem}.py", BOT, f"{stem}:Mine", DEFAULT)
    with pytest.raises(UploadError, match=f"the entry point is {size:,} characters; at most 200"):
        read_upload("mine.zip", zipped({"mine.py": BOT}), f"{stem}:Mine", DEFAULT)


def test_whatever_is_accepted_unpacks(tmp_path: Path) -> None:
    """300 random archives built from the pieces of every attack above (names at and past
    the limits, deep paths, files and folders of one name, case variants, folder entries):
    each is refused with an UploadError or unpacks as a bot host unpacks it, never anything
    else; and every kind of refusal, and acceptance, is among them."""
    import random

    rng = random.Random(20261203)
    short = ["a", "A", "b", "x", "X", "init"]
    long = ["n" * NAME_LIMIT, "n" * (NAME_LIMIT + 1), "p" * 49]
    seen: dict[str, int] = {}
    for _ in range(300):
        names: list[str] = []
        for _ in range(rng.randint(1, 8)):
            depth = rng.choice([1, 1, 2, 2, 3, 4, DEPTH_LIMIT, DEPTH_LIMIT + 1])
            parts = [
                rng.choice(long) if rng.random() < 0.04 else rng.choice(short) for _ in range(depth)
            ]
            names.append("/".join(parts) + rng.choice(["", "", ".py", ".py", "/"]))
        names = list(dict.fromkeys(n for n in names if n != "mine.py"))  # no duplicates
        try:
            accepted_and_unpacks(names, tmp_path)
            kind = "accepted"
        except UploadError as exc:
            said = str(exc)
            kind = next(
                (
                    k
                    for k in ("folder name may", "bytes; a member", "deep;", "a file,", "case")
                    if k in said
                ),
                said,
            )
        seen[kind] = seen.get(kind, 0) + 1
    assert set(seen) == {
        "accepted",
        "folder name may",
        "bytes; a member",
        "deep;",
        "a file,",
        "case",
    }, seen
    assert seen["accepted"] >= 30 and seen["a file,"] >= 5 and seen["case"] >= 5, seen


def test_limits_past_the_file_system_s_own_are_refused() -> None:
    with pytest.raises(ValueError, match="name_bytes must be 1..255"):
        UploadLimits(name_bytes=256)
    with pytest.raises(ValueError, match="path_bytes must be 1..1024"):
        UploadLimits(path_bytes=4096)
    with pytest.raises(ValueError, match="depth must be at least 1"):
        UploadLimits(depth=0)

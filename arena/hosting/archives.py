"""Uploads of a hosted bot's code: a single ``.py`` or a ``.zip``, checked before anything
is stored. Pure functions over bytes (no Django, no file system): the limits are arguments.

A ``.py`` upload becomes a one-file archive; a ``.zip`` is read member by member, never
extracted by a library (no absolute paths, no ``..``, no links, no bombs: the sizes are
counted as the members are read, not trusted from the directory). What is stored is a
normalised zip of the accepted files, so every bot host unpacks the same bytes.
"""

from __future__ import annotations

import hashlib
import io
import re
import stat
import zipfile
from dataclasses import dataclass

#: ``module:Class``, the module dotted (``mybot``, ``pkg.bot``)
ENTRY_POINT = re.compile(
    r"^([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*):([A-Za-z_][A-Za-z0-9_]*)$"
)
MEMBER = re.compile(r"^[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)*$")


@dataclass(frozen=True)
class UploadLimits:
    #: the uploaded file itself
    upload_bytes: int = 1 << 20
    #: everything the archive unpacks to
    unpacked_bytes: int = 8 << 20
    files: int = 500


class UploadError(ValueError):
    """Why an upload is refused, in words for its owner."""


@dataclass(frozen=True)
class Archive:
    #: the normalised zip that is stored
    data: bytes
    sha256: str
    entry_point: str
    #: path -> bytes, as the sandbox gets them
    files: dict[str, bytes]


def check_entry_point(entry_point: str) -> tuple[str, str]:
    m = ENTRY_POINT.match(entry_point.strip())
    if m is None:
        raise UploadError(f"entry point {entry_point!r}: expected module:Class, e.g. mybot:MyBot")
    return m.group(1), m.group(2)


def _module_files(module: str) -> tuple[str, str]:
    path = module.replace(".", "/")
    return f"{path}.py", f"{path}/__init__.py"


def read_upload(filename: str, data: bytes, entry_point: str, limits: UploadLimits) -> Archive:
    """The archive of an upload, or ``UploadError`` saying what is wrong with it."""
    if not data:
        raise UploadError("the file is empty")
    if len(data) > limits.upload_bytes:
        raise UploadError(
            f"the file is {len(data):,} bytes; uploads may be at most {limits.upload_bytes:,}"
        )
    module, _cls = check_entry_point(entry_point)
    name = filename.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
    if name.endswith(".py"):
        stem = name[:-3]
        if module != stem:
            raise UploadError(
                f"a single file {name} is the module {stem!r}: the entry point must be "
                f"{stem}:ClassName, not {entry_point}"
            )
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            raise UploadError(f"{name} is not UTF-8 text") from None
        files = {name: data}
    elif name.endswith(".zip"):
        files = _read_zip(data, limits)
    else:
        raise UploadError(f"{name or 'the file'}: upload a .py file or a .zip archive")
    if not any(f in files for f in _module_files(module)):
        a, b = _module_files(module)
        raise UploadError(f"the entry point's module {module!r} is not in the upload ({a} or {b})")
    stored = _normalised(files)
    return Archive(stored, hashlib.sha256(stored).hexdigest(), entry_point.strip(), files)


def _read_zip(data: bytes, limits: UploadLimits) -> dict[str, bytes]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise UploadError(f"not a readable zip archive ({exc})") from None
    files: dict[str, bytes] = {}
    total = 0
    for info in members:
        if info.is_dir():
            continue
        name = info.filename
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            raise UploadError(f"{name}: links are not allowed in an upload")
        if not MEMBER.match(name) or any(part in ("..", ".") for part in name.split("/")):
            raise UploadError(
                f"{name!r}: member names must be relative paths of letters, digits, '_', "
                "'-' and '.'"
            )
        if name in files:
            raise UploadError(f"{name} is in the archive twice")
        if len(files) >= limits.files:
            raise UploadError(f"the archive holds more than {limits.files} files")
        try:
            with archive.open(info) as member:
                # read one byte past the budget: the directory's sizes may lie
                content = member.read(limits.unpacked_bytes - total + 1)
        except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError) as exc:
            raise UploadError(f"{name}: cannot be read ({exc})") from None
        total += len(content)
        if total > limits.unpacked_bytes:
            raise UploadError(f"the archive unpacks to more than {limits.unpacked_bytes:,} bytes")
        files[name] = content
    if not files:
        raise UploadError("the archive holds no files")
    # a zip made of one top folder (``mybot/...``) is common; the entry point names
    # modules from the archive's root, which is said in the error above if it does not fit
    return files


def _normalised(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, files[name])
    return out.getvalue()


def unpack_stored(data: bytes) -> dict[str, bytes]:
    """The files of a stored (normalised, already checked) archive."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}

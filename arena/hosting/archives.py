"""Uploads of a hosted bot's code: a single ``.py`` or a ``.zip``, checked before anything
is stored. Pure functions over bytes (no Django, no file system): the limits are arguments.

A ``.py`` upload becomes a one-file archive; a ``.zip`` is read member by member, never
extracted by a library (no absolute paths, no ``..``, no links, no bombs: the sizes are
counted as the members are read, not trusted from the directory). What is stored is a
normalised zip of the accepted files, so every bot host unpacks the same bytes.

Every name must also unpack on any bot host, under a temporary folder: a file or folder
name of at most ``name_bytes`` (the file system's NAME_MAX is 255), a path of at most
``path_bytes`` (PATH_MAX is 4096) and ``depth`` levels, no file that is also a folder of
another member (``x`` beside ``x/y.py``), and no two paths that differ only in case (one
would overwrite or block the other on a case-insensitive file system).
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
#: the entry point is stored in a 200-character column (``CodeVersion.entry_point``)
ENTRY_POINT_CHARS = 200
#: Linux's NAME_MAX: one name in a path, in bytes
NAME_MAX = 255
#: the most ``UploadLimits.path_bytes`` may be: PATH_MAX (4096) less room for the
#: temporary folder a bot host unpacks into
MAX_PATH_BYTES = 1024


@dataclass(frozen=True)
class UploadLimits:
    #: the uploaded file itself
    upload_bytes: int = 1 << 20
    #: everything the archive unpacks to
    unpacked_bytes: int = 8 << 20
    files: int = 500
    #: one file or folder name of a member's path, in bytes (NAME_MAX is 255)
    name_bytes: int = 100
    #: a member's whole path, in bytes (unpacked under a temporary folder: PATH_MAX is 4096)
    path_bytes: int = 200
    #: names in a member's path (``a/b/c.py``: 3)
    depth: int = 16

    def __post_init__(self) -> None:
        # a limit past the file system's own would let through what no host can unpack
        if not 0 < self.name_bytes <= NAME_MAX:
            raise ValueError(f"name_bytes must be 1..{NAME_MAX}, not {self.name_bytes}")
        if not 0 < self.path_bytes <= MAX_PATH_BYTES:
            raise ValueError(f"path_bytes must be 1..{MAX_PATH_BYTES}, not {self.path_bytes}")
        if self.depth < 1:
            raise ValueError(f"depth must be at least 1, not {self.depth}")


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
    if len(entry_point.strip()) > ENTRY_POINT_CHARS:
        raise UploadError(
            f"the entry point is {len(entry_point.strip()):,} characters; "
            f"at most {ENTRY_POINT_CHARS} are allowed"
        )
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
        _check_name(name, limits)
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
    #: folders the archive names itself (``pkg/``): never stored, but they must fit too
    folders: set[str] = set()
    total = 0
    for info in members:
        if info.is_dir():
            folder = info.filename.rstrip("/")
            _check_name(folder, limits)
            folders.add(folder)
            continue
        name = info.filename
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            raise UploadError(f"{_shown(name)}: links are not allowed in an upload")
        _check_name(name, limits)
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
    _check_clashes(files, folders)
    # a zip made of one top folder (``mybot/...``) is common; the entry point names
    # modules from the archive's root, which is said in the error above if it does not fit
    return files


def _shown(name: str) -> str:
    """A member's name for a message: long ones cut (the limit they break is said)."""
    return repr(name) if len(name) <= 80 else f"{name[:60]!r}... ({len(name.encode()):,} bytes)"


def _check_name(name: str, limits: UploadLimits) -> None:
    """Refuse a member name that is not a plain relative path, or that no bot host could
    unpack under a temporary folder: each refusal names the limit and the member."""
    parts = name.split("/")
    if not MEMBER.match(name) or any(part in ("..", ".") for part in parts):
        raise UploadError(
            f"{_shown(name)}: member names must be relative paths of ASCII letters, digits, "
            "'_', '-' and '.'"
        )
    for part in parts:
        size = len(part.encode("utf-8"))
        if size > limits.name_bytes:
            which = "the name" if part == name else f"the name {_shown(part)} in it"
            raise UploadError(
                f"{_shown(name)}: {which} is {size:,} bytes; a file or folder name may be at "
                f"most {limits.name_bytes} bytes"
            )
    size = len(name.encode("utf-8"))
    if size > limits.path_bytes:
        raise UploadError(
            f"{_shown(name)}: the path is {size:,} bytes; a member's path may be at most "
            f"{limits.path_bytes} bytes"
        )
    if len(parts) > limits.depth:
        raise UploadError(
            f"{_shown(name)}: the path is {len(parts)} names deep; a member's path may be at "
            f"most {limits.depth} deep"
        )


def _check_clashes(files: dict[str, bytes], folders: set[str]) -> None:
    """Refuse a file that is also a folder of another member (``x`` and ``x/y.py``, in
    either order: unpacking one blocks the other), and paths that differ only in case."""
    under: dict[str, str] = {}  # folder -> a member under it
    for name in sorted(files):
        parts = name.split("/")
        for i in range(1, len(parts)):
            under.setdefault("/".join(parts[:i]), name)
    for folder in sorted(folders):
        under.setdefault(folder, folder + "/")
        parts = folder.split("/")
        for i in range(1, len(parts)):
            under.setdefault("/".join(parts[:i]), folder + "/")
    for name in sorted(files):
        if name in under:
            raise UploadError(
                f"{_shown(name)} is a file, and also a folder in the archive "
                f"({_shown(under[name])}): a name may be one or the other"
            )
    seen: dict[str, str] = {}
    for path in sorted([*files, *under]):
        other = seen.setdefault(path.lower(), path)
        if other != path:
            raise UploadError(
                f"{_shown(other)} and {_shown(path)} differ only in case: they would be one "
                "file on a case-insensitive file system; rename one"
            )


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

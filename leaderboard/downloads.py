"""The SDK as a source archive from the site itself, so the token page's install line
works outside a checkout: ``pip install http://<site>/downloads/agent-avenue-sdk.tar.gz``.

Built from the ``sdk/`` directory beside the code (the Docker image has it too) once per
process; pip builds and installs it like any source distribution. The SDK depends on the
rules engine (``referee/``, its own distribution), which a checkout finds beside ``sdk/``:
the archive carries the engine inside, under ``engine/``, and its ``pyproject.toml`` points
there instead.
"""

from __future__ import annotations

import io
import tarfile
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from leaderboard.views import not_found

ARCHIVE = "agent-avenue-sdk"
_SKIP = {"__pycache__", "build", "dist", ".mypy_cache", ".pytest_cache"}


def _wanted(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
    parts = Path(info.name).parts
    if any(p in _SKIP or p.endswith(".egg-info") for p in parts):
        return None
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info


#: how sdk/pyproject.toml names the engine in a checkout, and how the archive names it
ENGINE_IN_CHECKOUT = "{root:parent:uri}/referee"
ENGINE_IN_ARCHIVE = "{root:uri}/engine"


@lru_cache(maxsize=1)
def sdk_archive() -> bytes | None:
    base = Path(settings.BASE_DIR)
    root, engine = base / "sdk", base / "referee"
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file() or not (engine / "pyproject.toml").is_file():
        return None
    text = pyproject.read_text()
    if ENGINE_IN_CHECKOUT not in text:
        return None  # the SDK names its engine some other way: nothing sound to hand out
    project = text.replace(ENGINE_IN_CHECKOUT, ENGINE_IN_ARCHIVE).encode()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.add(root, arcname=ARCHIVE, filter=_skip_pyproject)
        info = _wanted(tarfile.TarInfo(f"{ARCHIVE}/pyproject.toml"))
        assert info is not None
        info.size, info.mode = len(project), 0o644
        tar.addfile(info, io.BytesIO(project))
        tar.add(engine, arcname=f"{ARCHIVE}/engine", filter=_wanted)
    return buffer.getvalue()


def _skip_pyproject(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
    if info.name == f"{ARCHIVE}/pyproject.toml":
        return None  # written with the engine's path inside the archive
    return _wanted(info)


def sdk_download(request: HttpRequest) -> HttpResponse:
    data = sdk_archive()
    if data is None:
        return not_found(request, "This installation has no copy of the SDK to hand out.")
    response = HttpResponse(data, content_type="application/gzip")
    response["Content-Disposition"] = f'attachment; filename="{ARCHIVE}.tar.gz"'
    return response

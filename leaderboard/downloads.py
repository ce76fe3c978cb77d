"""The SDK as a source archive from the site itself, so the token page's install line
works outside a checkout: ``pip install http://<site>/downloads/agent-avenue-sdk.tar.gz``.

Built from the ``sdk/`` directory beside the code (the Docker image has it too) once per
process; pip builds and installs it like any source distribution.
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


@lru_cache(maxsize=1)
def sdk_archive() -> bytes | None:
    root = Path(settings.BASE_DIR) / "sdk"
    if not (root / "pyproject.toml").is_file():
        return None
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.add(root, arcname=ARCHIVE, filter=_wanted)
    return buffer.getvalue()


def sdk_download(request: HttpRequest) -> HttpResponse:
    data = sdk_archive()
    if data is None:
        return not_found(request, "This installation has no copy of the SDK to hand out.")
    response = HttpResponse(data, content_type="application/gzip")
    response["Content-Disposition"] = f'attachment; filename="{ARCHIVE}.tar.gz"'
    return response

"""A bot's code on the host: unpacked per match into a fresh directory only root reads,
then handed to the sandbox that runs it (its uid the only reader, nobody a writer), and
removed after. A failed unpack leaves nothing behind."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path


def unpack(files: dict[str, bytes], into: str | None = None) -> str:
    """Write a bot's files into a fresh directory only root reads; the sandbox that runs
    them is handed it (``hand_over``) with its own uid as the only reader."""
    root = tempfile.mkdtemp(prefix="avenue-bot-", dir=into)  # 0700
    try:
        for name, data in files.items():
            path = Path(root, name)
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "wb") as out:
                out.write(data)
    except BaseException:
        discard(root)  # nothing half-written is left behind
        raise
    return root


def hand_over(code_dir: str, uid: int) -> None:
    """The sandbox's uid (and no other user) may read its code, and may not change it."""
    for dirpath, _dirs, names in os.walk(code_dir):
        os.chown(dirpath, uid, uid, follow_symlinks=False)
        os.chmod(dirpath, 0o500)
        for name in names:
            path = os.path.join(dirpath, name)
            os.chown(path, uid, uid, follow_symlinks=False)
            os.chmod(path, 0o400)


def discard(code_dir: str) -> None:
    shutil.rmtree(code_dir, ignore_errors=True)

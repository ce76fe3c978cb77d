"""The hosted-bot API: create, upload (multipart), list with check logs (owner only),
switch back; bad uploads answer 400 with the reason, never a 500."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from arena.adapters.bothost.checker import check_next
from arena.adapters.bothost.probe import check_available
from arena.adapters.bothost.sandbox import SandboxUnavailable
from tests.web.test_permissions import api_client

try:
    check_available()
except SandboxUnavailable as exc:  # pragma: no cover - make test installs bubblewrap
    pytest.skip(f"no sandbox here: {exc}", allow_module_level=True)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def local_cache(settings) -> Iterator[None]:  # noqa: ANN001 - pytest-django's settings
    """A private in-process cache per test (as tests/web/ has): the API's rate-limit
    counters (log-ins, requests) never add up across the cases here or other runs."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    cache.clear()
    yield
    cache.clear()


BOT = b"from avenue_sdk import Bot\n\n\nclass Mine(Bot):\n    pass\n"


def upload(client: Client, name: str, filename: str, data: bytes, entry: str):  # type: ignore[no-untyped-def]
    return client.post(
        f"/api/bots/{name}/versions/",
        {"file": SimpleUploadedFile(filename, data), "entry_point": entry},
    )


@pytest.mark.processes
def test_upload_check_list_and_switch_back() -> None:
    ann, _ = api_client("ann")
    bob, _ = api_client("bob")
    made = ann.post("/api/hosted/", {"name": "ann-h"}, content_type="application/json")
    assert made.status_code == 201, made.content
    first = upload(ann, "ann-h", "mine.py", BOT, "mine:Mine")
    assert first.status_code == 201, first.content
    assert first.json()["status"] == "checking" and first.json()["number"] == 1
    check_next("api-test")
    second = upload(ann, "ann-h", "mine.py", BOT + b"# v2\n", "mine:Mine")
    assert second.json()["parent"] == 1
    check_next("api-test")
    listed = ann.get("/api/bots/ann-h/versions/").json()["versions"]
    assert [(v["number"], v["status"], v["active"]) for v in listed] == [
        (2, "ready", True),
        (1, "ready", False),
    ]
    assert "played one game against random" in listed[0]["check_log"]
    back = ann.post("/api/bots/ann-h/versions/1/activate/")
    assert back.status_code == 200 and back.json()["active"]
    # the check log (the bot's stderr) is its owner's only
    assert bob.get("/api/bots/ann-h/versions/").status_code == 403
    assert upload(bob, "ann-h", "mine.py", BOT, "mine:Mine").status_code == 403


@pytest.mark.parametrize(
    ("filename", "data", "entry", "says"),
    [
        ("mine.py", BOT, "nope", "expected module:Class"),
        ("mine.rar", BOT, "mine:Mine", "upload a .py file or a .zip"),
        ("mine.zip", b"PK\x03\x04broken", "mine:Mine", "not a readable zip"),
        ("mine.py", b"#" * (2 << 20), "mine:Mine", "uploads may be at most"),
    ],
)
def test_bad_uploads_answer_400(filename: str, data: bytes, entry: str, says: str) -> None:
    ann, _ = api_client("ann2")
    ann.post("/api/hosted/", {"name": "ann-h2"}, content_type="application/json")
    answer = upload(ann, "ann-h2", filename, data, entry)
    assert answer.status_code == 400, answer.content
    assert says in answer.content.decode()


def zipped(names: list[str]) -> bytes:
    import io
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mine.py", BOT)
        for name in names:
            z.writestr(name, b"")
    return out.getvalue()


LONG = "n" * 300


def _zip_id(value: object) -> str | None:
    """A zip's test id by its size: its bytes hold the time it was made, and the
    ids must be the same in every pytest-xdist worker."""
    if isinstance(value, bytes) and value.startswith(b"PK\x03\x04"):
        return f"zip-{len(value)}-bytes"
    return None


@pytest.mark.parametrize(
    ("filename", "data", "entry", "says"),
    [
        # each passed every check before (201, then the bot host died unpacking it)
        (
            "mine.zip",
            zipped([LONG]),
            "mine:Mine",
            "300 bytes; a file or folder name may be at most 100",
        ),
        ("mine.zip", zipped([f"{LONG}/x.py"]), "mine:Mine", "at most 100 bytes"),
        ("mine.zip", zipped(["/".join(["p" * 99] * 3)]), "mine:Mine", "the path is 299 bytes"),
        ("mine.zip", zipped(["d/" * 16 + "x.py"]), "mine:Mine", "17 names deep"),
        ("mine.zip", zipped(["x", "x/y.py"]), "mine:Mine", "'x' is a file, and also a folder"),
        ("mine.zip", zipped(["x/y.py", "x"]), "mine:Mine", "'x' is a file, and also a folder"),
        ("mine.zip", zipped(["X.py", "x.py"]), "mine:Mine", "differ only in case"),
        ("mine.zip", zipped([f"{i}.py" for i in range(500)]), "mine:Mine", "more than 500 files"),
        ("m" * 150 + ".py", BOT, "m" * 150 + ":Mine", "153 bytes; a file or folder name"),
        # longer than its column: a 500 (a database error) before
        ("m" * 250 + ".py", BOT, "m" * 250 + ":Mine", "the entry point is 255 characters"),
    ],
    ids=_zip_id,
)
def test_names_no_bot_host_could_unpack_answer_400(
    filename: str, data: bytes, entry: str, says: str
) -> None:
    ann, _ = api_client("ann3")
    ann.post("/api/hosted/", {"name": "ann-h3"}, content_type="application/json")
    answer = upload(ann, "ann-h3", filename, data, entry)
    assert answer.status_code == 400, answer.content
    assert answer.json()["code"] == "invalid_upload", answer.content
    assert says in answer.json()["error"], answer.content
    assert ann.get("/api/bots/ann-h3/versions/").json()["versions"] == []  # nothing stored

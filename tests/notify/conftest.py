"""A real HTTP receiver for the webhooks (a threaded server on a free port of 127.0.0.1),
owners and bots, and the league tests' Celery cluster."""

from __future__ import annotations

import json
import threading
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

import pytest

from tests.leagues.conftest import cluster  # noqa: F401 - the fixture

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from arena.models import Bot


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes

    @property
    def doc(self) -> dict[str, Any]:
        return json.loads(self.body)

    @property
    def event_id(self) -> str:
        return self.headers["X-Avenue-Event-Id"]


@dataclass
class Receiver:
    url: str
    received: list[Received] = field(default_factory=list)
    #: the answers to give, in order (then 200)
    statuses: list[int] = field(default_factory=list)
    #: the first request waits for this before it answers (None: none waits)
    hold: threading.Event | None = None
    held: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def by_event(self) -> Counter[str]:
        with self.lock:
            return Counter(r.event_id for r in self.received)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    state: list[Receiver] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            r = state[0]
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with r.lock:
                first = not r.received
                r.received.append(Received(dict(self.headers.items()), body))
                code = r.statuses.pop(0) if r.statuses else 200
            if first and r.hold is not None:
                r.held.set()
                r.hold.wait(120)
            self.send_response(code)
            if 300 <= code < 400:
                self.send_header("Location", "http://127.0.0.1:9/elsewhere")
            self.send_header("Content-Length", "2")
            self.end_headers()
            try:
                self.wfile.write(b"ok")
            except OSError:
                pass  # the sender is gone (killed mid-attempt)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.append(Receiver(f"http://127.0.0.1:{server.server_address[1]}/hook"))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state[0]
    finally:
        if state[0].hold is not None:
            state[0].hold.set()
        server.shutdown()
        server.server_close()


def make_owner(email: str = "owner@example.org") -> User:
    from django.contrib.auth.models import User

    return User.objects.create_user(f"owner-{uuid.uuid4().hex[:8]}", email, "pw-12345678")


def make_bot(owner: User, prefix: str = "nb") -> Bot:
    from arena.services.bots import create_bot

    bot, _ = create_bot(f"{prefix}-{uuid.uuid4().hex[:8]}", owner=owner)
    return bot

"""Pages ride out a database restart (``arena.dbretry``): this thread's connection to the
real PostgreSQL goes through a TCP forwarder that resets every connection and refuses new
ones, as a restart does. A page asked meanwhile answers once the database is back; past
``DATABASE_RETRY_SECONDS`` it is a 503 with Retry-After, never a 500; a POST is not
replayed; ``/healthz`` says the database is down at once."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from django.db import connection
from django.test import Client

from tests.reliability.tcpcut import TcpCut

pytestmark = [pytest.mark.services]


@pytest.fixture
def cut(transactional_db: None) -> Iterator[TcpCut]:
    real = dict(connection.settings_dict)
    link = TcpCut(int(real.get("PORT") or 5432), str(real.get("HOST") or "127.0.0.1"))
    connection.close()
    connection.settings_dict.update(HOST="127.0.0.1", PORT=str(link.port))
    try:
        yield link
    finally:
        link.close()
        connection.close()
        connection.settings_dict.update(HOST=real["HOST"], PORT=real["PORT"])


def _back_after(link: TcpCut, seconds: float) -> threading.Thread:
    def restore() -> None:
        time.sleep(seconds)
        link.restore()

    thread = threading.Thread(target=restore)
    thread.start()
    return thread


def test_a_page_asked_while_the_database_restarts_answers_when_it_is_back(
    cut: TcpCut,
    settings,
    caplog,  # noqa: ANN001
) -> None:
    settings.DATABASE_RETRY_SECONDS = 30
    client = Client(raise_request_exception=False)
    assert client.get("/bots/").status_code == 200  # a connection through the forwarder
    assert cut.connections == 1
    cut.cut()
    back = _back_after(cut, 1.5)
    response = client.get("/bots/")
    back.join()
    assert response.status_code == 200
    assert "answered after" in caplog.text and "database retries" in caplog.text


def test_past_the_retry_time_a_page_is_a_503_and_a_post_is_not_replayed(
    cut: TcpCut,
    settings,  # noqa: ANN001
) -> None:
    settings.DATABASE_RETRY_SECONDS = 1
    client = Client(raise_request_exception=False)
    assert client.get("/matches/").status_code == 200
    cut.cut()
    try:
        response = client.get("/matches/")
        assert response.status_code == 503
        assert response["Retry-After"] == "5" and "Back in a moment" in response.content.decode()
        health = client.get("/healthz")
        assert health.status_code == 503
        settings.DATABASE_RETRY_SECONDS = 60
        started = time.monotonic()
        posted = client.post("/accounts/login/", {"username": "x", "password": "y"})
        assert posted.status_code >= 500
        # answered without waiting out the retries a GET would get: a POST is not replayed
        assert time.monotonic() - started < 30
    finally:
        cut.restore()
    assert client.get("/matches/").status_code == 200

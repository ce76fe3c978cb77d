"""The forwarder the fault tests cut is faithful: a cut ends the server's side of every
connection it carries, as a restarting PostgreSQL does, even while the connection sits
idle inside a transaction (its pump threads blocked reading). Before, such a session
lived on with its row locks, and the fault matrix's "PostgreSQL restart" saw every worker
wait behind them for minutes: a fault no real restart makes."""

from __future__ import annotations

import time

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from tests.reliability.tcpcut import TcpCut

pytestmark = [pytest.mark.services, pytest.mark.django_db]


def _alive(pid: int) -> bool:
    with connection.cursor() as cur:
        # the test's transaction would keep seeing the activity of its first look
        cur.execute("SELECT pg_stat_clear_snapshot()")
        cur.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", [pid])
        return cur.fetchone()[0] == 1


def test_a_cut_ends_a_session_idle_in_its_transaction() -> None:
    db = settings.DATABASES["default"]
    if db["ENGINE"] != "django.db.backends.postgresql":
        pytest.fail("this test needs PostgreSQL: run it through `make test`")
    link = TcpCut(int(db["PORT"] or 5432), db["HOST"] or "127.0.0.1")
    try:
        client = psycopg.connect(
            host="127.0.0.1", port=link.port, dbname=db["NAME"], user=db["USER"] or "postgres",
            connect_timeout=10,
        )  # fmt: skip
        with client.cursor() as cur:
            cur.execute("BEGIN")
            cur.execute("SELECT pg_backend_pid()")
            row = cur.fetchone()
            assert row is not None
            pid = row[0]
        assert _alive(pid)
        assert link.cut() == 1
        deadline = time.monotonic() + 30
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(pid), "the server kept the session the cut should have ended"
        with pytest.raises(psycopg.OperationalError):
            client.execute("SELECT 1")
        client.close()
        # and new connections are refused until restore()
        with pytest.raises(psycopg.OperationalError):
            psycopg.connect(host="127.0.0.1", port=link.port, dbname=db["NAME"], connect_timeout=5)
    finally:
        link.close()

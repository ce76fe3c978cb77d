"""No PostgreSQL session of ours waits for ever: a connect that gets no answer fails after
DATABASE_CONNECT_TIMEOUT, and a session left idle inside a transaction (its client gone
without the server seeing it) is ended by the server after
DATABASE_IDLE_TRANSACTION_SECONDS, its row locks freed. Each in a process of its own, with
the settings as a deployment reads them."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from tests.leagues.conftest import database_url

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.processes, pytest.mark.services]


def _postgres_url() -> str:
    if connection.vendor != "postgresql":
        pytest.fail("these tests need PostgreSQL: run them through `make test`")
    return database_url()


def _run(python: str, env: dict[str, str], code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [python, "-c", "import django; django.setup()\n" + code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A TCP port that takes connections and never says a word (a stopped server)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            held.append(conn)

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        listener.close()
        for conn in held:
            conn.close()


def test_a_connect_without_an_answer_fails_after_the_timeout(
    python: str, clean_env: Callable[..., dict[str, str]], silent_server: int
) -> None:
    env = clean_env(
        DATABASE_URL=f"postgres://postgres@127.0.0.1:{silent_server}/nowhere",
        DATABASE_CONNECT_TIMEOUT="2",
    )
    code = (
        "import time; from django.db import connection, OperationalError\n"
        "t = time.monotonic()\n"
        "try:\n    connection.ensure_connection()\n"
        "except OperationalError as exc:\n"
        "    print(f'failed after {time.monotonic() - t:.1f} s: {exc}')\n"
    )
    started = time.monotonic()
    proc = _run(python, env, code)
    assert proc.returncode == 0, proc.stderr
    assert "failed after" in proc.stdout, proc.stdout
    seconds = float(proc.stdout.split("failed after ")[1].split(" s")[0])
    # libpq's connect_timeout (2 s, at least 2) per address tried; without it: for ever
    assert 1.5 <= seconds < 30, proc.stdout
    assert time.monotonic() - started < 100


@pytest.mark.django_db(transaction=True)
def test_a_session_idle_in_a_transaction_is_ended_and_its_locks_freed(
    python: str, clean_env: Callable[..., dict[str, str]]
) -> None:
    from django.db import transaction

    with connection.cursor() as cur:
        cur.execute("CREATE TABLE IF NOT EXISTS idle_probe (id int PRIMARY KEY)")
        cur.execute("INSERT INTO idle_probe VALUES (1) ON CONFLICT DO NOTHING")
    env = clean_env(DATABASE_URL=_postgres_url(), DATABASE_IDLE_TRANSACTION_SECONDS="1")
    # a process that takes a row lock, then sits in its transaction (a client gone quiet)
    code = (
        "import time; from django.db import connection, transaction, DatabaseError\n"
        "try:\n"
        "    with transaction.atomic():\n"
        "        with connection.cursor() as cur:\n"
        "            cur.execute('SELECT id FROM idle_probe WHERE id = 1 FOR UPDATE')\n"
        "            print('locked', flush=True)\n"
        "            time.sleep(4)\n"
        "            cur.execute('SELECT 1')\n"
        "    print('the transaction survived')\n"
        "except DatabaseError as exc:\n"
        "    print(f'ended: {exc}')\n"
    )
    started = time.monotonic()
    try:
        proc = _run(python, env, code)
        assert proc.returncode == 0, proc.stderr
        assert "locked" in proc.stdout, proc.stdout
        assert "ended:" in proc.stdout and "idle-in-transaction" in proc.stdout, proc.stdout
        # and the row is free again: this connection takes its lock at once
        with transaction.atomic(), connection.cursor() as cur:
            cur.execute("SELECT id FROM idle_probe WHERE id = 1 FOR UPDATE NOWAIT")
            assert cur.fetchone() == (1,)
        assert time.monotonic() - started < 100
    finally:
        with connection.cursor() as cur:
            cur.execute("DROP TABLE IF EXISTS idle_probe")


@pytest.mark.django_db
def test_the_suites_own_connection_has_no_idle_limit() -> None:
    """tests/conftest.py lifts it for this process only (tests wait in their transaction)."""
    with connection.cursor() as cur:
        cur.execute("SHOW idle_in_transaction_session_timeout")
        assert cur.fetchone() == ("0",)
    assert (
        "idle_in_transaction_session_timeout=0"
        in (settings.DATABASES["default"]["OPTIONS"]["options"])
    )


def test_a_deployed_process_has_the_limit_set(
    python: str, clean_env: Callable[..., dict[str, str]]
) -> None:
    env = clean_env(DATABASE_URL=_postgres_url())
    code = (
        "from django.db import connection\n"
        "with connection.cursor() as cur:\n"
        "    cur.execute('SHOW idle_in_transaction_session_timeout'); print(cur.fetchone()[0])\n"
    )
    proc = _run(python, env, code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[0] == "1min", proc.stdout

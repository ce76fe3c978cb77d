"""The broker transport's close after Redis was killed, step by step (``workers.broker``).

A redis-server of this test's own (``appendonly yes``, on a free port), a kombu consumer
holding three delivered, unacknowledged messages with a ``BRPOP`` in flight: what a Celery
worker's consumer is while it plays matches and waits for more. Redis is killed with
SIGKILL, then the cleanup runs exactly as Celery 5.7's consumer runs it on a connection
error (``Consumer.on_connection_error_after_connected``): ``collect()``, then ``close()``
under ``ignore_errors``. kombu's own transport raises ``AttributeError`` out of it (the
worker's ``Unrecoverable error``); the mended one does not, and once Redis is back (with
its data) the next connection puts the three messages back in the queue.

The whole worker's story is ``test_broker_crash.py``.
"""

from __future__ import annotations

import base64
import json
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from kombu import Connection, Consumer, Exchange, Producer, Queue
from kombu.common import ignore_errors
from kombu.transport import redis as kombu_redis

from tests.reliability.loadrig import Proc, free_port, wait_until
from workers import broker

pytestmark = [pytest.mark.services, pytest.mark.faults, pytest.mark.processes, pytest.mark.serial]

QUEUE = "transport-test"


class Redis:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: Proc | None = None

    def start(self) -> None:
        argv = [
            "redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
            "--dir", str(self.tmp), "--save", "", "--appendonly", "yes",
            "--appendfsync", "always", "--daemonize", "no",
        ]  # fmt: skip
        self.proc = Proc("redis", argv, {}, self.tmp / "redis.log").start()
        wait_until(self.up, 15, "redis-server to answer")

    def up(self) -> bool:
        client = redis.Redis.from_url(self.url, socket_connect_timeout=0.5)
        try:
            return bool(client.ping())
        except redis.RedisError:
            return False
        finally:
            client.close()

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url, socket_connect_timeout=2, socket_timeout=5)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Redis]:
    if shutil.which("redis-server") is None:
        pytest.fail("this test starts its own redis-server: install redis-server")
    r = Redis(tmp_path)
    r.start()
    try:
        yield r
    finally:
        if r.proc is not None:
            r.proc.stop(signal.SIGTERM)


def _held_with_brpop(url: str, transport: Any) -> tuple[Connection, list[Any]]:
    """A connection whose consumer holds 3 delivered messages and waits in BRPOP."""
    conn = Connection(url, transport=transport, transport_options={"visibility_timeout": 3600})
    queue = Queue(QUEUE, Exchange(QUEUE), routing_key=QUEUE)
    producer = Producer(conn.channel(), exchange=queue.exchange, routing_key=QUEUE)
    for i in range(3):
        producer.publish({"n": i}, serializer="json", declare=[queue])
    got: list[Any] = []
    channel: Any = conn.default_channel  # a kombu Redis channel (typed as the base)
    # and a fanout queue that goes with the consumer, as a worker's remote control (pidbox)
    # has: a SUBSCRIBE of its own, and a binding the channel's close deletes
    control = Queue(
        f"{QUEUE}.control", Exchange(f"{QUEUE}.pidbox", type="fanout"), auto_delete=True
    )
    consumer = Consumer(channel, [queue, control], callbacks=[lambda _body, m: got.append(m)])
    consumer.qos(prefetch_count=10)
    consumer.consume()
    for _ in range(10):
        if len(got) == 3:
            break
        conn.drain_events(timeout=2)
    assert len(got) == 3
    channel._brpop_start()  # the consumer asks for more, as a worker with free slots does
    channel._subscribe()
    assert channel._in_poll and channel._in_listen
    return conn, got


def _lost(conn: Connection) -> None:
    """The worker's hub finds the subscription's socket readable and reads it: the error
    that starts the consumer's cleanup (``MultiChannelPoller.on_readable``), while its
    BRPOP is still in flight."""
    with pytest.raises(redis.ConnectionError):
        channel: Any = conn.default_channel
        channel.handlers["LISTEN"]()


def _celery_cleanup(conn: Connection) -> None:
    """What Celery 5.7's consumer does with a connection that failed (consumer.py)."""
    try:
        conn.collect(socket_timeout=2.0)
    except Exception:  # noqa: BLE001, S110 - Celery ignores any error here
        pass
    ignore_errors(conn, conn.close)


def _queued(server: Redis) -> list[int]:
    client = server.client()
    try:
        raw = client.lrange(QUEUE, 0, -1)
        messages = [json.loads(m) for m in raw]  # type: ignore[union-attr]
        return sorted(json.loads(base64.b64decode(m["body"]))["n"] for m in messages)
    finally:
        client.close()


def test_kombus_own_transport_fails_the_cleanup(server: Redis) -> None:
    """The bug the mended transport is for: if kombu fixes it, this test says so."""
    conn, got = _held_with_brpop(server.url, kombu_redis.Transport)
    assert server.proc is not None
    server.proc.kill9()
    _lost(conn)
    with pytest.raises(AttributeError, match="hostname"):
        _celery_cleanup(conn)
    with pytest.raises(AttributeError):  # and a task's late ack, out of the worker's hub
        got[0].ack()


def test_the_mended_transport_survives_and_restores_what_it_held(server: Redis) -> None:
    conn, got = _held_with_brpop(server.url, broker.Transport)
    assert _queued(server) == []  # all three delivered, in the unacked hash
    assert server.proc is not None
    server.proc.kill9()
    _lost(conn)
    before = broker.pending_restores()
    _celery_cleanup(conn)  # raises nothing
    assert broker.pending_restores() == before + 3
    got[0].ack()  # a task that ends now, on the old channel: raises nothing either
    server.start()  # the same directory: the unacked hash is back
    again = Connection(server.url, transport=broker.Transport)
    try:
        again.default_channel  # noqa: B018 - connecting restores
        assert _queued(server) == [0, 1, 2]
        assert broker.pending_restores() == before
    finally:
        again.close()
    assert len(got) == 3

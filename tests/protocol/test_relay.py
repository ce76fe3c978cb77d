"""The relay's contract, for both implementations: routing, newest connection wins, and
the runner's wait that drops and counts what it was not waiting for."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest
import redis
from django.conf import settings

from arena.adapters.relay.base import (
    Delivery,
    DeliveryKind,
    DropCounts,
    GatewayRelay,
    Inbound,
    InboundKind,
    Reach,
    RunnerRelay,
)
from arena.adapters.relay.local import InProcessRelay
from arena.adapters.relay.presence import gateway_key
from arena.adapters.relay.redis import RedisGatewayRelay, RedisRunnerRelay
from tests.protocol.harness import clear_prefix, lane, new_prefix, wait_for

T = TypeVar("T")


class LoopThread:
    """An event loop in a thread, like the gateway's."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(10)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@dataclass
class Sink:
    deliveries: list[Delivery] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    revoked: list[str] = field(default_factory=list)
    notices: list[bytes] = field(default_factory=list)

    def deliver(self, delivery: Delivery) -> None:
        self.deliveries.append(delivery)

    def supersede(self, reason: str) -> None:
        self.superseded.append(reason)

    def revoke(self, reason: str) -> None:
        self.revoked.append(reason)

    def notice(self, payload: bytes) -> None:
        self.notices.append(payload)


@dataclass
class Pair:
    runner: RunnerRelay
    gateways: list[GatewayRelay]
    loop: LoopThread


@pytest.fixture(params=["in-process", "redis", "lanes"])
def relays(request: pytest.FixtureRequest) -> Iterator[Pair]:
    loop = LoopThread()
    if request.param == "in-process":
        local = InProcessRelay()
        yield Pair(local, [local, local], loop)
        loop.close()
        return
    if not settings.REDIS_URL:
        pytest.fail("needs Redis: run through `make test`")
    prefix, url = new_prefix(), str(settings.REDIS_URL)
    # "lanes": as deployed, the runner writes to the gateways' direct lanes
    direct = lane() if request.param == "lanes" else None
    gateways: list[GatewayRelay] = [RedisGatewayRelay(url, prefix, direct=direct) for _ in range(2)]
    for g in gateways:
        loop.run(g.start())
    runner = RedisRunnerRelay(url, prefix)
    yield Pair(runner, gateways, loop)
    for g in gateways:
        loop.run(g.stop())
    runner.close()
    loop.close()
    clear_prefix(prefix)


def test_deliveries_reach_the_gateway_holding_the_bot(relays: Pair) -> None:
    runner, gateway = relays.runner, relays.gateways[0]
    started = Delivery(DeliveryKind.STARTED, "m1", 0, b"hello")
    assert not runner.deliver("7", started) and not runner.is_connected("7")
    assert runner.presence("7") is None
    sink = Sink()
    conn = relays.loop.run(gateway.attach("7", sink, 3))
    assert runner.is_connected("7")
    presence = runner.presence("7")
    assert presence is not None and presence["max_matches"] == 3 and presence["conn"] == conn
    assert runner.deliver("7", started)
    wait_for(lambda: sink.deliveries == [started], 5, "the delivery")
    relays.loop.run(gateway.detach("7", conn))
    assert not runner.is_connected("7") and runner.presence("7") is None


def test_the_newest_connection_wins_even_across_gateways(relays: Pair) -> None:
    runner, (g1, g2) = relays.runner, relays.gateways
    old, new = Sink(), Sink()
    old_conn = relays.loop.run(g1.attach("7", old, 1))
    new_conn = relays.loop.run(g2.attach("7", new, 1))
    wait_for(lambda: bool(old.superseded), 5, "the old stream to be superseded")
    assert not new.superseded
    relays.loop.run(g1.detach("7", old_conn))  # the old stream's cleanup changes nothing
    assert runner.deliver("7", Delivery(DeliveryKind.REQUEST, "m", 1, b"x"))
    wait_for(lambda: len(new.deliveries) == 1, 5, "delivery to the new stream")
    assert not old.deliveries
    relays.loop.run(g2.detach("7", new_conn))
    assert not runner.is_connected("7")


def test_the_runner_waits_for_its_answer_and_counts_the_rest(relays: Pair) -> None:
    runner, gateway = relays.runner, relays.gateways[0]
    runner.open_match("m1")
    for inbound in [
        Inbound(InboundKind.ACTION, "7", "m1", 4, b"old"),  # stale
        Inbound(InboundKind.ACTION, "8", "m1", 5, b"out of turn"),  # foreign
        Inbound(InboundKind.MALFORMED, "8", "m1", 5, detail="junk"),  # foreign
        Inbound(InboundKind.ACTION, "7", "m1", 5, b"the one"),
    ]:
        relays.loop.run(gateway.send_inbound(inbound))
    drops = DropCounts()
    got = runner.await_answer("m1", "7", 5, time.monotonic() + 5, drops)
    assert got is not None and got.payload == b"the one"
    assert (drops.stale, drops.foreign) == (1, 2)

    started = time.monotonic()
    assert runner.await_answer("m1", "7", 6, started + 0.2, drops) is None
    assert 0.15 < time.monotonic() - started < 2

    relays.loop.run(gateway.send_inbound(Inbound(InboundKind.DISCONNECTED, "8", "m1")))
    notice = runner.await_answer("m1", "7", 6, time.monotonic() + 5, drops)
    assert notice is not None and notice.kind is InboundKind.DISCONNECTED and notice.bot_id == "8"
    runner.close_match("m1")


def test_a_new_run_of_a_match_starts_with_an_empty_inbox(relays: Pair) -> None:
    runner, gateway = relays.runner, relays.gateways[0]
    runner.open_match("m2")
    relays.loop.run(gateway.send_inbound(Inbound(InboundKind.ACTION, "7", "m2", 1, b"late")))
    runner.open_match("m2")
    assert runner.await_answer("m2", "7", 1, time.monotonic() + 0.1, DropCounts()) is None


def _redis_server(port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--daemonize", "no"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    client = redis.Redis(port=port, socket_connect_timeout=0.2)
    try:
        wait_for(lambda: _pings(client), 10, "redis-server to start")
    finally:
        client.close()
    return proc


def _pings(client: redis.Redis) -> bool:
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False


@pytest.mark.processes
@pytest.mark.services
def test_a_gateway_resubscribes_its_bots_after_redis_was_down_a_while() -> None:
    """Regression (found by tests/reliability/test_faults_under_load.py): Redis down for
    longer than the listener's first retry left the gateway subscribed to nothing, for good;
    its bots' streams stayed open but no runner could reach them."""
    if shutil.which("redis-server") is None:
        pytest.fail("needs the redis-server binary (this test restarts a Redis of its own)")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"redis://127.0.0.1:{port}/0"
    server = _redis_server(port)
    loop = LoopThread()
    gateway = RedisGatewayRelay(url, "restart")
    runner = RedisRunnerRelay(url, "restart")
    try:
        loop.run(gateway.start())
        sink = Sink()
        loop.run(gateway.attach("7", sink, 1))
        assert runner.is_connected("7")
        server.terminate()
        server.wait(10)
        time.sleep(1.5)  # several of the listener's retries fail
        server = _redis_server(port)
        wait_for(lambda: runner.is_connected("7"), 15, "the gateway to resubscribe bot 7")
        started = Delivery(DeliveryKind.STARTED, "m1", 0, b"again")
        assert runner.deliver("7", started)
        wait_for(lambda: sink.deliveries == [started], 5, "the delivery")
        # and the other way: the gateway's push connection died with Redis; it reconnects
        runner.open_match("m1")
        loop.run(gateway.send_inbound(Inbound(InboundKind.ACTION, "7", "m1", 1, b"back")))
        got = runner.await_answer("m1", "7", 1, time.monotonic() + 5, DropCounts())
        assert got is not None and got.payload == b"back"
    finally:
        loop.run(gateway.stop())
        runner.close()
        loop.close()
        server.kill()
        server.wait(10)


def test_reach_names_the_stream_and_whose_fault_its_absence_is(relays: Pair) -> None:
    runner, (g1, g2) = relays.runner, relays.gateways
    assert runner.reach("7") == Reach(None)
    conn = relays.loop.run(g1.attach("7", Sink(), 1))
    assert runner.reach("7") == Reach(conn)
    newer = relays.loop.run(g2.attach("7", Sink(), 1))
    assert runner.reach("7") == Reach(newer)
    relays.loop.run(g1.detach("7", conn))  # the superseded stream's cleanup
    assert runner.reach("7") == Reach(newer)
    before = time.time()
    relays.loop.run(g2.detach("7", newer))  # a clean goodbye: no entry, the bot's doing
    gone = runner.reach("7")
    assert (gone.conn, gone.gateway_lost, gone.arena_left) == (None, False, False)
    assert gone.left_at is not None and before - 1 <= gone.left_at <= time.time() + 1
    again = relays.loop.run(g1.attach("7", Sink(), 1))
    relays.loop.run(g1.detach("7", again, arena=True))  # a draining gateway's goodbye
    drained = runner.reach("7")
    assert drained.conn is None and drained.arena_left and not drained.gateway_lost
    away = drained.away_s()
    assert away is not None and away < 5


@dataclass
class OneGateway:
    """A Redis runner relay and one Redis gateway relay under a fresh prefix, with a plain
    Redis client and the loop the gateway runs on."""

    prefix: str
    loop: LoopThread
    runner: RedisRunnerRelay
    client: redis.Redis
    gateway: RedisGatewayRelay


@contextlib.contextmanager
def one_gateway(gateway_id: str | None = None) -> Iterator[OneGateway]:
    """The relays, the gateway started; afterwards everything closed and the prefix's keys
    gone (stopping the gateway is the test's: some look at what its stop does)."""
    if not settings.REDIS_URL:
        pytest.fail("needs Redis: run through `make test`")
    prefix, url = new_prefix(), str(settings.REDIS_URL)
    loop = LoopThread()
    runner = RedisRunnerRelay(url, prefix)
    client = redis.Redis.from_url(url)
    gateway = RedisGatewayRelay(url, prefix, gateway_id=gateway_id)
    try:
        loop.run(gateway.start())
        yield OneGateway(prefix, loop, runner, client, gateway)
    finally:
        runner.close()
        client.close()
        loop.close()
        clear_prefix(prefix)


def test_a_gateway_that_died_is_told_from_one_that_let_its_bot_go() -> None:
    with one_gateway("doomed") as g:
        loop, runner, client, gateway, prefix = g.loop, g.runner, g.client, g.gateway, g.prefix
        key = gateway_key(prefix, "doomed")
        assert int(client.ttl(key)) > 0, "a live gateway beats its key"  # type: ignore[arg-type]
        loop.run(gateway.attach("7", Sink(), 1))
        # as kill -9 leaves things: the subscription gone with the connection, the
        # presence entry behind; while the key lives, the bot may merely be leaving
        loop.run(gateway.unsubscribe("7"))
        assert runner.reach("7") == Reach(None, gateway_lost=False, unheld=True)
        client.delete(key)  # ... until the key expires
        lost = runner.reach("7")
        assert (lost.conn, lost.gateway_lost, lost.arena_left) == (None, True, True)
        # the first runner to find it so records since when: the next look says the same
        assert lost.left_at is not None and runner.reach("7").left_at == lost.left_at
        loop.run(gateway.stop())
        assert not client.exists(key), "a gateway that stops takes its key away"


def test_deliveries_keep_kind_match_seq_and_payload_through_redis() -> None:
    from arena.adapters.relay.wire import delivery_of, encode_delivery, unpack

    for delivery in [
        Delivery(DeliveryKind.REQUEST, "league-1-match-7#2", 41, b"\x00\n\xff" * 100),
        Delivery(DeliveryKind.STARTED, "m", 0, b""),
        Delivery(DeliveryKind.ENDED, "ünïcode", 0, b"\n"),
    ]:
        header, payload = unpack(encode_delivery(delivery))
        assert header["t"] == "d" and delivery_of(header, payload) == delivery


def test_inbound_messages_carry_latency_fault_side_and_stream_through_redis() -> None:
    from arena.adapters.relay.redis import decode_inbound, encode_inbound

    action = Inbound(InboundKind.ACTION, "7", "m", 3, b"\x08\x01", latency_ms=1.25)
    gone = Inbound(InboundKind.DISCONNECTED, "7", "m", detail="bye", arena=True, conn="42")
    assert decode_inbound(encode_inbound(action)) == action
    assert decode_inbound(encode_inbound(gone)) == gone


#: messages on a bot's channel that are not the wire format: their header not JSON, not
#: UTF-8, not an object, a field missing or of the wrong kind
GARBAGE = [
    b"not json at all\npayload",
    b"\xff\xfe\x00\n",
    b"[1, 2, 3]\n",
    b'"just a string"',
    b'{"t": "d", "k": "request"}\n',
    b'{"t": "d", "k": "no such kind", "m": "m1", "s": 0}\n',
    b'{"t": "k", "c": "not a number"}\n',
    b'{"t": "r"}\n',
]


def test_a_message_the_gateway_cannot_read_is_logged_and_the_next_ones_get_through(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="arena.adapters.relay.redis_gateway")
    with one_gateway() as g, contextlib.ExitStack() as stop:
        loop, runner, client, gateway = g.loop, g.runner, g.client, g.gateway
        stop.callback(lambda: loop.run(gateway.stop()))
        sink = Sink()
        loop.run(gateway.attach("7", sink, 1))
        for data in GARBAGE:
            assert client.publish(gateway.keys.bot("7"), data) == 1
        # published after the garbage on the same channel: Redis hands them over in order
        started = Delivery(DeliveryKind.STARTED, "m1", 0, b"hello")
        assert runner.deliver("7", started)
        wait_for(lambda: sink.deliveries == [started], 5, "the delivery after the garbage")
        bad = [r for r in caplog.records if "cannot read a message" in r.getMessage()]
        assert len(bad) == len(GARBAGE), [r.getMessage() for r in bad]
        assert "not json at all" in bad[0].getMessage()
        assert all(r.levelno == logging.WARNING for r in bad)
        assert not sink.superseded and not sink.revoked and not sink.notices
        assert gateway.stats["unreadable messages"] == len(GARBAGE)
        # and the bot's channel goes on working
        request = Delivery(DeliveryKind.REQUEST, "m1", 1, b"\x00\n")
        assert runner.deliver("7", request)
        wait_for(lambda: sink.deliveries == [started, request], 5, "the next delivery")

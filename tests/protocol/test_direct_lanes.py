"""Direct lanes (arena.adapters.relay.direct): a runner writes decisions straight to the gateway
holding the bot, and whatever a lane refuses, misses or loses still goes by Redis.

Real Redis, real gateway relays on an event loop thread, real TCP lanes; the last test
plays whole matches between SDK bot processes through a real gateway."""

from __future__ import annotations

import socket
import struct
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from arena.adapters.relay.base import Delivery, DeliveryKind, DropCounts, Inbound, InboundKind
from arena.adapters.relay.frames import LaneError, split_address
from arena.adapters.relay.redis import RedisGatewayRelay, RedisRunnerRelay
from tests.protocol.harness import clear_prefix, lane, new_prefix, running_arena, wait_for
from tests.protocol.test_relay import LoopThread, Sink

pytestmark = pytest.mark.django_db(transaction=True)


class Echo(Sink):
    """A bot's stream that answers every request at once, through the gateway's relay."""

    def __init__(self, relay: RedisGatewayRelay, loop: LoopThread, bot_id: str) -> None:
        super().__init__()
        self.relay, self.loop, self.bot_id = relay, loop, bot_id

    def deliver(self, delivery: Delivery) -> None:
        super().deliver(delivery)
        if delivery.kind is DeliveryKind.REQUEST:
            answer = Inbound(InboundKind.ACTION, self.bot_id, delivery.match_id, delivery.seq)
            self.loop.loop.create_task(self.relay.send_inbound(answer))


@pytest.fixture
def gateway() -> Iterator[tuple[RedisGatewayRelay, LoopThread, str]]:
    if not settings.REDIS_URL:
        pytest.fail("needs Redis: run through `make test`")
    prefix, url = new_prefix(), str(settings.REDIS_URL)
    loop = LoopThread()
    relay = RedisGatewayRelay(url, prefix, direct=lane())
    loop.run(relay.start())
    yield relay, loop, prefix
    loop.run(relay.stop())
    loop.close()
    clear_prefix(prefix)


def runner(prefix: str, **kwargs: object) -> RedisRunnerRelay:
    return RedisRunnerRelay(str(settings.REDIS_URL), prefix, **kwargs)  # type: ignore[arg-type]


def play(relay: RedisRunnerRelay, bot: str, match: str, seqs: range) -> list[Inbound | None]:
    """As a remote seat does: MatchStarted, then each request and its answer."""
    relay.open_match(match)
    assert relay.deliver(bot, Delivery(DeliveryKind.STARTED, match, 0, b"started"))
    answers = []
    for seq in seqs:
        request = Delivery(DeliveryKind.REQUEST, match, seq, b"request")
        answers.append(relay.request(bot, request, time.monotonic() + 20, DropCounts()))
    return answers


def test_a_match_goes_over_the_lane_and_nothing_through_the_inbox(gateway) -> None:  # type: ignore[no-untyped-def]
    relay, loop, prefix = gateway
    echo = Echo(relay, loop, "7")
    loop.run(relay.attach("7", echo, 1))
    presence = RedisRunnerRelay(str(settings.REDIS_URL), prefix).presence("7")
    assert presence is not None and presence["direct"] == relay.direct_address
    r = runner(prefix)
    try:
        answers = play(r, "7", "m1", range(1, 21))
        assert [a.seq if a else None for a in answers] == list(range(1, 21))
        assert r.lane_counts()["acked"] == 1 and r.lane_counts()["sent"] == 20
        assert r.lane_counts()["answers"] == 20
        assert relay.stats["lane_answers"] == 20 and relay.stats["inbox_answers"] == 0
        assert [d.seq for d in echo.deliveries] == list(range(0, 21))  # in order
    finally:
        r.close()


def test_without_the_secret_a_runner_gets_no_lane_and_goes_by_redis(gateway) -> None:  # type: ignore[no-untyped-def]
    relay, loop, prefix = gateway
    loop.run(relay.attach("7", Echo(relay, loop, "7"), 1))
    r = runner(prefix, secret="not the arena's")
    try:
        answers = play(r, "7", "m1", range(1, 6))
        assert [a.seq if a else None for a in answers] == [1, 2, 3, 4, 5]
        assert r.lane_counts().get("sent", 0) == 0
        assert relay.stats["inbox_answers"] == 5 and relay.stats["lane_deliveries"] == 0
    finally:
        r.close()
    assert relay._lanes is not None and relay._lanes.refused == 1
    # the next match of this process does not knock again for a while (arena.adapters.relay.lanes)
    again = runner(prefix, secret="not the arena's")
    try:
        assert [a.seq if a else None for a in play(again, "7", "m2", range(1, 3))] == [1, 2]
    finally:
        again.close()
    assert relay._lanes.refused == 1


def test_a_request_for_a_stream_the_gateway_no_longer_holds_goes_by_redis(gateway) -> None:  # type: ignore[no-untyped-def]
    """The runner learned stream A; the bot is on stream B now (same gateway): the lane
    refuses the request for A (a miss), and the runner publishes it, which B gets."""
    relay, loop, prefix = gateway
    old = Echo(relay, loop, "7")
    loop.run(relay.attach("7", old, 1))
    r = runner(prefix)
    try:
        assert [a.seq if a else None for a in play(r, "7", "m1", range(1, 3))] == [1, 2]
        new = Echo(relay, loop, "7")
        loop.run(relay.attach("7", new, 1))  # supersedes the old stream
        request = Delivery(DeliveryKind.REQUEST, "m1", 3, b"request")
        got = r.request("7", request, time.monotonic() + 20, DropCounts())
        assert got is not None and got.kind is InboundKind.ACTION and got.seq == 3
        assert r.lane_counts()["missed"] == 1
        assert [d.seq for d in new.deliveries] == [3]
        # and the next request goes on the lane again, to the new stream
        request = Delivery(DeliveryKind.REQUEST, "m1", 4, b"request")
        r.deliver("7", Delivery(DeliveryKind.STARTED, "m1", 0, b"resumed"))
        got = r.request("7", request, time.monotonic() + 20, DropCounts())
        assert got is not None and got.seq == 4
        assert [d.seq for d in new.deliveries] == [3, 0, 4]
        assert r.lane_counts()["acked"] == 2
    finally:
        r.close()


def test_a_request_for_a_bot_nobody_holds_any_more_says_so(gateway) -> None:  # type: ignore[no-untyped-def]
    relay, loop, prefix = gateway
    conn = loop.run(relay.attach("7", Sink(), 1))
    r = runner(prefix)
    try:
        r.open_match("m1")
        assert r.deliver("7", Delivery(DeliveryKind.STARTED, "m1", 0, b""))
        loop.run(relay.detach("7", conn))
        request = Delivery(DeliveryKind.REQUEST, "m1", 1, b"request")
        got = r.request("7", request, time.monotonic() + 20, DropCounts())
        assert got is not None and got.kind is InboundKind.DISCONNECTED and got.bot_id == "7"
        assert r.lane_counts()["missed"] == 1
    finally:
        r.close()


def test_an_answer_sent_after_the_lane_broke_comes_through_the_inbox(gateway) -> None:  # type: ignore[no-untyped-def]
    relay, loop, prefix = gateway
    loop.run(relay.attach("7", Sink(), 1))
    r = runner(prefix)
    try:
        r.open_match("m1")
        assert r.deliver("7", Delivery(DeliveryKind.STARTED, "m1", 0, b""))
        delivered, first = r.deliver_and_pop(
            "7", Delivery(DeliveryKind.REQUEST, "m1", 1, b"request"), "m1", 0.01
        )
        assert delivered and first is None  # the bot is thinking
        assert relay._lanes is not None
        for writer in list(relay._lanes._lanes):  # the lane breaks (a network fault)
            loop.loop.call_soon_threadsafe(writer.close)
        wait_for(lambda: not relay._reply, 10, "the gateway to drop the lane's matches")
        loop.run(relay.send_inbound(Inbound(InboundKind.ACTION, "7", "m1", 1, b"late")))
        got = r.pop("m1", 20)
        assert got is not None and got.payload == b"late"
        assert r.lane_counts()["broken"] == 1 and relay.stats["inbox_answers"] == 1
    finally:
        r.close()


def test_garbage_on_the_lane_port_is_refused_and_the_lane_still_serves(gateway) -> None:  # type: ignore[no-untyped-def]
    relay, loop, prefix = gateway
    loop.run(relay.attach("7", Echo(relay, loop, "7"), 1))
    host, port = split_address(relay.direct_address)
    for garbage in [b"GET / HTTP/1.1\r\n\r\n", struct.pack(">I", 5) + b"jnope", b"\xff" * 8]:
        with socket.create_connection((host, port), timeout=10) as sock:
            sock.sendall(garbage)
            sock.settimeout(10)
            try:
                assert sock.recv(100) == b""  # closed, nothing said
            except ConnectionResetError:
                pass
    r = runner(prefix)
    try:
        answers = play(r, "7", "m1", range(1, 4))
        assert [a.seq if a else None for a in answers] == [1, 2, 3]
        assert r.lane_counts()["sent"] == 3
    finally:
        r.close()


def test_an_address_that_is_not_the_named_gateway_is_no_lane(gateway) -> None:  # type: ignore[no-untyped-def]
    from arena.adapters.relay.direct import Lane

    relay, _, prefix = gateway
    with pytest.raises(LaneError, match="is not the lane of gateway someone-else"):
        Lane(relay.direct_address, "someone-else", prefix, str(settings.SECRET_KEY))
    with pytest.raises(LaneError, match="cannot connect"):
        Lane("127.0.0.1:1", relay.gateway_id, prefix, str(settings.SECRET_KEY))


@pytest.mark.processes
def test_sdk_bots_play_whole_matches_over_the_lanes(tmp_path: Path) -> None:
    with running_arena(tmp_path) as arena:
        for name in ("lane-a", "lane-b"):
            arena.sdk_bot(name, "avenue_sdk.examples.random_bot:RandomBot")
        results = [
            arena.play([arena.remote("lane-a"), arena.remote("lane-b")], seed=seed)
            for seed in range(3)
        ]
        assert all(not result.faults for result in results), [r.to_json() for r in results]
        asked = sum(1 for r in results for d in r.record.decisions if d.latency_ms is not None)
        counts = arena.relay.lane_counts()  # type: ignore[attr-defined]
        assert asked > 0 and counts["sent"] == asked and counts.get("broken", 0) == 0
        relay = arena.gateway.relay
        stats = arena.thread.call(lambda: dict(relay.stats))  # type: ignore[attr-defined]
        assert stats["lane_answers"] == asked and stats.get("inbox_answers", 0) == 0


@pytest.mark.parametrize("latency", [None, 0.0, 12.345])
def test_the_frames_of_a_decision_carry_every_field(latency: float | None) -> None:
    from arena.adapters.relay.frames import LaneDelivery, delivery_frame, inbound_frame, parse

    delivery = Delivery(DeliveryKind.REQUEST, "412.3", 17, b"\x00request\xff")
    body = delivery_frame("bot-é", "991", delivery, True, 5)[4:]
    assert parse(body) == ("d", LaneDelivery("bot-é", "991", delivery, True, 5))
    for kind in InboundKind:
        inbound = Inbound(kind, "7", "412.3", 17, b"\x01", "détail", latency, True, "991")
        assert parse(inbound_frame(inbound)[4:]) == ("i", inbound)


def test_a_seq_a_bot_made_up_fits_the_frame() -> None:
    """A bot may answer with any uint64 seq (the gateway forwards a stale one for the
    runner to count): the lane must carry it, not break the bot's stream."""
    from arena.adapters.relay.frames import LaneDelivery, delivery_frame, inbound_frame, parse

    top = 2**64 - 1
    inbound = Inbound(InboundKind.ACTION, "7", "m", top, b"\x01")
    assert parse(inbound_frame(inbound)[4:]) == ("i", inbound)
    delivery = Delivery(DeliveryKind.REQUEST, "m", 7_304_726_562_148, b"")
    body = delivery_frame("7", "1", delivery, False, top)[4:]
    assert parse(body) == ("d", LaneDelivery("7", "1", delivery, False, top))


def test_a_garbled_frame_is_an_error_not_a_guess() -> None:
    from arena.adapters.relay.frames import delivery_frame, parse

    body = delivery_frame("7", "1", Delivery(DeliveryKind.STARTED, "m", 0, b""), False, 0)[4:]
    for garbled in [body[:5], body[:-1] if len(body) > 20 else b"d", b"z" + body[1:], b""]:
        with pytest.raises(ValueError):
            parse(garbled)


def test_a_lane_works_in_a_process_holding_more_than_1024_files(gateway) -> None:  # type: ignore[no-untyped-def]
    """A worker playing a thousand matches holds that many sockets: select() would fail."""
    import os
    import resource

    relay, loop, prefix = gateway
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 1400:
        if hard != resource.RLIM_INFINITY and hard < 1400:
            pytest.fail(f"this machine allows {hard} open files; the test needs 1,400")
        resource.setrlimit(resource.RLIMIT_NOFILE, (1400, hard))
    pipes = [os.pipe() for _ in range(600)]
    try:
        loop.run(relay.attach("7", Echo(relay, loop, "7"), 1))
        r = runner(prefix)
        try:
            answers = play(r, "7", "m1", range(1, 4))
            assert [a.seq if a else None for a in answers] == [1, 2, 3]
            assert r.lane_counts()["sent"] == 3 and r.lane_counts()["answers"] == 3
        finally:
            r.close()
    finally:
        for a, b in pipes:
            os.close(a)
            os.close(b)
        if soft < 1400:
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

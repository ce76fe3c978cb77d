"""A gateway session writes a notice only when nothing else waits to be written: never
ahead of a decision request, never to a hosted bot's stream (its bot host's)."""

from __future__ import annotations

import asyncio

from arena.adapters.gateway import GatewayConfig
from arena.adapters.gateway.session import MAX_HELD_NOTICES, Session
from arena.adapters.relay.base import Delivery, DeliveryKind
from arena.services.bots import BotIdentity


def drain(session: Session) -> list[bytes]:
    """What the stream's writer writes, in order (as ``Gateway.connect`` does)."""
    written = []
    while not session.outbox.empty():
        item = session.outbox.get_nowait()
        assert item is not None
        written.append(session.stamp(item))
        session.next_notice()
    return written


def welcomed(hosted: bool = False) -> tuple[Session, asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    session = Session(BotIdentity("7", "b", hosted=hosted), GatewayConfig(), 1, loop)
    session.welcome(b"welcome")
    return session, loop


def test_a_notice_waits_behind_the_requests_queued_and_goes_out_after_them() -> None:
    session, loop = welcomed()
    try:
        session.deliver(Delivery(DeliveryKind.REQUEST, "m1", 3, b"request"))
        session.notice(b"notice-1")
        session.deliver(Delivery(DeliveryKind.ENDED, "m1", 0, b"ended"))
        assert drain(session) == [b"welcome", b"request", b"ended", b"notice-1"]
        session.notice(b"notice-2")  # nothing waits: straight to the outbox
        assert drain(session) == [b"notice-2"]
        assert (session.notices_sent, session.notices_dropped) == (2, 0)
    finally:
        loop.close()


def test_notices_before_the_welcome_come_after_it_and_a_full_hold_drops_the_oldest() -> None:
    loop = asyncio.new_event_loop()
    try:
        session = Session(BotIdentity("7", "b"), GatewayConfig(), 1, loop)
        for i in range(MAX_HELD_NOTICES + 2):
            session.notice(f"n{i}".encode())
        session.welcome(b"welcome")
        written = drain(session)
        assert written[0] == b"welcome" and written[1] == b"n2" and len(written) == 33
        assert session.notices_dropped == 2
    finally:
        loop.close()


def test_a_hosted_bots_stream_gets_no_notice() -> None:
    session, loop = welcomed(hosted=True)
    try:
        session.notice(b"notice")
        assert drain(session) == [b"welcome"] and session.notices_dropped == 1
    finally:
        loop.close()

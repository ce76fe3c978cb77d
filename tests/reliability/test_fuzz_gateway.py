"""Hostile input for the gateway: a real gateway on port 0 (Redis relay, PostgreSQL tokens)
gets random bytes as stream frames, truncated and oversized messages, and random
well-formed messages of every protocol type in the wrong place (hypothesis).

Properties, for every example: every stream ends with a gRPC status well within its
deadline (the gateway never hangs), the status and the ``Error`` codes are the ones
docs/protocol.md documents, every reply is a well-formed ``ArenaMessage``; a match with a
misbehaving bot finishes with the fault its answer deserves, and another bot's match is
untouched. After each test the health service still says SERVING and a well-behaved SDK
bot plays a whole match.

Example counts are kept small (the whole file runs in well under a minute; each test
prints how many it ran, see ``-s``); ``ARENA_FUZZ_SCALE=10`` runs ten times as many.

Why one file of this length: one rig (a real gateway and its relay) serves every
kind of hostile input; splitting it would start that rig once per file.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path
from typing import Any

import grpc
import pytest
from django.conf import settings as django_settings
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_avenue.v1 import arena_pb2 as pb
from arena.adapters.gateway import DatabaseAuthenticator, Gateway, GatewayThread
from arena.adapters.gateway.server import SERVICE
from arena.adapters.gateway.session import parse_bot_message
from arena.adapters.relay.base import Delivery, DeliveryKind
from arena.adapters.relay.redis import RedisGatewayRelay, RedisRunnerRelay
from arena.adapters.runner import FaultCause, HouseSeat, MatchResult, MatchStatus, TimeControl
from arena.models import Bot
from arena.services.bots import create_bot
from tests.protocol.harness import (
    FAST,
    Arena,
    Background,
    clear_prefix,
    new_prefix,
    running_arena,
    wait_for,
)
from tests.reliability import protofuzz as pf

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True), pytest.mark.processes]

RANDOM = "avenue_sdk.examples.random_bot:RandomBot"
#: ARENA_FUZZ_SCALE=N multiplies every example count, for a longer run by hand
SCALE = int(os.environ.get("ARENA_FUZZ_SCALE", "1"))
#: what any stream may take at most, refusals included; far above the normal few ms
CALL_TIMEOUT_S = 10.0
MAX_CONCURRENT = 16  # GatewayConfig's default cap
#: hypothesis settings for examples that each open a stream to the gateway
#: (no hypothesis deadline: a slow example on a busy machine is no failure; every call has
#: its own timeout, and a hang is what that asserts)
STREAMS = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    database=None,
)


@pytest.fixture
def arena(tmp_path: Path, transactional_db: None) -> Iterator[Arena]:
    if not django_settings.REDIS_URL:
        pytest.fail(
            "the gateway fuzz tests need a real Redis: set REDIS_URL (as `make test` does: redis://127.0.0.1:6379/0)"
        )
    # Many wrong tokens on purpose, all from this host: no failed-attempt limit here
    # (tests/protocol/test_gateway_limits.py covers it).
    with running_arena(tmp_path, replace(FAST, auth_failure_burst=1_000_000)) as a:
        yield a


@pytest.fixture
def background() -> Iterator[Background]:
    bg = Background()
    yield bg
    bg.close()


@pytest.fixture
def raw(arena: Arena) -> Iterator[pf.RawChannel]:
    channel = pf.RawChannel(arena.address)
    yield channel
    channel.close()


def hello(version: int = 1, **fields: Any) -> bytes:
    return pb.BotMessage(hello=pb.Hello(protocol_version=version, **fields)).SerializeToString()


def ended_in_time(ex: pf.Exchange) -> None:
    """The gateway ended the stream itself, with a status, long before the deadline."""
    assert ex.status is not grpc.StatusCode.DEADLINE_EXCEEDED, (ex.status, ex.details)
    assert ex.seconds < CALL_TIMEOUT_S / 2, ex.seconds


# ---------------------------------------------------------------- what the gateway answers


def expected_refusal(first: bytes | None) -> tuple[grpc.StatusCode, str] | None:
    """docs/protocol.md, "Refusals and errors", for the first frame of an authenticated
    stream; None when the stream is welcomed."""
    msg = None if first is None else pf.parse(first)
    if msg is None or msg.WhichOneof("kind") != "hello":
        return grpc.StatusCode.INVALID_ARGUMENT, "hello_expected"
    if msg.hello.protocol_version != 1:
        return grpc.StatusCode.FAILED_PRECONDITION, "unsupported_protocol_version"
    return None


def expected_replies(frames: list[bytes], counts: Counter[str]) -> list[tuple[Any, ...]]:
    """The replies to frames after the Hello when no decision is pending (errors that
    leave the stream open), in order; ``counts`` adds the gateway counters they move."""
    out: list[tuple[Any, ...]] = []
    for data in frames:
        msg = pf.parse(data)
        kind = None if msg is None else msg.WhichOneof("kind")
        if msg is None or kind is None:
            counts["malformed"] += 1
            out.append(("error", "malformed_message", "", 0))
        elif kind == "action":
            counts["unknown_match"] += 1
            out.append(("error", "unknown_match", msg.action.match_id, msg.action.seq))
        elif kind == "ping":
            out.append(("pong", msg.ping.nonce))
        elif kind == "hello":
            out.append(("error", "unexpected_hello", "", 0))
        elif kind == "seat_fault":
            # only a bot host may report a seat's fault: a dial-in bot's is refused
            counts["seat_faults_refused"] += 1
            report = msg.seat_fault
            out.append(("error", "not_a_bot_host", report.match_id, report.seq))
        # a Pong, whatever its nonce, needs no answer
    return out


def summary(msg: pb.ArenaMessage) -> tuple[Any, ...]:
    kind = msg.WhichOneof("kind")
    if kind == "error":
        return ("error", msg.error.code, msg.error.match_id, msg.error.seq)
    if kind == "pong":
        return ("pong", msg.pong.nonce)
    return (kind,)


def gateway_counts(arena: Arena) -> Counter[str]:
    return Counter(arena.stats())


def still_serving(arena: Arena, name: str, keep: frozenset[str] = frozenset()) -> None:
    """Nothing of the fuzzing is left behind (no stream but those of the bots in ``keep``,
    none of them waiting on a decision or holding a match), the health service says
    SERVING, and a well-behaved SDK bot plays a whole match."""

    def leftovers() -> list[str]:
        return [
            s.bot.name
            for s in arena.gateway.sessions
            if s.bot.name not in keep or s.outstanding or s.matches
        ]

    wait_for(lambda: not arena.thread.call(leftovers), 10, "every fuzzed stream to go")
    with grpc.insecure_channel(arena.address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for service in ("", SERVICE):
            reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
    arena.sdk_bot(name, RANDOM)
    outcome = arena.play([arena.remote(name), HouseSeat("random", 1)], seed=3)
    assert outcome.status == MatchStatus.FINISHED and not outcome.faults, outcome.to_json()


# ---------------------------------------------------------------- the deserializer itself


@settings(max_examples=300 * SCALE, deadline=None, database=None)
@given(data=st.one_of(st.binary(max_size=512), pf.truncated(pf.serialized_bot_messages())))
def test_the_deserializer_never_raises(data: bytes) -> None:
    """Whatever bytes arrive, the gateway's deserializer returns a message or an
    ``Unreadable``: a bad frame can never break the stream underneath the session."""
    parsed = parse_bot_message(data)
    assert isinstance(parsed, pb.BotMessage) or parsed.size == len(data)


# ---------------------------------------------------------------- opening a stream

SCHEMES = st.sampled_from(["Bearer", "bearer", "BEARER", "Token", "Basic", ""])
TOKENS = st.one_of(
    st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_", max_size=60),
    st.text("abcdefghijklmnopqrstuvwxyz0123456789-_", max_size=43).map(lambda t: "aat_" + t),
)


def test_tokens_and_first_frames(arena: Arena, raw: pf.RawChannel) -> None:
    """Any token (missing, wrong scheme, unknown, valid) and any first frames (garbage,
    truncated, a random message of any kind, a Hello of any version): the documented
    refusal or a Welcome, never anything else."""
    _, token = arena.bot("opener")
    seen: Counter[str] = Counter()

    runs: Counter[str] = Counter()

    @settings(STREAMS, max_examples=60 * SCALE)
    @given(
        auth=st.sampled_from(["none", "scheme", "unknown", "valid", "valid", "valid"]),
        scheme=SCHEMES,
        bad_token=TOKENS,
        first=st.one_of(
            st.lists(pf.frames(), max_size=3),
            st.lists(pf.frames(), max_size=2).map(lambda rest: [hello(), *rest]),
        ),
    )
    def check(auth: str, scheme: str, bad_token: str, first: list[bytes]) -> None:
        runs["examples"] += 1
        if auth == "none":
            metadata: list[tuple[str, str]] = []
        elif auth == "scheme":
            metadata = [("authorization", f"{scheme} {bad_token}".strip())]
        elif auth == "unknown":
            metadata = [("authorization", f"Bearer {bad_token}".strip())]
        else:
            metadata = [("authorization", f"Bearer {token}")]
        ex = raw.exchange(first, None, metadata=metadata, timeout=CALL_TIMEOUT_S)
        ended_in_time(ex)
        if auth != "valid":
            bearer = auth == "unknown" or (auth == "scheme" and scheme.lower() == "bearer")
            code = "invalid_token" if bearer and bad_token.strip() else "missing_token"
            seen[code] += 1
            assert (ex.status, ex.errors()) == (grpc.StatusCode.UNAUTHENTICATED, [code])
            return
        refusal = expected_refusal(first[0] if first else None)
        if refusal is not None:
            seen[refusal[1]] += 1
            assert ex.status == refusal[0], (ex.status, ex.details)
            assert ex.kinds() == ["error"] and ex.errors() == [refusal[1]]
            return
        seen["welcome"] += 1
        assert ex.kinds()[0] == "welcome"
        assert ex.status is grpc.StatusCode.OK, (ex.status, ex.details)

    check()
    print(f"examples run: {runs['examples']}")
    print("outcomes:", dict(seen))
    for outcome in ("welcome", "hello_expected", "missing_token", "invalid_token"):
        assert seen[outcome], f"no example ended in {outcome}: {dict(seen)}"
    still_serving(arena, "after-opening")


def test_random_hellos(arena: Arena, raw: pf.RawChannel) -> None:
    """A Hello with any field values (any version, huge or odd version strings, any match
    cap): a Welcome with the capped limits and the version recorded, or the version
    refusal."""
    bot, token = arena.bot("greeter")

    runs: Counter[str] = Counter()

    @settings(STREAMS, max_examples=50 * SCALE)
    @given(msg=pf.messages(pb.Hello), supported=st.booleans())
    def check(msg: pb.Hello, supported: bool) -> None:
        runs["examples"] += 1
        if supported:
            msg.protocol_version = 1
        frame = pb.BotMessage(hello=msg).SerializeToString()
        ex = raw.exchange([frame], token, timeout=CALL_TIMEOUT_S)
        ended_in_time(ex)
        if msg.protocol_version != 1:
            assert ex.status is grpc.StatusCode.FAILED_PRECONDITION, (ex.status, ex.details)
            assert ex.errors() == ["unsupported_protocol_version"]
            assert f"protocol version {msg.protocol_version} is not supported" in ex.details
            return
        assert ex.status is grpc.StatusCode.OK, (ex.status, ex.details)
        welcome = ex.replies[0].welcome
        assert ex.kinds()[0] == "welcome" and welcome.bot_name == "greeter"
        cap = min(max(msg.max_concurrent_matches, 1), MAX_CONCURRENT)
        assert welcome.limits.max_concurrent_matches == cap
        wait_for(lambda: not arena.relay.is_connected(str(bot.pk)), 5, "the stream to go")
        stored = Bot.objects.get(pk=bot.pk).bot_version
        assert stored == msg.bot_version.replace("\x00", "")[:100]

    check()
    print(f"examples run: {runs['examples']}")
    still_serving(arena, "after-hellos")


def test_regression_a_nul_in_the_hello_version_is_welcomed(
    arena: Arena, raw: pf.RawChannel
) -> None:
    """Found by ``test_random_hellos``: a Hello whose bot_version held a NUL made
    PostgreSQL refuse the version bookkeeping, and the stream died with status UNKNOWN
    instead of a Welcome. The NUL is dropped now; the rest of the version is kept."""
    bot, token = arena.bot("nul")
    ex = raw.exchange([hello(bot_version="v1\x00beta")], token, timeout=CALL_TIMEOUT_S)
    assert ex.status is grpc.StatusCode.OK and ex.kinds()[0] == "welcome", ex
    bot.refresh_from_db()
    assert bot.bot_version == "v1beta" and bot.versions.get().version == "v1beta"


class SlowHello(DatabaseAuthenticator):
    """Holds the Hello's bookkeeping (which runs once the stream is attached to the relay,
    before the Welcome) until the test has delivered a message to the bot."""

    def __init__(self) -> None:
        self.attached = threading.Event()
        self.delivered = threading.Event()

    def hello(self, bot_id: str, protocol_version: int, bot_version: str) -> None:
        self.attached.set()
        self.delivered.wait(10)
        super().hello(bot_id, protocol_version, bot_version)


def test_regression_the_welcome_comes_before_any_delivery(tmp_path: Path) -> None:
    """Found by ``test_a_misbehaving_bot_in_a_match``: a message delivered to a bot while
    its new stream was being set up (the relay routes to a stream as soon as it is
    attached, e.g. a MatchStarted on a reconnect) reached the bot before its Welcome. The
    Welcome is always the first message now, and what came before it follows it."""
    auth = SlowHello()
    prefix = new_prefix()
    url = str(django_settings.REDIS_URL)
    thread = GatewayThread(Gateway(FAST, RedisGatewayRelay(url, prefix), auth), "127.0.0.1:0")
    port = thread.start()
    runner = RedisRunnerRelay(url, prefix)
    raw = pf.RawChannel(f"127.0.0.1:{port}")
    try:
        bot, token = create_bot("early")
        assert token is not None
        stream = raw.open(token)
        stream.send(hello())
        assert auth.attached.wait(10)
        started = pb.ArenaMessage(match_started=pb.MatchStarted(match_id="m-early"))
        delivery = Delivery(DeliveryKind.STARTED, "m-early", 0, started.SerializeToString())
        assert runner.deliver(str(bot.pk), delivery)
        time.sleep(0.2)  # let the delivery reach the gateway's loop first
        auth.delivered.set()
        first, second = stream.next(), stream.next()
        assert first is not None and first.WhichOneof("kind") == "welcome", first
        assert second is not None and second.match_started.match_id == "m-early", second
        stream.close()
        assert stream.status is grpc.StatusCode.OK
    finally:
        auth.delivered.set()
        raw.close()
        thread.stop()
        runner.close()
        clear_prefix(prefix)


# ---------------------------------------------------------------- an open stream, no match


def test_frames_after_the_hello(arena: Arena, raw: pf.RawChannel) -> None:
    """After a Hello, any frames: garbage and empty messages are ``malformed_message``,
    actions (the bot plays no match) ``unknown_match`` with their match and seq, pings get
    their pong, Hellos ``unexpected_hello``, pongs nothing; the stream stays open until
    the bot half-closes it (status OK), and the counters agree."""
    _, token = arena.bot("chatter")
    before = gateway_counts(arena)
    expected_counts: Counter[str] = Counter()

    runs: Counter[str] = Counter()

    @settings(STREAMS, max_examples=80 * SCALE)
    @given(after=st.lists(pf.frames(), min_size=1, max_size=8))
    def check(after: list[bytes]) -> None:
        runs["examples"] += 1
        ex = raw.exchange([hello(bot_version="chatter"), *after], token, timeout=CALL_TIMEOUT_S)
        ended_in_time(ex)
        assert ex.status is grpc.StatusCode.OK, (ex.status, ex.details)
        replies = ex.without_pings()
        assert replies[0].WhichOneof("kind") == "welcome"
        assert [summary(m) for m in replies[1:]] == expected_replies(after, expected_counts)

    check()
    print(f"examples run: {runs['examples']}")
    moved = gateway_counts(arena) - before
    assert moved["malformed"] == expected_counts["malformed"]
    assert moved["unknown_match"] == expected_counts["unknown_match"]
    assert not moved["rate_limited"]
    still_serving(arena, "after-frames")


def test_oversized_frames(arena: Arena, raw: pf.RawChannel) -> None:
    """A frame past GATEWAY_MAX_MESSAGE_BYTES, before or after the Hello, ends that stream
    with Error(message_too_large) and RESOURCE_EXHAUSTED, and nothing else."""
    _, token = arena.bot("bigmouth")
    limit = arena.gateway.config.max_message_bytes

    runs: Counter[str] = Counter()

    @settings(STREAMS, max_examples=20 * SCALE)
    @given(
        size=st.integers(limit + 1, 4 * limit),
        said_hello=st.booleans(),
        garbage=st.booleans(),
    )
    def check(size: int, said_hello: bool, garbage: bool) -> None:
        runs["examples"] += 1
        if garbage:
            big = bytes([0xFF]) * size
        else:  # a well-formed Hello, just too long
            big = hello(bot_version="x" * size)
        frames = [hello(), big] if said_hello else [big]
        ex = raw.exchange(frames, token, timeout=CALL_TIMEOUT_S)
        ended_in_time(ex)
        assert ex.status is grpc.StatusCode.RESOURCE_EXHAUSTED, (ex.status, ex.details)
        assert set(ex.kinds()) <= {"welcome", "ping", "error"}
        assert ex.errors() == ["message_too_large"] and "over the limit of" in ex.details

    check()
    print(f"examples run: {runs['examples']}")
    still_serving(arena, "after-oversized")


# ---------------------------------------------------------------- a bot seated in a match

#: the fault each unusable kind of answer must cost the seat (None: no fault)
ANSWERS = ["legal", "legal_and_choice", "out_of_range", "mismatch", "choice_only", "garbage",
           "empty", "nothing_in_action"]  # fmt: skip
NOISE = ["stale_seq", "other_match", "unknown_match", "ping", "pong", "hello"]


def test_a_misbehaving_bot_in_a_match(
    arena: Arena, raw: pf.RawChannel, background: Background
) -> None:
    """A bot seated in a real match (runner over the Redis relay, house opponent) sends,
    around its first few answers, stale seqs, actions for another bot's running match and
    for unknown matches, pings, pongs with wrong nonces and Hellos, then answers with a
    legal index, an index past ``legal``, an index and a choice that disagree, a random
    choice, garbage or nothing usable. The match always finishes, with exactly the fault
    that answer deserves (never a timeout), every stale answer counted and answered with
    ``wrong_seq``, every other message answered as documented; the other bot's match sees
    none of it."""
    _, token = arena.bot("fuzzy")
    arena.sdk_bot("bystander", RANDOM)
    patient = TimeControl(decision_ms=5_000, bank_ms=0)
    tally: Counter[str] = Counter()

    runs: Counter[str] = Counter()

    @settings(STREAMS, max_examples=30 * SCALE)
    @given(data=st.data(), seed=st.integers(1, 10_000))
    def check(data: st.DataObject, seed: int) -> None:
        runs["examples"] += 1
        stream = raw.open(token, timeout=60)
        futures: list[Future[MatchResult]] = []
        try:
            play_one(data, seed, stream, futures)
        finally:
            # a failed example must not leave its stream or matches to the next one
            if stream.status is None:
                stream.cancel()
            for future in futures:
                future.exception(timeout=30)

    def play_one(
        data: st.DataObject, seed: int, stream: pf.LiveStream, futures: list[Future[MatchResult]]
    ) -> None:
        stream.send(hello(bot_version="fuzzy"))
        first = stream.next()
        assert first is not None and first.WhichOneof("kind") == "welcome", first
        mine, other = f"fz-{uuid.uuid4().hex[:8]}", f"by-{uuid.uuid4().hex[:8]}"
        by = background.run(
            arena.play, [HouseSeat("random", 0), arena.remote("bystander")], seed=seed,
            match_id=other,
        )  # fmt: skip
        fut = background.run(
            arena.play, [arena.remote("fuzzy"), HouseSeat("random", 1)], seed=seed,
            match_id=mine, time_control=patient,
        )  # fmt: skip
        futures += [by, fut]
        scripted = data.draw(st.integers(0, 4), label="scripted decisions")
        expected: list[tuple[Any, ...]] = []
        stale = 0
        faults: set[FaultCause] | None = None  # the fault the last answer may cost
        decisions = 0
        replies: list[tuple[Any, ...]] = []
        while True:
            msg = stream.next(timeout=15)
            assert msg is not None, f"the stream ended mid-match: {stream.status}"
            kind = msg.WhichOneof("kind")
            if kind == "ping":
                stream.send(pb.BotMessage(pong=pb.Pong(nonce=msg.ping.nonce)).SerializeToString())
                continue
            if kind in ("error", "pong"):
                replies.append(summary(msg))
            if kind == "match_ended":
                assert msg.match_ended.match_id == mine
                break
            if kind != "decision_request":
                continue
            request = msg.decision_request
            assert request.match_id == mine
            decisions += 1
            if decisions > scripted:
                stream.send(answer(request, len(request.legal) // 2))
                continue
            for noise in data.draw(st.lists(st.sampled_from(NOISE), max_size=3), label="noise"):
                tally[noise] += 1
                frame, reply = make_noise(data, noise, request, other)
                stale += noise == "stale_seq"
                stream.send(frame)
                if reply is not None:
                    expected.append(reply)
            how = data.draw(st.sampled_from(ANSWERS), label="answer")
            tally[how] += 1
            frame, faults = make_answer(data, how, request)
            stream.send(frame)
            if how in ("garbage", "empty"):
                expected.append(("error", "malformed_message", request.match_id, request.seq))
        # the match is over: half-close, the status is OK
        outcome = fut.result(timeout=30)
        stream.close()
        replies += [summary(m) for m in stream.drain() if m.WhichOneof("kind") in ("error", "pong")]
        assert stream.status is grpc.StatusCode.OK, (stream.status, stream.details)
        assert outcome.status == MatchStatus.FINISHED, outcome.to_json()
        causes = {f.cause for f in outcome.faults}
        assert FaultCause.TIMEOUT not in causes and FaultCause.DISCONNECT not in causes
        if faults:
            assert len(outcome.faults) == 1 and causes <= faults, (causes, faults)
        else:
            assert not outcome.faults, outcome.to_json()
        assert outcome.drops.stale == stale and outcome.drops.foreign == 0, outcome.to_json()
        assert replies == expected
        bystander = by.result(timeout=30)
        assert bystander.status == MatchStatus.FINISHED and not bystander.faults
        assert bystander.drops.stale == 0 and bystander.drops.foreign == 0

    check()
    print(f"examples run: {runs['examples']}")
    print("scripted:", dict(tally))
    still_serving(arena, "after-match-fuzz", keep=frozenset({"bystander"}))


def answer(request: pb.DecisionRequest, index: int) -> bytes:
    action = pb.Action(match_id=request.match_id, seq=request.seq, choice_index=index)
    return pb.BotMessage(action=action).SerializeToString()


def make_noise(
    data: st.DataObject, noise: str, request: pb.DecisionRequest, other: str
) -> tuple[bytes, tuple[Any, ...] | None]:
    """A message that is not the answer, and the reply the gateway owes it (if any)."""
    if noise == "stale_seq":
        seq = data.draw(st.integers(0, 2**64 - 1).filter(lambda s: s != request.seq))
        action = pb.Action(match_id=request.match_id, seq=seq, choice_index=0)
        # dropped (and counted by the runner); the bot is told which decision it got wrong
        return pb.BotMessage(action=action).SerializeToString(), (
            "error",
            "wrong_seq",
            request.match_id,
            seq,
        )
    if noise in ("other_match", "unknown_match"):
        match_id = other if noise == "other_match" else data.draw(pf.text(), label="match id")
        action = data.draw(pf.messages(pb.Action), label="action")
        action.match_id = match_id
        if match_id == request.match_id:  # a random id that happens to be ours
            action.match_id = match_id + "?"
        reply = ("error", "unknown_match", action.match_id, action.seq)
        return pb.BotMessage(action=action).SerializeToString(), reply
    if noise == "ping":
        nonce = data.draw(st.integers(0, 2**64 - 1))
        return pb.BotMessage(ping=pb.Ping(nonce=nonce)).SerializeToString(), ("pong", nonce)
    if noise == "pong":  # a nonce the arena never sent
        nonce = data.draw(st.integers(2**40, 2**64 - 1))
        return pb.BotMessage(pong=pb.Pong(nonce=nonce)).SerializeToString(), None
    assert noise == "hello"
    msg = data.draw(pf.messages(pb.Hello), label="second hello")
    return pb.BotMessage(hello=msg).SerializeToString(), ("error", "unexpected_hello", "", 0)


def make_answer(
    data: st.DataObject, how: str, request: pb.DecisionRequest
) -> tuple[bytes, set[FaultCause] | None]:
    """The final message for this decision and the faults it may cost (None: none)."""
    legal = list(request.legal)
    action = pb.Action(match_id=request.match_id, seq=request.seq)
    malformed, illegal = FaultCause.MALFORMED_ACTION, FaultCause.ILLEGAL_ACTION
    faults: set[FaultCause] | None = None
    if how in ("legal", "legal_and_choice", "mismatch"):
        index = data.draw(st.integers(0, len(legal) - 1), label="index")
        action.choice_index = index
        if how == "legal_and_choice":
            action.choice.CopyFrom(legal[index])
        elif how == "mismatch" and len(legal) > 1:
            other = data.draw(st.integers(0, len(legal) - 1).filter(lambda i: i != index))
            action.choice.CopyFrom(legal[other])
            faults = {malformed}
    elif how == "out_of_range":
        action.choice_index = data.draw(st.integers(len(legal), 2**32 - 1), label="index")
        faults = {illegal}
    elif how == "choice_only":
        choice = data.draw(pf.messages(pb.Choice), label="choice")
        action.choice.CopyFrom(choice)
        if choice not in legal:
            faults = {malformed, illegal}
    elif how == "garbage":
        junk = data.draw(st.binary(min_size=1, max_size=64).filter(lambda b: pf.parse(b) is None))
        return junk, {malformed}
    elif how == "empty":
        return b"", {malformed}
    else:
        assert how == "nothing_in_action"
        faults = {malformed}
    return pb.BotMessage(action=action).SerializeToString(), faults

"""Connects a ``Bot`` to an arena gateway and keeps it connected.

One stream at a time: Hello, then every message of every match the bot plays. The stream
is a ``grpc.aio`` call on an event loop of its own (``asyncio.run`` per stream, in the
thread that calls ``run``). With one match at a time, decisions are answered on that loop:
the request is read, decided and its answer written by one thread, with no hand-off to
another. A ``decide`` that runs an event loop of its own (``asyncio.run`` inside it) cannot
run there: the first time it tries, that decision is asked again on a thread and every
later one goes to the thread too (a warning says so once). With more matches at a time,
decisions run on a small thread pool (one thread per concurrent match) so that one slow match
does not hold up the others. The gateway does not count silence against a bot while it
owes an answer.

The client reconnects with exponential backoff (with jitter) when the stream breaks, and
the matches in progress go on: what it knows of each (its history, its log) is kept
across streams, the arena re-sends a resumed match's ``MatchStarted`` (``resumed``) and
its pending ``DecisionRequest`` (``resent``, same seq, whole history), and while a match
is in progress the backoff stays short (``RESUME_BACKOFF``) so that the bot is back within
the league's reconnect grace. It gives up for good when the arena refuses the token
(``UNAUTHENTICATED``), the protocol version (``FAILED_PRECONDITION``), or when another
connection of the same bot took over (``Error(code="superseded")``: two copies of a bot
would only keep kicking each other).
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO

import grpc
from google.protobuf import text_format

from agent_avenue.v1 import arena_pb2 as pb
from agent_avenue.v1 import arena_pb2_grpc
from avenue_sdk import view
from avenue_sdk.bot import Bot
from avenue_sdk.session import Histories, action_for, check_engine

PROTOCOL_VERSION = 1
log = logging.getLogger("avenue_sdk")

#: the longest wait between two reconnection attempts while matches are in progress (the
#: arena waits for the bot, by default 30 s, before charging it with ``disconnect``)
RESUME_BACKOFF = 2.0

#: status codes after which reconnecting cannot help
FATAL_CODES = {
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.INVALID_ARGUMENT,
}


class Fatal(Exception):
    """The arena refused the bot in a way reconnecting cannot fix."""


class _OwnLoop(Exception):
    """``decide`` wants an event loop of its own (``asyncio.run``), and it was called on the
    stream's, which is running: ask it again on a thread."""


def _wants_own_loop(exc: RuntimeError) -> bool:
    """asyncio.run's and run_until_complete's refusal inside a running loop."""
    text = str(exc)
    return "running event loop" in text or "already running" in text


class Client:
    def __init__(
        self,
        bot: Bot,
        arena: str,
        token: str,
        *,
        max_matches: int = 1,
        secure: bool = False,
        ca_cert: Path | None = None,
        reconnect: bool = True,
        min_backoff: float = 0.5,
        max_backoff: float = 30.0,
        log_dir: Path | None = None,
        transcript: Path | None = None,
    ) -> None:
        self.bot = bot
        self.arena = arena
        self.token = token
        self.max_matches = max(1, max_matches)
        # A CA of one's own (e.g. a self-signed gateway certificate) implies TLS.
        self.secure = secure or ca_cert is not None
        self.ca_cert = ca_cert.read_bytes() if ca_cert is not None else None
        self.reconnect = reconnect
        self.min_backoff = min_backoff
        self.max_backoff = max_backoff
        self.log_dir = log_dir
        self._transcript: IO[str] | None = open(transcript, "w") if transcript else None  # noqa: SIM115
        self._transcript_lock = threading.Lock()
        self._started = time.monotonic()
        self._stop = threading.Event()
        #: cancels the open stream (from any thread)
        self._cancel: Callable[[], None] | None = None
        self._pool = ThreadPoolExecutor(self.max_matches, thread_name_prefix="avenue-bot")
        #: one match at a time: decide on the stream's loop, until the bot shows it cannot
        self._decide_on_loop = True
        self._histories = Histories()
        #: (match_id, seat) of the matches in progress, kept across reconnects, with each
        #: match's reconnect grace in seconds (``MatchStarted.reconnect_grace_ms``)
        self._playing: dict[tuple[str, int], float] = {}
        #: when the last stream ended (monotonic), until a new one is welcomed
        self._stream_ended_at: float | None = None
        self._match_logs: dict[tuple[str, int], IO[str]] = {}
        self.welcome: pb.Welcome | None = None

    # --- running

    def run(self) -> int:
        """Play until stopped (Ctrl-C, ``stop()``) or refused; the process's exit code."""
        backoff = self.min_backoff
        try:
            while not self._stop.is_set():
                connected_at = time.monotonic()
                try:
                    self._session()
                except Fatal as exc:
                    log.error("%s", exc)
                    return 2
                finally:
                    if self._stream_ended_at is None:
                        self._stream_ended_at = time.monotonic()
                if self._stop.is_set() or not self.reconnect:
                    break
                if time.monotonic() - connected_at > 10:
                    backoff = self.min_backoff
                delay = backoff * random.uniform(0.5, 1.0)
                if self._playing:
                    delay = min(delay, RESUME_BACKOFF)
                log.info("reconnecting in %.1f s", delay)
                self._stop.wait(delay)
                backoff = min(backoff * 2, self.max_backoff)
        except KeyboardInterrupt:
            log.info("interrupted; closing the connection")
        finally:
            self.stop()
            self._pool.shutdown(wait=False, cancel_futures=True)
            for f in self._match_logs.values():
                f.close()
            if self._transcript is not None:
                self._transcript.close()
        return 0

    def stop(self) -> None:
        """End the stream and do not reconnect (any thread, or a signal handler)."""
        self._stop.set()
        cancel = self._cancel
        if cancel is not None:
            cancel()

    def _channel(self) -> grpc.aio.Channel:
        options = [
            ("grpc.max_receive_message_length", 16 * 1024 * 1024),
            ("grpc.keepalive_time_ms", 30_000),
            ("grpc.keepalive_timeout_ms", 10_000),
        ]
        if self.secure:
            credentials = grpc.ssl_channel_credentials(root_certificates=self.ca_cert)
            return grpc.aio.secure_channel(self.arena, credentials, options)
        return grpc.aio.insecure_channel(self.arena, options)

    def _session(self) -> None:
        """One stream, until it ends. Raises ``Fatal`` when reconnecting cannot help."""
        asyncio.run(self._stream())

    async def _stream(self) -> None:
        # grpc.aio, on an event loop of the stream's own: a request is read, answered and
        # the answer written by this one thread (the synchronous API wrote through a
        # request iterator that a thread of its own consumed: a hand-off per answer)
        loop = asyncio.get_running_loop()
        channel = self._channel()
        call = arena_pb2_grpc.BotArenaStub(channel).Connect(
            metadata=[("authorization", f"Bearer {self.token}")]
        )
        writing = asyncio.Lock()  # grpc.aio: one write at a time on a stream

        async def send(message: pb.BotMessage) -> None:
            self._record("bot -> arena", message)
            async with writing:
                try:
                    await call.write(message)
                except asyncio.InvalidStateError:
                    pass  # the stream is over: the read below says how it ended

        def send_soon(message: pb.BotMessage) -> None:
            """``send`` from another thread (the pool's)."""
            sending = send(message)
            try:
                asyncio.run_coroutine_threadsafe(sending, loop)
            except RuntimeError:
                sending.close()  # the loop is closed: the stream ended meanwhile

        def cancel() -> None:
            try:
                loop.call_soon_threadsafe(call.cancel)
            except RuntimeError:
                pass  # the loop is closed: the stream is over already

        superseded = ""
        self._cancel = cancel
        try:
            if self._stop.is_set():
                call.cancel()
            await send(
                pb.BotMessage(
                    hello=pb.Hello(
                        protocol_version=PROTOCOL_VERSION,
                        bot_version=str(getattr(self.bot, "version", "")),
                        max_concurrent_matches=self.max_matches,
                    )
                )
            )
            log.info("connecting to %s", self.arena)
            # read() rather than ``async for``: the same messages and the same end (an
            # AioRpcError for a failed stream), without an async generator's step around
            # each message
            while (message := await call.read()) is not grpc.aio.EOF:
                self._record("arena -> bot", message)
                self.bot.on_message(message)
                kind = message.WhichOneof("kind")
                if kind == "error" and message.error.code == "superseded":
                    superseded = message.error.message
                reply = self._handle(message, send_soon, kind)
                if reply is not None:
                    await send(reply)
        except grpc.aio.AioRpcError as exc:
            code, details = exc.code(), exc.details()
            if code in FATAL_CODES:
                raise Fatal(f"the arena refused the bot ({code.name}): {details}") from None
            if not self._stop.is_set():
                log.warning("stream ended (%s): %s", code.name, details)
        except asyncio.CancelledError:
            if not self._stop.is_set():
                raise  # not our stop(): a cancellation of the loop's own
        finally:
            self._cancel = None
            await channel.close()
        if superseded and not self._stop.is_set():
            raise Fatal(f"another connection of this bot took over ({superseded}); stopping")

    # --- messages from the arena

    def _handle(
        self,
        message: pb.ArenaMessage,
        send_soon: Callable[[pb.BotMessage], None],
        kind: str | None = None,
    ) -> pb.BotMessage | None:
        """What to write back at once (an answer, a pong), if anything; answers computed
        on the pool go out through ``send_soon``. ``kind``: the message's, if known."""
        kind = kind or message.WhichOneof("kind")
        if kind == "decision_request":
            request = message.decision_request
            check_engine(request.observation.config)
            self._histories.complete(request)
            if self.max_matches == 1 and self._decide_on_loop:
                # One match at a time: answer right here, a thread hand-off less per
                # decision. The arena does not expect pongs while a decision is pending.
                try:
                    return self._answer(request, on_loop=True)
                except _OwnLoop:
                    self._decide_on_loop = False
                    log.warning(
                        "the bot's decide runs an event loop of its own (asyncio.run): "
                        "its decisions run on a thread from now on"
                    )
            self._pool.submit(self._answer_soon, request, send_soon)
        elif kind == "ping":
            return pb.BotMessage(pong=pb.Pong(nonce=message.ping.nonce))
        elif kind == "match_started":
            self._started_match(message.match_started)
        elif kind == "match_ended":
            self._ended_match(message.match_ended)
        elif kind == "welcome":
            self.welcome = message.welcome
            self._forget_lost_matches()
            log.info(
                "connected as %s (id %s), up to %d matches at once",
                message.welcome.bot_name,
                message.welcome.bot_id,
                message.welcome.limits.max_concurrent_matches,
            )
            self.bot.on_welcome(message.welcome)
        elif kind == "notice":
            try:
                self.bot.on_notice(message.notice)
            except Exception:  # noqa: BLE001 - a notice is information: the stream goes on
                log.exception("the bot's on_notice failed on a %r notice", message.notice.kind)
        elif kind == "error":
            e = message.error
            where = f" (match {e.match_id}, decision {e.seq})" if e.match_id else ""
            log.warning("arena error %s%s: %s", e.code, where, e.message)
        return None

    def _answer_soon(
        self, request: pb.DecisionRequest, send_soon: Callable[[pb.BotMessage], None]
    ) -> None:
        answer = self._answer(request)
        if answer is not None:
            send_soon(answer)

    def _answer(
        self, request: pb.DecisionRequest, *, on_loop: bool = False
    ) -> pb.BotMessage | None:
        """The message answering ``request`` (None: send nothing). ``on_loop``: called on
        the stream's running event loop (raises ``_OwnLoop`` if ``decide`` cannot be)."""
        started = time.perf_counter()
        try:
            answer = self.bot.decide(request)
        except Exception as exc:
            if on_loop and isinstance(exc, RuntimeError) and _wants_own_loop(exc):
                raise _OwnLoop from exc
            log.exception(
                "match %s: the bot failed on decision %d; answering with the first legal choice",
                request.match_id,
                request.seq,
            )
            answer = 0
        message = pb.BotMessage()
        action = action_for(request, answer, message.action)  # filled in place: no copy
        if log.isEnabledFor(logging.DEBUG) or (request.match_id, request.seat) in self._match_logs:
            self._match_line(
                request.match_id,
                request.seat,
                f"#{request.seq} {view.decision_name(request.kind)}: "
                f"{view.describe(action.choice)} ({(time.perf_counter() - started) * 1000:.1f} ms)",
            )
        return message

    def _forget_lost_matches(self) -> None:
        """On a new stream: a match the bot was away from for longer than its reconnect
        grace is over for it (ended with ``DISCONNECT``, or voided); the others go on
        (the arena says so with a resumed ``MatchStarted``)."""
        ended_at, self._stream_ended_at = self._stream_ended_at, None
        if ended_at is None:
            return
        away = time.monotonic() - ended_at
        for key, grace in list(self._playing.items()):
            if away > grace:
                log.info(
                    "match %s: away %.1f s, longer than its reconnect grace; forgetting it",
                    key[0],
                    away,
                )
                self._forget(*key)

    def _forget(self, match_id: str, seat: int) -> None:
        self._histories.forget(match_id, seat)
        self._playing.pop((match_id, seat), None)
        f = self._match_logs.pop((match_id, seat), None)
        if f is not None:
            f.close()

    def _started_match(self, started: pb.MatchStarted) -> None:
        key = (started.match_id, started.seat)
        if started.resumed and key in self._playing:
            # back after a dropped stream: the match goes on where it was; the bot keeps
            # its state (on_match_started is not called again)
            line = f"match {started.match_id} resumed: seat {started.seat}"
            log.info("%s", line)
            self._match_line(started.match_id, started.seat, line)
            return
        self._playing[key] = started.reconnect_grace_ms / 1000
        others = ", ".join(
            f"{p.name} (seat {p.seat}, team {'AB'[p.team]})"
            for p in started.players
            if p.seat != started.seat
        )
        line = (
            f"match {started.match_id} started: seat {started.seat} (team {'AB'[started.team]}), "
            f"{view._name(pb.Mode, started.config.mode, 'MODE_').lower()} mode, with {others}"
        )
        log.info("%s", line)
        check_engine(started.config)
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            safe = re.sub(r"[^A-Za-z0-9_.-]", "_", started.match_id)
            path = self.log_dir / f"{safe}-seat{started.seat}.log"
            self._match_logs[(started.match_id, started.seat)] = open(path, "a")  # noqa: SIM115
        self._match_line(started.match_id, started.seat, line)
        self.bot.on_match_started(started)

    def _ended_match(self, ended: pb.MatchEnded) -> None:
        outcome = view._name(pb.MatchOutcome, ended.outcome, "MATCH_OUTCOME_").lower()
        line = f"match {ended.match_id} ended, seat {ended.seat}: {outcome}: {ended.message}"
        log.info("%s", line)
        self._match_line(ended.match_id, ended.seat, line)
        self._forget(ended.match_id, ended.seat)
        self.bot.on_match_ended(ended)

    def _match_line(self, match_id: str, seat: int, line: str) -> None:
        log.debug("%s", line)
        f = self._match_logs.get((match_id, seat))
        if f is not None:
            f.write(f"{time.strftime('%H:%M:%S')} {line}\n")
            f.flush()

    def _record(self, direction: str, message: object) -> None:
        if self._transcript is None:
            return
        text = text_format.MessageToString(message)  # type: ignore[arg-type]
        with self._transcript_lock:
            at = time.monotonic() - self._started
            self._transcript.write(f"# {at:8.3f} s  {direction}\n{text}\n")
            self._transcript.flush()


def run(bot: Bot, arena: str, token: str, **options: object) -> int:
    """Connect ``bot`` and play until Ctrl-C; see ``Client`` for the options."""
    return Client(bot, arena, token, **options).run()  # type: ignore[arg-type]

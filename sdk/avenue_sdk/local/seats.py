"""The two kinds of seat the local arena plays: an SDK bot, asked through the protocol exactly
as an arena asks it, and a referee house bot in-process (as the arena's house seats are).

``BotSeat`` builds each ``DecisionRequest`` with the arena's own conversion
(``avenue_sdk.protocol.convert``, the same history slicing), parses the bytes, completes the
history as the client does, runs ``decide`` on a worker thread under the seat's allowance,
and reads the answer back with the arena's ``read_answer``: an index out of range, a choice
that is not legal, an exception or an answer past the allowance are the arena's faults.
What a seat is asked and answers, and how answers are read and faults typed, is
``avenue_sdk.local.answers``, which the bot host's sandbox seat shares.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass

from agent_avenue.v1 import arena_pb2 as pb
from avenue_sdk.bot import Bot
from avenue_sdk.local import answers
from avenue_sdk.local.answers import Answer, Ending, Stopwatch
from avenue_sdk.protocol import convert
from avenue_sdk.protocol.faults import FaultCause
from avenue_sdk.protocol.timing import Ask
from avenue_sdk.session import Histories, action_for
from referee import GameConfig
from referee.bots import HOUSE_BOTS, make_bot


@dataclass(frozen=True)
class Match:
    """What every seat of one local game shares (the arena's MatchContext)."""

    match_id: str
    config: GameConfig
    first_team: int
    names: tuple[str, ...]
    decision_ms: int
    bank_ms: int


def is_house(spec: str) -> bool:
    return spec.partition(":")[0] in HOUSE_BOTS and "." not in spec


def load_bot_class(spec: str) -> Callable[[], Bot]:
    """``module:Class`` of an ``avenue_sdk.Bot`` (the current directory is importable)."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not attr:
        raise ValueError(
            f"bot {spec!r}: expected module:Class (e.g. mybot:MyBot) or one of "
            f"{', '.join(HOUSE_BOTS)}"
        )
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"cannot import {module_name!r} for bot {spec!r}: {exc}") from None
    cls = getattr(module, attr, None)
    if not isinstance(cls, type) or not issubclass(cls, Bot):
        raise ValueError(f"{spec} is not a subclass of avenue_sdk.Bot")
    return cls


class Seat:
    name: str

    def start(self, match: Match, seat: int) -> None:
        """Announce the match."""

    def ask(self, match: Match, seat: int, ask: Ask) -> Answer:
        raise NotImplementedError

    def end(self, match: Match, seat: int, ending: Ending) -> None:
        """Tell the bot how the match ended."""


class HouseSeat(Seat):
    """``random``, ``greedy``, ``search``, ``search:400``: a fresh, seeded bot per game."""

    def __init__(self, spec: str, seed: int) -> None:
        self.bot = make_bot(spec, seed)
        self.name = spec

    def ask(self, match: Match, seat: int, ask: Ask) -> Answer:
        watch = Stopwatch()
        try:
            action = self.bot.act(ask.obs, ask.legal)
        except Exception as exc:  # noqa: BLE001 - any exception of a bot is its crash
            return answers.crash(watch.ms(), exc)
        return answers.chosen(action, ask.legal, watch.ms())


class ProtocolSeat(Seat):
    """A seat asked in the bot protocol's own bytes, as the arena asks a remote bot: each
    request carries only the history events this seat has not been sent, and the latency of
    its previous answer. Kept per seat, as the arena keeps them per remote seat (a team's two
    seats may be played by one bot, as on the arena by one connection)."""

    def __init__(self) -> None:
        self._history_sent: dict[int, int] = {}
        self._previous_latency: dict[int, float | None] = {}

    def started_payload(self, match: Match, seat: int) -> bytes:
        """``MatchStarted`` for ``seat``; starts its history and latency afresh."""
        self._history_sent[seat] = 0
        self._previous_latency[seat] = None
        return convert.match_started(
            match_id=match.match_id,
            seat=seat,
            config=match.config,
            first_team=match.first_team,
            names=match.names,
            decision_ms=match.decision_ms,
            bank_ms=match.bank_ms,
        )

    def request_payload(self, match: Match, seat: int, ask: Ask) -> bytes:
        """The ``DecisionRequest``, with the history events sent since the last one."""
        payload = convert.decision_request(
            match_id=match.match_id,
            seq=ask.seq,
            obs=ask.obs,
            first_team=match.first_team,
            legal=ask.legal,
            history_start=self._history_sent[seat],
            decision_ms=ask.decision_ms,
            bank_ms=ask.bank_ms,
            previous_latency_ms=self._previous_latency[seat],
        )
        self._history_sent[seat] = len(ask.obs.history)
        return payload

    def answered(self, seat: int, latency_ms: float) -> None:
        """The next request tells the bot how long this answer took."""
        self._previous_latency[seat] = latency_ms

    @staticmethod
    def ended_payload(match: Match, seat: int, ending: Ending) -> bytes:
        fault = ending.fault
        return convert.match_ended(
            match_id=match.match_id,
            seat=seat,
            team=match.config.team_of(seat),
            result=ending.result,
            fault_cause=None if fault is None else fault[0],
            fault_seat=None if fault is None else fault[1],
            replay_id=match.match_id,
            message=ending.message,
        )


class BotSeat(ProtocolSeat):
    """An SDK bot, one instance per worker process (like one connected client), answering
    on a thread of its own so that a bot past its allowance can be timed out."""

    def __init__(
        self,
        factory: Callable[[], Bot],
        name: str,
        on_message: Callable[[pb.ArenaMessage], None] | None = None,
    ) -> None:
        self.factory = factory
        self.name = name
        self.bot = factory()
        self.histories = Histories()
        self.on_message = on_message
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="avenue-local-bot")
        super().__init__()

    def _receive(self, payload: bytes) -> pb.ArenaMessage:
        message = pb.ArenaMessage.FromString(payload)
        if self.on_message is not None:
            self.on_message(message)
        self.bot.on_message(message)
        return message

    def start(self, match: Match, seat: int) -> None:
        message = self._receive(self.started_payload(match, seat))
        self.bot.on_match_started(message.match_started)

    def ask(self, match: Match, seat: int, ask: Ask) -> Answer:
        payload = self.request_payload(match, seat, ask)
        watch = Stopwatch()
        future = self._pool.submit(self._decide, payload)
        try:
            reply = future.result(timeout=ask.allowance_s)
        except FutureTimeout:
            latency = watch.ms()
            self._abandon()
            return Answer(
                latency,
                fault=FaultCause.TIMEOUT,
                detail=f"no answer to decision {ask.seq} within {ask.allowance_s:g} s",
            )
        except Exception as exc:  # noqa: BLE001 - the bot's exception is its crash
            latency = watch.ms()
            self.answered(seat, latency)
            return answers.crash(latency, exc)
        latency = watch.ms()
        self.answered(seat, latency)
        return answers.read(pb.Action.FromString(reply), ask.legal, latency)

    def _decide(self, payload: bytes) -> bytes:
        request = self._receive(payload).decision_request
        self.histories.complete(request)
        return action_for(request, self.bot.decide(request)).SerializeToString()

    def _abandon(self) -> None:
        """A bot stuck in ``decide`` keeps its thread; later games get a new bot instance."""
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="avenue-local-bot")
        self.bot = self.factory()
        self.histories = Histories()

    def end(self, match: Match, seat: int, ending: Ending) -> None:
        ended = self._receive(self.ended_payload(match, seat, ending))
        self.histories.forget(match.match_id, seat)
        self.bot.on_match_ended(ended.match_ended)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

"""What a seat of the local game loop is asked and answers, and how an answer is timed, read
and typed as a fault: one helper for every seat that plays ``avenue_sdk.local.game.play``,
the local arena's (``avenue_sdk.local.seats``: an SDK bot, a house bot) and the bot host's
(``arena.adapters.bothost.seat``: an uploaded bot in its sandbox, for the upload check and version
tests), so that each faults a bot for the same things in the same words.

A seat is asked an ``Ask`` (``avenue_sdk.protocol.timing``, the arena runner's too) and
gives back an ``Answer``; ``Ending`` is how its match ended. ``Stopwatch`` times an answer
from the moment the request is handed over; ``read`` reads a protocol ``Action`` with the
arena's ``read_answer`` (an index out of range or a choice that is not legal:
``ILLEGAL_ACTION``; an unreadable one: ``MALFORMED_ACTION``); ``crash`` types an exception
of the bot's own; ``chosen`` checks an in-process bot's pick against the legal actions.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from agent_avenue.v1 import arena_pb2 as pb
from avenue_sdk.protocol import convert
from avenue_sdk.protocol.faults import FaultCause
from referee import Action
from referee.engine import GameResult


@dataclass(frozen=True)
class Ending:
    """How a match ended, for the seats to tell their bots: the result, the fault that
    ended it (its cause and the faulty seat) if one did, and the arena's words."""

    result: GameResult | None
    fault: tuple[FaultCause, int] | None
    message: str


@dataclass(frozen=True)
class Answer:
    latency_ms: float
    action: Action | None = None
    fault: FaultCause | None = None
    detail: str = ""


class Stopwatch:
    """Started when made; ``ms()`` is the time since, in milliseconds."""

    def __init__(self) -> None:
        self._started = time.perf_counter()

    def ms(self) -> float:
        return (time.perf_counter() - self._started) * 1000


def crash(latency_ms: float, exc: BaseException) -> Answer:
    """An exception of the bot's own: its ``CRASH``, named with its type and message."""
    return Answer(latency_ms, fault=FaultCause.CRASH, detail=f"{type(exc).__name__}: {exc}")


def read(reply: pb.Action, legal: Sequence[Action], latency_ms: float) -> Answer:
    """The legal action ``reply`` picks, or the fault the arena's ``read_answer`` types."""
    try:
        action = convert.read_answer(reply, legal)
    except convert.AnswerError as exc:
        return Answer(latency_ms, fault=exc.cause, detail=str(exc))
    return Answer(latency_ms, action=action)


def chosen(action: Action, legal: Sequence[Action], latency_ms: float) -> Answer:
    """An in-process bot's pick: ``ILLEGAL_ACTION`` unless it is one of ``legal``."""
    if action not in legal:
        return Answer(latency_ms, fault=FaultCause.ILLEGAL_ACTION, detail=f"{action!r}")
    return Answer(latency_ms, action=action)

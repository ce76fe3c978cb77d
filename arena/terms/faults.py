"""Typed bot faults and the policy that decides what a fault does to the match."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from django.db import models

from avenue_sdk.protocol import faults as protocol


class FaultCause(models.TextChoices):
    """Why a seat failed. Bot faults only: infrastructure failures raise instead
    (``arena.adapters.relay.base.RelayError``), so that the caller can void and re-run the match."""

    #: no answer within the decision time plus the seat's remaining time bank
    TIMEOUT = "timeout", "timeout"
    #: the bot's stream closed (or no gateway held it) while the match was running
    DISCONNECT = "disconnect", "disconnect"
    #: a readable answer naming a choice that is not legal now
    ILLEGAL_ACTION = "illegal_action", "illegal action"
    #: an unreadable answer: bad bytes, no choice, index and choice disagreeing
    MALFORMED_ACTION = "malformed_action", "malformed action"
    #: not connected when the match started (after the runner's grace period)
    NO_SHOW = "no_show", "no-show"
    #: the bot raised an exception or its process died (a house bot in-process, a hosted
    #: bot in its sandbox)
    CRASH = "crash", "crash"
    #: a message over the gateway's size limit while a decision was pending
    MESSAGE_TOO_LARGE = "message_too_large", "message too large"
    #: a hosted bot ran out of memory (its address-space limit, or killed for memory)
    MEMORY = "memory", "memory"
    #: a hosted bot's process wrote output that is not an answer
    INVALID_OUTPUT = "invalid_output", "invalid output"
    #: a hosted bot hit its process limit (a fork bomb)
    PROCESS_LIMIT = "process_limit", "process limit"


# The protocol's causes (avenue_sdk.protocol.faults, Django-free, which the conversions and
# the SDK's local arena use) and these database choices must be the same set.
if {(c.value, c.label) for c in FaultCause} != {(c.value, c.label) for c in protocol.FaultCause}:
    raise RuntimeError("arena FaultCause and avenue_sdk.protocol.faults.FaultCause disagree")


class FaultAction(enum.Enum):
    #: the faulty seat's team loses the game now (referee.forfeit); the replay says why
    FORFEIT = "forfeit"
    #: stop without a result: nobody wins, the caller may run the match again later
    ABORT = "abort"


@dataclass(frozen=True)
class Fault:
    seat: int
    bot: str
    cause: FaultCause
    detail: str
    #: the decision (replay index + 1) being asked when it happened; 0 before the first
    seq: int = 0

    def to_json(self) -> dict[str, object]:
        return {
            "seat": self.seat,
            "bot": self.bot,
            "cause": self.cause.value,
            "detail": self.detail,
            "seq": self.seq,
        }


def _all_forfeit() -> Mapping[FaultCause, FaultAction]:
    return MappingProxyType({cause: FaultAction.FORFEIT for cause in FaultCause})


@dataclass(frozen=True)
class FaultPolicy:
    """What each fault cause does. The default, every league's unless it says otherwise:
    the faulty seat forfeits. A league may e.g. abort on NO_SHOW to retry the match."""

    actions: Mapping[FaultCause, FaultAction] = field(default_factory=_all_forfeit)

    def action_for(self, cause: FaultCause) -> FaultAction:
        return self.actions.get(cause, FaultAction.FORFEIT)

    @classmethod
    def forfeit_except(cls, **overrides: FaultAction) -> FaultPolicy:
        """``FaultPolicy.forfeit_except(no_show=FaultAction.ABORT)``."""
        actions = dict(_all_forfeit())
        for name, action in overrides.items():
            actions[FaultCause(name)] = action
        return cls(MappingProxyType(actions))

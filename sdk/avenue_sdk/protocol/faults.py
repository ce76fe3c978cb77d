"""Why a seat failed: the typed fault causes of the protocol (``FaultCause`` on the wire).

A plain enum (no Django): the server's ``arena.terms.faults.FaultCause`` is a database
choice type with the same values, checked against this one when it is imported.
"""

from __future__ import annotations

import enum


class FaultCause(enum.StrEnum):
    """Bot faults only: infrastructure failures are not a bot's fault."""

    #: no answer within the decision time plus the seat's remaining time bank
    TIMEOUT = "timeout"
    #: the bot's stream closed (or no gateway held it) while the match was running
    DISCONNECT = "disconnect"
    #: a readable answer naming a choice that is not legal now
    ILLEGAL_ACTION = "illegal_action"
    #: an unreadable answer: bad bytes, no choice, index and choice disagreeing
    MALFORMED_ACTION = "malformed_action"
    #: not connected when the match started (after the runner's grace period)
    NO_SHOW = "no_show"
    #: the bot raised an exception or its process died (a house bot in-process, a hosted
    #: bot in its sandbox, any bot in the local arena)
    CRASH = "crash"
    #: a message over the gateway's size limit while a decision was pending
    MESSAGE_TOO_LARGE = "message_too_large"
    #: a hosted bot ran out of memory (its address-space limit, or killed for memory)
    MEMORY = "memory"
    #: a hosted bot's process wrote output that is not an answer
    INVALID_OUTPUT = "invalid_output"
    #: a hosted bot hit its process limit (a fork bomb)
    PROCESS_LIMIT = "process_limit"

    @property
    def label(self) -> str:
        return "no-show" if self is FaultCause.NO_SHOW else self.value.replace("_", " ")


#: the causes a hosted bot's sandbox can have, which a bot host may report for its seat
#: (``SeatFault``); the others are the runner's and the gateway's own findings
SANDBOX_CAUSES = frozenset(
    {
        FaultCause.CRASH,
        FaultCause.TIMEOUT,
        FaultCause.MEMORY,
        FaultCause.INVALID_OUTPUT,
        FaultCause.PROCESS_LIMIT,
    }
)

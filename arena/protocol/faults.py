"""The faults a bot can be charged with: what the runner records and ``MatchEnded`` and
``Error`` messages name (``agent_avenue.v1.FaultCause``, mapped by name in convert.py)."""

from __future__ import annotations

from django.db import models


class FaultCause(models.TextChoices):
    """Why a seat failed. Bot faults only: infrastructure failures raise instead
    (``arena.relay.base.RelayError``), so that the caller can void and re-run the match."""

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
    #: an in-process (house) bot raised an exception
    CRASH = "crash", "crash"
    #: a message over the gateway's size limit while a decision was pending
    MESSAGE_TOO_LARGE = "message_too_large", "message too large"

"""A bot host's report that a hosted bot's sandbox failed a decision (``SeatFault``), or
that the host itself did (``HostFailure``).

The bot host is the arena's own process, trusted like a gateway: on the stream it holds
for a hosted bot (the bot's token is issued to the host, never to its code) a
``SeatFault`` for the pending decision is that seat's typed fault (crash, timeout,
memory, invalid output, process limit), forwarded to the match's runner as it would
forward an answer. Anywhere else it is refused: a dial-in bot must not name its own fault
(e.g. turn a timeout it is about to take into something else), so its report is dropped
with an ``Error`` and the decision stays pending.

A ``HostFailure`` (the host could not load the version, start the sandbox in time, reach
the database) is the arena's failure, not the bot's: honoured on the same terms, it tells
the runner to void the attempt, so that nobody is rated on a game the arena broke. A
dial-in bot's is refused the same way (it would void a game it is losing).
"""

from __future__ import annotations

from agent_avenue.v1 import arena_pb2 as pb
from arena.adapters.gateway.session import Session, error_message
from arena.adapters.relay.base import Inbound, InboundKind
from avenue_sdk.protocol.convert import FAULT_CAUSE_FROM
from avenue_sdk.protocol.faults import SANDBOX_CAUSES

#: the longest detail passed on (it is public with the match)
MAX_DETAIL = 300


def accepted(session: Session, report: pb.SeatFault, latency_ms: float | None) -> Inbound | None:
    """The runner's notice if ``report`` is honoured (the decision is then answered),
    else None: ``refusal`` says why."""
    cause = FAULT_CAUSE_FROM.get(report.cause)
    if not session.bot.hosted or cause not in SANDBOX_CAUSES:
        return None
    if not session.answered(report.match_id, report.seq):
        return None
    detail = report.detail[:MAX_DETAIL]
    clean = pb.SeatFault(
        match_id=report.match_id, seq=report.seq, cause=report.cause, detail=detail
    )
    return Inbound(
        InboundKind.SEAT_FAULT,
        session.bot.bot_id,
        report.match_id,
        report.seq,
        clean.SerializeToString(),
        detail=detail,
        latency_ms=latency_ms,
    )


def host_failed(session: Session, report: pb.HostFailure) -> Inbound | None:
    """The runner's notice if the host's ``report`` is honoured, else None
    (``host_refusal`` says why)."""
    if not session.bot.hosted or not session.answered(report.match_id, report.seq):
        return None
    return Inbound(
        InboundKind.HOST_FAILED,
        session.bot.bot_id,
        report.match_id,
        report.seq,
        detail=report.detail[:MAX_DETAIL],
    )


def host_refusal(session: Session, report: pb.HostFailure) -> bytes:
    """The ``Error`` for a report that ``host_failed`` did not honour."""
    where = (report.match_id, report.seq)
    if not session.bot.hosted:
        return error_message(
            "not_a_bot_host",
            "only the arena's bot host may report its own failure: dropped (answer the "
            "decision with an Action)",
            *where,
        )
    return error_message(
        "wrong_seq",
        f"match {report.match_id!r} decision {report.seq} is not pending: host failure dropped",
        *where,
    )


def refusal(session: Session, report: pb.SeatFault) -> bytes:
    """The ``Error`` for a report that ``accepted`` did not honour."""
    where = (report.match_id, report.seq)
    if not session.bot.hosted:
        return error_message(
            "not_a_bot_host",
            "only the arena's bot host may report a seat fault: dropped (answer the decision "
            "with an Action)",
            *where,
        )
    if FAULT_CAUSE_FROM.get(report.cause) not in SANDBOX_CAUSES:
        return error_message(
            "invalid_seat_fault",
            f"cause {report.cause} is not one a sandbox can have: dropped",
            *where,
        )
    return error_message(
        "wrong_seq",
        f"match {report.match_id!r} decision {report.seq} is not pending: seat fault dropped",
        *where,
    )

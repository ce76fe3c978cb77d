"""``Error`` messages that tell a bot what the gateway did with one of its messages, naming
the match and decision whenever the message concerns one (a bot with several matches
cannot act on "something was dropped")."""

from __future__ import annotations

from agent_avenue.v1 import arena_pb2 as pb
from arena.adapters.gateway.config import GatewayConfig
from arena.adapters.gateway.session import Oversized, Session, Unreadable, error_message
from arena.adapters.relay.base import Inbound, InboundKind


def rate_limited(config: GatewayConfig, message: pb.BotMessage | Unreadable) -> bytes:
    limit = f"{config.rate_per_s:g}/s, burst {config.rate_burst}"
    if isinstance(message, pb.BotMessage) and message.WhichOneof("kind") == "action":
        a = message.action
        text = f"action for match {a.match_id!r} decision {a.seq} dropped: over {limit}"
        return error_message("rate_limited", text, a.match_id, a.seq)
    return error_message("rate_limited", f"message dropped: over {limit}")


def wrong_seq(session: Session, action: pb.Action) -> bytes:
    """For an action of a match the bot plays, for a decision that is not pending
    (answered already, or never asked)."""
    pending = [seq for m, seq in session.outstanding if m == action.match_id]
    expected = f"decision {pending[0]} is" if pending else "no decision is"
    return error_message(
        "wrong_seq",
        f"match {action.match_id!r} decision {action.seq} is not pending ({expected} "
        "pending): action dropped",
        action.match_id,
        action.seq,
    )


def too_large(session: Session, message: Oversized, limit: int) -> tuple[str, Inbound | None]:
    """The ``Error`` text for the stream's end, and the ``TOO_LARGE`` notice for the runner
    of the pending decision it answered: then that one ``Error``, naming the match and the
    decision, is queued already (None if no decision was pending)."""
    detail = f"a message of {message.size} bytes, over the limit of {limit}"
    target = session.oldest_outstanding()
    if target is None:
        return detail, None
    match_id, seq = target
    session.answered(match_id, seq)
    # Its fault is on record: no disconnect notice for it when the stream closes (it
    # would reach the runner's inbox after the match is over and linger there).
    session.matches.discard(match_id)
    answered = f"answered decision {seq} with {detail}"
    session.send(error_message("message_too_large", answered, match_id, seq))
    notice = Inbound(InboundKind.TOO_LARGE, session.bot.bot_id, match_id, seq, detail=answered)
    return answered, notice

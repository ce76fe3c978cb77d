"""A bot connected to some gateway, reached through the relay.

One decision (``RemoteSeat.ask``) is a loop: send the request to the bot's stream, wait
for its answer in slices, and meanwhile keep an eye on the match's bots
(``arena.adapters.runner.resume``): a bot that drops is waited for (its clock stopped) and, when
it is back, gets the request again with the same seq and the whole history.

A hosted bot's answer may instead be its bot host's report that the sandbox failed
(``InboundKind.SEAT_FAULT``: crash, timeout, memory, invalid output, process limit), which
is that seat's fault like any other; or the host's report that it failed the decision
itself (``InboundKind.HOST_FAILED``), which is the arena's failure: ``ArenaFault``, the
attempt is voided and the match played again, rating nobody.

The bot is charged the gateway's measure of each answer (from writing the request to the
stream to reading the answer, ``Inbound.latency_ms``), plus, when its own stream dropped
while it held the request, the time it held it: never the relay's or the runner's delays,
nor the time its gateway was gone.
"""

from __future__ import annotations

import logging
import time

from google.protobuf.message import DecodeError

from agent_avenue.v1 import arena_pb2 as pb
from arena.adapters.relay.base import (
    Delivery,
    DeliveryKind,
    Inbound,
    InboundKind,
    Reach,
    RunnerRelay,
)
from arena.adapters.relay.presence import GATEWAY_TTL
from arena.adapters.runner.resume import AWAY_POLL_S, LANE_POLL_S, POLL_S, ArenaFault, Reconnects
from arena.adapters.runner.seats import Answer, Ask, Ending, MatchContext, Seat
from arena.terms.faults import FaultCause
from avenue_sdk.protocol import convert

logger = logging.getLogger(__name__)

#: the first wait for an answer, pipelined with its request on Redis (seconds)
FIRST_WAIT = 0.05
#: seconds between two looks at a bot missing at the start whose gateway may have died
START_LOOK_S = 0.5
#: the runner waits this much past a seat's allowance before calling it a timeout: the
#: gateway's measure decides, and the relay's delays are not the bot's
SLACK_S = 2.0
#: seconds between two looks at a paused gateway (``RunnerRelay.gateway_paused``)
PAUSED_LOOK_S = 0.25


class RemoteSeat(Seat):
    kind = "remote"

    def __init__(self, bot_id: str, name: str, relay: RunnerRelay) -> None:
        self.bot_id = bot_id
        self.name = name
        self.relay = relay
        self._history_sent = 0
        self._previous_latency: float | None = None
        self._ctx: MatchContext | None = None
        #: since when the bot's gateway has been seen paused (None: it runs)
        self._paused_since: float | None = None

    @property
    def _bot_id(self) -> str:
        assert self.bot_id is not None
        return self.bot_id

    def _reconnects(self) -> Reconnects:
        assert self._ctx is not None and self._ctx.reconnects is not None
        return self._ctx.reconnects

    def open(self, ctx: MatchContext) -> None:
        self._ctx = ctx
        # a seat may play several matches: each starts with its whole history
        self._history_sent = 0
        self._previous_latency = None
        if ctx.reconnects is None:
            ctx.reconnects = Reconnects(self.relay, ctx.reconnect_grace_s)
        self.relay.open_match(ctx.match_id)

    def _started(self, ctx: MatchContext, seat: int, resumed: bool) -> Delivery:
        tc = ctx.time_control
        payload = convert.match_started(
            match_id=ctx.match_id,
            seat=seat,
            config=ctx.config,
            first_team=ctx.first_team,
            names=ctx.names,
            decision_ms=tc.decision_ms,
            bank_ms=tc.bank_ms,
            resumed=resumed,
            reconnect_grace_ms=round(ctx.reconnect_grace_s * 1000),
        )
        return Delivery(DeliveryKind.STARTED, ctx.match_id, 0, payload)

    def start(self, ctx: MatchContext, seat: int) -> Answer | None:
        """Tell the bot the match starts. A bot not connected now is waited for the
        league's connect grace; one whose stream ended less than the reconnect grace ago
        (its gateway drained or died, its network broke) is waited for as a resume is,
        until that grace has run out since it left: ``no_show`` is for a bot away longer
        than the reconnect grace when the match started. No clock runs before the start.
        If the arena had ended its stream and it is not back by then, ``ArenaFault``: the
        attempt is void, the bot not to blame (a later attempt finds it away too long)."""
        delivery = self._started(ctx, seat, resumed=False)
        now = started = time.monotonic()
        give_up = now + ctx.connect_grace_s
        left: Reach | None = None
        #: seconds the bot had been away when the match started (None: not known)
        away: float | None = None
        next_look = now
        while not self.relay.deliver(self._bot_id, delivery):
            now = time.monotonic()
            if now >= next_look:
                # looked at again while it is unknown whether its gateway is alive
                left = self.relay.reach(self._bot_id)
                next_look = now + START_LOOK_S if left.unheld else float("inf")
                if left.unheld:
                    give_up = max(give_up, now + GATEWAY_TTL + START_LOOK_S)
                seen = left.away_s()
                if seen is not None:  # away at the start (0: it left after)
                    seen = max(0.0, seen - (now - started))
                    away = seen if away is None else min(away, seen)
                if away is not None and away < ctx.reconnect_grace_s:
                    until = started + ctx.reconnect_grace_s - away
                    if until > give_up:
                        give_up = until
                        logger.info(
                            "match %s: %s left %.1f s before the start (%s): waiting for it "
                            "up to %.1f s",
                            ctx.match_id,
                            self.name,
                            away,
                            "the arena's doing" if left.arena_left else "its own doing",
                            give_up - now,
                        )
            if now >= give_up:
                return self._absent(ctx, left, away)
            time.sleep(0.05)
        self._reconnects().joined(self._bot_id, seat, self)
        return None

    def _absent(self, ctx: MatchContext, left: Reach | None, away: float | None) -> Answer:
        """The bot is not back: a no-show, or the arena's fault (see ``start``)."""
        within = away is not None and away < ctx.reconnect_grace_s
        if left is not None and left.arena_left and within:
            raise ArenaFault(
                f"{self.name} was unreachable through no fault of its own when the match "
                f"started (its gateway went away {away:.1f} s before) and not back within "
                f"the {ctx.reconnect_grace_s:g} s reconnect grace: the match cannot start"
            )
        waited = ctx.reconnect_grace_s - away if within and away is not None else 0.0
        waited = max(waited, ctx.connect_grace_s)
        return Answer(
            0.0,
            fault=FaultCause.NO_SHOW,
            detail=f"{self.name} was not connected when the match started"
            + (f" (waited {waited:.3g} s)" if waited else "")
            + (f"; its last stream had ended {away:.0f} s before" if away is not None else ""),
        )

    def resume(self, seat: int) -> None:
        """The bot is back on a new stream: tell it the match goes on; its next request
        carries the whole history (what it knew may be gone with the old stream)."""
        assert self._ctx is not None
        self.relay.deliver(self._bot_id, self._started(self._ctx, seat, resumed=True))
        self._history_sent = 0

    def _request(self, ctx: MatchContext, ask: Ask, spent_ms: float, resent: bool) -> Delivery:
        decision_left = max(0.0, ask.decision_ms - spent_ms)
        bank_left = ask.bank_ms - max(0.0, spent_ms - ask.decision_ms)
        payload = convert.decision_request(
            match_id=ctx.match_id,
            seq=ask.seq,
            obs=ask.obs,
            first_team=ctx.first_team,
            legal=ask.legal,
            history_start=0 if resent else self._history_sent,
            decision_ms=int(decision_left),
            bank_ms=max(0, int(bank_left)),
            previous_latency_ms=self._previous_latency,
            resent=resent,
        )
        return Delivery(DeliveryKind.REQUEST, ctx.match_id, ask.seq, payload)

    def ask(self, ctx: MatchContext, seat: int, ask: Ask) -> Answer:
        answer = self._decide(ctx, ask)
        self._history_sent = len(ask.obs.history)
        self._previous_latency = answer.latency_ms
        return answer

    def _decide(self, ctx: MatchContext, ask: Ask) -> Answer:
        rc = self._reconnects()
        bot = self._bot_id
        #: ms the bot held this request on streams that have since dropped by its fault
        spent_ms = 0.0
        #: when the request last went out to a stream of the bot (None: not out now)
        out_at: float | None = None
        sent = False
        first: Inbound | None = None
        last_look = time.monotonic()
        while True:
            now = time.monotonic()
            expired = rc.expired(now)  # raises ArenaFault when the arena kept one away
            if expired is not None:
                away = rc.away[expired]
                return Answer(
                    spent_ms,
                    disconnected_bot=expired,
                    detail=f"{away.why}; not back within the {rc.grace_s:g} s reconnect grace",
                )
            if out_at is None and bot not in rc.away:
                delivered, first = self.relay.deliver_and_pop(
                    bot, self._request(ctx, ask, spent_ms, resent=sent), ctx.match_id, FIRST_WAIT
                )
                if delivered:
                    out_at, sent = now, True
                else:
                    reach = self.relay.reach(bot)  # whose doing: its gateway's goodbye says
                    arena = reach.arena_left or reach.gateway_lost
                    rc.left(bot, now, "its gateway went away" if arena else "not connected",
                            arena=arena)  # fmt: skip
                    last_look = -float("inf")  # look now
            next_look = last_look + self._look_every(ctx, rc)
            held_ms = spent_ms + ((now - out_at) * 1000 if out_at is not None else 0.0)
            limit_ms = ask.allowance_ms + SLACK_S * 1000
            pinned = False
            if out_at is not None and held_ms > limit_ms and self._gateway_paused(rc, now):
                # the answer may be waiting in a gateway that stopped running: the clock
                # stays at the limit until it runs again (its measure then decides)
                out_at = now - (limit_ms - spent_ms) / 1000
                held_ms, pinned = limit_ms, True
            if out_at is not None and held_ms > limit_ms:
                return Answer(
                    held_ms,
                    fault=FaultCause.TIMEOUT,
                    detail=f"no answer to decision {ask.seq} within {ask.allowance_s:g} s",
                )
            inbound, first = first, None
            if inbound is None:
                until = next_look
                if pinned:
                    until = min(until, now + PAUSED_LOOK_S)
                elif out_at is not None:
                    until = min(until, now + (limit_ms - held_ms) / 1000)
                inbound = self.relay.pop(ctx.match_id, max(0.002, until - now))
            now = time.monotonic()
            if inbound is not None:
                if inbound.kind is InboundKind.DISCONNECTED:
                    if rc.notice(inbound, now) and inbound.bot_id == bot and out_at is not None:
                        if not inbound.arena:
                            spent_ms += (now - out_at) * 1000
                        out_at = None
                elif inbound.bot_id != bot:
                    ctx.drops.foreign += 1
                elif inbound.seq != ask.seq:
                    ctx.drops.stale += 1
                elif out_at is not None or sent:
                    wall = (now - out_at) * 1000 if out_at is not None else 0.0
                    measured = inbound.latency_ms if inbound.latency_ms is not None else wall
                    return self._read(inbound, ask, spent_ms + measured)
            if now >= next_look:
                back = rc.look(now)
                if bot in rc.away and out_at is not None:
                    out_at = None  # unreachable: the arena's loss, or the bot's notice follows
                if bot in back:
                    out_at = None  # send it again on the new stream
                last_look = now

    def _gateway_paused(self, rc: Reconnects, now: float) -> bool:
        """Whether the bot's gateway is paused (``RunnerRelay.gateway_paused``); one that
        stays paused past the reconnect grace is the arena's loss (``ArenaFault``)."""
        if not self.relay.gateway_paused(self._bot_id):
            self._paused_since = None
            return False
        if self._paused_since is None:
            self._paused_since = now
            logger.warning("bot %s: its gateway is not running; its clock waits", self.name)
        elif now - self._paused_since > rc.grace_s:
            raise ArenaFault(
                f"the gateway of bot {self.name} did not run for {now - self._paused_since:.0f} s"
            )
        return True

    def _look_every(self, ctx: MatchContext, rc: Reconnects) -> float:
        """Seconds between two looks at the match's bots (``arena.adapters.runner.resume``)."""
        if self._bot_id in rc.away:
            return AWAY_POLL_S
        return LANE_POLL_S if self.relay.on_lanes(ctx.match_id) else POLL_S

    def _read(self, inbound: Inbound, ask: Ask, latency: float) -> Answer:
        if inbound.kind is InboundKind.MALFORMED:
            return Answer(latency, fault=FaultCause.MALFORMED_ACTION, detail=inbound.detail)
        if inbound.kind is InboundKind.TOO_LARGE:
            return Answer(latency, fault=FaultCause.MESSAGE_TOO_LARGE, detail=inbound.detail)
        if inbound.kind is InboundKind.HOST_FAILED:
            # the arena's own bot host failed this decision: void the attempt, blame nobody
            raise ArenaFault(
                f"the bot host failed decision {ask.seq} of {self.name}: {inbound.detail}"
            )
        if inbound.kind is InboundKind.SEAT_FAULT:
            # the bot host's typed report of the sandbox's failure, which the gateway
            # passes on from hosted bots' streams only (arena.adapters.gateway.seatfaults)
            report = pb.SeatFault.FromString(inbound.payload)
            cause = convert.FAULT_CAUSE_FROM[report.cause]
            return Answer(latency, fault=FaultCause(cause.value), detail=report.detail)
        try:
            message = pb.Action.FromString(inbound.payload)
        except DecodeError as exc:
            return Answer(latency, fault=FaultCause.MALFORMED_ACTION, detail=str(exc))
        try:
            action = convert.read_answer(message, ask.legal)
        except convert.AnswerError as exc:
            return Answer(latency, fault=FaultCause(exc.cause.value), detail=str(exc))
        return Answer(latency, action=action)

    def end(self, ctx: MatchContext, seat: int, ending: Ending) -> None:
        payload = convert.match_ended(
            match_id=ctx.match_id,
            seat=seat,
            team=ctx.config.team_of(seat),
            result=ending.result,
            fault_cause=ending.fault_cause,
            fault_seat=ending.fault_seat,
            replay_id=ctx.replay_id,
            message=ending.message,
        )
        self.relay.deliver(self._bot_id, Delivery(DeliveryKind.ENDED, ctx.match_id, 0, payload))

    def close(self, ctx: MatchContext) -> None:
        self.relay.close_match(ctx.match_id)

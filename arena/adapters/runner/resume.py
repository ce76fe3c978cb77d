"""Bots that drop mid-match may come back: who is away, since when, and whose fault.

A remote bot whose stream ends (it closed it, its network broke, its gateway shut down or
died) is *away*. While away, its clock does not run. If it opens a new stream, on any
gateway, within the match's reconnect grace, it is told the match goes on (``MatchStarted``
with ``resumed``) and gets the pending decision again, same seq, with the whole history
(``DecisionRequest.resent``). If it does not:

* the bot left (it closed its stream, stopped answering pings, or its process died on a
  live gateway): it is charged ``disconnect``;
* the arena lost it (its gateway announced it was draining, or died and its heartbeat
  key expired, ``arena.adapters.relay.presence``): ``ArenaFault`` is raised, and the caller voids
  the attempt and plays the match again from scratch, rating nobody.

The runner learns of drops from the gateways' notices, from deliveries nobody received,
and by looking (``RunnerRelay.reach``) about once a second while a decision is pending;
of returns only by looking.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Protocol

from arena.adapters.relay.base import Inbound, Reach, RelayError, RunnerRelay
from arena.terms.result import Resume

logger = logging.getLogger(__name__)

#: seconds between two looks at the match's bots while a decision is pending
POLL_S = 1.0
#: ... while every bot of the match is on a direct lane (``RunnerRelay.on_lanes``): a lane
#: that breaks (its gateway stopped or died) is seen at once and brings the next look
#: back to ``POLL_S``, and a dead gateway's presence outlives it by ``GATEWAY_TTL`` (5 s)
#: anyway. A thousand matches waiting on bots that think looked 2,000 times a second.
LANE_POLL_S = 5.0
#: ... and while the bot being asked is away
AWAY_POLL_S = 0.25


class Resumable(Protocol):
    """A remote seat (``arena.adapters.runner.remote.RemoteSeat``) as the watch sees it."""

    #: the bot's name, for the match's report of its returns
    name: str

    def resume(self, seat: int) -> None:
        """Tell the bot, back on a new stream, that the match goes on."""


class ArenaFault(RelayError):
    """The arena lost a bot (its gateway went away) and it did not come back in time:
    void the attempt, the bot is not to blame."""


@dataclass
class Away:
    since: float
    #: the stream that ended ("" when unknown)
    conn: str
    #: the arena's fault (draining or dead gateway) rather than the bot's
    arena: bool
    why: str


def _older(conn: str, than: str | None) -> bool:
    """Whether stream ``conn`` was opened before stream ``than`` (ids count up)."""
    if not conn or not than:
        return False
    try:
        return int(conn) < int(than)
    except ValueError:
        return False


class Reconnects:
    """One match's view of its remote bots' streams."""

    def __init__(self, relay: RunnerRelay, grace_s: float) -> None:
        self.relay = relay
        self.grace_s = grace_s
        #: bot -> its seats in the match
        self.seats: dict[str, list[tuple[int, Resumable]]] = {}
        #: bot -> the stream it was last seen on
        self.conn: dict[str, str | None] = {}
        self.away: dict[str, Away] = {}
        #: every return, in order: the match's report shows them (nobody was charged)
        self.returns: list[Resume] = []

    def joined(self, bot_id: str, seat: int, remote: Resumable) -> None:
        """The seat's MatchStarted was delivered: remember the stream it went to."""
        self.seats.setdefault(bot_id, []).append((seat, remote))
        if bot_id not in self.conn:
            reach = self.relay.reach(bot_id)
            self.conn[bot_id] = None if reach.settling else reach.conn

    # --- drops

    def left(
        self, bot_id: str, now: float, why: str, *, arena: bool = False, conn: str = ""
    ) -> bool:
        """The bot's stream ended (a notice, or a delivery nobody took). False when the
        notice is about an older stream than the one the bot is on now (superseded)."""
        if _older(conn, self.conn.get(bot_id)):
            return False
        away = self.away.get(bot_id)
        if away is None:
            self.away[bot_id] = Away(now, conn or (self.conn.get(bot_id) or ""), arena, why)
            logger.info("bot %s away (%s)%s", bot_id, why, " - the arena's fault" if arena else "")
        elif arena and not away.arena:
            away.arena, away.why = True, why  # what first looked like the bot leaving
        return True

    def notice(self, inbound: Inbound, now: float) -> bool:
        return self.left(
            inbound.bot_id,
            now,
            inbound.detail or "its stream closed",
            arena=inbound.arena,
            conn=inbound.conn,
        )

    def expired(self, now: float) -> str | None:
        """A bot whose grace ran out by its own fault (to be charged ``disconnect``);
        raises ``ArenaFault`` when the arena's fault kept one away that long."""
        for bot_id, away in self.away.items():
            if now - away.since < self.grace_s:
                continue
            if away.arena:
                raise ArenaFault(
                    f"bot {bot_id} was unreachable through no fault of its own for "
                    f"{now - away.since:.1f} s ({away.why}): the match cannot go on"
                )
            return bot_id
        return None

    # --- returns

    def look(self, now: float) -> set[str]:
        """Look at every bot of the match; the bots that came back on a new stream (they
        have been told the match goes on: ``RemoteSeat.resume``)."""
        back: set[str] = set()
        for bot_id in self.seats:
            reach = self.relay.reach(bot_id)
            if reach.settling:
                continue
            if self._update(bot_id, reach, now):
                back.add(bot_id)
        return back

    def _update(self, bot_id: str, reach: Reach, now: float) -> bool:
        away = self.away.get(bot_id)
        if reach.conn is None:
            arena = reach.gateway_lost or reach.arena_left
            why = "its gateway went away" if arena else "not connected"
            self.left(bot_id, now, why, arena=arena)
            return False
        if away is not None and reach.conn == away.conn:
            return False  # the old stream is still being taken down
        known = self.conn.get(bot_id)
        self.conn[bot_id] = reach.conn
        if away is None and (known is None or known == reach.conn):
            return False
        # back: after a drop we saw, or on a new stream we never saw the old one leave
        # (e.g. its gateway was killed and the bot was back before we looked)
        seats = self.seats[bot_id]
        if away is not None:
            del self.away[bot_id]
            logger.info("bot %s back after %.1f s", bot_id, now - away.since)
        self.returns.append(
            Resume(
                seats=tuple(seat for seat, _ in seats),
                bot=seats[0][1].name,
                away_s=None if away is None else now - away.since,
                arena=False if away is None else away.arena,
                why="its old stream's end was not seen" if away is None else away.why,
            )
        )
        for seat, remote in self.seats[bot_id]:
            remote.resume(seat)
        return True

"""The load rig's two-seat league of eight thinking SDK bots on two gateways
(``RestartRig``): what the gateway-restart test and the fault matrix play on.

Real processes: a redis-server of the rig's own, the gateways (``manage.py rungateway``),
Celery workers (``--pool threads``), 8 SDK bots in two processes (4 on each gateway, each
answer after ``think_ms``), a 2-seat league of them (56 matches a round).
"""

from __future__ import annotations

import signal
import time

from arena.models import Match, MatchStatus, Round, RoundStatus
from arena.services import leagues as svc
from arena.services.bots import create_bot
from arena.services.rounds import do_reap
from tests.reliability.loadrig import (
    FaultEvent,
    LoadConfig,
    LoadRig,
    Outcome,
    _point_celery,
    wait_until,
)

BOTS = 8
CFG = LoadConfig(
    bots=BOTS,
    bots_per_host=4,
    gateways=2,
    workers=1,
    concurrency=8,
    rounds=1,
    lease_seconds=10,
    requeue_after_seconds=30,
    decision_ms=5_000,
    bank_ms=10_000,
    timeout=300.0,
)


class RestartRig(LoadRig):
    """The load rig with a 2-seat league whose bots think a little, and two faults."""

    def setup_league(self) -> None:
        self.start_redis()
        self._celery_before = _point_celery(self.queue, self.redis_url)
        self.env["BOTHOST_LOG_LEVEL"] = "INFO"  # the SDK logs each resumed match
        workers = [self.start_worker(wait=False) for _ in range(self.cfg.workers)]
        for i in range(self.cfg.gateways):
            self.start_gateway(i)
        self.league = svc.do_create_league(
            svc.LeagueSettings(
                name=f"restart {self.tag}",
                decision_ms=self.cfg.decision_ms,
                bank_ms=self.cfg.bank_ms,
                # the league's default connect grace (2 s): a match that starts while a
                # gateway is down waits for its bots as a resume does, for the reconnect
                # grace (RemoteSeat.start), however short the connect grace is
                reconnect_grace_ms=self.reconnect_grace_ms,
                no_show_window_s=self.no_show_window_s,
            )
        )
        specs: list[dict[str, str]] = []
        for i in range(self.cfg.bots):
            bot, token = create_bot(f"restart-{self.tag}-{i}")
            assert token is not None
            svc.do_enter(self.league, bot)
            self.bot_ids.append(bot.pk)
            address = self.bot_address(i // self.cfg.bots_per_host, i % self.cfg.gateways)
            specs.append(
                {"name": bot.name, "arena": address, "token": token, "think_ms": self.think_ms}
            )
        per = self.cfg.bots_per_host
        self.host_bots = [specs[i : i + per] for i in range(0, len(specs), per)]
        for i in range(len(self.host_bots)):
            self.start_host(i)
        wait_until(lambda: self.connected() == BOTS, 120, f"{BOTS} bots to connect", 0.5)
        for worker in workers:
            self.wait_worker(worker)

    reconnect_grace_ms = 30_000
    no_show_window_s = 300  # the league default: three no-show retries 100 s apart
    think_ms = "100"

    def bot_address(self, host: int, gateway: int) -> str:
        """Where the bots of bot process ``host`` dial their gateway ``gateway``."""
        return f"127.0.0.1:{self.gateway_ports[gateway]}"

    def in_flight(self) -> int:
        return Match.objects.filter(league=self.league, status=MatchStatus.RUNNING).count()

    def kill_gateway(self, i: int) -> str:
        running = self.in_flight()
        self.gateways[i].kill9()
        self.start_gateway(i)
        return f"kill -9 gateway{i} with {running} matches running; started again"

    def drain_gateway(self, i: int) -> str:
        running = self.in_flight()
        self.gateways[i].stop(signal.SIGTERM, timeout=30)
        # down for longer than the connect grace, as a restart by a supervisor is: matches
        # that start meanwhile (the other gateway's bots keep playing) must wait for this
        # one's bots, not forfeit them as no-shows (the outage itself, not a wait)
        time.sleep(3.0)
        self.start_gateway(i)
        return f"SIGTERM gateway{i} with {running} matches running; started again after 3 s"

    def play(self) -> Outcome:
        assert self.league is not None
        out = Outcome()
        t0 = time.monotonic()
        faults = [("kill_gateway", self.kill_gateway, 0), ("drain_gateway", self.drain_gateway, 1)]
        current: Round = self._schedule()
        last_reap = 0.0
        while True:
            if time.monotonic() - t0 > self.cfg.timeout:
                raise TimeoutError(f"no end within {self.cfg.timeout:g} s: {self._status()}")
            if time.monotonic() - last_reap >= 1.0:
                last_reap = time.monotonic()
                do_reap()
            # each fault hits at least 4 matches in flight (a round that ends first is
            # followed by another)
            if faults and self.in_flight() >= 4:
                what, fault, gateway = faults.pop(0)
                detail = fault(gateway)
                self.say(f"  t={time.monotonic() - t0:5.1f} s  {detail}")
                out.events.append(FaultEvent(time.monotonic() - t0, what, detail))
            current.refresh_from_db()
            if current.status == RoundStatus.COMPLETE:
                if not faults:
                    break
                current = self._schedule()
            time.sleep(0.05 if faults else 0.2)
        out.wall_s = time.monotonic() - t0
        self.check(out)
        return out

    def resumed(self) -> int:
        return sum(h.output().count(" resumed: seat ") for h in self.hosts)

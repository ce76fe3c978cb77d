"""A gateway that stops or dies is the arena's fault, never a bot's.

Real processes: a redis-server of the test's own, two gateways (``manage.py rungateway``),
a Celery worker (``--pool threads``), 8 SDK bots in two processes (4 on each gateway, each
answer after 100 ms so that games last), a 2-seat league of them (56 matches a round, up
to 8 at once). While a round plays: ``kill -9`` one gateway with matches in flight and
start it again, then ``SIGTERM`` the other (it drains) and start it again 3 s later, longer
than the league's connect grace (2 s), while matches start. The bots come back within the
league's reconnect grace (30 s) and their games go on; the matches that started meanwhile
waited for them.

Afterwards every match is finished, none played more than twice, no bot was charged
with anything, the ratings equal a full recompute (so nothing the faults did moved them),
and the bots saw their matches resumed.
"""

from __future__ import annotations

import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.models import Match, MatchStatus, Round, RoundStatus
from arena.services import leagues as svc
from arena.services.bots import create_bot
from arena.services.rounds import do_reap
from tests.leagues.conftest import database_url
from tests.reliability.loadrig import (
    FaultEvent,
    LoadConfig,
    LoadRig,
    Outcome,
    _point_celery,
    summary,
    wait_until,
)

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.faults]

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
        worker = self.start_worker(wait=False)
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
                reconnect_grace_ms=30_000,
            )
        )
        specs: list[dict[str, str]] = []
        for i in range(self.cfg.bots):
            bot, token = create_bot(f"restart-{self.tag}-{i}")
            assert token is not None
            svc.do_enter(self.league, bot)
            self.bot_ids.append(bot.pk)
            port = self.gateway_ports[i % self.cfg.gateways]
            specs.append(
                {"name": bot.name, "arena": f"127.0.0.1:{port}", "token": token, "think_ms": "100"}
            )
        per = self.cfg.bots_per_host
        self.host_bots = [specs[i : i + per] for i in range(0, len(specs), per)]
        for i in range(len(self.host_bots)):
            self.start_host(i)
        wait_until(lambda: self.connected() == BOTS, 120, f"{BOTS} bots to connect", 0.5)
        self.wait_worker(worker)

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


@pytest.fixture
def rig(transactional_db: None, settings, tmp_path: Path) -> Iterator[RestartRig]:  # noqa: ANN001
    if shutil.which("redis-server") is None:
        pytest.fail("this test starts its own redis-server: install redis-server")
    settings.ARENA_REQUEUE_AFTER_SECONDS = CFG.requeue_after_seconds
    lines: list[str] = []
    r = RestartRig(tmp_path, database_url(), CFG, say=lines.append)
    try:
        yield r
    finally:
        r.close()
        print("\n".join(lines))


def test_gateways_killed_and_drained_mid_match_cost_no_bot_anything(rig: RestartRig) -> None:
    rig.setup_league()
    out = rig.play()
    report = summary(out, CFG) + f"\nmatches the bots saw resumed: {rig.resumed()}"
    print(report)
    assert len(out.events) == 2, report
    assert out.problems == [], report  # all finished, rated once, ratings == a recompute
    assert out.matches >= 56 and out.finished == out.matches, report
    assert out.bot_faults == {}, report  # no forfeit, no fault charged to any bot
    assert all(attempts <= 2 for _, attempts in out.rerun), report  # re-run once at most
    assert rig.resumed() > 0, "no bot saw a match resumed: the faults hit nothing"

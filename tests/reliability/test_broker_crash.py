"""Redis (the broker and the relay) is killed outright with matches in flight and comes
back with its data: the workers outlive it, and play resumes within 30 s.

Real processes: a redis-server of this test's own on a free port with ``appendonly yes``
in the test's directory (never the machine's), a gateway (``manage.py rungateway``), two
Celery workers (``--pool threads``, as docker-compose runs them), 8 SDK bots in two
processes that think 100 ms an answer, a 2-seat league of them (56 matches a round). The
driver plays beat's part (the reaper, ``do_reap``, every second).

While the round plays: ``kill -9`` redis-server with matches running and others waiting
in the workers' buffers (delivered, unacknowledged), start it again 3 s later on the same
data. kombu 5.7's Redis transport then closed the lost connection's channel with those
messages to restore, found its connection's ``client`` already gone, and raised
``AttributeError: 'NoneType' object has no attribute 'hostname'`` out of the consumer: the
worker logged ``Unrecoverable error`` and exited, leaving every match running or queued.
``workers.broker`` mends that; this test is the proof.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from django.db.models import Min
from django.utils import timezone

from arena.models import Match, MatchStatus, Round, RoundStatus
from arena.services import leagues as svc
from arena.services.bots import create_bot
from arena.services.rounds import do_reap
from tests.leagues.conftest import database_url
from tests.reliability.loadrig import LoadConfig, LoadRig, Outcome, _point_celery, wait_until

pytestmark = [
    pytest.mark.services,
    pytest.mark.slow,
    pytest.mark.faults,
    pytest.mark.processes,
    pytest.mark.serial,
]

BOTS = 8
CFG = LoadConfig(
    bots=BOTS,
    bots_per_host=4,
    gateways=1,
    workers=2,
    concurrency=40,
    rounds=1,
    lease_seconds=6,
    requeue_after_seconds=20,
    decision_ms=5_000,
    bank_ms=10_000,
    timeout=240.0,
)
#: seconds Redis stays down
DOWN_S = 3.0
#: play resumes within this many seconds of Redis being back
RESUME_S = 30.0


class CrashRig(LoadRig):
    """The load rig with a persistent redis-server, a 2-seat league of thinking bots."""

    def start_redis(self) -> None:
        self.redis_proc = self._proc(
            "redis",
            [
                "redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1",
                "--dir", str(self.tmp), "--save", "", "--appendonly", "yes",
                "--appendfsync", "always", "--daemonize", "no",
            ],
        ).start()  # fmt: skip
        wait_until(self._redis_up, 15, "redis-server to answer")

    def setup_league(self) -> None:
        self.start_redis()
        self._celery_before = _point_celery(self.queue, self.redis_url)
        workers = [self.start_worker(wait=False) for _ in range(self.cfg.workers)]
        self.start_gateway(0)
        self.league = svc.do_create_league(
            svc.LeagueSettings(
                name=f"crash {self.tag}",
                decision_ms=self.cfg.decision_ms,
                bank_ms=self.cfg.bank_ms,
                reconnect_grace_ms=30_000,
            )
        )
        specs: list[dict[str, str]] = []
        for i in range(self.cfg.bots):
            bot, token = create_bot(f"crash-{self.tag}-{i}")
            assert token is not None
            svc.do_enter(self.league, bot)
            self.bot_ids.append(bot.pk)
            arena = f"127.0.0.1:{self.gateway_ports[0]}"
            specs.append({"name": bot.name, "arena": arena, "token": token, "think_ms": "100"})
        per = self.cfg.bots_per_host
        self.host_bots = [specs[i : i + per] for i in range(0, len(specs), per)]
        for i in range(len(self.host_bots)):
            self.start_host(i)
        wait_until(lambda: self.connected() == BOTS, 120, f"{BOTS} bots to connect", 0.5)
        for w in workers:
            self.wait_worker(w)

    def in_flight(self) -> int:
        return Match.objects.filter(league=self.league, status=MatchStatus.RUNNING).count()

    def waiting_for_more(self) -> bool:
        """The queue is empty and every worker holds running matches: each waits in BRPOP
        for more with messages unacknowledged (what made kombu's cleanup fail)."""
        client = redis.Redis.from_url(self.redis_url, socket_connect_timeout=1)
        try:
            empty = client.llen(self.queue) == 0
        finally:
            client.close()
        return empty and all(self._running(w) > 0 for w in self.workers)

    def crash(self) -> tuple[float, int, int]:
        """kill -9 Redis with matches running, start it again; (when it was back, matches
        running and queued at the kill)."""
        assert self.redis_proc is not None
        running = self.in_flight()
        queued = Match.objects.filter(league=self.league, status=MatchStatus.QUEUED).count()
        self.redis_proc.kill9()
        assert not self._redis_up()
        time.sleep(DOWN_S)  # the outage itself, not a wait for something
        self.start_redis()
        return time.monotonic(), running, queued

    def play_through_crash(self) -> tuple[Outcome, dict[str, float]]:
        assert self.league is not None
        out = Outcome()
        t0 = time.monotonic()
        current: Round = self._schedule()
        figures: dict[str, float] = {}
        back: float | None = None
        back_wall = None
        last_reap = 0.0
        while True:
            now = time.monotonic()
            if now - t0 > self.cfg.timeout:
                raise TimeoutError(f"no end within {self.cfg.timeout:g} s: {self._status()}")
            if now - last_reap >= 1.0:
                last_reap = now
                try:
                    do_reap()
                except Exception as exc:  # noqa: BLE001 - Redis is down: the next second
                    self.say(f"  reaper: {type(exc).__name__}: {exc}")
            if back is None and self.in_flight() >= 4 and self.waiting_for_more():
                back_wall_before = timezone.now()
                back, running, queued = self.crash()
                back_wall = timezone.now()
                figures.update(running=running, queued=queued)
                self.say(
                    f"  t={back - t0:5.1f} s  kill -9 redis with {running} running and "
                    f"{queued} queued; back after {DOWN_S:g} s "
                    f"(down at {back_wall_before:%H:%M:%S})"
                )
            if back is not None and "resumed_s" not in figures:
                assert back_wall is not None
                started = Match.objects.filter(
                    league=self.league, started_at__gte=back_wall
                ).aggregate(first=Min("started_at"))["first"]
                done = Match.objects.filter(
                    league=self.league, status=MatchStatus.FINISHED, finished_at__gte=back_wall
                ).exists()
                if started is not None and done:
                    figures["resumed_s"] = time.monotonic() - back
                elif time.monotonic() - back > RESUME_S:
                    raise AssertionError(
                        f"no match finished within {RESUME_S:g} s of Redis being back: "
                        f"{self._status()}; workers alive: "
                        f"{[w.alive() for w in self.workers]}"
                    )
            current.refresh_from_db()
            if current.status == RoundStatus.COMPLETE and back is not None:
                break
            if current.status == RoundStatus.COMPLETE:
                current = self._schedule()
            time.sleep(0.05 if back is None else 0.2)
        out.wall_s = time.monotonic() - t0
        assert back is not None
        figures["round_done_s"] = time.monotonic() - back
        self.check(out)
        return out, figures


@pytest.fixture
def rig(transactional_db: None, settings, tmp_path: Path) -> Iterator[CrashRig]:  # noqa: ANN001
    if shutil.which("redis-server") is None:
        pytest.fail("this test starts its own redis-server: install redis-server")
    settings.ARENA_REQUEUE_AFTER_SECONDS = CFG.requeue_after_seconds
    lines: list[str] = []
    r = CrashRig(tmp_path, database_url(), CFG, say=lines.append)
    try:
        yield r
    finally:
        r.close()
        print("\n".join(lines))


def test_workers_outlive_a_redis_killed_and_restarted_with_its_data(rig: CrashRig) -> None:
    rig.setup_league()
    out, figures = rig.play_through_crash()
    logs = "\n".join(f"--- {w.name}\n{w.output()[-4000:]}" for w in rig.workers)
    print(f"figures: {figures}")
    assert all(w.alive() for w in rig.workers), logs
    assert not any("Unrecoverable error" in w.output() for w in rig.workers), logs
    assert figures["running"] + figures["queued"] > 0
    assert figures["resumed_s"] < RESUME_S, figures
    assert out.problems == [], (out.problems, logs)  # all finished, rated once, == recompute
    assert out.bot_faults == {}, out.bot_faults  # the outage charged no bot

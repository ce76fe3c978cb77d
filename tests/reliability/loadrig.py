"""A whole distributed arena on loopback, for the load run (``bench/load.py``) and the
faults-under-load test (``test_faults_under_load.py``).

Everything is a real process: a redis-server of the rig's own on a free port (broker and
relay; it is the one the fault run restarts, never the machine's), gateways
(``manage.py rungateway``), Celery workers (``celery -A workers worker --pool threads``),
and SDK bots, several ``avenue_sdk.Client`` threads per process (``bothost.py``). The
driver (the calling process, with Django set up on the same PostgreSQL database) makes a
league of the remote bots, schedules its rounds one after the other, plays beat's part
(the reaper, ``do_reap``, every second), injects the faults, and checks the outcome.

Every wait has a deadline; ``close()`` stops every process the rig started.

Why one file of this length: the rig is one object that owns every process it
starts, so that ``close()`` can stop them all.
"""

from __future__ import annotations

import json
import math
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import cast

import redis
from django.db.models import Q

from arena.models import (
    Bot,
    League,
    Match,
    MatchReplay,
    MatchStatus,
    Participation,
    Round,
    RoundStatus,
)
from arena.ratings.models import START_RATING, LiveRating, RatedMatch
from arena.ratings.services import recompute_ratings
from arena.services import leagues as svc
from arena.services.bots import create_bot
from arena.services.rounds import do_reap, do_schedule_round
from referee.replay import from_json, validate

ROOT = Path(__file__).resolve().parents[2]
BOTHOST = Path(__file__).with_name("bothost.py")


def _point_celery(queue: str, broker_url: str) -> tuple[str, str]:
    """Send this process's tasks to ``queue`` on ``broker_url``; the previous pair."""
    from kombu import pools

    from workers.celery import app

    before = (str(app.conf.task_default_queue), str(app.conf.broker_url))
    app.conf.task_default_queue = queue
    if broker_url != before[1]:
        app.conf.broker_url = broker_url
        # app.pool is kombu's process-wide pool for the broker URL: closing it alone left
        # a closed pool registered, which every later task sent to that URL got ("Acquire
        # on closed pool"). reset() closes them and empties the registry.
        pools.reset()
        app._after_fork()  # drops the app's references: made again lazily
    return before


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(
    predicate: Callable[[], object], timeout: float, what: str, step: float = 0.1
) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(step)


@dataclass
class LoadConfig:
    bots: int = 200
    bots_per_host: int = 10
    gateways: int = 2
    workers: int = 2
    #: threads per worker: matches a worker plays at once
    concurrency: int = 50
    #: rounds to play (the fault run plays more if its faults are not all injected yet)
    rounds: int = 2
    lease_seconds: int = 10
    #: the reaper re-sends a queued match not played after this long (lost messages)
    requeue_after_seconds: int = 20
    decision_ms: int = 10_000
    bank_ms: int = 60_000
    faults: bool = False
    #: seconds between two faults (the first comes this long after the start)
    fault_gap: float = 10.0
    #: the whole run, from the first round's scheduling to the last match's end
    timeout: float = 600.0


@dataclass
class Proc:
    name: str
    argv: list[str]
    env: dict[str, str]
    log: Path
    proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Proc:
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                self.argv, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT
            )
        return self

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def kill9(self) -> None:
        if self.alive():
            assert self.proc is not None
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15.0) -> None:
        if not self.alive():
            return
        assert self.proc is not None
        self.proc.send_signal(sig)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


@dataclass
class FaultEvent:
    at: float
    what: str
    detail: str


@dataclass
class Outcome:
    matches: int = 0
    finished: int = 0
    wall_s: float = 0.0
    decisions: int = 0
    latency_p50_ms: float = 0.0
    latency_p99_ms: float = 0.0
    #: (match id, attempts) of every match played more than once
    rerun: list[tuple[int, int]] = field(default_factory=list)
    no_show_retried: int = 0
    bot_faults: dict[str, int] = field(default_factory=dict)
    events: list[FaultEvent] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    log_errors: dict[str, int] = field(default_factory=dict)


class LoadRig:
    def __init__(
        self,
        tmp: Path,
        database_url: str,
        cfg: LoadConfig,
        say: Callable[[str], None] = print,
        redis_port: int | None = None,
    ) -> None:
        self.tmp = tmp
        self.cfg = cfg
        self.say = say
        tag = uuid.uuid4().hex[:8]
        self.tag = tag
        self.queue = f"load-{tag}"
        self.prefix = f"load-relay-{tag}"
        self.redis_port = redis_port or free_port()
        self.redis_url = f"redis://127.0.0.1:{self.redis_port}/0"
        self.gateway_ports = [free_port() for _ in range(cfg.gateways)]
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("CELERY", "ARENA_"))}
        self.env.update(
            DJANGO_SETTINGS_MODULE="config.settings",
            PYTHONPATH=str(ROOT),
            PYTHONUNBUFFERED="1",
            DATABASE_URL=database_url,
            REDIS_URL=self.redis_url,
            CELERY_QUEUE=self.queue,
            RELAY_PREFIX=self.prefix,
            ARENA_LEASE_SECONDS=str(cfg.lease_seconds),
            ARENA_MAX_ATTEMPTS="10",
            # a worker's idle threads exit, and its memory goes back, this soon after a
            # burst (workers/pool.py): the concurrency rig measures it
            ARENA_POOL_IDLE_S="5",
            LOG_LEVEL="WARNING",
        )
        self.redis_proc: Proc | None = None
        self.gateways: list[Proc] = []
        self.workers: list[Proc] = []
        self.hosts: list[Proc] = []
        self.host_bots: list[list[dict[str, str]]] = []
        self.league: League | None = None
        self.bot_ids: list[int] = []
        self._n = 0
        self._celery_before: tuple[str, str] | None = None

    # ------------------------------------------------------------ processes

    def _proc(self, name: str, argv: list[str]) -> Proc:
        self._n += 1
        return Proc(name, argv, self.env, self.tmp / f"{self._n:03d}-{name}.log")

    def start_redis(self) -> None:
        self.redis_proc = self._proc(
            "redis",
            [
                "redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--daemonize", "no",
                "--maxclients", "10000",
            ],
        ).start()  # fmt: skip
        wait_until(self._redis_up, 15, "redis-server to answer")

    def _redis_up(self) -> bool:
        client = redis.Redis.from_url(self.redis_url, socket_connect_timeout=0.5)
        try:
            return bool(client.ping())
        except redis.RedisError:
            return False
        finally:
            client.close()

    def start_gateway(self, i: int) -> Proc:
        gw = self._proc(
            f"gateway{i}",
            [
                sys.executable, "manage.py", "rungateway", "--host", "127.0.0.1",
                "--port", str(self.gateway_ports[i]), "--heartbeat", "2",
                "--heartbeat-timeout", "10",
            ],
        ).start()  # fmt: skip
        wait_until(lambda: "gateway listening" in gw.output() or not gw.alive(), 60, f"gateway {i}")
        if not gw.alive():
            raise RuntimeError(f"gateway {i} did not start:\n{gw.output()[-3000:]}")
        if i < len(self.gateways):
            self.gateways[i] = gw
        else:
            self.gateways.append(gw)
        return gw

    def start_worker(self, *, wait: bool = True) -> Proc:
        name = f"worker{len(self.workers)}"
        w = self._proc(
            name,
            [
                sys.executable, "-m", "celery", "-A", "workers", "worker",
                "--pool", "threads", "--concurrency", str(self.cfg.concurrency),
                "-Q", self.queue, "-n", f"{name}-{self.tag}@%h", "--without-gossip",
                "--without-mingle", "--without-heartbeat", "--loglevel", "INFO",
            ],
        ).start()  # fmt: skip
        self.workers.append(w)
        if wait:
            self.wait_worker(w)
        return w

    def wait_worker(self, w: Proc) -> None:
        wait_until(lambda: "ready." in w.output() or not w.alive(), 90, f"{w.name} to start")
        if not w.alive():
            raise RuntimeError(f"{w.name} did not start:\n{w.output()[-3000:]}")

    def start_host(self, i: int) -> Proc:
        spec = self.tmp / f"host{i}.json"
        spec.write_text(json.dumps(self.host_bots[i]))
        host = self._proc(f"bots{i}", [sys.executable, str(BOTHOST), str(spec)]).start()
        if i < len(self.hosts):
            self.hosts[i] = host
        else:
            self.hosts.append(host)
        return host

    # ------------------------------------------------------------ setup

    def setup(self) -> None:
        cfg = self.cfg
        t0 = time.monotonic()
        self.start_redis()
        self._celery_before = _point_celery(self.queue, self.redis_url)
        self.say(f"redis-server on 127.0.0.1:{self.redis_port} (the rig's own)")
        workers = [self.start_worker(wait=False) for _ in range(cfg.workers)]
        for i in range(cfg.gateways):
            self.start_gateway(i)
        self.say(f"{cfg.gateways} gateways on ports {self.gateway_ports}")
        league = svc.do_create_league(
            svc.LeagueSettings(
                name=f"load {self.tag}",
                seats=4,
                decision_ms=cfg.decision_ms,
                bank_ms=cfg.bank_ms,
                connect_grace_ms=3_000,
                no_show_retries=3,
                no_show_window_s=6,
            )
        )
        self.league = league
        specs: list[dict[str, str]] = []
        for i in range(cfg.bots):
            bot, token = create_bot(f"load-{self.tag}-{i:03d}")
            assert token is not None
            svc.do_enter(league, bot)
            self.bot_ids.append(bot.pk)
            port = self.gateway_ports[i % cfg.gateways]
            specs.append({"name": bot.name, "arena": f"127.0.0.1:{port}", "token": token})
        self.host_bots = [
            specs[i : i + cfg.bots_per_host] for i in range(0, len(specs), cfg.bots_per_host)
        ]
        for i in range(len(self.host_bots)):
            self.start_host(i)
        wait_until(
            lambda: self.connected() == cfg.bots, 120, f"{cfg.bots} bots to connect", step=0.5
        )
        self.say(f"{cfg.bots} bots connected ({len(self.hosts)} processes)")
        for w in workers:
            self.wait_worker(w)
        self.say(
            f"{cfg.workers} workers ready (--pool threads --concurrency {cfg.concurrency}); "
            f"setup took {time.monotonic() - t0:.1f} s"
        )

    def connected(self) -> int:
        client = redis.Redis.from_url(self.redis_url, socket_connect_timeout=1)
        try:
            channels = [f"{self.prefix}:bot:{b}" for b in self.bot_ids]
            counts = cast(list[tuple[bytes, int]], client.pubsub_numsub(*channels))
            return sum(1 for _, n in counts if int(n) > 0)
        except redis.RedisError:
            return 0
        finally:
            client.close()

    # ------------------------------------------------------------ faults

    def _running(self, worker: Proc | None = None) -> int:
        q = Match.objects.filter(league=self.league, status=MatchStatus.RUNNING)
        if worker is not None:
            q = q.filter(worker_id__contains=f":{worker.pid}:")
        return q.count()

    def _holding(self) -> Proc | None:
        """A live worker holding running matches, the one holding most; None if none."""
        held = [(self._running(w), w) for w in self.workers if w.alive()]
        count, worker = max(held, key=lambda h: h[0], default=(0, None))
        return worker if count > 0 else None

    def fault_kill_worker(self) -> str:
        # whichever worker holds matches now: the broker shares a round's messages out as
        # the workers' prefetch asks, so a given worker may have played its share already
        found: list[Proc] = []

        def holding() -> bool:
            worker = self._holding()
            found[:] = [worker] if worker is not None else []
            return bool(found)

        wait_until(holding, 30, "a worker to hold matches", 0.05)
        victim = found[0]
        held = self._running(victim)
        victim.kill9()
        self.start_worker(wait=False)
        return (
            f"kill -9 {victim.name} (pid {victim.pid}) holding {held} running matches; "
            "replacement started"
        )

    def fault_restart_redis(self) -> str:
        assert self.redis_proc is not None
        running = self._running()
        self.redis_proc.stop(signal.SIGTERM)
        time.sleep(1.0)
        self.start_redis()
        return (
            f"redis-server stopped (SIGTERM, no persistence: queue and relay state lost) "
            f"with {running} matches running; up again after 1 s"
        )

    def fault_restart_gateway(self) -> str:
        i = len(self.gateways) - 1
        running = self._running()
        self.gateways[i].stop(signal.SIGTERM, timeout=20)
        self.start_gateway(i)
        return (
            f"gateway{i} (port {self.gateway_ports[i]}) SIGTERM and started again, "
            f"{running} matches running"
        )

    def fault_drop_bots(self) -> str:
        per = self.cfg.bots_per_host
        n_hosts = max(1, math.ceil(0.1 * self.cfg.bots / per))
        victims = list(range(len(self.hosts)))[-n_hosts:]
        dropped = sum(len(self.host_bots[i]) for i in victims)
        running = self._running()
        for i in victims:
            self.hosts[i].kill9()
        time.sleep(2.0)
        for i in victims:
            self.start_host(i)
        return (
            f"kill -9 {n_hosts} bot processes: {dropped} of {self.cfg.bots} bots dropped with "
            f"{running} matches running; restarted after 2 s (they reconnect)"
        )

    # ------------------------------------------------------------ the run

    def run(self) -> Outcome:
        cfg = self.cfg
        assert self.league is not None
        out = Outcome()
        faults: list[Callable[[], str]] = (
            [
                self.fault_kill_worker,
                self.fault_restart_redis,
                self.fault_restart_gateway,
                self.fault_drop_bots,
            ]
            if cfg.faults
            else []
        )
        t0 = time.monotonic()
        deadline = t0 + cfg.timeout
        next_fault = t0 + cfg.fault_gap
        last_reap = 0.0
        rounds = 0
        current = self._schedule()
        self.say(f"round 1 scheduled: {current.matches.count()} matches")
        while True:
            now = time.monotonic()
            if now > deadline:
                raise TimeoutError(f"no end within {cfg.timeout:g} s: {self._status()}")
            if now - last_reap >= 1.0:
                last_reap = now
                try:
                    do_reap()
                except Exception as exc:  # noqa: BLE001 - Redis may be down: next second
                    self.say(f"  reaper: {type(exc).__name__}: {exc}")
            if faults and now >= next_fault and self._running() > 0:
                fault = faults.pop(0)
                detail = fault()
                at = now - t0
                out.events.append(FaultEvent(at, fault.__name__.removeprefix("fault_"), detail))
                self.say(f"  t={at:5.1f} s  {detail}")
                next_fault = time.monotonic() + cfg.fault_gap
            current.refresh_from_db()
            if current.status == RoundStatus.COMPLETE:
                rounds += 1
                self.say(f"  t={time.monotonic() - t0:5.1f} s  round {rounds} complete")
                if rounds >= cfg.rounds and not faults:
                    break
                current = self._schedule()
            time.sleep(0.2)
        out.wall_s = time.monotonic() - t0
        self.check(out)
        return out

    def _schedule(self) -> Round:
        assert self.league is not None
        scheduled = None
        while scheduled is None:  # Redis may be down at this moment: the reaper re-sends
            try:
                scheduled = do_schedule_round(self.league)
            except redis.RedisError:
                time.sleep(0.5)
        return scheduled.round

    def _status(self) -> str:
        counts: dict[str, int] = {}
        for s in Match.objects.filter(league=self.league).values_list("status", flat=True):
            counts[s] = counts.get(s, 0) + 1
        return f"matches by status {counts}, bots connected {self.connected()}"

    # ------------------------------------------------------------ checks

    def check(self, out: Outcome) -> None:
        league = self.league
        assert league is not None
        problems = out.problems
        matches = list(Match.objects.filter(league=league).order_by("pk"))
        out.matches = len(matches)
        out.finished = sum(m.status == MatchStatus.FINISHED for m in matches)
        for m in matches:
            if m.status != MatchStatus.FINISHED:
                problems.append(f"match {m.pk} is {m.status} ({m.error[:200]})")
            if m.lease_expires_at is not None:
                problems.append(f"match {m.pk} still holds a lease ({m.status})")
            if not m.rated and m.status == MatchStatus.FINISHED:
                problems.append(f"match {m.pk} finished but not rated")
            if m.attempts > 1:
                out.rerun.append((m.pk, m.attempts))
            if m.no_show_retries:
                out.no_show_retried += 1
        ledger = list(RatedMatch.objects.filter(league=league).values_list("match_id", flat=True))
        if len(ledger) != len(set(ledger)):
            problems.append("a match is in the rating ledger twice")
        finished_ids = {m.pk for m in matches if m.status == MatchStatus.FINISHED}
        if set(ledger) != finished_ids:
            problems.append(
                f"ledger and finished matches differ: {sorted(set(ledger) ^ finished_ids)[:20]}"
            )
        ratings = list(LiveRating.objects.filter(league=league).values_list("rating", flat=True))
        total = sum(ratings, Decimal(0))
        if total != START_RATING * len(ratings):
            problems.append(f"ratings not zero-sum: {total} over {len(ratings)} rows")
        report = recompute_ratings(league.pk)
        if not report.exact:
            problems.append(f"stored ratings differ from a full recompute: {report.to_json()}")
        latencies: list[float] = []
        replays = {r.match_id: r for r in MatchReplay.objects.filter(match__league=league)}
        for pk in sorted(finished_ids):
            replay = replays.get(pk)
            if replay is None:
                problems.append(f"match {pk}: replay missing")
                continue
            try:
                record = from_json(replay.record)
                validate(record)
            except Exception as exc:  # noqa: BLE001 - any failure is a corrupt replay
                problems.append(f"match {pk}: replay does not validate: {exc}")
                continue
            latencies += [d.latency_ms for d in record.decisions if d.latency_ms is not None]
        causes = Participation.objects.filter(match__league=league).values_list(
            "fault_cause", flat=True
        )
        for cause in causes:
            if cause:
                out.bot_faults[cause] = out.bot_faults.get(cause, 0) + 1
        out.decisions = len(latencies)
        if latencies:
            qs = statistics.quantiles(latencies, n=100, method="inclusive")
            out.latency_p50_ms = statistics.median(latencies)
            out.latency_p99_ms = qs[98]
        if Match.objects.filter(
            Q(league=league), Q(status=MatchStatus.RUNNING) | Q(status=MatchStatus.QUEUED)
        ).exists():
            problems.append("matches still running or queued")
        for p in [*self.workers, *self.gateways]:
            text = p.output()
            errors = sum(
                1 for line in text.splitlines() if " ERROR" in line or "CRITICAL" in line
                or line.startswith("Traceback")
            )  # fmt: skip
            if errors:
                out.log_errors[p.name] = errors

    # ------------------------------------------------------------ teardown

    def close(self) -> None:
        for p in self.hosts:
            p.stop(signal.SIGTERM, timeout=10)
        for p in self.workers:
            p.stop(signal.SIGTERM, timeout=20)
        for p in self.gateways:
            p.stop(signal.SIGTERM, timeout=15)
        if self.redis_proc is not None:
            self.redis_proc.stop(signal.SIGTERM, timeout=10)
        if self._celery_before is not None:
            _point_celery(*self._celery_before)

    def remote_bots(self) -> int:
        return Bot.objects.filter(pk__in=self.bot_ids).count()


def summary(out: Outcome, cfg: LoadConfig) -> str:
    lines = [
        f"matches: {out.matches} ({out.finished} finished), wall {out.wall_s:.1f} s",
        f"throughput: {out.matches / out.wall_s:.2f} matches/s, "
        f"{out.decisions / out.wall_s:.0f} remote decisions/s ({out.decisions} decisions)",
        f"decision latency (runner -> relay -> gateway -> SDK bot -> back): "
        f"p50 {out.latency_p50_ms:.2f} ms, p99 {out.latency_p99_ms:.2f} ms",
        f"matches played more than once: {len(out.rerun)} "
        f"(attempts: {sorted({a for _, a in out.rerun})}); no-show retried: {out.no_show_retried}",
        f"bot faults recorded in the replays' reports: {out.bot_faults or 'none'}",
        f"ERROR/CRITICAL/Traceback lines in worker and gateway logs: {out.log_errors or 'none'}",
    ]
    if out.events:
        lines.append("faults:")
        lines += [f"  t={e.at:5.1f} s {e.what}: {e.detail}" for e in out.events]
    lines.append(
        "checks: " + ("all passed" if not out.problems else f"{len(out.problems)} PROBLEMS")
    )
    lines += [f"  - {p}" for p in out.problems[:50]]
    return "\n".join(lines)

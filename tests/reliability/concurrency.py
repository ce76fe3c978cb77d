"""Many remote matches at once on one worker, for ``bench/load.py --concurrent`` and
``test_concurrent_matches.py``.

Real processes on loopback, as in ``loadrig.py`` (whose process helpers this uses): a
redis-server of the rig's own, gateways, Celery worker(s) with ``--pool threads
--concurrency C`` and a bounded database pool (``DATABASE_POOL_SIZE``), and lightweight
asyncio bots (``aiobots.py``, many per process). The driver makes 2-seat leagues of
``bots_per_league`` remote bots (a round robin round is ``K*(K-1)`` matches, each bot in
``2*(K-1)`` of them, under the stream's limit of 16), schedules one round in each, all at
once, and while they play samples how many matches are running and how many PostgreSQL
backends the workers hold (``pg_stat_activity``, by the workers' ``application_name``).
Then it checks every match: finished, rated once, zero-sum, replays valid.
"""

from __future__ import annotations

import bisect
import json
import math
import signal
import statistics
import sys
import time
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.db import connection

from arena.models import League, Match, MatchReplay, MatchStatus, Participation
from arena.ratings.models import START_RATING, LiveRating, RatedMatch
from arena.ratings.services import recompute_ratings
from arena.services import leagues as svc
from arena.services.bots import create_bot
from arena.services.rounds import do_reap, do_schedule_round
from referee.replay import from_json, validate
from tests.reliability.loadrig import LoadConfig, LoadRig, Proc, wait_until
from tests.reliability.procstat import cpu_by_kind, cpu_line, rss_mib

AIOBOTS = Path(__file__).with_name("aiobots.py")


@dataclass
class ConcurrencyConfig:
    #: matches to play, all queued at once (rounded up to whole leagues)
    matches: int = 1000
    bots_per_league: int = 8
    bot_processes: int = 2
    gateways: int = 2
    workers: int = 1
    #: threads per worker: matches it plays at once
    concurrency: int = 1000
    #: the bound on each worker's PostgreSQL connections
    pool_size: int = 8
    #: match threads of a worker running Python at once (ARENA_RUNNER_SLOTS; 0: no bound)
    slots: int = 8
    think_ms: int = 0
    lease_seconds: int = 60  # the production default
    decision_ms: int = 10_000
    bank_ms: int = 120_000
    timeout: float = 900.0
    #: measure the worker's memory: idle before any match, idle after a warm-up round of
    #: one extra league of 2 bots (imports, caches, the engine loaded: the worker's idle
    #: size as it serves), at the burst's peak and idle again after it (bench/load.py)
    memory: bool = False

    @property
    def matches_per_league(self) -> int:
        return self.bots_per_league * (self.bots_per_league - 1)

    @property
    def leagues(self) -> int:
        return math.ceil(self.matches / self.matches_per_league)


@dataclass
class Figures:
    matches: int = 0
    finished: int = 0
    wall_s: float = 0.0
    #: most matches running at once: from the claims' and results' times, and sampled
    peak_running: int = 0
    peak_running_sampled: int = 0
    #: seconds with at least 90% of the peak running
    plateau_s: float = 0.0
    decisions: int = 0
    decisions_per_s: float = 0.0
    plateau_decisions_per_s: float = 0.0
    #: the arena's share of a decision: one answer leaving a bot -> the match's next
    #: request reaching a bot (gateway, relay, runner, referee, relay, gateway)
    turnaround_p50_ms: float = 0.0
    turnaround_p99_ms: float = 0.0
    #: the gateways' measure of each answer (what the bots are charged)
    bot_latency_p50_ms: float = 0.0
    bot_latency_p99_ms: float = 0.0
    #: PostgreSQL backends of the workers: most at once (sampled), and distinct ones seen
    db_peak: int = 0
    db_distinct: int = 0
    db_samples: int = 0
    db_sessions_opened: int = 0
    #: running matches the reaper found with an expired lease (heartbeats late), and
    #: matches played more than once
    leases_expired: int = 0
    rerun: int = 0
    bot_errors: dict[str, int] = field(default_factory=dict)
    #: CPU seconds (user + system) each kind of process spent while the matches played
    cpu_s: dict[str, float] = field(default_factory=dict)
    #: the worker(s)' resident memory (MiB, summed, with ``memory``): ready before any
    #: match, idle after the warm-up round, the most sampled while the burst played, and
    #: idle again after it (``settle_s`` later)
    rss_cold_mib: float = 0.0
    rss_idle_mib: float = 0.0
    rss_peak_mib: float = 0.0
    rss_after_mib: float = 0.0
    settle_s: float = 0.0
    #: the workers' log lines of a restart in place (``workers.restart``) after the burst
    restarts: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


class ConcurrencyRig(LoadRig):
    def __init__(self, tmp: Path, database_url: str, cfg: ConcurrencyConfig, **kw: Any) -> None:
        super().__init__(
            tmp,
            database_url,
            LoadConfig(
                gateways=cfg.gateways,
                workers=cfg.workers,
                concurrency=cfg.concurrency,
                lease_seconds=cfg.lease_seconds,
                timeout=cfg.timeout,
            ),
            **kw,
        )
        self.ccfg = cfg
        self.app_name = f"arena-worker-{self.tag}"
        self.env.update(
            DATABASE_POOL_SIZE=str(cfg.pool_size),
            DATABASE_POOL_TIMEOUT="120",
            ARENA_RUNNER_SLOTS=str(cfg.slots),
        )
        self.leagues: list[League] = []
        self.warm_league: League | None = None
        self.stats_files: list[Path] = []

    def _proc(self, name: str, argv: list[str]) -> Proc:
        proc = super()._proc(name, argv)
        if name.startswith("worker"):
            # libpq names the workers' connections, so pg_stat_activity can count them
            proc.env = {**proc.env, "PGAPPNAME": self.app_name}
        return proc

    def setup(self) -> None:
        cfg = self.ccfg
        t0 = time.monotonic()
        self.start_redis()
        from tests.reliability.loadrig import _point_celery

        self._celery_before = _point_celery(self.queue, self.redis_url)
        workers = [self.start_worker(wait=False) for _ in range(cfg.workers)]
        for i in range(cfg.gateways):
            self.start_gateway(i)
        specs: list[dict[str, str]] = []
        for n in range(cfg.leagues):
            league = svc.do_create_league(
                svc.LeagueSettings(
                    name=f"concurrent {self.tag} {n}",
                    seats=2,
                    decision_ms=cfg.decision_ms,
                    bank_ms=cfg.bank_ms,
                    connect_grace_ms=10_000,
                )
            )
            self.leagues.append(league)
            for b in range(cfg.bots_per_league):
                bot, token = create_bot(f"conc-{self.tag}-{n:03d}-{b}")
                assert token is not None
                svc.do_enter(league, bot)
                self.bot_ids.append(bot.pk)
                port = self.gateway_ports[len(specs) % cfg.gateways]
                specs.append({"arena": f"127.0.0.1:{port}", "token": token})
        if cfg.memory:
            self.warm_league = svc.do_create_league(
                svc.LeagueSettings(name=f"concurrent {self.tag} warm-up", seats=2)
            )
            for b in range(2):
                bot, token = create_bot(f"conc-{self.tag}-warm-{b}")
                assert token is not None
                svc.do_enter(self.warm_league, bot)
                self.bot_ids.append(bot.pk)
                specs.append({"arena": f"127.0.0.1:{self.gateway_ports[0]}", "token": token})
        per = math.ceil(len(specs) / cfg.bot_processes)
        for i in range(cfg.bot_processes):
            spec = self.tmp / f"aiobots{i}.json"
            stats = self.tmp / f"aiobots{i}-stats.json"
            spec.write_text(
                json.dumps({"bots": specs[i * per : (i + 1) * per], "think_ms": cfg.think_ms})
            )
            self.stats_files.append(stats)
            self.hosts.append(
                self._proc(
                    f"aiobots{i}", [sys.executable, str(AIOBOTS), str(spec), str(stats)]
                ).start()
            )
        wait_until(
            lambda: self.connected() == len(specs), 180, f"{len(specs)} bots to connect", 0.5
        )
        for w in workers:
            self.wait_worker(w)
        self.say(
            f"{len(specs)} async bots in {cfg.bot_processes} processes on {cfg.gateways} "
            f"gateways, {cfg.workers} worker(s) --pool threads --concurrency {cfg.concurrency}, "
            f"DATABASE_POOL_SIZE={cfg.pool_size}, ARENA_RUNNER_SLOTS={cfg.slots}; "
            f"setup {time.monotonic() - t0:.1f} s"
        )

    # ------------------------------------------------------------ the run

    def _ours(self) -> Any:
        return Match.objects.filter(league__in=self.leagues)

    def _backends(self) -> list[int]:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pid FROM pg_stat_activity WHERE application_name = %s", [self.app_name]
            )
            return [int(r[0]) for r in cursor.fetchall()]

    def _sessions(self) -> int:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT sessions FROM pg_stat_database WHERE datname = current_database()"
            )
            row = cursor.fetchone()
        return int(row[0]) if row else 0

    def _cpu(self) -> dict[str, float]:
        """CPU seconds so far of the rig's processes, by kind (PostgreSQL's backends are
        not the rig's children and are not counted)."""
        redis = [self.redis_proc] if self.redis_proc else []
        return cpu_by_kind(
            {"worker": self.workers, "gateways": self.gateways, "bots": self.hosts, "redis": redis}
        )

    def _rss(self) -> float:
        return sum(rss_mib(w.pid) for w in self.workers if w.alive())

    def _settled_rss(self, most_s: float = 90.0) -> tuple[float, float]:
        """The workers' memory once idle, and the seconds waited for it: sampled every
        second, past the time their idle threads take to exit and the memory to go back
        (``ARENA_POOL_IDLE_S`` and the pool's second), until two samples 5 s apart differ
        by less than 1%, or ``most_s``."""
        t0 = time.monotonic()
        least = float(self.env["ARENA_POOL_IDLE_S"]) + 3
        history = [self._rss()]
        while time.monotonic() - t0 < most_s:
            time.sleep(1.0)
            history.append(self._rss())
            stable = len(history) > 5 and abs(history[-1] - history[-6]) <= 0.01 * history[-6]
            if stable and time.monotonic() - t0 >= least:
                break
        return history[-1], time.monotonic() - t0

    def _warm_up(self, out: Figures) -> None:
        """The worker's idle size as it serves: one round of the warm-up league played,
        then its memory once settled."""
        assert self.warm_league is not None
        out.rss_cold_mib = self._rss()
        do_schedule_round(self.warm_league)
        warm = Match.objects.filter(league=self.warm_league)
        wait_until(
            lambda: not warm.exclude(status=MatchStatus.FINISHED).exists(),
            120,
            "the warm-up round",
            0.25,
        )
        out.rss_idle_mib, _ = self._settled_rss()
        out.rss_peak_mib = out.rss_idle_mib
        self.say(
            f"worker memory: {out.rss_cold_mib:.0f} MiB before any match, "
            f"{out.rss_idle_mib:.0f} MiB idle after a warm-up round"
        )

    def play(self) -> Figures:
        cfg = self.ccfg
        out = Figures()
        if cfg.memory:
            self._warm_up(out)
        pids: set[int] = set()
        sessions_before = self._sessions()
        cpu_before = self._cpu()
        t0 = time.monotonic()
        for league in self.leagues:
            do_schedule_round(league)
        total = self._ours().count()
        queued_s = time.monotonic() - t0
        # as autovacuum would (this machine's PostgreSQL runs without it): planned without
        # statistics, a result's seats read hash-joins every match of the database (9 ms)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        self.say(
            f"{total} matches queued in {queued_s:.1f} s; ANALYZE in "
            f"{time.monotonic() - t0 - queued_s:.1f} s"
        )
        deadline = t0 + cfg.timeout
        last_reap = last_say = 0.0
        while True:
            now = time.monotonic()
            if now > deadline:
                raise TimeoutError(f"not all {total} matches done within {cfg.timeout:g} s")
            backends = self._backends()
            pids.update(backends)
            out.db_peak = max(out.db_peak, len(backends))
            out.db_samples += 1
            running = self._ours().filter(status=MatchStatus.RUNNING).count()
            out.peak_running_sampled = max(out.peak_running_sampled, running)
            out.rss_peak_mib = max(out.rss_peak_mib, self._rss())
            open_ = self._ours().filter(status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING])
            left = open_.count()
            if now - last_say >= 10:
                last_say = now
                self.say(
                    f"  t={now - t0:5.1f} s  running {running}, not done {left}, "
                    f"worker backends {len(backends)}"
                )
            if left == 0:
                break
            if now - last_reap >= 5:
                last_reap = now
                out.leases_expired += len(do_reap().reaped)
            time.sleep(0.25)
        out.wall_s = time.monotonic() - t0
        out.db_distinct = len(pids)
        out.db_sessions_opened = self._sessions() - sessions_before
        out.cpu_s = {k: v - cpu_before.get(k, 0.0) for k, v in self._cpu().items()}
        for host in self.hosts:
            host.stop(signal.SIGTERM, timeout=30)
        if cfg.memory:
            out.rss_after_mib, out.settle_s = self._settled_rss()
            out.restarts = [
                line.split("] ", 1)[-1][:160]
                for w in self.workers
                for line in w.output().splitlines()
                if "restarting in place" in line or "restarted in place" in line
            ]
        self._figures(out)
        return out

    def _figures(self, out: Figures) -> None:
        matches = list(self._ours())
        out.matches = len(matches)
        out.finished = sum(m.status == MatchStatus.FINISHED for m in matches)
        spans = [(m.started_at, m.finished_at) for m in matches if m.started_at and m.finished_at]
        edges = sorted(
            [(s.timestamp(), 1) for s, _ in spans] + [(f.timestamp(), -1) for _, f in spans]
        )
        level = peak = 0
        for _, step in edges:
            level += step
            peak = max(peak, level)
        out.peak_running = peak
        plateau: list[tuple[float, float]] = []
        level = 0
        for (at, step), nxt in zip(edges, edges[1:], strict=False):
            level += step
            if level >= 0.9 * peak:
                plateau.append((at, nxt[0]))
        out.plateau_s = sum(b - a for a, b in plateau)
        events: dict[str, list[list[float]]] = {}
        for path in self.stats_files:
            if not path.exists():
                out.problems.append(f"{path.name} was not written")
                continue
            data = json.loads(path.read_text())
            for match_id, pairs in data["decisions"].items():
                events.setdefault(match_id, []).extend(pairs)
            for k, v in data["errors"].items():
                out.bot_errors[k] = out.bot_errors.get(k, 0) + v
        turnaround: list[float] = []
        answered: list[float] = []
        for pairs in events.values():
            pairs.sort()
            answered += [sent for _, sent in pairs]
            turnaround += [(b[0] - a[1]) * 1000 for a, b in zip(pairs, pairs[1:], strict=False)]
        out.decisions = len(answered)
        if answered:
            out.decisions_per_s = len(answered) / max(1e-9, max(answered) - min(answered))
        if plateau and out.plateau_s > 0:
            answered.sort()
            inside = sum(
                bisect.bisect_left(answered, b) - bisect.bisect_left(answered, a)
                for a, b in plateau
            )
            out.plateau_decisions_per_s = inside / out.plateau_s
        if len(turnaround) > 1:
            out.turnaround_p50_ms = statistics.median(turnaround)
            out.turnaround_p99_ms = statistics.quantiles(turnaround, n=100)[98]
        self._check(out, matches)

    def _check(self, out: Figures, matches: list[Match]) -> None:
        problems = out.problems
        out.rerun = sum(m.attempts > 1 for m in matches)
        for m in matches:
            if m.status != MatchStatus.FINISHED:
                problems.append(f"match {m.pk} is {m.status} ({m.error[:200]})")
            elif not m.rated:
                problems.append(f"match {m.pk} finished but not rated")
            if m.lease_expires_at is not None:
                problems.append(f"match {m.pk} still holds a lease")
        finished = {m.pk for m in matches if m.status == MatchStatus.FINISHED}
        ledger = list(
            RatedMatch.objects.filter(league__in=self.leagues).values_list("match_id", flat=True)
        )
        if len(ledger) != len(set(ledger)) or set(ledger) != finished:
            problems.append("the rating ledger does not hold each finished match exactly once")
        latencies: list[float] = []
        for replay in MatchReplay.objects.filter(match__league__in=self.leagues):
            try:
                record = from_json(replay.record)
                validate(record)
            except Exception as exc:  # noqa: BLE001 - any failure is a corrupt replay
                problems.append(f"match {replay.match_id}: replay does not validate: {exc}")
                continue
            latencies += [d.latency_ms for d in record.decisions if d.latency_ms is not None]
        if len(latencies) > 1:
            out.bot_latency_p50_ms = statistics.median(latencies)
            out.bot_latency_p99_ms = statistics.quantiles(latencies, n=100)[98]
        # the bots count the warm-up round's answers too
        warm = (
            MatchReplay.objects.filter(match__league=self.warm_league) if self.warm_league else []
        )
        answered_warm = sum(
            sum(d.latency_ms is not None for d in from_json(r.record).decisions) for r in warm
        )
        if len(latencies) + answered_warm != out.decisions:
            problems.append(
                f"the replays hold {len(latencies)} asked decisions, the bots answered "
                f"{out.decisions}"
            )
        faults = Participation.objects.filter(match__league__in=self.leagues).exclude(
            fault_cause=""
        )
        for p in faults:
            problems.append(f"match {p.match_id} seat {p.seat}: bot fault {p.fault_cause}")
        for league in self.leagues:
            ratings = list(
                LiveRating.objects.filter(league=league).values_list("rating", flat=True)
            )
            if sum(ratings, Decimal(0)) != START_RATING * len(ratings):
                problems.append(f"league {league.pk}: ratings not zero-sum")
            if not recompute_ratings(league.pk).exact:
                problems.append(f"league {league.pk}: ratings differ from a full recompute")


def summary(out: Figures, cfg: ConcurrencyConfig) -> str:
    return "\n".join(
        [
            f"matches: {out.matches} ({out.finished} finished) in {out.wall_s:.1f} s",
            f"concurrent matches held: peak {out.peak_running} "
            f"(sampled {out.peak_running_sampled}), >= 90% of it for {out.plateau_s:.1f} s",
            f"decisions asked: {out.decisions}; {out.decisions_per_s:.0f}/s over the run, "
            f"{out.plateau_decisions_per_s:.0f}/s on the plateau",
            f"decision turnaround, arena side (answer leaves a bot -> next request arrives): "
            f"p50 {out.turnaround_p50_ms:.1f} ms, p99 {out.turnaround_p99_ms:.1f} ms",
            f"bot latency as the gateways measure it: p50 {out.bot_latency_p50_ms:.1f} ms, "
            f"p99 {out.bot_latency_p99_ms:.1f} ms",
            f"PostgreSQL backends of the worker(s): peak {out.db_peak} "
            f"(bound: pool {cfg.pool_size} + the lease keeper's 1, x {cfg.workers} worker(s)), "
            f"{out.db_distinct} distinct seen "
            f"over {out.db_samples} samples; sessions opened on the database while the matches "
            f"played (every process of the run): {out.db_sessions_opened}",
            f"leases found expired by the reaper: {out.leases_expired}; matches played more "
            f"than once: {out.rerun}",
            cpu_line(out.cpu_s, out.decisions, out.wall_s),
            *(
                [
                    f"worker memory (resident, all workers): {out.rss_cold_mib:.0f} MiB before "
                    f"any match, idle after a warm-up round {out.rss_idle_mib:.0f} MiB, peak "
                    f"{out.rss_peak_mib:.0f} MiB, idle again {out.settle_s:.0f} s after the "
                    f"last result {out.rss_after_mib:.0f} MiB "
                    f"({out.rss_after_mib / max(1e-9, out.rss_idle_mib):.2f}x idle)",
                    *[f"  {line}" for line in out.restarts],
                ]
                if cfg.memory
                else []
            ),
            f"bot-side stream errors: {out.bot_errors or 'none'}",
            "checks: " + ("all passed" if not out.problems else f"{len(out.problems)} PROBLEMS"),
            *[f"  - {p}" for p in out.problems[:40]],
        ]
    )

"""The fault matrix: every process of the arena failed in every way, one after the other,
while a league plays, with matches both in flight and starting.

Real processes on one rig: a redis-server of its own (append-only file, so it can come
back with its data), two gateways, two Celery workers (``--pool threads``), gunicorn
serving the site, 8 SDK bots in two processes (answers after 50 ms), a 2-seat league of
them, rounds scheduled one after another. PostgreSQL is the machine's (the suite's test
database), reached by the workers, gateways and site through a TCP forwarder
(``tcpcut.TcpCut``) that can reset every connection and refuse new ones, as a restart
does; the second bot process dials its gateways through forwarders too (a cut network).

Each cell waits until at least 4 matches are running and more are queued, does its fault,
and measures how long after the fault's end the matches it hit are over (re-run or
resumed): ``resume_s``, at most 30 s. Afterwards: every match finished exactly once and
is in the rating ledger once, the ratings equal a full recompute, no fault is charged to
any bot except in the last cell (a network cut longer than the reconnect grace: those
bots forfeit, as they should), and no page answered 5xx (``/healthz`` may: it reports).

``kill -9`` of the bot host (hosted bots) is in ``tests/hosting/test_host.py``.
"""

from __future__ import annotations

import shutil
import signal
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from arena.models import Match, MatchStatus, Participation
from arena.services.rounds import do_reap
from tests.leagues.conftest import database_url
from tests.reliability.loadrig import LoadConfig, Outcome, Proc, free_port, summary, wait_until
from tests.reliability.restartrig import RestartRig
from tests.reliability.tcpcut import TcpCut

pytestmark = [
    pytest.mark.services, pytest.mark.slow, pytest.mark.faults, pytest.mark.processes,
    pytest.mark.serial,
]  # fmt: skip

CFG = LoadConfig(
    bots=8,
    bots_per_host=4,
    gateways=2,
    workers=2,
    concurrency=8,
    rounds=1,
    lease_seconds=6,
    requeue_after_seconds=20,
    decision_ms=5_000,
    bank_ms=10_000,
    timeout=900.0,
)
GRACE_S = 12.0  # the league's reconnect grace
STOP_S = 15.0  # SIGSTOP this long
RESUME_LIMIT_S = 30.0
PAGES = ["/", "/leagues/", "/matches/", "/bots/", "/healthz"]


@dataclass
class Cell:
    name: str
    started: float = 0.0
    ended: float = 0.0
    resume_s: float | None = None
    hit: list[int] = field(default_factory=list)
    detail: str = ""


class MatrixRig(RestartRig):
    reconnect_grace_ms = int(GRACE_S * 1000)
    # bots away past the grace are retried as no-shows 5 s apart (not the default 100 s),
    # so that the last cell's matches are over soon after they are back
    no_show_window_s = 15
    think_ms = "50"

    def __init__(self, tmp: Path, cfg: LoadConfig, say: Callable[[str], None]) -> None:
        url = urlsplit(database_url())
        self.pg = TcpCut(url.port or 5432, url.hostname or "127.0.0.1")
        netloc = url.netloc.rsplit("@", 1)
        through = f"{netloc[0]}@127.0.0.1:{self.pg.port}" if len(netloc) == 2 else ""
        super().__init__(tmp, urlunsplit(url._replace(netloc=through or url.netloc)), cfg, say)
        self.env["ARENA_MAX_ATTEMPTS"] = "10"
        self.aof_dir = tmp / "redis-data"
        self.aof_dir.mkdir()
        self.bot_links: dict[int, TcpCut] = {}
        self.web: Proc | None = None
        self.web_port = free_port()
        self.statuses: list[tuple[float, str, int]] = []
        self._probing = threading.Event()

    # ------------------------------------------------------------ processes

    def start_redis(self) -> None:
        self.redis_proc = self._proc(
            "redis",
            [
                "redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "yes", "--appendfsync", "always",
                "--dir", str(self.aof_dir), "--daemonize", "no", "--maxclients", "10000",
            ],
        ).start()  # fmt: skip
        wait_until(self._redis_up, 30, "redis-server to answer")

    def bot_address(self, host: int, gateway: int) -> str:
        if host == 0:
            return super().bot_address(host, gateway)
        link = self.bot_links.get(gateway)
        if link is None:
            link = self.bot_links[gateway] = TcpCut(self.gateway_ports[gateway])
        return f"127.0.0.1:{link.port}"

    def start_web(self) -> None:
        self.web = self._proc(
            "web",
            [
                sys.executable, "-m", "gunicorn", "config.wsgi", "--bind",
                f"127.0.0.1:{self.web_port}", "--workers", "2", "--timeout", "60",
            ],
        ).start()  # fmt: skip
        wait_until(lambda: self._get("/healthz") is not None, 60, "gunicorn to answer")
        threading.Thread(target=self._probe, daemon=True).start()

    def _get(self, path: str) -> int | None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.web_port}{path}", timeout=30) as r:
                return int(r.status)
        except urllib.error.HTTPError as exc:
            return exc.code
        except OSError:
            return None

    def _probe(self) -> None:
        while not self._probing.is_set():
            for path in PAGES:
                status = self._get(path)
                if status is not None:
                    self.statuses.append((time.monotonic(), path, status))
            time.sleep(0.5)

    def close(self) -> None:
        self._probing.set()
        if self.web is not None:
            self.web.stop(signal.SIGTERM, timeout=10)
        super().close()
        self.pg.close()
        for link in self.bot_links.values():
            link.close()

    # ------------------------------------------------------------ faults

    def _running_ids(self) -> list[int]:
        return list(
            Match.objects.filter(league=self.league, status=MatchStatus.RUNNING).values_list(
                "pk", flat=True
            )
        )

    def _held_by(self) -> Proc:
        held = [(self._running(w), w) for w in self.workers if w.alive()]
        return max(held, key=lambda h: h[0])[1]

    def kill9_gateway(self) -> str:
        self.gateways[0].kill9()
        self.start_gateway(0)
        return "gateway0 kill -9, started again at once"

    def sigterm_gateway(self) -> str:
        self.gateways[1].stop(signal.SIGTERM, timeout=30)
        time.sleep(3.0)  # longer than the connect grace, as a supervisor's restart
        self.start_gateway(1)
        return "gateway1 SIGTERM (drains), started again 3 s later"

    def stop_gateway(self) -> str:
        return self._sigstop(self.gateways[0], "gateway0")

    def kill9_worker(self) -> str:
        victim = self._held_by()
        victim.kill9()
        self.start_worker(wait=False)
        return f"{victim.name} kill -9 with {self._running(victim)} matches; a new worker started"

    def sigterm_worker(self) -> str:
        victim = self._held_by()
        held = self._running(victim)
        victim.stop(signal.SIGTERM, timeout=60)
        self.start_worker(wait=False)
        return f"{victim.name} SIGTERM (warm shutdown) with {held} matches; a new worker started"

    def stop_worker(self) -> str:
        return self._sigstop(self._held_by(), "a worker")

    def kill9_redis(self, keep: bool) -> Callable[[], str]:
        def fault() -> str:
            assert self.redis_proc is not None
            self.redis_proc.kill9()
            if not keep:
                shutil.rmtree(self.aof_dir)
                self.aof_dir.mkdir()
            time.sleep(3.0)
            self.start_redis()
            return (
                f"redis kill -9, started again 3 s later {'with' if keep else 'without'} its data"
            )

        return fault

    def stop_redis(self) -> str:
        assert self.redis_proc is not None
        return self._sigstop(self.redis_proc, "redis")

    def restart_postgres(self) -> str:
        cut = self.pg.cut()
        time.sleep(3.0)
        self.pg.restore()
        return f"PostgreSQL 'restarted': {cut} connections reset, new ones refused for 3 s"

    def cut_bots(self, seconds: float) -> Callable[[], str]:
        def fault() -> str:
            cut = sum(link.cut() for link in self.bot_links.values())
            time.sleep(seconds)
            for link in self.bot_links.values():
                link.restore()
            return f"bot process 1's network cut ({cut} connections) for {seconds:g} s"

        return fault

    def _sigstop(self, proc: Proc, what: str) -> str:
        proc.proc.send_signal(signal.SIGSTOP)  # type: ignore[union-attr]
        time.sleep(STOP_S)
        proc.proc.send_signal(signal.SIGCONT)  # type: ignore[union-attr]
        return f"{what} SIGSTOP for {STOP_S:g} s, then SIGCONT"

    # ------------------------------------------------------------ the run

    def play_cells(self, cells: list[tuple[str, Callable[[], str]]]) -> list[Cell]:
        done: list[Cell] = []
        t0 = time.monotonic()
        current = self._schedule()
        last_reap = 0.0

        def tick() -> None:
            nonlocal current, last_reap
            if time.monotonic() - t0 > self.cfg.timeout:
                raise TimeoutError(f"no end within {self.cfg.timeout:g} s: {self._status()}")
            if time.monotonic() - last_reap >= 1.0:  # the beat's periodic job
                last_reap = time.monotonic()
                try:
                    do_reap()
                except Exception as exc:  # noqa: BLE001 - Redis may be down: next second
                    self.say(f"  reaper: {type(exc).__name__}: {exc}")
            current.refresh_from_db()
            if current.status == "complete":
                current = self._schedule()
            time.sleep(0.1)

        for name, fault in cells:
            cell = Cell(name)
            queued = Match.objects.filter(league=self.league, status=MatchStatus.QUEUED)
            while len(self._running_ids()) < 4 or not queued.exists():
                tick()
            cell.hit = self._running_ids()
            cell.started = time.monotonic()
            cell.detail = fault()
            cell.ended = time.monotonic()
            while (
                Match.objects.filter(pk__in=cell.hit).exclude(status=MatchStatus.FINISHED).exists()
            ):
                tick()
                if time.monotonic() - cell.ended > 120:
                    break
            else:
                cell.resume_s = max(0.0, time.monotonic() - cell.ended)
            self.say(
                f"  {name}: {cell.detail}; {len(cell.hit)} matches hit, over "
                + (
                    f"{cell.resume_s:.1f} s after"
                    if cell.resume_s is not None
                    else "NOT within 120 s"
                )
            )
            done.append(cell)
        # the rounds under way play out
        while Match.objects.filter(
            league=self.league, status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING]
        ).exists():
            tick()
        return done


@pytest.fixture
def rig(transactional_db: None, settings, tmp_path: Path) -> Iterator[MatrixRig]:  # noqa: ANN001
    if shutil.which("redis-server") is None:
        pytest.fail("this test starts its own redis-server: install redis-server")
    settings.ARENA_REQUEUE_AFTER_SECONDS = CFG.requeue_after_seconds
    lines: list[str] = []
    r = MatrixRig(tmp_path, CFG, say=lines.append)
    try:
        yield r
    finally:
        r.close()
        print("\n".join(lines))


def test_every_fault_of_every_process_costs_no_bot_anything(rig: MatrixRig) -> None:
    rig.setup_league()
    rig.start_web()
    cells: list[tuple[str, Callable[[], str]]] = [
        ("kill -9 gateway", rig.kill9_gateway),
        ("SIGTERM gateway", rig.sigterm_gateway),
        ("SIGSTOP gateway", rig.stop_gateway),
        ("kill -9 worker", rig.kill9_worker),
        ("SIGTERM worker", rig.sigterm_worker),
        ("SIGSTOP worker", rig.stop_worker),
        ("kill -9 Redis, with its data", rig.kill9_redis(keep=True)),
        ("kill -9 Redis, empty", rig.kill9_redis(keep=False)),
        ("SIGSTOP Redis", rig.stop_redis),
        ("PostgreSQL restart", rig.restart_postgres),
        ("bot network cut within the grace", rig.cut_bots(GRACE_S / 3)),
        ("bot network cut beyond the grace", rig.cut_bots(GRACE_S + 8)),
    ]
    t0 = time.monotonic()
    done = rig.play_cells(cells)
    out = Outcome()
    out.wall_s = time.monotonic() - t0
    rig.check(out)
    report = [summary(out, CFG), "cells:"]
    charged: dict[str, list[str]] = {}
    last = done[-1]
    for p in Participation.objects.filter(match__league=rig.league).exclude(fault_cause=""):
        assert p.match.started_at is not None
        charged.setdefault(p.fault_cause, []).append(f"{p.bot.name} match {p.match_id}")
    five = [(t, path, s) for t, path, s in rig.statuses if s >= 500 and path != "/healthz"]
    for cell in done:
        in_cell = [
            s for t, _, s in five if cell.started <= t <= cell.ended + (cell.resume_s or 120)
        ]
        report.append(
            f"  {cell.name:<36} hit {len(cell.hit):>2}  over after "
            + (f"{cell.resume_s:5.1f} s" if cell.resume_s is not None else "  >120 s")
            + f"  5xx {len(in_cell)}  ({cell.detail})"
        )
    report.append(f"faults charged: {charged or 'none'}")
    text = "\n".join(report)
    print(text)
    assert out.problems == [], text  # finished once, rated once, ratings == a recompute
    slow = [c.name for c in done if c.resume_s is None or c.resume_s > RESUME_LIMIT_S]
    assert not slow, text
    assert not five, text
    # only the last cell may charge, only its cut bots, only for being away
    cut_bots = {b["name"] for b in rig.host_bots[1]}
    wrong = [
        f"{p.bot.name}: {p.fault_cause} (match {p.match_id})"
        for p in Participation.objects.filter(match__league=rig.league).exclude(fault_cause="")
        if p.bot.name not in cut_bots
        or p.match.finished_at is None
        or p.match.started_at is None
        or p.fault_cause not in ("disconnect", "no_show")
    ]
    assert not wrong, text
    assert last.name.endswith("beyond the grace")
    assert len(rig.statuses) > 50, "the site was hardly probed"

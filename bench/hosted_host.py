"""One bot host (``manage.py runbothost``) against one gateway (``manage.py rungateway``), each
a process of its own, as deployed; the match runners are threads of this process.

1. idle: how many hosted bots the bot host holds with their streams open to the gateway,
   and what each costs (the host's resident memory and threads as bots are added; an idle
   hosted bot has no sandbox: one starts per match);
2. matches at once: K matches of K different hosted bots against ``random`` at the same
   time, each in a fresh sandbox the host starts for it (games per second, decisions'
   median as the gateway measured them);
3. the decision round trip of a hosted bot beside a dial-in SDK bot (``python -m
   avenue_sdk run``, the same bot class) on the same gateway in the same run, games
   interleaved: p50 and p99 of the runner's wall time per decision and of the gateway's
   measure (what the bot is charged), and the ratios hosted / dial-in of each.

Needs root (the sandboxes), PostgreSQL (DATABASE_URL: use a database of its own, the host
serves every active hosted bot in it) and Redis (REDIS_URL). Creates its bots under a fresh
prefix and deletes them at the end. Prints figures; asserts nothing.

    sudo DATABASE_URL=postgres://... REDIS_URL=redis://... \\
        .venv/bin/python bench/hosted_host.py [--idle 25,50,100,200] [--at-once 1,2,4,8] \\
        [--games 20]
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402

from arena.adapters.relay.redis import RedisRunnerRelay  # noqa: E402
from arena.adapters.runner import HouseSeat, RemoteSeat, TimeControl, run_match  # noqa: E402
from arena.hosting import services  # noqa: E402
from arena.hosting.models import CodeVersion, VersionStatus  # noqa: E402
from arena.models import Bot, BotKind  # noqa: E402
from arena.services import bots as bot_services  # noqa: E402
from referee import GameConfig  # noqa: E402

BOT = b"""
from avenue_sdk import Bot


class Bench(Bot):
    def decide(self, request):
        return len(request.legal) // 2
"""


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def status(pid: int) -> tuple[int, int]:
    """(resident KiB, threads) of one process."""
    rss = threads = 0
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
        elif line.startswith("Threads:"):
            threads = int(line.split()[1])
    return rss, threads


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> float:
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > timeout:
            raise SystemExit(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(0.1)
    return time.monotonic() - start


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Bench:
    def __init__(self, tag: str, log_dir: Path) -> None:
        self.tag = tag
        self.log_dir = log_dir
        self.env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "RELAY_PREFIX": f"bench-{tag}",
            "PYTHONUNBUFFERED": "1",
        }
        self.relay = RedisRunnerRelay(str(os.environ["REDIS_URL"]), f"bench-{tag}")
        self.procs: list[subprocess.Popen[bytes]] = []
        self.port = free_port()
        self.owner = get_user_model().objects.create_user(f"bench-{tag}", password=uuid.uuid4().hex)
        self.hosted: list[Bot] = []

    def spawn(self, name: str, argv: list[str], env: dict[str, str] | None = None) -> Path:
        log = self.log_dir / f"{name}.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen(
                argv, cwd=ROOT, env=env or self.env, stdout=out, stderr=subprocess.STDOUT
            )
        self.procs.append(proc)
        return log

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def add_hosted(self, n: int) -> None:
        """Hosted bots up to ``n``, each with a ready active version (the upload check is
        skipped: passed by hand, as the bench bot is known good)."""
        while len(self.hosted) < n:
            name = f"hb{self.tag}-{len(self.hosted)}"
            bot, _ = bot_services.create_bot(name, owner=self.owner, kind=BotKind.HOSTED)  # type: ignore[arg-type]
            services.do_upload(self.owner, bot, "bench.py", BOT, "bench:Bench")
            self.hosted.append(bot)
        # the host's own checker may take some of them: either way they end up ready
        while (version := services.claim_check(f"bench-{self.tag}")) is not None:
            services.finish_check(version.pk, f"bench-{self.tag}", True, "bench: passed by hand")
        wait_until(
            lambda: (
                not CodeVersion.objects.filter(
                    bot__in=self.hosted, status=VersionStatus.CHECKING
                ).exists()
            ),
            120,
            "the versions to be ready",
        )

    def connected(self, bots: list[Bot]) -> bool:
        return all(self.relay.is_connected(str(b.pk)) for b in bots)

    def close(self) -> None:
        for proc in reversed(self.procs):
            proc.terminate()
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.relay.close()
        Bot.objects.filter(name__startswith=f"hb{self.tag}-").delete()
        Bot.objects.filter(name=f"dial{self.tag}").delete()
        self.owner.delete()


def game(seat: RemoteSeat, seed: int, walls: list[float] | None = None) -> list[float]:
    """One game of ``seat`` against ``random``: the gateway's measure of each of its
    answers (and the runner's wall time per decision into ``walls``)."""

    class Timed(RemoteSeat):
        def ask(self, ctx: Any, s: int, ask: Any) -> Any:
            t = time.perf_counter()
            try:
                return super().ask(ctx, s, ask)
            finally:
                if walls is not None:
                    walls.append((time.perf_counter() - t) * 1000)

    timed = Timed(seat.bot_id, seat.name, seat.relay)
    outcome = run_match(
        [timed, HouseSeat("random", seed + 1)],
        GameConfig(),
        seed,
        match_id=f"bench-{uuid.uuid4().hex[:10]}",
        time_control=TimeControl(decision_ms=10_000, bank_ms=10_000),
    )
    assert not outcome.faults, outcome.to_json()
    return [d.latency_ms for d in outcome.record.decisions if d.seat == 0 and d.latency_ms]


def main() -> None:
    logging.getLogger("arena").setLevel(logging.WARNING)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--idle", default="25,50,100,200", help="hosted bots held, in steps")
    parser.add_argument("--at-once", default="1,2,4,8", help="matches played at once")
    parser.add_argument("--games", type=int, default=20, help="games each, hosted and dial-in")
    args = parser.parse_args()
    steps = [int(x) for x in args.idle.split(",")]
    at_once = [int(x) for x in args.at_once.split(",")]
    tag = uuid.uuid4().hex[:6]
    print(f"{os.cpu_count()} cores; bot host and gateway are processes of their own")
    with tempfile.TemporaryDirectory(prefix="bench-hosted-") as tmp:
        bench = Bench(tag, Path(tmp))
        try:
            py = sys.executable
            bench.spawn("gateway", [py, "manage.py", "rungateway", "--port", str(bench.port)])
            host_log = bench.spawn(
                "bothost",
                [py, "manage.py", "runbothost", "--gateway", bench.address, "--poll", "0.5"],
            )
            host = bench.procs[-1]
            wait_until(lambda: "bot host ready" in host_log.read_text(), 120, "the bot host")
            time.sleep(2)  # settle: its first look at the database is done
            base_rss, base_threads = status(host.pid)
            print(
                f"bot host with no bot: {base_rss / 1024:.1f} MiB resident, {base_threads} threads"
            )

            # 1. idle streams
            print(
                f"{'hosted bots':>12}{'connect (s)':>13}{'host RSS MiB':>14}{'per bot KiB':>13}"
                f"{'threads':>9}{'per bot':>9}"
            )
            for n in steps:
                bench.add_hosted(n)
                took = wait_until(lambda: bench.connected(bench.hosted), 600, f"{n} streams")
                time.sleep(2)
                rss, threads = status(host.pid)
                print(
                    f"{n:>12}{took:>13.1f}{rss / 1024:>14.1f}{(rss - base_rss) / n:>13.0f}"
                    f"{threads:>9}{(threads - base_threads) / n:>9.1f}"
                )

            # 2. matches at once, each hosted bot in one match, a fresh sandbox each
            seats = [RemoteSeat(str(b.pk), b.name, bench.relay) for b in bench.hosted]
            print("matches at once (hosted bot vs random, sandbox start included):")
            for k in at_once:
                if k > len(seats):
                    break
                lat: list[list[float]] = []
                t = time.perf_counter()
                with ThreadPoolExecutor(k) as pool:
                    lat = list(pool.map(lambda i, k=k: game(seats[i % k], i), range(2 * k)))
                spent = time.perf_counter() - t
                flat = [x for xs in lat for x in xs]
                print(
                    f"  {k:3d} at once: {2 * k} games in {spent:.1f} s, {2 * k / spent:.2f} "
                    f"games/s; decisions (gateway measure) median {statistics.median(flat):.2f}"
                    f" ms, p99 {pct(flat, 0.99):.1f} ms"
                )

            # 3. hosted beside dial-in, same gateway, interleaved
            code = Path(tmp, "botcode")
            code.mkdir()
            (code / "bench_bot.py").write_bytes(BOT)
            dial, token = bot_services.create_bot(f"dial{tag}")
            assert token is not None
            bench.spawn(
                "dialin",
                [
                    py,
                    "-m",
                    "avenue_sdk",
                    "run",
                    "bench_bot:Bench",
                    "--arena",
                    bench.address,
                    "--token",
                    token,
                ],
                {**bench.env, "PYTHONPATH": f"{code}:{ROOT}"},
            )
            wait_until(lambda: bench.connected([dial]), 60, "the dial-in bot")
            hosted_seat = seats[0]
            dial_seat = RemoteSeat(str(dial.pk), dial.name, bench.relay)
            charged: dict[str, list[float]] = {"hosted": [], "dial-in": []}
            walls: dict[str, list[float]] = {"hosted": [], "dial-in": []}
            #: each game's first decision: a hosted bot's includes its sandbox's start
            firsts: dict[str, list[float]] = {"hosted": [], "dial-in": []}
            for g in range(args.games):
                for name, seat in (("hosted", hosted_seat), ("dial-in", dial_seat)):
                    wall: list[float] = []
                    measured = game(seat, 1000 + g, wall)
                    firsts[name].append(measured[0])
                    charged[name] += measured[1:]
                    walls[name] += wall[1:]
            print(
                f"decision round trip, {args.games} games each, interleaved, one gateway "
                "(statistics: p50 and p99 per decision; each game's first decision apart):"
            )
            for label, data in (("runner wall time", walls), ("gateway measure", charged)):
                h, d = data["hosted"], data["dial-in"]
                print(
                    f"  {label:<17} dial-in p50 {pct(d, 0.5):.2f} ms p99 {pct(d, 0.99):.2f} ms "
                    f"(n={len(d)}); hosted p50 {pct(h, 0.5):.2f} ms p99 {pct(h, 0.99):.2f} ms "
                    f"(n={len(h)}); hosted/dial-in p50 {pct(h, 0.5) / pct(d, 0.5):.2f}x, "
                    f"p99 {pct(h, 0.99) / pct(d, 0.99):.2f}x"
                )
            h, d = firsts["hosted"], firsts["dial-in"]
            print(
                f"  first decision of a game (gateway measure; the hosted bot's sandbox starts "
                f"then): dial-in median {statistics.median(d):.1f} ms, hosted median "
                f"{statistics.median(h):.1f} ms, max {max(h):.1f} ms"
            )
        finally:
            bench.close()
            connection.close()


if __name__ == "__main__":
    main()

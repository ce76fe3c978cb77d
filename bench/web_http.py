"""Pages under load while results land: p50 / p95 of the standings page, a bot page and one
bot's match list, beside the trivial page measured in the same run, with 50 concurrent
HTTP clients against gunicorn as docker-compose runs the web (``config.wsgi``'s site plus
``bench/web_urls.py``'s trivial views: ``bench/web_wsgi.py``), while 10 results a second
land in the measured league through the real result path (``play_match``: claim, game,
result, ratings, standings, head-to-head records, analytics, round completion) in a process
of their own, as a worker writes them. Nothing builds a page after a result: each request
finds what the visitors before it left in the cache, keyed by what it shows (``--cache
redis``, as deployed), or nothing at all (``--cache none``: Django's dummy cache, every part
of every page built from the database on every request).

    .venv/bin/python bench/web_http.py [--seconds 60] [--clients 50] [--rate 10]
        [--cache redis|none] [--workers 3 --threads 48]
        [--database-url postgres://postgres@127.0.0.1:5432/aa_web_bench]

Data: ``bench/web_pages.py``'s database (1,000 bots, 20 leagues of 50, 200,000 finished
matches; made the first time, ~8 min, then reused). The results land in league-01, whose
50 bots are made house bots playing at random here (the bench's own data), in rounds
scheduled as they are needed, the rounds' batch fits not run (a worker's work:
``bench/orchestration.py`` has them); the pages measured are league-01's standings,
bot0421's page (a bot of league-01) and its match list through the API. Statistic: p50
and p95 of each URL over the run (after ``--warmup`` seconds), and the ratio of each to
the trivial page's p50 and p95.
Each client thread keeps one HTTP/1.1 connection and asks the URLs in a shuffled cycle.
Also printed: the rate the results really landed at, and the requests served per second.

REDIS_URL (default redis://127.0.0.1:6379/0) is the cache's, under a key prefix of this
run's own.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

LEAGUE, BOT = "league-01", "bot0421"
URLS = {
    "trivial page": "/bench/trivial/",
    "standings page": f"/leagues/{LEAGUE}/",
    "bot page": f"/bots/{BOT}/",
    "match list API, one bot": f"/api/matches/?bot={BOT}",
}


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def prepare(url: str) -> None:
    """The bench database (made or reused by bench/web_pages.py's code), its read model
    counted, and league-01's bots house bots."""
    from bench import web_pages

    web_pages.ensure_database(url)
    web_pages.setup_django(url, "local")
    import logging

    from django.core.management import call_command

    from arena.models import Bot, BotKind, League, Match, MatchStatus
    from arena.ratings.standings import recompute_standings

    call_command("migrate", verbosity=0)
    if Match.objects.filter(status=MatchStatus.FINISHED).count() < web_pages.MATCHES:
        call_command("flush", interactive=False, verbosity=0)
        web_pages.generate()
    league = League.objects.get(slug=LEAGUE)
    logging.disable(logging.ERROR)  # a first run's recount says every row differed
    if not recompute_standings(league.pk).exact:
        for lg in League.objects.all():
            recompute_standings(lg.pk, fix=True)
    logging.disable(logging.NOTSET)
    # random players: their games cost the results process least (a result's write is
    # the same whatever the game)
    Bot.objects.filter(entries__league=league).update(kind=BotKind.HOUSE, house_spec="random")


def _no_fit() -> type:
    from arena.adapters.embedded import InProcessDispatcher

    class NoFitDispatcher(InProcessDispatcher):
        """The embedded dispatcher without the rounds' batch fits (a worker's work,
        measured by bench/orchestration.py; here they would hold up the results)."""

        def fit_ratings(self, league_id: int) -> None:
            pass

    return NoFitDispatcher


def land(url: str, rate: float, stop_file: str) -> None:
    """The results process: ``rate`` results a second through ``play_match`` until
    ``stop_file`` exists; prints how many landed and in how long."""
    from bench import web_pages

    web_pages.setup_django(url, "local")
    from django.conf import settings

    globals()["NoFitDispatcher"] = _no_fit()
    settings.ARENA_DISPATCHER = f"{__name__}.NoFitDispatcher"
    from arena.adapters.play.matches import play_match
    from arena.models import League, Match, MatchStatus
    from arena.services.rounds import do_schedule_round

    league = League.objects.get(slug=LEAGUE)
    queue: list[int] = list(
        Match.objects.filter(league=league, status=MatchStatus.QUEUED).values_list("pk", flat=True)
    )
    done, t0 = 0, time.perf_counter()
    print("landing", flush=True)
    while not os.path.exists(stop_file):
        if not queue:
            scheduled = do_schedule_round(league, enqueue=False)
            assert scheduled is not None, "the league scheduled no round"
            queue = list(scheduled.matches)
        play_match(queue.pop(0))
        done += 1
        lag = t0 + done / rate - time.perf_counter()
        if lag > 0:
            time.sleep(lag)
    wall = time.perf_counter() - t0
    print(f"landed {done} results in {wall:.1f} s: {done / wall:.2f} a second", flush=True)


def client(
    port: int, until: float, record_from: float, out: dict[str, list[float]], errors: list[str]
) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    names = list(URLS)
    while time.perf_counter() < until:
        random.shuffle(names)
        for name in names:
            t = time.perf_counter()
            try:
                conn.request("GET", URLS[name], headers={"Host": "localhost"})
                response = conn.getresponse()
                response.read()
            except (OSError, http.client.HTTPException) as exc:
                errors.append(f"{name}: {exc!r}")
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                continue
            elapsed = (time.perf_counter() - t) * 1000
            if response.status != 200:
                errors.append(f"{name}: HTTP {response.status}")
            elif t >= record_from:
                out[name].append(elapsed)


def wait_ready(port: int, deadline: float = 60) -> None:
    end = time.time() + deadline
    while time.time() < end:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", URLS["trivial page"], headers={"Host": "localhost"})
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise SystemExit("gunicorn did not answer")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--warmup", type=float, default=10)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--rate", type=float, default=10, help="results a second")
    parser.add_argument("--cache", choices=["redis", "none"], default="redis")
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=48)
    parser.add_argument("--port", type=int, default=0, help="default: a free one")
    parser.add_argument(
        "--database-url",
        default=os.environ.get(
            "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/agent_avenue_web_bench"
        ),
    )
    parser.add_argument("--land", metavar="STOP_FILE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.land:
        land(args.database_url, args.rate, args.land)
        return
    prepare(args.database_url)
    port = args.port or random.randint(20000, 40000)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            [str(ROOT), str(ROOT / "sdk"), os.environ.get("PYTHONPATH", "")]
        ),
        "DATABASE_URL": args.database_url,
        "DEBUG": "0",
        "HTTPS_ONLY": "0",
        "SECURE_HSTS_SECONDS": "0",
        "SECRET_KEY": os.environ.get("SECRET_KEY", "bench-only-" + "x" * 40),
        "ALLOWED_HOSTS": "localhost,127.0.0.1",
        "REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
        "CACHE_PREFIX": f"bench-http-{uuid.uuid4().hex[:8]}",
        "BENCH_CACHE": args.cache,
        "LOG_LEVEL": "WARNING",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    web = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "bench.web_wsgi", "--bind", f"127.0.0.1:{port}",
         "--workers", str(args.workers), "--worker-class", "gthread",
         "--threads", str(args.threads), "--log-level", "warning"],
        cwd=ROOT, env=env,
    )  # fmt: skip
    stop_file = f"/tmp/bench-web-http-{uuid.uuid4().hex}"
    lander = None
    try:
        wait_ready(port)
        lander = subprocess.Popen(
            [sys.executable, __file__, "--land", stop_file, "--rate", str(args.rate),
             "--database-url", args.database_url],
            cwd=ROOT, env={**env, "REDIS_URL": env["REDIS_URL"]}, stdout=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        assert lander.stdout is not None
        assert lander.stdout.readline().strip() == "landing"
        start = time.perf_counter()
        record_from, until = start + args.warmup, start + args.warmup + args.seconds
        times: dict[str, list[float]] = {name: [] for name in URLS}
        errors: list[str] = []
        threads = [
            threading.Thread(target=client, args=(port, until, record_from, times, errors))
            for _ in range(args.clients)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        Path(stop_file).touch()
        landed = lander.stdout.read().strip()
        lander.wait(timeout=120)
    finally:
        Path(stop_file).touch()
        if lander is not None and lander.poll() is None:
            lander.kill()
        web.send_signal(signal.SIGTERM)
        web.wait(timeout=30)
        Path(stop_file).unlink(missing_ok=True)
    served = sum(len(v) for v in times.values())
    print(
        f"\n{args.clients} HTTP clients for {args.seconds:.0f} s against gunicorn"
        f" ({args.workers} workers x {args.threads} threads, cache: {args.cache});"
        f" {landed}; {served / args.seconds:.1f} requests/s served; {len(errors)} errors"
    )
    for e in errors[:5]:
        print("  error:", e)
    base = times["trivial page"]
    b50, b95 = statistics.median(base), pct(base, 0.95)
    print(f"{'view':<26}{'n':>6}{'p50':>9}{'p95':>9}{'p50 ratio':>11}{'p95 ratio':>11}")
    for name, values in times.items():
        p50, p95 = statistics.median(values), pct(values, 0.95)
        print(f"{name:<26}{len(values):>6}{p50:9.2f}{p95:9.2f}{p50 / b50:10.2f}x{p95 / b95:10.2f}x")


if __name__ == "__main__":
    main()

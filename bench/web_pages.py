"""Web and API latency on a large database: p50 / p95 of the standings page, a bot page,
one bot's match list and more, each beside trivial views measured in the same run (the
site's layout with one query; one row through DRF), with the ratios of p50s and p95s.

Data (made once, reused by later runs; ``--regenerate`` makes it again): 1,000 bots,
20 leagues of 50, 200,000 finished matches in pairs (200 rounds per league) with
their 400,000 participations, live and batch ratings, and a replay per match (20 real
small replays, reused), written with ``bulk_create`` into a PostgreSQL database of its own.

    .venv/bin/python bench/web_pages.py [--requests 300] [--regenerate] [--cache local|redis]
        [--database-url postgres://postgres@127.0.0.1:5432/agent_avenue_web_bench]

Requests go through Django's test client in this process (the whole middleware stack,
sessions, templates, DRF, PostgreSQL; not a socket), one at a time, interleaved across the
URLs so that noise hits them all alike. DEBUG and HTTPS_ONLY are off (the test client
speaks plain HTTP; HTTPS_ONLY, on by default without DEBUG, would answer 301). The cache
is the process's own (``--cache local``, embedded mode) or Django's Redis cache as a
deployment has it (``--cache redis``: ``arena.cache.ResilientRedisCache`` at REDIS_URL,
default redis://127.0.0.1:6379/0, under a key prefix of this run's own).

Three measurements, each on warm caches first, as a running site's are:

* **warm**: nothing changes between requests;
* **after a result**: before each request of a page, a result lands in the page's league
  (what a result's transaction writes to what the pages read: two standings rows with
  their rating rows' ``updated_at``, and a match's ``finished_at``), so every fragment
  keyed by the league's or the bot's version is stale, the rest of the cache warm; nothing
  builds the page after it (the page's visitor does, from the rows the result keeps);
* **cold** (``--cache local`` only): the whole cache cleared before every request.

Under concurrent HTTP clients with real results landing: ``bench/web_http.py``.

Why one file of this length: every page kind and cache mode is timed by the same
client in one run, for ratios against the same baseline.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BOTS, LEAGUES, MATCHES = 1000, 20, 200_000
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/agent_avenue_web_bench"


def setup_django(url: str, cache: str = "local") -> None:
    os.environ["DATABASE_URL"] = url
    os.environ["DEBUG"] = "0"
    os.environ["HTTPS_ONLY"] = "0"  # the test client speaks plain HTTP
    os.environ["SECURE_HSTS_SECONDS"] = "0"
    os.environ.setdefault("SECRET_KEY", "bench-only-" + "x" * 40)
    os.environ["ALLOWED_HOSTS"] = "testserver,localhost"
    if cache == "redis":
        os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/0")
        os.environ["CACHE_PREFIX"] = f"bench-web-{os.getpid()}"
    else:
        os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    import django

    django.setup()
    from django.conf import settings

    settings.ROOT_URLCONF = "bench.web_urls"
    if settings.SECURE_SSL_REDIRECT:
        raise SystemExit("HTTPS_ONLY is on: every plain-HTTP request would answer 301")


def ensure_database(url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[1]
    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')
            print(f"created database {name}")


def real_replays(n: int = 20) -> list[dict[str, object]]:
    from referee import GameConfig
    from referee.bots import make_bot
    from referee.play import play_game

    config = GameConfig.for_seats(2, "simple")
    return [
        play_game(
            config, seed, [make_bot("greedy", seed), make_bot("random", seed + 1)]
        ).record.to_json()
        for seed in range(n)
    ]


def generate() -> None:
    """Everything through bulk_create, in one transaction per table group."""
    from decimal import Decimal

    from django.contrib.auth.models import User
    from django.db import connection, transaction
    from django.utils import timezone

    from arena.models import (
        Bot,
        Entry,
        League,
        Match,
        MatchEndReason,
        MatchReplay,
        MatchStatus,
        Participation,
        Round,
        RoundStatus,
    )  # fmt: skip
    from arena.ratings.models import BatchRating, LiveRating

    t0 = time.perf_counter()
    rng = random.Random(7)
    now = timezone.now()
    per_league = BOTS // LEAGUES
    rounds_per_league = MATCHES // LEAGUES // per_league  # 50 games a round
    with transaction.atomic():
        users = User.objects.bulk_create(
            [User(username=f"author{i:03d}", password="!") for i in range(200)]
        )
        bots = Bot.objects.bulk_create(
            [
                Bot(
                    name=f"bot{i:04d}",
                    owner=users[i % len(users)],
                    token_prefix="aat_xxxxxx",
                    token_hash=f"{i:064x}",
                    bot_version=f"1.{i % 7}",
                )
                for i in range(BOTS)
            ],  # fmt: skip
            batch_size=2000,
        )
        leagues = League.objects.bulk_create(
            [League(name=f"League {i:02d}", slug=f"league-{i:02d}") for i in range(LEAGUES)]
        )
        entries = Entry.objects.bulk_create(
            [Entry(league=leagues[i % LEAGUES], bot=b) for i, b in enumerate(bots)],
            batch_size=2000,
        )
        rounds = Round.objects.bulk_create(
            [
                Round(
                    league=lg,
                    number=n + 1,
                    status=RoundStatus.COMPLETE,
                    completed_at=now - timedelta(hours=rounds_per_league - n),
                )
                for lg in leagues
                for n in range(rounds_per_league)
            ],  # fmt: skip
            batch_size=5000,
        )
    print(f"  users, bots, leagues, entries, rounds: {time.perf_counter() - t0:.1f} s")
    by_league: dict[int, list[Entry]] = {}
    for e in entries:
        by_league.setdefault(e.league_id, []).append(e)
    rating = {e.pk: Decimal("1500.0000") for e in entries}
    games = {e.pk: [0, 0, 0, 0] for e in entries}  # games, wins, losses, forfeits
    strength = {e.pk: rng.gauss(0, 200) for e in entries}
    matches: list[Match] = []
    seats: list[tuple[int, int, int, int, int]] = []  # match index, entry, bot, seat, team
    start = now - timedelta(days=100)
    step = timedelta(days=100) / MATCHES
    causes = ["timeout", "disconnect", "illegal_action", "no_show"]
    for r in rounds:
        pool = by_league[r.league_id][:]
        rng.shuffle(pool)
        for slot in range(0, len(pool), 2):
            a, b = pool[slot], pool[slot + 1]
            for mirror, (x, y) in enumerate(((a, b), (b, a))):
                deck = rng.getrandbits(128)  # synthetic data: independent deals
                p_x = 1 / (1 + 10 ** ((strength[y.pk] - strength[x.pk]) / 400))
                winner = 0 if rng.random() < p_x else 1
                when = start + step * len(matches)
                matches.append(
                    Match(
                        league_id=r.league_id, round=r, pairing_key=f"{x.pk}-{y.pk}",
                        slot=slot // 2, mirror=mirror, deck_seed=deck,
                        first_team=mirror, status=MatchStatus.FINISHED, started_at=when,
                        finished_at=when + timedelta(seconds=3), duration_ms=3000.0,
                        winner_team=winner, end_reason=MatchEndReason.CATCH,
                        turns=rng.randint(8, 40), decisions=rng.randint(20, 90), rated=True,
                    )
                )  # fmt: skip
                i = len(matches) - 1
                seats.append((i, x.pk, x.bot_id, 0, 0))
                seats.append((i, y.pk, y.bot_id, 1, 1))
    with transaction.atomic():
        Match.objects.bulk_create(matches, batch_size=5000)
        print(f"  {len(matches):,} matches: {time.perf_counter() - t0:.1f} s")
        parts = []
        for k in range(0, len(seats), 2):
            pair = seats[k : k + 2]
            m = matches[pair[0][0]]
            before = [rating[s[1]] for s in pair]
            expected = 1 / (1 + 10 ** (float(before[1] - before[0]) / 400))
            change = Decimal(24 * ((1.0 if m.winner_team == 0 else 0.0) - expected)).quantize(
                Decimal("0.0001")
            )
            for (_, entry, bot, seat, team), old, delta in zip(
                pair, before, (change, -change), strict=True
            ):
                won = team == m.winner_team
                fault = "" if won or rng.random() > 0.03 else rng.choice(causes)
                g = games[entry]
                g[0] += 1
                g[1 if won else 2] += 1
                g[3] += bool(fault)
                rating[entry] = old + delta
                mean = rng.uniform(2, 40)
                parts.append(
                    Participation(
                        match=m, league_id=m.league_id, entry_id=entry, bot_id=bot, seat=seat,
                        team=team, won=won, rating_before=old, rating_after=old + delta,
                        rating_change=delta, decisions=rng.randint(10, 45),
                        auto_decisions=rng.randint(0, 5), latency_mean_ms=mean,
                        latency_p50_ms=mean * 0.8, latency_p90_ms=mean * 1.9,
                        latency_max_ms=mean * 4, bank_left_ms=50_000, fault_cause=fault,
                    )
                )  # fmt: skip
        Participation.objects.bulk_create(parts, batch_size=5000)
        print(f"  {len(parts):,} participations: {time.perf_counter() - t0:.1f} s")
    records = real_replays()
    with transaction.atomic():
        for k in range(0, len(matches), 5000):
            MatchReplay.objects.bulk_create(
                [MatchReplay(match=m, record=records[(k + j) % len(records)])
                 for j, m in enumerate(matches[k : k + 5000])]
            )  # fmt: skip
        print(f"  {len(matches):,} replays: {time.perf_counter() - t0:.1f} s")
    entry_by_id = {e.pk: e for e in entries}
    ordered = sorted(entries, key=lambda e: (e.league_id, -rating[e.pk]))
    with transaction.atomic():
        LiveRating.objects.bulk_create(
            [
                LiveRating(
                    league_id=e.league_id,
                    bot_id=e.bot_id,
                    rating=rating[e.pk],
                    games=games[e.pk][0],
                    wins=games[e.pk][1],
                    losses=games[e.pk][2],
                    forfeits=games[e.pk][3],
                )
                for e in entries
            ],  # fmt: skip
            batch_size=5000,
        )
        batch = []
        rank_in: dict[int, int] = {}
        for e in ordered:
            rank_in[e.league_id] = rank_in.get(e.league_id, 0) + 1
            rank = rank_in[e.league_id]
            elo = 1500 + strength[e.pk]
            batch.append(
                BatchRating(
                    league_id=e.league_id, bot_id=entry_by_id[e.pk].bot_id, elo=elo,
                    low=elo - 45, high=elo + 45, rank=rank, rank_low=max(1, rank - 3),
                    rank_high=min(per_league, rank + 3), games=games[e.pk][0], bootstrap=100,
                    matches=MATCHES // LEAGUES, computed_at=now,
                )
            )  # fmt: skip
        BatchRating.objects.bulk_create(batch, batch_size=5000)
    # the shown standings and the head-to-head records, counted from the matches
    from arena.ratings.standings import recompute_standings

    logging.disable(logging.ERROR)  # every row differs from the recount: it is the count
    for lg in leagues:
        recompute_standings(lg.pk, fix=True)
    logging.disable(logging.NOTSET)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(f"generated in {time.perf_counter() - t0:.1f} s")


class ResultLands:
    """What a result's transaction writes that the pages read, for the league of the
    standings page and the measured bot: two of the league's standings rows (one the
    bot's), with their rating rows' ``updated_at``, and a finished match's ``finished_at``
    (the rounds' version). Written like a result: one transaction, committed."""

    def __init__(self, league_slug: str, bot_name: str) -> None:
        from arena.models import League, Match
        from arena.ratings.models import LiveRating

        self.league = League.objects.get(slug=league_slug)
        self.rows = list(
            LiveRating.objects.filter(league=self.league).order_by("-shown_rating")
            .values_list("pk", flat=True)[:2]
        )  # fmt: skip
        self.rows += list(
            LiveRating.objects.filter(bot__name=bot_name).values_list("pk", flat=True)
        )
        self.bots = list(
            LiveRating.objects.filter(pk__in=self.rows, league=self.league).values_list(
                "bot_id", flat=True
            )
        )
        self.match = Match.objects.filter(league=self.league).order_by("-id")[0].pk

    def __call__(self) -> None:
        from django.db import transaction
        from django.db.models import F
        from django.utils import timezone

        from arena.models import Match
        from arena.ratings.models import LiveRating

        now = timezone.now()
        with transaction.atomic():
            LiveRating.objects.filter(pk__in=self.rows).update(
                updated_at=now, games=F("games") + 1, shown_games=F("shown_games") + 1
            )
            Match.objects.filter(pk=self.match).update(finished_at=now)


def measure(
    urls: dict[str, str],
    requests: int,
    cold: bool = False,
    before: dict[str, Callable[[], None]] | None = None,
) -> dict[str, list[float]]:
    """``cold``: the cache is cleared before every request (every fragment and the
    crosstable and bot statistics are computed again), the worst case after a write.
    ``before[name]`` runs (untimed) before each request of ``name``."""
    from django.core.cache import cache
    from django.test import Client

    client = Client()
    for url in urls.values():
        for _ in range(10):  # warm: caches, connection, template loading
            response = client.get(url)
            assert response.status_code == 200, (url, response.status_code)
    times: dict[str, list[float]] = {name: [] for name in urls}
    names = list(urls)
    for _ in range(requests):
        random.shuffle(names)
        for name in names:
            if cold:
                cache.clear()
            if before and name in before:
                before[name]()
            t = time.perf_counter()
            response = client.get(urls[name])
            times[name].append((time.perf_counter() - t) * 1000)
            assert response.status_code == 200
    return times


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(title: str, times: dict[str, list[float]]) -> None:
    base = times["trivial page"]
    b50, b95 = statistics.median(base), pct(base, 0.95)
    print(f"\n{title}; milliseconds, ratios to the trivial page of the same measurement")
    print(f"{'view':<26}{'p50':>8}{'p95':>8}{'p50 ratio':>11}{'p95 ratio':>11}")
    for name, values in times.items():
        p50, p95 = statistics.median(values), pct(values, 0.95)
        print(f"{name:<26}{p50:8.2f}{p95:8.2f}{p50 / b50:10.2f}x{p95 / b95:10.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300, help="per URL")
    parser.add_argument("--regenerate", action="store_true")
    parser.add_argument("--cache", choices=["local", "redis"], default="local")
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB))
    args = parser.parse_args()
    ensure_database(args.database_url)
    setup_django(args.database_url, args.cache)
    from django.conf import settings
    from django.core.management import call_command

    from arena.models import Bot, Match, MatchStatus

    call_command("migrate", verbosity=0)
    have = Match.objects.filter(status=MatchStatus.FINISHED).count()
    # bench/web_http.py's results add to league-01's: more is the same database
    if args.regenerate or have < MATCHES:
        if have:
            print("flushing the bench database")
            call_command("flush", interactive=False, verbosity=0)
        print(f"generating {BOTS:,} bots, {LEAGUES} leagues, {MATCHES:,} matches ...")
        generate()
    else:
        print(f"reusing the bench database ({have:,} finished matches)")
    print(f"cache: {settings.CACHES['default']['BACKEND']}")
    bot = Bot.objects.get(name="bot0420")  # in league-00 (bot i plays in league i % 20)
    match_id = Match.objects.filter(league__slug="league-07").order_by("id")[5000].pk
    urls = {
        "trivial page": "/bench/trivial/",
        "trivial API": "/bench/trivial-api/",
        "standings page": "/leagues/league-00/",
        "bot page": f"/bots/{bot.name}/",
        "match list API": "/api/matches/",
        "match list API, one bot": f"/api/matches/?bot={bot.name}",
        "replay JSON": f"/api/matches/{match_id}/replay/",
    }
    report(f"warm, {args.requests} requests per URL, interleaved", measure(urls, args.requests))
    lands = ResultLands("league-00", bot.name)
    pages = ["trivial page", "trivial API", "standings page", "bot page",
             "match list API, one bot"]  # fmt: skip
    after = measure(
        {k: urls[k] for k in pages}, args.requests,
        before={k: lands for k in pages if not k.startswith("trivial")},
    )  # fmt: skip
    report(f"right after a result (one before each request), {args.requests} per URL", after)
    if args.cache == "local":
        cold = measure({k: v for k, v in urls.items() if "page" in k}, max(20, args.requests // 5),
                       cold=True)  # fmt: skip
        report("cold cache (cleared before each request: fragments, crosstable, bot stats)", cold)


if __name__ == "__main__":
    main()

"""What sending a match behind league play costs: the dispatch port asks the challenges app
whether the match is deferred (``arena.dispatch.deferred``: one indexed statement) before
every ``run_match`` message, beside the same send without the question, in the same run.

    DATABASE_URL=postgres://... REDIS_URL=redis://127.0.0.1:6379/9 \\
        .venv/bin/python bench/challenge_dispatch.py [--n 400]

The database must be migrated (``manage.py migrate``). It makes a league of two house bots
with one round (4 matches) and a best-of-3 challenge between them, and sends their ids to
a queue of its own on the Redis broker (deleted at the end): in turns, rounds of 20 sends
with the question and 20 without, so the machine's load falls on both alike. Printed: the
median and p95 microseconds per send of each, the ratio of the medians, and which list the
broker put each kind in (the challenge's behind the league's).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import uuid

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

import redis  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402

from arena import dispatch  # noqa: E402
from arena.challenges import services as challenges  # noqa: E402
from arena.models import Bot, BotKind, Match  # noqa: E402
from arena.services import leagues as svc  # noqa: E402
from arena.services.rounds import do_schedule_round  # noqa: E402
from workers.celery import app  # noqa: E402
from workers.dispatch import CeleryDispatcher  # noqa: E402


def _setup(tag: str) -> tuple[list[int], list[int]]:
    league = svc.do_create_league(svc.LeagueSettings(name=f"bench-{tag}"))
    a = svc.do_create_house_bot(f"bench-{tag}-a", "random")
    b = svc.do_create_house_bot(f"bench-{tag}-b", "random")
    for bot in (a, b):
        svc.do_enter(league, bot)
    user = get_user_model().objects.create_user(f"bench-{tag}")
    mine = Bot.objects.create(
        name=f"bench-{tag}-mine", kind=BotKind.HOUSE, house_spec="random", owner=user
    )
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    made = challenges.do_challenge(user, mine, a, 3)
    return scheduled.matches, list(
        Match.objects.filter(round=made.round).values_list("id", flat=True)
    )


def _sends(ids: list[int], n: int, *, ask: bool) -> list[float]:
    tests = list(dispatch._deferred)
    if not ask:
        dispatch._deferred.clear()
    d = CeleryDispatcher()
    out = []
    try:
        for i in range(n):
            t = time.perf_counter()
            d.run_match(ids[i % len(ids)])
            out.append(time.perf_counter() - t)
    finally:
        dispatch._deferred[:] = tests
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=400)
    n = parser.parse_args().n
    tag = uuid.uuid4().hex[:8]
    queue = f"bench-challenges-{tag}"
    app.conf.task_default_queue = queue
    league_ids, challenge_ids = _setup(tag)
    ids = league_ids + challenge_ids
    asked: list[float] = []
    plain: list[float] = []
    client = redis.Redis.from_url(str(settings.REDIS_URL))
    try:
        for _ in range(max(1, n // 20)):
            asked += _sends(ids, 20, ask=True)
            plain += _sends(ids, 20, ask=False)
        lists = {
            "league (priority 0)": client.llen(queue),
            "deferred (priority 9)": client.llen(f"{queue}\x06\x169"),
        }
    finally:
        client.delete(queue, *(f"{queue}\x06\x16{p}" for p in (3, 6, 9)))
        client.close()

    def show(name: str, xs: list[float]) -> float:
        med = statistics.median(xs) * 1e6
        p95 = statistics.quantiles(xs, n=20)[-1] * 1e6
        print(f"{name:<34} median {med:8.0f} us   p95 {p95:8.0f} us   ({len(xs)} sends)")
        return med

    print(f"{len(league_ids)} league matches and {len(challenge_ids)} challenge games, in turns")
    with_q = show("send, asking whether it is deferred", asked)
    without = show("send, not asking (baseline)", plain)
    print(f"ratio of medians: {with_q / without:.2f}x (+{with_q - without:.0f} us per send)")
    print("messages in the broker's lists:", lists)


if __name__ == "__main__":
    main()

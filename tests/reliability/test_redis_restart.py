"""A Redis without persistence restarts: the site keeps answering from the database, and
the queued work it lost is sent again within 30 s of it coming back.

Everything real: a redis-server of this test's own on a free port (never the machine's),
a Celery worker and ``celery beat`` (whose reaper entry runs every 10 s), PostgreSQL.
"""

from __future__ import annotations

import os
import signal
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import pytest
import redis
from django.core.cache import caches
from django.test import Client
from django.utils import timezone

from arena.models import Match, MatchStatus, Round, RoundStatus
from arena.services.rounds import do_reap, do_schedule_round
from arena.services.schedules import ensure_reaper
from tests.leagues.conftest import database_url
from tests.leagues.factory import assert_rated_once, house_league
from tests.reliability.loadrig import ROOT, Proc, _point_celery, free_port, wait_until

pytestmark = [
    pytest.mark.services,
    pytest.mark.slow,
    pytest.mark.faults,
    pytest.mark.processes,
    pytest.mark.serial,
]


@dataclass
class Rig:
    url: str
    queue: str
    tmp: Path
    env: dict[str, str]
    redis: Proc | None = None
    procs: list[Proc] = field(default_factory=list)

    def start_redis(self) -> None:
        port = self.url.rsplit(":", 1)[1].split("/")[0]
        self.redis = Proc(
            "redis",
            ["redis-server", "--port", port, "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--daemonize", "no"],
            self.env, self.tmp / "redis.log",
        ).start()  # fmt: skip
        wait_until(self.redis_up, 15, "redis-server to answer")

    def redis_up(self) -> bool:
        client = redis.Redis.from_url(self.url, socket_connect_timeout=0.5)
        try:
            return bool(client.ping())
        except redis.RedisError:
            return False
        finally:
            client.close()

    def celery(self, name: str, *args: str) -> Proc:
        argv = [sys.executable, "-m", "celery", "-A", "workers", *args]
        return Proc(name, argv, self.env, self.tmp / f"{name}.log").start()


@pytest.fixture
def rig(transactional_db: None, settings, tmp_path: Path) -> Iterator[Rig]:  # noqa: ANN001
    tag = uuid.uuid4().hex[:8]
    url = f"redis://127.0.0.1:{free_port()}/0"
    queue = f"restart-{tag}"
    settings.REDIS_URL = url
    settings.RELAY_PREFIX = f"restart-relay-{tag}"
    settings.CACHES = {
        "default": {
            "BACKEND": "arena.cache.ResilientRedisCache",
            "LOCATION": url,
            "KEY_PREFIX": f"restart-{tag}",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 2.0},
        }
    }
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CELERY", "ARENA_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings", PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1",
        DATABASE_URL=database_url(), REDIS_URL=url, CELERY_QUEUE=queue,
        RELAY_PREFIX=settings.RELAY_PREFIX, LOG_LEVEL="INFO",
    )  # fmt: skip
    r = Rig(url, queue, tmp_path, env)
    r.start_redis()
    before = _point_celery(queue, url)
    try:
        yield r
    finally:
        for proc in [*r.procs, r.redis]:
            if proc is not None:
                proc.stop(signal.SIGTERM)
        _point_celery(*before)
        caches["default"].close()


def test_pages_answer_while_redis_is_down_and_lost_work_is_sent_again(rig: Rig) -> None:
    league = house_league("Restarted", ["random", "greedy", "random", "greedy"])
    bot = league.entries.first().bot  # type: ignore[union-attr]
    client = Client()
    assert client.get(f"/leagues/{league.slug}/").status_code == 200  # fills the cache
    scheduled = do_schedule_round(league)  # 12 messages in the queue; no worker yet
    assert scheduled is not None
    ids = sorted(scheduled.matches)
    assert do_reap().requeued == []  # the reaper's first look: all of them are held

    assert rig.redis is not None
    rig.redis.stop(signal.SIGTERM)  # no persistence: the queue is gone
    assert not rig.redis_up()
    for path in (f"/leagues/{league.slug}/", f"/bots/{bot.name}/", "/matches/", "/"):
        response = client.get(path)
        assert response.status_code == 200, (path, response.status_code)
    assert league.name in client.get(f"/leagues/{league.slug}/").content.decode()
    health = client.get("/healthz")
    assert health.status_code == 503
    assert health.json()["down"] == ["redis"]
    assert health.json()["checks"]["database"]["ok"] is True

    rig.start_redis()  # empty
    back = timezone.now()
    ensure_reaper()
    rig.procs += [
        rig.celery(
            "worker", "worker", "--pool=solo", "-Q", rig.queue, "-n", f"w-{rig.queue}@%h",
            "--without-gossip", "--without-mingle", "--without-heartbeat", "--loglevel", "INFO",
        ),
        rig.celery(
            "beat", "beat", "--loglevel", "INFO", "--pidfile=", "--max-interval", "1",
            "--scheduler", "django_celery_beat.schedulers:DatabaseScheduler",
        ),
    ]  # fmt: skip

    def resent_or_played() -> bool:
        rows = Match.objects.filter(pk__in=ids).values_list("status", "enqueued_at")
        return all(
            status != MatchStatus.QUEUED or (sent is not None and sent >= back)
            for status, sent in rows
        )

    def logs() -> str:
        return "\n".join(p.output()[-3000:] for p in rig.procs)

    try:
        # the worker and beat start within this too, and the reaper looks twice (on a
        # loaded machine that took more than 30 s in a CI run beside two benchmarks)
        wait_until(resent_or_played, 90, "the lost matches to be sent again", step=0.2)
        wait_until(
            lambda: Round.objects.filter(pk=scheduled.round.pk, status=RoundStatus.COMPLETE)
            .exists(),
            90, "the round to be played", step=0.2,
        )  # fmt: skip
    except TimeoutError:
        raise AssertionError(logs()) from None
    assert_rated_once(league)
    assert "the broker lost its data" in rig.procs[0].output()
    played_after: list[datetime | None] = list(
        Match.objects.filter(pk__in=ids).values_list("started_at", flat=True)
    )
    assert all(t is not None and t >= back for t in played_after)
    assert client.get(f"/leagues/{league.slug}/").status_code == 200
    assert client.get("/healthz").json()["down"] == []

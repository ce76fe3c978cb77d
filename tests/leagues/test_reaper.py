"""The reaper re-sends only what is really lost (real Redis broker, real Celery worker).

A long round leaves matches waiting in the queue far longer than
``ARENA_REQUEUE_AFTER_SECONDS``; they are not lost and must not be sent twice. A message
that is really gone (here: removed from the queue by hand) is sent again.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import cast

import pytest
import redis
from django.utils import timezone

from arena.models import Match, MatchStatus
from arena.services.rounds import do_reap, do_schedule_round
from tests.leagues.conftest import Cluster, wait_for
from tests.leagues.factory import assert_rated_once, house_league
from workers.dispatch import _match_of

pytestmark = [pytest.mark.services, pytest.mark.slow]


def _queued_messages(client: redis.Redis, queue: str) -> dict[int, list[bytes]]:
    """The raw ``run_match`` messages waiting in the queue, by match id."""
    by_match: dict[int, list[bytes]] = {}
    for raw in cast(list[bytes], client.lrange(queue, 0, -1)):
        found = _match_of(json.loads(raw))
        assert found is not None
        by_match.setdefault(found[0], []).append(raw)
    return by_match


def test_waiting_matches_are_not_resent_lost_ones_are(cluster: Cluster, settings) -> None:  # noqa: ANN001
    settings.ARENA_REQUEUE_AFTER_SECONDS = 1
    settings.ARENA_LOST_AFTER_SECONDS = 1
    league = house_league("Reaped", ["random", "greedy", "random", "greedy"])
    scheduled = do_schedule_round(league)  # 12 messages, no worker yet: a long queue
    assert scheduled is not None
    ids = sorted(scheduled.matches)
    client = redis.Redis.from_url(str(settings.REDIS_URL))
    try:
        assert sorted(_queued_messages(client, cluster.queue)) == ids
        # as if they had waited an hour behind a long round
        Match.objects.filter(pk__in=ids).update(enqueued_at=timezone.now() - timedelta(hours=1))
        # the first look finds no epoch key (as after a restart): what the broker holds
        # is still not lost
        report = do_reap()
        assert report.requeued == [] and report.broker_lost_data
        assert do_reap().requeued == []
        messages = _queued_messages(client, cluster.queue)
        assert sorted(messages) == ids
        assert all(len(m) == 1 for m in messages.values()), "a waiting match was sent twice"

        # three messages really lost
        lost = ids[3:6]
        for match_id in lost:
            client.lrem(cluster.queue, 1, messages[match_id][0].decode())
        report = do_reap()
        assert sorted(report.requeued) == lost
        messages = _queued_messages(client, cluster.queue)
        assert sorted(messages) == ids
        assert all(len(m) == 1 for m in messages.values())
        assert do_reap().requeued == []  # sent just now: not lost again
    finally:
        client.close()
    cluster.start_worker()
    wait_for(
        lambda: not Match.objects.filter(
            league=league, status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING]
        ).exists(),
        90, "the worker to play the round", step=0.2,
    )  # fmt: skip
    assert_rated_once(league)
    assert all(m.attempts == 1 for m in Match.objects.filter(league=league))
    assert settings.ARENA_DISPATCHER == "workers.dispatch.CeleryDispatcher"

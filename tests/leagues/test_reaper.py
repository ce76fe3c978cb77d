"""The reaper re-sends only what is really lost (real Redis broker, real Celery worker).

A long round leaves matches waiting in the queue far longer than
``ARENA_REQUEUE_AFTER_SECONDS``; they are not lost and must not be sent twice. A message
that is really gone (here: removed from the queue by hand) is sent again once two looks
missed it: a lost chunk's (``arena.run_matches``) matches are sent again one by one. A
message a worker is taking (off the queue, not yet in kombu's unacked hash) is missed by
one look only, and is not sent twice.
"""

from __future__ import annotations

import json
import time
from datetime import timedelta
from typing import cast

import pytest
import redis
from django.utils import timezone

from arena.models import League, Match, MatchStatus
from arena.services.rounds import do_reap, do_schedule_round
from tests.leagues.conftest import Cluster, wait_for
from tests.leagues.factory import assert_rated_once, house_league
from workers.dispatch import _matches_of

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.processes]


def _queued_messages(client: redis.Redis, queue: str) -> dict[int, list[bytes]]:
    """The raw ``run_match`` and ``run_matches`` messages waiting in the queue, by the
    match ids they hold."""
    by_match: dict[int, list[bytes]] = {}
    for raw in cast(list[bytes], client.lrange(queue, 0, -1)):
        found = _matches_of(json.loads(raw))
        assert found is not None
        for match_id in found[0]:
            by_match.setdefault(match_id, []).append(raw)
    return by_match


def _play_out(cluster: Cluster, league: League) -> None:
    """A worker plays the round: every match once, rated once, at its first attempt."""
    cluster.start_worker()
    wait_for(
        lambda: not Match.objects.filter(
            league=league, status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING]
        ).exists(),
        90, "the worker to play the round", step=0.2,
    )  # fmt: skip
    assert_rated_once(league)
    assert all(m.attempts == 1 for m in Match.objects.filter(league=league))


@pytest.mark.parametrize("chunk", [1, 4])
def test_waiting_matches_are_not_resent_lost_ones_are(
    cluster: Cluster,
    settings,  # noqa: ANN001
    chunk: int,
) -> None:
    """``chunk`` 1: a message per match; 4: the round's 12 in three chunks."""
    settings.ARENA_MATCH_CHUNK = chunk
    settings.ARENA_REQUEUE_AFTER_SECONDS = 1
    settings.ARENA_LOST_AFTER_SECONDS = 1
    settings.ARENA_LOST_CONFIRM_SECONDS = 0
    league = house_league("Reaped", ["random", "greedy", "random", "greedy"])
    scheduled = do_schedule_round(league)  # 12 matches, no worker yet: a long queue
    assert scheduled is not None
    ids = sorted(scheduled.matches)
    client = redis.Redis.from_url(str(settings.REDIS_URL))
    try:
        assert sorted(_queued_messages(client, cluster.queue)) == ids
        assert client.llen(cluster.queue) == len(ids) // chunk
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

        # three messages really lost (one chunk of four matches)
        gone = {messages[ids[4]][0]} if chunk > 1 else {messages[m][0] for m in ids[3:6]}
        lost = sorted(m for m, raw in messages.items() if raw[0] in gone)
        assert len(lost) == 3 if chunk == 1 else lost == ids[4:8]
        for raw in gone:
            client.lrem(cluster.queue, 1, raw.decode())
        # one look missing them is not enough: they may be on their way to a worker
        assert do_reap().requeued == []
        report = do_reap()
        assert sorted(report.requeued) == lost
        messages = _queued_messages(client, cluster.queue)
        assert sorted(messages) == ids
        assert all(len(m) == 1 for m in messages.values())
        assert do_reap().requeued == []  # sent just now: not lost again
    finally:
        client.close()
    _play_out(cluster, league)
    assert settings.ARENA_DISPATCHER == "workers.dispatch.CeleryDispatcher"


def test_a_message_a_worker_is_taking_is_not_sent_twice(cluster: Cluster, settings) -> None:  # noqa: ANN001
    """kombu takes a message off the queue (BRPOP), then writes it to its unacked hash; a
    look between the two finds it in neither place. It must not be taken as lost."""
    settings.ARENA_MATCH_CHUNK = 1
    settings.ARENA_REQUEUE_AFTER_SECONDS = 60  # a delivery this recent is a live worker's
    settings.ARENA_LOST_AFTER_SECONDS = 1
    settings.ARENA_LOST_CONFIRM_SECONDS = 0
    league = house_league("Taken", ["random", "greedy", "random"])
    scheduled = do_schedule_round(league)
    assert scheduled is not None
    ids = sorted(scheduled.matches)
    Match.objects.filter(pk__in=ids).update(enqueued_at=timezone.now() - timedelta(hours=1))
    client = redis.Redis.from_url(str(settings.REDIS_URL))
    try:
        do_reap()  # the first look sets the broker's epoch key
        assert do_reap().requeued == []
        taken = ids[0]
        raw = _queued_messages(client, cluster.queue)[taken][0]
        client.lrem(cluster.queue, 1, raw.decode())  # the worker's BRPOP ...
        assert do_reap().requeued == []  # ... a look now misses it: a suspect, not lost
        message = json.loads(raw)
        tag = message["properties"]["delivery_tag"]
        # ... and kombu's QoS.append: the unacked hash and its index
        client.hset("unacked", tag, json.dumps([message, "", cluster.queue]))
        client.zadd("unacked_index", {tag: time.time()})
        assert do_reap().requeued == []
        assert do_reap().requeued == []
        enqueued = Match.objects.get(pk=taken).enqueued_at
        assert enqueued is not None and enqueued < timezone.now() - timedelta(minutes=59)
        assert sorted(_queued_messages(client, cluster.queue)) == ids[1:]
        # no worker holds that delivery: give the message back for the round to finish
        client.hdel("unacked", tag)
        client.zrem("unacked_index", tag)
        client.lpush(cluster.queue, raw)
    finally:
        client.close()
    _play_out(cluster, league)

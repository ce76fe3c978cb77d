"""A result played by a real Celery worker process refreshes the watched pages in the
Redis cache the site shares with it (``leaderboard.refresh`` run by the worker after the
result's commit): the test process's next request reads only what a warm page reads, and
shows the result."""

from __future__ import annotations

import re
import uuid

import pytest
from django.core.cache import cache
from django.test import Client

from arena.dispatch import enqueue_match
from arena.models import Match, MatchStatus
from arena.services.rounds import do_schedule_round
from tests.leagues.conftest import Cluster, cluster, wait_for  # noqa: F401 - the fixture
from tests.leagues.factory import house_league
from tests.web.test_pages_after_result import _counts, _match_row, _rows_by_bot
from tests.web.test_pages_refreshed import _get, _opponent_games, _shown

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.processes]


def test_a_workers_result_refreshes_the_watched_pages_in_the_shared_cache(
    cluster: Cluster,  # noqa: F811 - the fixture imported above
    settings,  # noqa: ANN001 - pytest-django's settings
    client: Client,
) -> None:
    prefix = f"test-refresh-worker-{uuid.uuid4().hex}"
    cluster.env["CACHE_PREFIX"] = prefix  # the worker's cache is the test's
    settings.CACHES = {
        "default": {
            "BACKEND": "arena.cache.ResilientRedisCache",
            "LOCATION": str(settings.REDIS_URL),
            "KEY_PREFIX": prefix,
            "TIMEOUT": 600,
        }
    }
    try:
        league = house_league("Refreshed by a worker", ["random", "greedy", "random", "greedy"])
        scheduled = do_schedule_round(league, enqueue=False)
        assert scheduled is not None
        match_id = scheduled.matches[0]
        seats = sorted(
            p.bot.name for p in Match.objects.get(pk=match_id).participations.select_related("bot")
        )
        pages = [f"/leagues/{league.slug}/"] + [f"/bots/{name}/" for name in seats]
        warm = {}
        for url in pages:
            client.get(url)  # watched, every part cached
            _, warm[url] = _get(client, url)
        worker = cluster.start_worker()
        enqueue_match(match_id)  # sent at once: no transaction is open
        # the task returns after the result's commit and its after-commit hook
        wait_for(
            lambda: re.search(r"Task arena\.run_match\[[^]]+\] succeeded", worker.output()),
            60, "the worker to play the match", step=0.1,
        )  # fmt: skip
        assert Match.objects.get(pk=match_id).status == MatchStatus.FINISHED

        shown = _shown(league)
        assert sorted(shown[name][0] for name in seats) == [1, 1]
        for url in pages:
            page, statements = _get(client, url)
            assert len(statements) == len(warm[url]), (url, statements, cluster.logs())
            if url.startswith("/leagues/"):
                rows = _rows_by_bot(page, "standings")
                assert {name: _counts(row) for name, row in rows.items()} == shown
                assert re.search(r"team [AB] · ", _match_row(page, match_id))
            else:
                name = url.split("/")[2]
                assert _counts(_rows_by_bot(page, "ratings")[league.slug]) == shown[name]
                assert _opponent_games(page) == 1
    finally:
        cache.clear()  # this test's prefix only

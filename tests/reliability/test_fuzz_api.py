"""Hostile input for the REST API, generated from its own OpenAPI schema (schemathesis).

A live server (pytest-django's, on the PostgreSQL test database) holds real data: a
league with finished matches, ratings and batch fits, a league with a match being played
(spectator-only, its pair withheld), a user with an API key and a bot of their own. Every
operation of ``/api/schema/`` gets valid and invalid requests (schemathesis' positive and
negative modes), as that user and anonymously, with path parameters drawn at random or
from the real rows. Properties: no 5xx; the status code, the content type and the body
are the ones the schema documents; afterwards nothing is corrupted (leagues, matches,
replays and the rating ledger are untouched, ratings are zero-sum and equal a recompute,
every replay re-simulates).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import requests
import schemathesis
from django.contrib.auth.models import User
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from arena.models import Bot, Entry, League, Match, MatchReplay, MatchStatus, Participation
from arena.ratings.models import LiveRating, RatedMatch
from arena.ratings.services import recompute_ratings
from arena.services import owned_bots
from leaderboard.api.auth import issue_api_key
from leaderboard.models import ApiToken
from referee.replay import from_json, validate
from tests.leagues.factory import rating_total
from tests.web.helpers import make_league, make_live

pytestmark = [
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
    # the viewer's cache key holds the (bounded, not yet validated) perspective asked for:
    # fine for Redis, which is what runs; docs/reliability.md notes it
    pytest.mark.filterwarnings("ignore::django.core.cache.backends.base.CacheKeyWarning"),
]

#: random requests per operation, per generation mode (positive, negative);
#: ARENA_FUZZ_SCALE=N multiplies it, for a longer run by hand
EXAMPLES = 12 * int(os.environ.get("ARENA_FUZZ_SCALE", "1"))
CHECKS = [
    schemathesis.checks.not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
#: tables the API must never write to (bots, entries and keys it may)
FROZEN = [League, Match, Participation, MatchReplay, RatedMatch, LiveRating]


@dataclass
class World:
    leagues: list[League]
    user: User
    key: str
    #: real values for the path parameters, by name
    known: dict[str, list[Any]]


@pytest.fixture
def world(settings: Any) -> Iterator[World]:  # pytest-django's settings fixture
    # a private cache: the throttles' counters start at zero and stay out of Redis
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    played = make_league("Fuzz League", ["random", "greedy", "random"], rounds=1)
    live = make_live("Fuzz Live")
    user = User.objects.create_user("fuzzer", password="a-long-pass-phrase")
    mine, _ = owned_bots.do_create_bot(user, "fuzzer-bot")
    owned_bots.do_enter_league(user, mine, played)
    known: dict[str, list[Any]] = {
        "name": list(Bot.objects.values_list("name", flat=True)),
        "slug": [played.slug, live.league.slug],
        "id": list(Match.objects.values_list("id", flat=True)),
        # a hosted bot's version numbers (none of these bots has versions: 404s)
        "number": [1, 2, 0],
    }
    yield World([played, live.league], user, issue_api_key(user), known)


def snapshot() -> dict[str, Any]:
    out: dict[str, Any] = {
        m.__name__: list(m._default_manager.order_by("pk").values()) for m in FROZEN
    }
    out["bots"] = list(Bot.objects.filter(owner=None).order_by("pk").values())
    return out


def strategy(op: Any, known: dict[str, list[Any]]) -> st.SearchStrategy[Any]:
    """Positive and negative cases; half of them with real path parameters."""
    names = [p.name for p in op.path_parameters]
    modes = [GenerationMode.POSITIVE, GenerationMode.NEGATIVE]
    options = [op.as_strategy(generation_mode=mode) for mode in modes]
    if names:
        real = st.fixed_dictionaries({n: st.sampled_from(known[n]) for n in names})
        options += [real.flatmap(_with_path(op, mode)) for mode in modes]
    return st.one_of(*options)


def _with_path(op: Any, mode: GenerationMode) -> Callable[[dict[str, Any]], Any]:
    return lambda pp: op.as_strategy(generation_mode=mode, path_parameters=pp)


def test_the_api_answers_hostile_requests_as_documented(live_server: Any, world: World) -> None:
    base = live_server.url
    schema = schemathesis.openapi.from_url(f"{base}/api/schema/")
    results: list[Any] = list(schema.get_all_operations())
    operations = [result.ok() for result in results]
    assert len(operations) >= 15, [op.label for op in operations]
    before = snapshot()
    session = requests.Session()
    statuses: Counter[int] = Counter()
    calls = Counter[str]()
    coverage = Counter[str]()

    def send(case: Any, as_user: bool) -> None:
        # one connection per request: the test server (Django's, on wsgiref) reads a body
        # by its Content-Length only, so a request sent chunked leaves its last chunk
        # ("0\r\n") to be read as the next request line of a kept-alive connection
        # (gunicorn, which serves the site, reads chunked bodies)
        headers = {"Connection": "close"}
        if as_user:
            # the fuzzer may have revoked the key (DELETE /api/auth/token/): a fresh one
            if not ApiToken.objects.filter(user=world.user).exists():
                world.key = issue_api_key(world.user)
            headers["Authorization"] = f"Token {world.key}"
        response = case.call(base_url=base, session=session, headers=headers, timeout=10)
        statuses[response.status_code] += 1
        calls[case.operation.label] += 1
        case.validate_response(response, checks=CHECKS, headers=headers)

    # schemathesis' coverage phase: boundary and invalid values of every parameter and
    # body field, deterministically, as the user and anonymously
    for op in operations:
        generation = schema.config.generation_for(operation=op, phase="coverage")
        cases = schema.iter_coverage_cases(
            op, generation_modes=list(GenerationMode), generation_config=generation
        )
        for i, case in enumerate(cases):
            coverage[op.label] += 1
            send(case, as_user=i % 2 == 0)

    # random cases, positive and negative, half of them with real path parameters
    for op in operations:

        @settings(
            max_examples=2 * EXAMPLES,
            deadline=None,  # each request is bounded by its own timeout below
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(case=strategy(op, world.known), as_user=st.booleans())
        def check(case: Any, as_user: bool) -> None:
            send(case, as_user)

        check()

    print(
        f"{sum(calls.values())} requests ({sum(coverage.values())} from the coverage phase) "
        f"over {len(calls)} operations; statuses {dict(sorted(statuses.items()))}"
    )
    assert not any(code >= 500 for code in statuses)
    after = snapshot()
    for table in before:
        assert after[table] == before[table], f"{table} changed"
    for league in world.leagues:
        total, expected = rating_total(league)
        assert total == expected
        assert recompute_ratings(league.pk).exact
    for replay in MatchReplay.objects.filter(match__status=MatchStatus.FINISHED):
        validate(from_json(replay.record))
    assert Entry.objects.filter(bot__owner=None).count() == 3 + 2

"""Challenge tests: users with bots, house bots that accept, a Celery queue of the test's
own (so a test's messages can be read in the broker), and the league tests' worker cluster."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest
import redis

from tests.leagues.conftest import cluster  # noqa: F401 - the fixture, for these tests
from workers.celery import app

if TYPE_CHECKING:  # Django's models load once pytest-django has set Django up
    from django.contrib.auth.models import User
    from django.test import Client

    from arena.models import Bot


@dataclass
class People:
    alice: User
    bob: User
    #: alice's bot: a house-played bot she owns, so that it is always "connected"
    mine: Bot
    #: bob's bot (dials in; never connected in these tests)
    his: Bot
    #: an ownerless house bot: the arena's sparring partner, accepts challenges
    house: Bot

    def client(self, user: User) -> Client:
        from django.test import Client

        c = Client()
        c.force_login(user)
        return c


def owned_house_bot(name: str, owner: Any, spec: str = "greedy") -> Bot:
    from arena.models import Bot, BotKind

    return Bot.objects.create(name=name, kind=BotKind.HOUSE, house_spec=spec, owner=owner)


@pytest.fixture
def people(transactional_db: None) -> People:
    from django.contrib.auth import get_user_model

    from arena.models import Bot, BotKind
    from arena.services import leagues as league_services

    users = get_user_model()
    alice = users.objects.create_user("alice", password="pw-alice-123")
    bob = users.objects.create_user("bob", password="pw-bob-123")
    mine = owned_house_bot("alice-greedy", alice)
    his = Bot.objects.create(name="bob-remote", kind=BotKind.REMOTE, owner=bob)
    house = league_services.do_create_house_bot("house-random", "random")
    return People(alice, bob, mine, his, house)


@pytest.fixture
def queue(settings) -> Iterator[str]:  # noqa: ANN001 - pytest-django's settings fixture
    """A Celery queue of this test's own: what the test sends can be read in the broker."""
    if not settings.REDIS_URL:
        pytest.fail("the challenge tests need a real Redis: set REDIS_URL")
    name = f"test-challenges-{uuid.uuid4().hex[:10]}"
    old = app.conf.task_default_queue
    app.conf.task_default_queue = name
    try:
        yield name
    finally:
        app.conf.task_default_queue = old
        client = redis.Redis.from_url(str(settings.REDIS_URL))
        try:
            client.delete(name, *(f"{name}\x06\x16{p}" for p in (3, 6, 9)))
        finally:
            client.close()


def queued(settings, queue: str) -> dict[str, list[int]]:  # noqa: ANN001
    """The match ids waiting in the broker, by list: "league" (priority 0, taken first)
    and "deferred" (priority 9, after every other list)."""
    import json

    from workers.dispatch import _matches_of

    client = redis.Redis.from_url(str(settings.REDIS_URL))
    try:
        out: dict[str, list[int]] = {}
        for what, key in (("league", queue), ("deferred", f"{queue}\x06\x169")):
            ids: list[int] = []
            for raw in client.lrange(key, 0, -1):  # type: ignore[union-attr]
                found = _matches_of(json.loads(raw))
                if found is not None:
                    ids.extend(found[0])
            out[what] = sorted(ids)
        return out
    finally:
        client.close()

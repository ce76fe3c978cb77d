"""The migration that adds ``Participation.code_version`` names, for seats hosted bots took
before versions were recorded, their bot's active version; other seats stay without one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from arena.hosting import services
from arena.hosting.models import CodeVersion
from arena.models import Participation
from arena.services import leagues as svc
from arena.services.rounds import do_schedule_round

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

BEFORE = [("arena", "0010_merge_0009_alter_bot_kind_0009_merge_20261201_1145")]


def _migrate(targets: list[tuple[str, str]]) -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)


@pytest.fixture
def back_to_latest() -> Iterator[None]:
    latest = list(MigrationExecutor(connection).loader.graph.leaf_nodes())
    try:
        yield
    finally:
        _migrate(latest)


def test_hosted_seats_get_their_bots_active_version(back_to_latest: None) -> None:
    owner = get_user_model().objects.create_user("ann", password="pw-pw-pw-pw")
    bot = services.do_create_hosted_bot(owner, "ann-old")
    code = b"from avenue_sdk import Bot\n\n\nclass Mine(Bot):\n    pass\n"
    for _ in range(2):
        services.do_upload(owner, bot, "mine.py", code, "mine:Mine")
    v1, v2 = CodeVersion.objects.filter(bot=bot).order_by("number")
    CodeVersion.objects.filter(pk=v1.pk).update(status="ready", active=True)
    CodeVersion.objects.filter(pk=v2.pk).update(status="ready")
    league = svc.do_create_league(svc.LeagueSettings(name="Old"))
    house = svc.do_create_house_bot("old-random", "random")
    for b in (bot, house):
        svc.do_enter(league, b)
    assert do_schedule_round(league, enqueue=False) is not None
    assert Participation.objects.filter(bot=bot).count() == 2

    latest = list(MigrationExecutor(connection).loader.graph.leaf_nodes())
    _migrate(BEFORE)
    _migrate(latest)

    assert set(Participation.objects.filter(bot=bot).values_list("code_version_id", flat=True)) == {
        v1.pk
    }
    assert set(
        Participation.objects.filter(bot=house).values_list("code_version_id", flat=True)
    ) == {None}

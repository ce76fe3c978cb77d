"""Each source the arena has emits its event in its own transaction: a match's forfeit (a
real no-show, the runner and the result writer), a remote bot absent while its
match waits (the no-show retry), a version's check, a version test's end, a season's end."""

from __future__ import annotations

import uuid
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.contrib.auth.models import User

from arena import signals
from arena.adapters.bothost import versiontest
from arena.adapters.play.matches import play_match
from arena.adapters.relay.redis import RedisRunnerRelay
from arena.hosting import services as hosting
from arena.models import Bot, League, Match
from arena.notify.models import Delivery, Event
from arena.notify.subscriptions import do_subscribe
from arena.notify.texts import summary
from arena.services import leagues as svc
from arena.services.claims import PlayOutcome
from arena.services.rounds import do_schedule_round
from tests.leagues.factory import house_league
from tests.notify.conftest import make_bot, make_owner

pytestmark = [pytest.mark.services, pytest.mark.django_db]

BOT = b"from avenue_sdk import Bot\n\n\nclass Mine(Bot):\n    pass\n"


def _relay() -> RedisRunnerRelay:
    """A relay of a prefix no gateway uses: every remote bot is away."""
    return RedisRunnerRelay(str(settings.REDIS_URL), f"notify-{uuid.uuid4().hex[:8]}")


def _absent_bot_league(**options: object) -> tuple[League, int, int]:
    league = house_league(
        f"Notify {uuid.uuid4().hex[:6]}", ["greedy", "random"], connect_grace_ms=0,
        reconnect_grace_ms=1_000, **options,
    )  # fmt: skip
    owner = make_owner()
    bot = make_bot(owner, "absent")
    do_subscribe(owner, bot, "email", ["fault", "forfeit", "offline_waiting"])
    svc.do_enter(league, bot)
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    match = Match.objects.filter(pk__in=scheduled.matches, participations__bot=bot).first()
    assert match is not None
    return league, bot.pk, match.pk


def test_a_no_show_forfeit_is_told_once_as_a_forfeit_that_names_the_no_show() -> None:
    _, bot_id, match_id = _absent_bot_league(no_show_retries=0)
    bot = Bot.objects.select_related("owner").get(pk=bot_id)
    assert bot.owner is not None
    # a subscription to faults only hears of the forfeit too (one incident, one event)
    do_subscribe(bot.owner, bot, "email", ["fault"])
    assert play_match(match_id, relay_factory=_relay) is PlayOutcome.FINISHED
    (event,) = Event.objects.filter(bot_id=bot_id)
    assert event.kind == "forfeit"
    forfeit = event.payload
    assert (forfeit["match"], forfeit["cause"]) == (match_id, "no_show")
    assert forfeit["path"] == f"/matches/{match_id}/"
    assert forfeit["rating_change"] is not None
    assert list(Delivery.objects.filter(event=event).values_list("channel", flat=True)) == ["email"]
    assert summary("forfeit", forfeit).endswith(f"lost match {match_id} by forfeit (no-show)")
    # the house bot that won has no owner: nobody told
    assert Event.objects.count() == 1


def test_a_no_show_retry_tells_the_owner_its_matches_wait_once_per_window() -> None:
    league, bot_id, match_id = _absent_bot_league(no_show_retries=3, no_show_window_s=30)
    assert play_match(match_id, relay_factory=_relay) is PlayOutcome.NO_SHOW_RETRY
    (event,) = Event.objects.filter(bot_id=bot_id)
    assert event.kind == "offline_waiting"
    assert event.payload["league"] == league.name and event.payload["matches_waiting"] >= 1
    Match.objects.filter(pk=match_id).update(not_before=None)
    assert play_match(match_id, relay_factory=_relay) is PlayOutcome.NO_SHOW_RETRY
    assert Event.objects.filter(bot_id=bot_id).count() == 1  # NOTIFY_OFFLINE_QUIET_S


def _hosted(owner_kinds: list[str]) -> tuple[User, Bot]:
    owner = make_owner()
    bot = hosting.do_create_hosted_bot(owner, f"hosted-{uuid.uuid4().hex[:6]}")
    do_subscribe(owner, bot, "email", owner_kinds)
    return owner, bot


def _checked(owner: User, bot: Bot, passed: bool) -> object:
    version = hosting.do_upload(owner, bot, "mine.py", BOT, "mine:Mine")
    assert hosting.claim_check("tester") is not None
    return hosting.finish_check(version.pk, "tester", passed, "played a game")


def test_a_version_check_emits_its_verdict() -> None:
    owner, bot = _hosted(["version_check"])
    _checked(owner, bot, True)
    _checked(owner, bot, False)
    events = list(Event.objects.filter(bot=bot, kind="version_check").order_by("created_at"))
    assert [(e.payload["version"], e.payload["passed"]) for e in events] == [(1, True), (2, False)]
    assert Delivery.objects.filter(event__bot=bot).count() == 2


def test_a_check_given_up_emits_a_rejection(settings) -> None:  # noqa: ANN001
    settings.HOSTED_CHECK_RETRY_SECONDS = 0
    owner, bot = _hosted(["version_check"])
    version = hosting.do_upload(owner, bot, "mine.py", BOT, "mine:Mine")
    for _ in range(hosting.MAX_CHECK_ATTEMPTS):
        assert hosting.claim_check("tester") is not None
        hosting.fail_check(version.pk, "tester", "the host broke")
    (event,) = Event.objects.filter(bot=bot, kind="version_check")
    assert event.payload["status"] == "rejected" and event.payload["passed"] is False


def test_a_version_test_that_ends_emits_it() -> None:
    owner, bot = _hosted(["version_test"])
    _checked(owner, bot, True)
    _checked(owner, bot, True)
    test = versiontest.do_start(owner, bot, 2, 1)
    # the arena could not play it (the sandboxes failed): the test ends as failed
    versiontest._fail(test.pk, "sandbox would not start", final=True)
    (event,) = Event.objects.filter(bot=bot, kind="version_test")
    assert event.payload["test"] == test.pk and event.payload["verdict"] == "failed"
    assert (event.payload["candidate"], event.payload["baseline"]) == (2, 1)


def test_season_ended_emits_one_event_per_owned_bot() -> None:
    league = house_league(f"Seasons {uuid.uuid4().hex[:6]}", ["greedy", "random"])
    owner = make_owner()
    mine, other = make_bot(owner), make_bot(make_owner())
    do_subscribe(owner, mine, "email", ["season_ended"])
    house_ids = list(league.entries.values_list("bot_id", flat=True))
    season = SimpleNamespace(pk=41, number=3)
    for _ in range(2):  # sent twice (a receiver's retry): told once
        signals.season_ended.send(
            sender=None, league=league, season=season, bot_ids=[mine.pk, other.pk, *house_ids]
        )
    events = Event.objects.filter(kind="season_ended")
    assert sorted(events.values_list("bot_id", flat=True)) == sorted([mine.pk, other.pk])
    assert events.get(bot=mine).payload["season"] == "3"
    assert Delivery.objects.filter(event__kind="season_ended").count() == 1


def test_a_challenge_tells_its_opponents_owner_once_and_not_when_rolled_back() -> None:
    from django.db import transaction

    from arena.challenges.services import do_challenge, do_set_accepts

    asker, target = make_owner(), make_owner()
    mine, theirs = make_bot(asker, "asks"), make_bot(target, "asked")
    do_set_accepts(target, theirs, True)
    do_subscribe(target, theirs, "email", ["challenge"])
    online = {mine.pk: True, theirs.pk: True}
    challenge = do_challenge(asker, mine, theirs, 3, online=online)
    (event,) = Event.objects.filter(kind="challenge")
    assert event.bot_id == theirs.pk and event.payload["id"] == challenge.pk
    assert (event.payload["bot"], event.payload["opponent"]) == (mine.name, theirs.name)
    assert event.payload["games"] == 3 and event.payload["requester"] == asker.username
    assert Delivery.objects.filter(event=event).count() == 1
    assert not Event.objects.filter(kind="challenge", bot=mine).exists()  # the asker is not told

    class Undo(Exception):
        pass

    with pytest.raises(Undo), transaction.atomic():
        do_challenge(asker, mine, theirs, 1, online=online)
        raise Undo
    assert Event.objects.filter(kind="challenge").count() == 1

"""Who may challenge whom, the quota, the hidden league, and where a challenge shows,
against the real PostgreSQL and Redis (the broker holds what was sent: its priority list
says that challenge games wait behind league play)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import redis
from django.urls import reverse

from arena.adapters.relay.wire import Keys
from arena.challenges.models import Challenge, ChallengeKind, ChallengeLeague
from arena.hosting.models import CodeVersion, VersionStatus
from arena.models import Bot, BotKind, League, Match, MatchStatus, Participation
from arena.ratings.models import RatedMatch
from arena.services.rounds import do_schedule_round
from tests.challenges.conftest import People, owned_house_bot, queued
from tests.leagues.factory import house_league

pytestmark = [pytest.mark.services]

API = "/api/challenges/"


def _ask(people: People, opponent: str, games: int = 1, *, bot: str | None = None):  # noqa: ANN202
    return people.client(people.alice).post(
        API,
        {"bot": bot or people.mine.name, "opponent": opponent, "games": games},
        content_type="application/json",
    )


def test_a_challenge_is_one_round_of_the_hidden_unrated_league_queued_behind_league_play(
    people: People,
    queue: str,
    settings,  # noqa: ANN001
) -> None:
    league = house_league("Main", ["random", "greedy"])
    answer = _ask(people, people.house.name, 3)
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["bot"] == people.mine.name and body["opponent"] == people.house.name
    assert body["games"] == 3 and body["rated"] is False and body["status"] == "queued"
    assert body["requester"] == "alice" and body["watch"] == f"/matches/{body['matches'][0]['id']}/"
    challenge = Challenge.objects.get(pk=body["id"])
    hidden = challenge.league
    assert ChallengeLeague.objects.filter(league=hidden).exists()
    assert not hidden.rated and not hidden.open_for_entries and hidden.seats == 2
    games = list(Match.objects.filter(round=challenge.round).order_by("id"))
    assert [m.status for m in games] == [MatchStatus.QUEUED] * 3
    # teams alternate: the requester's bot is team A in games 1 and 3
    team_a = [m.participations.get(team=0).bot_id for m in games]
    assert team_a == [people.mine.pk, people.house.pk, people.mine.pk]
    # a league round queued after it: its matches go to the list taken first
    scheduled = do_schedule_round(league)
    assert scheduled is not None
    sent = queued(settings, queue)
    assert sent["deferred"] == [m.pk for m in games]
    assert sent["league"] == sorted(scheduled.matches)


def test_the_quota_refuses_with_the_time_until_the_next_one_api_and_page(
    people: People,
    queue: str,
    settings,  # noqa: ANN001
) -> None:
    settings.CHALLENGES_PER_DAY = 2
    for _ in range(2):
        assert _ask(people, people.house.name).status_code == 201
    refused = _ask(people, people.house.name)
    assert refused.status_code == 429
    body = refused.json()
    assert body["code"] == "quota"
    assert "you have used your 2 challenges of the last 24 hours" in body["error"]
    assert re.search(r"the next one is possible in (23 h 5\d|24 h 0) min", body["error"]), body
    assert 23 * 3600 < body["retry_after"] <= 24 * 3600
    assert int(refused["Retry-After"]) == body["retry_after"]
    # the site's form says the same
    page = people.client(people.alice).post(
        reverse("leaderboard:challenge-send"),
        {"bot": people.mine.name, "opponent": people.house.name, "games": "1"},
    )
    assert page.status_code == 429
    html = page.content.decode()
    assert "No challenges left today" in html
    assert "you have used your 2 challenges of the last 24 hours" in html
    assert Challenge.objects.count() == 2


def test_refusals_say_why(people: People, queue: str) -> None:
    # not your bot
    answer = _ask(people, people.house.name, bot=people.his.name)
    assert answer.status_code == 403 and "is not yours" in answer.json()["error"]
    # an owner who does not accept (the default)
    carol_bot = owned_house_bot("bob-greedy", people.bob)
    answer = _ask(people, carol_bot.name)
    assert answer.status_code == 403
    assert answer.json() == {
        "error": "bob-greedy's owner does not accept challenges",
        "code": "not_accepting",
    }
    # yourself, and a bad N
    assert "cannot challenge itself" in _ask(people, people.mine.name).json()["error"]
    for games in (2, 9, 0):
        answer = _ask(people, people.house.name, games)
        assert answer.status_code == 400, (games, answer.content)
    assert "odd number from 1 to 7" in _ask(people, people.house.name, 2).json()["error"]
    # an offline bot that accepts: refused, nothing queued for it
    people.client(people.bob).post(
        reverse("leaderboard:challenge-accept", args=[people.his.name]), {"accepts": "on"}
    )
    answer = _ask(people, people.his.name)
    assert answer.status_code == 400
    assert "bob-remote is not connected" in answer.json()["error"]
    # once bob accepts for his house-played bot, it goes through
    bob = people.client(people.bob)
    put = bob.put(
        f"/api/bots/{carol_bot.name}/challenges/accept/",
        {"accepts": True},
        content_type="application/json",
    )
    assert put.json() == {"bot": "bob-greedy", "accepts": True}
    assert _ask(people, carol_bot.name).status_code == 201
    # anonymous
    from django.test import Client

    assert Client().post(API, {}, content_type="application/json").status_code in (401, 403)
    assert Challenge.objects.count() == 1


def test_lists_and_pages_show_a_challenge_and_leave_its_league_out(
    people: People, queue: str
) -> None:
    house_league("Main", ["random", "greedy"])
    made = _ask(people, people.house.name, 3).json()
    first = made["matches"][0]["id"]
    # the requester sees it sent; an owner of the opponent would see it received: bob's
    # bot accepting, alice challenges it and bob lists it
    bob_bot = owned_house_bot("bob-greedy", people.bob)
    people.client(people.bob).post(
        reverse("leaderboard:challenge-accept", args=[bob_bot.name]), {"accepts": "on"}
    )
    _ask(people, bob_bot.name)
    mine = people.client(people.alice).get(API).json()["challenges"]
    assert {c["opponent"] for c in mine} == {people.house.name, bob_bot.name}
    his = people.client(people.bob).get(API).json()["challenges"]
    assert [(c["requester"], c["opponent"]) for c in his] == [("alice", bob_bot.name)]
    # the match list and the match page: the badge and who asked
    anon = people.client(people.bob)
    listing = anon.get("/matches/").content.decode()
    assert listing.count("challenge · alice") == 4
    page = anon.get(f"/matches/{first}/").content.decode()
    assert 'id="challenge-box"' in page and "Asked for by <strong>alice</strong>" in page
    assert "game 1 of 3" in page and "a game of a challenge (below)" in page
    assert "of this pairing" not in page
    # the bot page's recent matches
    bot_page = anon.get(f"/bots/{people.house.name}/").content.decode()
    assert "challenge · alice" in bot_page
    # the hidden league is in no list of leagues
    hidden = League.objects.get(challenge_rules__isnull=False)
    assert hidden.slug not in {x["slug"] for x in anon.get("/api/leagues/").json()}
    assert f"/leagues/{hidden.slug}/" not in anon.get("/leagues/").content.decode()
    # nor among the bot's ratings, though it played there (after its game is over)
    from arena.adapters.play.matches import play_match

    play_match(first)
    assert Participation.objects.filter(match_id=first, league=hidden).exists()
    shown = anon.get(f"/api/bots/{people.mine.name}/").json()["leagues"]
    assert shown == []
    bot_page = anon.get(f"/bots/{people.mine.name}/").content.decode()
    assert '<table class="ratings">' not in bot_page  # its only games are unrated
    assert "challenge · alice" in bot_page  # but they are among its recent matches


def test_the_bot_page_offers_the_form_to_a_signed_in_owner_of_another_bot(people: People) -> None:
    alice = people.client(people.alice)
    page = alice.get(f"/bots/{people.house.name}/").content.decode()
    assert 'id="challenge-form"' in page and f'<option value="{people.mine.name}">' in page
    closed = alice.get(f"/bots/{people.his.name}/").content.decode()
    assert 'id="challenge-closed"' in closed and 'id="challenge-form"' not in closed
    # not signed in, or your own bot: no form
    from django.test import Client

    assert 'id="challenge"' not in Client().get(f"/bots/{people.house.name}/").content.decode()
    assert 'id="challenge"' not in alice.get(f"/bots/{people.mine.name}/").content.decode()
    # My bots: the switch, off by default
    my = alice.get("/my/bots/").content.decode()
    switches = my.split('id="accepts-challenges"')[1].split("</table>")[0]
    assert people.mine.name in switches and " checked" not in switches


@contextmanager
def _held(settings, bot: Bot) -> Iterator[None]:  # noqa: ANN001
    """The bot's relay channel subscribed, as a gateway holding its stream subscribes it
    (``RedisRelay.is_connected`` counts the subscribers)."""
    client = redis.Redis.from_url(str(settings.REDIS_URL))
    sub = client.pubsub()
    sub.subscribe(Keys(settings.RELAY_PREFIX).bot(str(bot.pk)))
    sub.get_message(timeout=5)  # the subscription's confirmation
    try:
        yield
    finally:
        sub.close()
        client.close()


def test_sparring_plays_the_active_version_against_each_house_bot(
    people: People,
    queue: str,
    settings,  # noqa: ANN001
) -> None:
    greedy = Bot.objects.create(name="house-greedy", kind=BotKind.HOUSE, house_spec="greedy")
    hosted = Bot.objects.create(name="alice-hosted", kind=BotKind.HOSTED, owner=people.alice)
    alice = people.client(people.alice)
    # no checked version yet
    url = f"/api/bots/{hosted.name}/sparring/"
    refused = alice.post(url, {"games": 3}, content_type="application/json")
    assert refused.status_code == 400 and "no checked version" in refused.json()["error"]
    CodeVersion.objects.create(
        bot=hosted, number=1, archive=b"", sha256="0" * 64, entry_point="m:B", filename="m.py",
        size=1, status=VersionStatus.READY, active=True,
    )  # fmt: skip
    # no bot host serves it: it could not play
    offline = alice.post(url, {"games": 3}, content_type="application/json")
    assert offline.status_code == 400
    assert "no bot host serves alice-hosted now" in offline.json()["error"]
    # a stream held on its relay channel is what a bot host serving it looks like
    with _held(settings, hosted):
        page = alice.post(reverse("leaderboard:sparring", args=[hosted.name]), {"games": "3"})
    assert page.status_code == 302 and page["Location"].endswith("#sparring")
    runs = list(Challenge.objects.filter(kind=ChallengeKind.SPARRING).order_by("opponent__name"))
    assert [c.opponent.name for c in runs] == [greedy.name, people.house.name]
    assert all(c.games == 3 and c.code_version and c.code_version.number == 1 for c in runs)
    ids = sorted(Match.objects.filter(round__challenge__in=runs).values_list("id", flat=True))
    assert len(ids) == 6 and queued(settings, queue)["deferred"] == ids
    shown = alice.get(f"/my/bots/{hosted.name}/").content.decode()
    assert 'id="sparring-results"' in shown
    assert shown.count("<td>v1</td>") == 2 and "queued" in shown
    # a dial-in bot does not spar
    dial_in = f"/api/bots/{people.mine.name}/sparring/"
    assert alice.post(dial_in, {}, content_type="application/json").status_code == 400


def test_a_challenge_changes_no_rating(people: People, queue: str) -> None:
    """Unrated: its results are written like any other (here by the result path itself),
    but no rating moves and nothing enters the ledger."""
    from arena.adapters.play.matches import play_match

    made = _ask(people, people.house.name, 1).json()
    match_id = made["matches"][0]["id"]
    play_match(match_id)
    m = Match.objects.get(pk=match_id)
    assert m.status == MatchStatus.FINISHED and not m.rated
    assert not RatedMatch.objects.filter(match=m).exists()
    assert all(p.rating_change is None for p in Participation.objects.filter(match=m))


def test_two_requests_racing_for_the_last_challenge_of_the_day_get_one(
    people: People,
    queue: str,
    settings,  # noqa: ANN001
) -> None:
    """The requester's row is locked while the quota is counted and the challenge written:
    two requests at once (two threads, two database connections) for the one challenge
    left get one 201 and one 429, whichever comes first."""
    import threading

    from django.db import connection

    settings.CHALLENGES_PER_DAY = 1
    answers: list[int] = []
    go = threading.Barrier(2)

    def ask() -> None:
        try:
            go.wait(10)
            answers.append(_ask(people, people.house.name).status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=ask) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(answers) == [201, 429]
    assert Challenge.objects.filter(requester=people.alice).count() == 1

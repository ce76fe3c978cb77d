"""The events' API and pages: anyone reads, only staff creates (a clear message for the
others), refusals say why; tournament leagues stay out of the league lists; the pages
show the bracket or the table and link the games."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from arena.events.models import Tournament, TournamentStatus
from arena.services import leagues as league_services
from arena.services.bots import create_bot
from tests.events.factory import house_bots, house_event, play_out

pytestmark = [pytest.mark.services, pytest.mark.django_db]


def _client(username: str, *, staff: bool) -> Client:
    User.objects.create_user(username, password="a-long-pass-phrase", is_staff=staff)
    response = Client().post(
        "/api/auth/token/",
        {"username": username, "password": "a-long-pass-phrase"},
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    return Client(HTTP_AUTHORIZATION=f"Token {response.json()['key']}")


def test_only_staff_create_tournaments_and_refusals_say_why() -> None:
    bots = house_bots("api", ["random", "greedy", "random", "greedy", "random"])
    body: dict[str, object] = {"name": "API Swiss", "format": "swiss", "bots": bots, "rounds": 3}

    anonymous = Client().post("/api/tournaments/", body, content_type="application/json")
    assert anonymous.status_code == 401
    assert "creating a tournament is for staff" in anonymous.json()["error"]
    user = _client("plain", staff=False)
    refused = user.post("/api/tournaments/", body, content_type="application/json")
    assert refused.status_code == 403
    assert refused.json()["error"].startswith("creating a tournament is for staff")
    assert not Tournament.objects.exists()

    staff = _client("operator", staff=True)
    cases: list[tuple[dict[str, object], str, str]] = [
        ({"bots": [*bots[:4], "nobody-here"]}, "bots", "no bot named nobody-here"),
        ({"rounds": 9}, "rounds", "has at most 3 rounds"),
        ({"format": "ladder"}, "format", "ladder"),
        ({"games_per_pairing": 3}, "games_per_pairing", "must be even"),
        ({"bots": bots[:1]}, "bots", "at least 2"),
    ]
    for bad, field, words in cases:
        r = staff.post("/api/tournaments/", {**body, **bad}, content_type="application/json")
        assert r.status_code == 400, r.content
        assert field in r.json()["fields"] and words in r.json()["error"], r.json()
    remote, _ = create_bot("api-remote")
    mirrored = staff.post(
        "/api/tournaments/", {**body, "bots": [*bots, remote.name]}, content_type="application/json"
    )
    assert mirrored.status_code == 400 and "dial-in" in mirrored.json()["error"]

    made = staff.post("/api/tournaments/", {**body, "start": True}, content_type="application/json")
    assert made.status_code == 201, made.content
    out = made.json()
    assert (out["slug"], out["status"], out["rounds_planned"]) == ("api-swiss", "running", 3)
    assert [e["seed"] for e in out["entrants"]] == [1, 2, 3, 4, 5]
    first = out["rounds"][0]
    assert len(first["pairings"]) == 2 and len(first["byes"]) == 1
    assert all(g["winner"] is None for p in first["pairings"] for g in p["games"])
    again = staff.post("/api/tournaments/", body, content_type="application/json")
    assert again.status_code == 409 and "exists" in again.json()["error"]

    listed = Client().get("/api/tournaments/").json()
    assert [t["slug"] for t in listed] == ["api-swiss"]
    detail = Client().get("/api/tournaments/api-swiss/")
    assert detail.status_code == 200
    scores = {row["bot"]: row["score"] for row in detail.json()["standings"]}
    assert scores == {b: 1.0 if b in first["byes"] else 0.0 for b in bots}  # the bye's point
    missing = Client().get("/api/tournaments/nope/")
    assert missing.status_code == 404 and "no tournament 'nope'" in missing.json()["error"]


def test_pages_show_the_table_and_bracket_and_leagues_stay_apart() -> None:
    swiss = house_event("Page Swiss", "swiss", ["random", "greedy", "random"], rounds=2)
    ko = house_event("Page KO", "knockout", ["greedy", "random", "random"], games_per_pairing=2)
    normal = league_services.do_create_league(league_services.LeagueSettings(name="Plain"))
    play_out(swiss)
    play_out(ko)
    for t in (swiss, ko):
        t.refresh_from_db()
        assert t.status == TournamentStatus.FINISHED

    page = Client().get("/events/page-swiss/").content.decode()
    assert "Buchholz" in page and "Sonneborn-Berger" in page and "bye (1 point)" in page
    assert 'href="/matches/' in page and "events.js" not in page  # over: no polling
    page = Client().get("/events/page-ko/").content.decode()
    assert "Tie-break:" in page and "Final" in page and "through to round 2" in page
    ko.refresh_from_db()
    assert ko.winner is not None and f'Winner: <a href="/bots/{ko.winner.name}/">' in page
    listing = Client().get("/events/").content.decode()
    assert "Page Swiss" in listing and "Page KO" in listing

    leagues = [x["slug"] for x in Client().get("/api/leagues/").json()]
    assert leagues == [normal.slug]
    assert "Page Swiss (event)" not in Client().get("/leagues/").content.decode()
    # the event's own league still answers by its address
    assert Client().get(f"/api/leagues/{swiss.league.slug}/").status_code == 200
    # a running event's page polls its body
    live = house_event("Live one", "round_robin", ["random", "greedy"])
    from arena.events.advance import do_start

    do_start(live, enqueue=False)
    page = Client().get("/events/live-one/").content.decode()
    assert 'data-live="1"' in page and "events.js" in page and "<script>" not in page
    part = Client().get("/events/live-one/?part=body").content.decode()
    assert "Round 1" in part and "<html" not in part


def test_the_admin_makes_and_starts_a_tournament_with_the_same_checks() -> None:
    bots = house_bots("adm", ["random", "greedy", "random"])
    User.objects.create_superuser("boss", password="a-long-pass-phrase")
    admin = Client()
    assert admin.login(username="boss", password="a-long-pass-phrase")
    assert admin.get("/admin/events/tournament/add/").status_code == 200
    from arena.models import Bot

    ids = [str(pk) for pk in Bot.objects.filter(name__in=bots).values_list("pk", flat=True)]
    form = {
        "name": "Admin Cup", "slug": "", "description": "", "format": "swiss", "bots": ids,
        "rounds": "5", "games_per_pairing": "2", "deals": "mirrored",
    }  # fmt: skip
    refused = admin.post("/admin/events/tournament/add/", form)
    assert refused.status_code == 200  # the form again, with the reason by its field
    errors = re.findall(r'class="errorlist[^>]*>(.*?)</ul>', refused.content.decode(), re.S)
    assert any("has at most 2 rounds" in e for e in errors), errors
    made = admin.post("/admin/events/tournament/add/", {**form, "rounds": "2"})
    assert made.status_code == 302, made.content.decode()[:2000]
    t = Tournament.objects.get(slug="admin-cup")
    assert (t.rounds, t.status, t.entrants.count()) == (2, TournamentStatus.DRAFT, 3)
    started = admin.post(
        "/admin/events/tournament/",
        {"action": "start", "_selected_action": [str(t.pk)]},
        follow=True,
    )
    assert "Admin Cup: round 1 started" in started.content.decode()
    t.refresh_from_db()
    assert t.status == TournamentStatus.RUNNING

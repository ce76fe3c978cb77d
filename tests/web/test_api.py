"""The read API: leagues, standings, bots, matches (filters, keyset pages), replays and
frames; JSON errors for bad input; a bounded number of queries whatever the size."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from arena.models import Match, MatchStatus
from referee.replay import from_json, validate
from tests.web.helpers import make_league

pytestmark = pytest.mark.django_db


@pytest.fixture
def league():  # noqa: ANN201
    return make_league("Api League", ["random", "greedy", "random"], rounds=2)


def test_leagues_and_standings(client: Client, league) -> None:  # noqa: ANN001
    leagues = client.get("/api/leagues/").json()
    assert [x["slug"] for x in leagues] == ["api-league"]
    assert leagues[0]["matches_played"] == Match.objects.filter(league=league).count()
    assert leagues[0]["entries"] == 3 and leagues[0]["schedule_note"] == "by hand"
    data = client.get("/api/leagues/api-league/standings/").json()
    rows = data["standings"]
    assert [r["rank"] for r in rows] == [None, None, None]  # all provisional
    assert rows[0]["batch"]["elo"] >= rows[1]["batch"]["elo"] >= rows[2]["batch"]["elo"]
    assert all(r["batch"]["low"] <= r["batch"]["elo"] <= r["batch"]["high"] for r in rows)
    assert all(r["provisional"] for r in rows)  # 8 games each, fewer than 20
    by_games = client.get("/api/leagues/api-league/standings/?sort=-bot").json()["standings"]
    assert [r["bot"] for r in by_games] == sorted((r["bot"] for r in rows), reverse=True)
    bad = client.get("/api/leagues/api-league/standings/?sort=secret")
    assert bad.status_code == 400 and bad.json()["fields"]["sort"]
    assert client.get("/api/leagues/nope/standings/").json()["code"] == "not_found"


def test_match_list_filters_and_pages(client: Client, league) -> None:  # noqa: ANN001
    all_ids = list(Match.objects.order_by("-id").values_list("id", flat=True))
    seen: list[int] = []
    url: str | None = "/api/matches/?limit=5"
    while url:
        page = client.get(url).json()
        seen += [m["id"] for m in page["results"]]
        url = page["next"]
    assert seen == all_ids
    bot = "api-league-1"
    mine = client.get(f"/api/matches/?bot={bot}&limit=200").json()["results"]
    assert mine and all(any(s["bot"] == bot for s in m["seats"]) for m in mine)
    assert len(mine) == Match.objects.filter(participations__bot__name=bot).count()
    paged = client.get(f"/api/matches/?bot={bot}&limit=3").json()
    rest = client.get(paged["next"]).json()["results"]
    assert [m["id"] for m in paged["results"] + rest][:6] == [m["id"] for m in mine][:6]
    assert client.get("/api/matches/?status=queued").json()["results"] == []
    r2 = client.get("/api/matches/?league=api-league&round=2").json()["results"]
    assert r2 and {m["round"] for m in r2} == {2}
    today = client.get("/api/matches/?finished_after=2000-01-01&finished_before=2999-12-31")
    assert len(today.json()["results"]) == min(50, len(all_ids))
    assert client.get("/api/matches/?finished_before=2000-01-01").json()["results"] == []
    for query, field in [
        ("status=won", "status"), ("league=nope", "league"), ("bot=nobody", "bot"),
        ("limit=0", "limit"), ("limit=100000", "limit"), ("before=-1", "before"),
        ("before=99999999999999999999999", "before"), ("finished_after=yesterday",
        "finished_after"), ("round=x", "round"), ("bot=%00", "bot"), ("league=a%00b", "league"),
    ]:  # fmt: skip
        response = client.get(f"/api/matches/?{query}")
        assert response.status_code == 400, query
        assert field in response.json()["fields"], query


def test_match_detail_replay_and_frames(client: Client, league) -> None:  # noqa: ANN001
    match = Match.objects.filter(status=MatchStatus.FINISHED).order_by("id")[0]
    detail = client.get(f"/api/matches/{match.pk}/").json()
    assert detail["replay"] == "available" and len(detail["seats"]) == 2
    assert "deck_seed" not in json.dumps(detail)
    replay = client.get(f"/api/matches/{match.pk}/replay/")
    assert replay["Content-Type"] == "application/json"
    final = validate(from_json(replay.json()))
    assert final.outcome is not None and final.outcome.winner == match.winner_team
    download = client.get(f"/api/matches/{match.pk}/replay/?download=1")
    assert download["Content-Disposition"] == f'attachment; filename="match-{match.pk}.json"'
    frames = client.get(f"/api/matches/{match.pk}/frames/?perspective=seat:0").json()
    assert frames["perspective"] == "seat:0" and frames["live"] is False
    assert frames["frames"][0]["seats"][0]["hand"] is not None
    assert frames["frames"][0]["seats"][1]["hand"] is None
    assert len(frames["frames"]) == len(replay.json()["decisions"]) + 1


def test_bad_ids_and_urls_answer_json_not_500(client: Client, league) -> None:  # noqa: ANN001
    for url, status in [
        ("/api/matches/999999/", 404), ("/api/matches/999999/replay/", 404),
        ("/api/matches/999999/frames/", 404), ("/api/matches/1234567890123456789012/", 404),
        ("/api/matches/abc/", 404), ("/api/bots/nobody/", 404), ("/api/bots/bad%20name/", 404),
        ("/api/leagues/nope/", 404), ("/api/nothing/", 404),
        ("/api/matches/1/frames/?perspective=seat:99", 400),
        ("/api/matches/1/frames/?perspective=" + "x" * 500, 400),
    ]:  # fmt: skip
        response = client.get(url)
        if url.startswith("/api/matches/1/"):
            first = Match.objects.order_by("id")[0]
            response = client.get(url.replace("/1/", f"/{first.pk}/"))
        assert response.status_code == status, url
        body = response.json()
        assert body["error"] and body["code"], url
    owner = client.get("/api/bots/?owner=%00")
    assert owner.status_code == 400 and owner.json()["fields"]["owner"]
    weird = client.post("/api/bots/", "{not json", content_type="application/json")
    assert weird.status_code in (400, 401, 403) and "error" in weird.json()


def test_openapi_schema_and_offline_docs(client: Client) -> None:
    schema = client.get("/api/schema/?format=json")
    assert schema.status_code == 200
    paths = json.loads(schema.content)["paths"]
    for path in (
        "/api/matches/",
        "/api/matches/{id}/frames/",
        "/api/bots/{name}/token/",
        "/api/leagues/{slug}/standings/",
        "/api/auth/token/",
    ):
        assert path in paths
    docs = client.get("/api/docs/").content.decode()
    assert "http://" not in docs.replace("http://www.w3.org", "") and "https://" not in docs
    assert "/static/drf_spectacular_sidecar/" in docs


def test_queries_do_not_grow_with_the_league(client: Client) -> None:
    small = make_league("Small", ["random"] * 3, rounds=1)
    large = make_league("Large", ["random"] * 7, rounds=2)

    def count(url: str) -> int:
        client.get(url)  # warm caches that are meant to be warm
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(url).status_code == 200
        return len(ctx.captured_queries)

    for template in (
        "/api/leagues/{}/standings/",
        "/leagues/{}/",
        "/api/matches/?league={}",
        "/matches/?league={}",
        "/bots/{}-1/",
        "/api/bots/{}-1/",
    ):
        n_small = count(template.format(small.slug))
        n_large = count(template.format(large.slug))
        assert n_small == n_large, (template, n_small, n_large)
        assert n_large <= 12, (template, n_large)

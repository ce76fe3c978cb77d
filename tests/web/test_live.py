"""A match being played shows the spectator's view only, and nothing private reaches any
response: every page and endpoint is scanned for the running match's hidden cards."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from arena.services import leagues as svc
from avenue_sdk.viewer.frames import OMNISCIENT, Perspective, frames
from referee.replay import record_game
from tests.web.helpers import find_leaks, make_live

pytestmark = pytest.mark.django_db


def every_response(client: Client, setup) -> dict[str, tuple[int, str]]:  # noqa: ANN001
    live, partner, league = setup.live, setup.partner, setup.league
    bots = [p.bot.name for p in live.participations.select_related("bot")]
    urls = [
        "/", f"/leagues/{league.slug}/", f"/leagues/{league.slug}/?round=1", "/matches/",
        f"/matches/?league={league.slug}", f"/matches/{live.pk}/", f"/matches/{partner.pk}/",
        "/api/leagues/", f"/api/leagues/{league.slug}/", f"/api/leagues/{league.slug}/standings/",
        "/api/bots/", "/api/matches/", "/api/matches/?status=running",
        f"/api/matches/{live.pk}/", f"/api/matches/{partner.pk}/",
        f"/api/matches/{live.pk}/replay/", f"/api/matches/{partner.pk}/replay/",
        f"/api/matches/{live.pk}/replay/?download=1",
        "/tv/", "/api/tv/", f"/tv/?ended={partner.pk}", f"/tv/?ended={live.pk}",
    ]  # fmt: skip
    for name in bots:
        urls += [f"/bots/{name}/", f"/api/bots/{name}/", f"/api/matches/?bot={name}",
                 f"/bots/{name}/tv/", f"/api/tv/?bot={name}"]  # fmt: skip
    for match in (live, partner):
        for perspective in ("spectator", "seat:0", "seat:1", "omniscient", "seat:9", ""):
            urls.append(f"/api/matches/{match.pk}/frames/?perspective={perspective}")
    out = {}
    for url in urls:
        response = client.get(url)
        out[url] = (response.status_code, response.content.decode())
    return out


def test_no_response_carries_a_running_matchs_hidden_cards(client: Client) -> None:
    setup = make_live()
    responses = every_response(client, setup)
    assert all(status < 500 for status, _ in responses.values())
    leaks = {url: find_leaks(body, setup.secrets) for url, (_, body) in responses.items()}
    assert {url: found for url, found in leaks.items() if found} == {}


def test_the_leak_scan_can_fail() -> None:
    """The scan finds the secrets in what an omniscient view of the live deal would say."""
    setup = make_live()
    from arena.adapters.play.matches import game_config
    from referee import new_game

    parts = list(setup.live.participations.order_by("seat"))
    deal = record_game(
        new_game(game_config(setup.league, setup.live, parts), setup.live.deck_seed), []
    )
    leaked = json.dumps(frames(deal, Perspective(OMNISCIENT)))
    assert find_leaks(leaked, setup.secrets)


def test_live_match_serves_the_spectator_deal_and_refuses_the_rest(client: Client) -> None:
    setup = make_live()
    url = f"/api/matches/{setup.live.pk}/frames/"
    data = client.get(url, {"perspective": "spectator"}).json()
    assert data["live"] is True and data["perspectives"] == ["spectator"]
    assert "decisions behind" in data["note"]
    assert len(data["frames"]) == 1  # claimed, not played: no decision recorded yet
    assert all(seat["hand"] is None for seat in data["frames"][0]["seats"])
    for perspective in ("seat:0", "seat:1", "omniscient"):
        response = client.get(url, {"perspective": perspective})
        assert response.status_code == 403
        assert response.json()["code"] == "live_match"
    replay = client.get(f"/api/matches/{setup.live.pk}/replay/")
    assert replay.status_code == 403 and "being played" in replay.json()["error"]
    page = client.get(f"/matches/{setup.live.pk}/").content.decode()
    assert 'data-live="true"' in page and "live-note" in page


def test_the_other_game_of_a_running_pair_is_withheld(client: Client) -> None:
    setup = make_live()
    for path in ("replay/", "frames/?perspective=spectator", "frames/?perspective=seat:0"):
        response = client.get(f"/api/matches/{setup.partner.pk}/{path}")
        assert response.status_code == 403, path
        assert response.json()["code"] == "replay_withheld"
    page = client.get(f"/matches/{setup.partner.pk}/").content.decode()
    assert "withheld-note" in page and 'id="viewer"' not in page
    detail = client.get(f"/api/matches/{setup.partner.pk}/").json()
    assert detail["replay"] == "withheld" and "deck_seed" not in detail


def test_once_the_pair_is_over_everything_is_shown(client: Client) -> None:
    from arena.models import Match, MatchStatus

    setup = make_live()
    Match.objects.filter(pk=setup.live.pk).update(status=MatchStatus.VOID)
    response = client.get(f"/api/matches/{setup.partner.pk}/frames/?perspective=omniscient")
    assert response.status_code == 200
    assert "deck" in response.json()["frames"][0]


def _result_free(summary: dict) -> bool:  # type: ignore[type-arg]
    seats_blank = all(
        s.get(k) is None
        for s in summary["seats"]
        for k in ("won", "rating_change", "rating_before", "rating_after", "decisions", "fault")
    )
    return (
        summary["withheld"] is True and summary["winner_team"] is None
        and summary["end_reason"] is None and summary["turns"] is None and seats_blank
    )  # fmt: skip


def test_the_finished_game_of_a_running_mirrored_pair_shows_no_result(client: Client) -> None:
    """Its result, turns, decisions and rating changes are withheld like its replay, on
    every page and API answer that would show them, until the pair is over."""
    from arena.models import Match, MatchStatus

    setup = make_live()
    partner = Match.objects.get(pk=setup.partner.pk)
    assert partner.winner_team is not None and partner.turns  # there is a result to hide
    change = partner.participations.order_by("seat")[0].rating_change
    assert change
    detail = client.get(f"/api/matches/{partner.pk}/").json()
    assert _result_free(detail) and detail["decisions"] is None and detail["duration_ms"] is None
    bots = [p.bot.name for p in partner.participations.select_related("bot")]
    for query in (f"league={setup.league.slug}", f"bot={bots[0]}", "status=finished", ""):
        listed = client.get(f"/api/matches/?{query}").json()["results"]
        mine = [s for s in listed if s["id"] == partner.pk]
        assert mine and _result_free(mine[0]), query
    page = client.get(f"/matches/{partner.pk}/").content.decode()
    assert 'id="match-result"' not in page and f"{partner.turns} turns" not in page
    assert f"({change:.1f})" not in page
    for url in (f"/matches/?league={setup.league.slug}", f"/leagues/{setup.league.slug}/"):
        body = client.get(url).content.decode()
        assert partner.get_end_reason_display() not in body, url
        assert "team A ·" not in body and "team B ·" not in body, url
    for name in bots:
        body = client.get(f"/bots/{name}/").content.decode()
        recent = body[body.index('id="recent"') :]
        assert ">won<" not in recent and ">lost<" not in recent, name
        assert f">{change:.1f}<" not in recent and f">{-change:.1f}<" not in recent, name

    # the pair is over: everything is shown, from the same (cached) summaries
    Match.objects.filter(pk=setup.live.pk).update(status=MatchStatus.VOID)
    detail = client.get(f"/api/matches/{partner.pk}/").json()
    assert detail["withheld"] is False and detail["winner_team"] == partner.winner_team
    assert detail["turns"] == partner.turns and detail["seats"][0]["rating_change"] == float(change)
    listed = client.get(f"/api/matches/?league={setup.league.slug}").json()["results"]
    assert [s["winner_team"] for s in listed if s["id"] == partner.pk] == [partner.winner_team]
    page = client.get(f"/matches/{partner.pk}/").content.decode()
    assert 'id="match-result"' in page


def test_independent_deals_withhold_nothing(client: Client) -> None:
    """By default a finished game's result and replay are out at once, whatever its
    partner does: the two share no deal."""
    from arena.adapters.play.matches import do_claim_match, play_match
    from arena.services.rounds import do_schedule_round

    league = svc.do_create_league(svc.LeagueSettings(name="Independent"))
    for i, spec in enumerate(["random", "greedy"]):
        svc.do_enter(league, svc.do_create_house_bot(f"{league.slug}-{i}", spec))
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    first, second = sorted(scheduled.matches)
    play_match(first)
    assert do_claim_match(second, "test-worker") is not None
    detail = client.get(f"/api/matches/{first}/").json()
    assert detail["replay"] == "available" and detail["withheld"] is False
    assert detail["winner_team"] is not None
    assert client.get(f"/api/matches/{first}/replay/").status_code == 200


def test_the_admin_shows_no_seed_of_an_unfinished_match(admin_client) -> None:  # type: ignore[no-untyped-def]
    from arena.models import Match, MatchStatus

    setup = make_live()
    running = admin_client.get(f"/admin/arena/match/{setup.live.pk}/change/")
    assert running.status_code == 200
    assert str(setup.live.deck_seed) not in running.content.decode()
    listing = admin_client.get("/admin/arena/match/").content.decode()
    assert str(setup.live.deck_seed) not in listing
    # nor the finished game of its mirrored pair (the same seed) until the pair is over;
    # then it may: the replay holds it anyway
    done = admin_client.get(f"/admin/arena/match/{setup.partner.pk}/change/").content.decode()
    assert str(setup.partner.deck_seed) not in done
    Match.objects.filter(pk=setup.live.pk).update(status=MatchStatus.VOID)
    done = admin_client.get(f"/admin/arena/match/{setup.partner.pk}/change/").content.decode()
    assert str(setup.partner.deck_seed) in done

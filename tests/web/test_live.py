"""A match being played shows the spectator's view only, and nothing private reaches any
response: every page and endpoint is scanned for the running match's hidden cards."""

from __future__ import annotations

import json

import pytest
from django.test import Client

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
    ]  # fmt: skip
    for name in bots:
        urls += [f"/bots/{name}/", f"/api/bots/{name}/", f"/api/matches/?bot={name}"]
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
    from arena.services.matches import game_config
    from referee import new_game

    parts = list(setup.live.participations.order_by("seat"))
    deal = record_game(new_game(game_config(setup.league, setup.live, parts),
                                setup.live.deck_seed), [])
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

"""Crafted input answers 400 with a clear message, never 500: a NUL in a query parameter
of the bot page or of any API endpoint, a bad league on a bot's analytics, a JSON body
nested 1,000 deep."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from arena.services.bots import create_bot
from leaderboard.api.parsers import MAX_DEPTH, nesting_depth

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("league", ["%00", "a%00b", "%ff", "x" * 81, "../x"])
def test_a_bad_league_parameter_on_the_bot_page_is_400(league: str) -> None:
    create_bot("b1")
    response = Client(raise_request_exception=False).get(f"/bots/b1/?league={league}")
    assert response.status_code == 400
    assert "league must be a league&#x27;s slug" in response.content.decode()


@pytest.mark.parametrize("league", ["%00", "a%00b", "%ff", "x" * 81, "../x", "two words"])
def test_a_bad_league_on_a_bot_s_analytics_is_400(league: str) -> None:
    """The endpoint looked the league up as given: a NUL reached PostgreSQL (a 500, found
    by the API fuzzer)."""
    create_bot("b1")
    client = Client(raise_request_exception=False)
    response = client.get(f"/api/bots/b1/analytics/?league={league}")
    assert response.status_code == 400, response.content
    error = response.json()["fields"]["league"][0]
    assert error.startswith("league must"), error


@pytest.mark.parametrize(
    "url",
    ["/api/matches/?league=a%00", "/api/bots/?owner=%00", "/api/leagues/?x=1&sort=%00"],
)
def test_a_nul_in_any_api_query_parameter_is_400(url: str) -> None:
    response = Client(raise_request_exception=False).get(url)
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid"


@pytest.mark.parametrize(
    "body",
    ["[" * 1000 + "]" * 1000, '{"a":' * 1000 + "1" + "}" * 1000, "[" * 100_000],
    ids=["arrays", "objects", "unclosed"],
)
def test_a_deeply_nested_json_body_is_400(body: str) -> None:
    response = Client(raise_request_exception=False).post(
        "/api/auth/token/", body, content_type="application/json"
    )
    assert response.status_code == 400, response.content
    assert (
        "nested" in response.json()["error"]
        and f"at most {MAX_DEPTH}" in (response.json()["error"])
    )


def test_ordinary_bodies_still_parse_and_brackets_in_strings_do_not_count() -> None:
    User.objects.create_user("deep", password="a-long-pass-phrase")
    password = "[[[[" * 20 + "a-long-pass-phrase"
    assert nesting_depth(f'{{"username": "deep", "password": "{password}"}}') == 1
    response = Client().post(
        "/api/auth/token/",
        {"username": "deep", "password": "a-long-pass-phrase"},
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    assert nesting_depth('[{"a": "\\"]]]", "b": [[1]]}]') == 4

"""One user can never see or change another's token or bot; tokens are shown once and
stored hashed; forms need CSRF; log-in and token endpoints are rate-limited."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from arena.models import Bot
from arena.services.bots import authenticate_token, hash_token
from leaderboard.models import ApiToken
from tests.web.helpers import make_league

pytestmark = pytest.mark.django_db


def api_client(username: str) -> tuple[Client, str]:
    User.objects.create_user(username, password="a-long-pass-phrase")
    client = Client()
    response = client.post(
        "/api/auth/token/",
        {"username": username, "password": "a-long-pass-phrase"},
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    key = response.json()["key"]
    return Client(HTTP_AUTHORIZATION=f"Token {key}"), key


def test_api_bot_lifecycle_and_someone_elses_bot() -> None:
    alice, alice_key = api_client("alice")
    bob, _ = api_client("bob")
    league = make_league("Open League", ["random", "greedy"], rounds=0, fit=False)

    created = alice.post("/api/bots/", {"name": "alice-bot"}, content_type="application/json")
    assert created.status_code == 201
    token = created.json()["token"]
    bot = Bot.objects.get(name="alice-bot")
    assert bot.owner is not None and bot.owner.username == "alice"
    stored = str(Bot.objects.filter(name="alice-bot").values().get())
    assert bot.token_hash == hash_token(token) and token not in stored
    assert authenticate_token(token) == bot
    assert not ApiToken.objects.filter(key_hash=alice_key).exists()  # hashed, not the key

    # the token is never shown again, to anyone; the prefix only to the owner
    for client in (alice, bob, Client()):
        body = client.get("/api/bots/alice-bot/").content.decode()
        assert token not in body
    assert alice.get("/api/bots/alice-bot/").json()["token_prefix"] == token[:10]
    assert "token_prefix" not in bob.get("/api/bots/alice-bot/").json()
    assert all("token_prefix" not in b for b in Client().get("/api/bots/").json()["results"])

    # bob can change nothing of alice's bot: 403 with a JSON message
    for method, url, data in [
        ("post", "/api/bots/alice-bot/token/", None),
        ("delete", "/api/bots/alice-bot/token/", None),
        ("post", "/api/bots/alice-bot/entries/", {"league": league.slug}),
        ("delete", f"/api/bots/alice-bot/entries/{league.slug}/", None),
    ]:
        response = getattr(bob, method)(url, data, content_type="application/json")
        assert response.status_code == 403, (url, response.content)
        assert response.json() == {"error": "bot alice-bot is not yours", "code": "not_owner"}
        anonymous = getattr(Client(), method)(url, data, content_type="application/json")
        assert anonymous.status_code == 401 and "error" in anonymous.json()
    assert Bot.objects.get(name="alice-bot").token_hash == hash_token(token)
    assert not bot.entries.exists()

    # unknown bots and leagues are 404s
    assert bob.post("/api/bots/nobody/token/").status_code == 404
    missing = alice.post(
        "/api/bots/alice-bot/entries/", {"league": "nope"}, content_type="application/json"
    )
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"

    # alice: enter, refuse a second entry (400), leave, rotate, revoke
    entered = alice.post(
        "/api/bots/alice-bot/entries/", {"league": league.slug}, content_type="application/json"
    )
    assert entered.status_code == 201
    again = alice.post(
        "/api/bots/alice-bot/entries/", {"league": league.slug}, content_type="application/json"
    )
    assert again.status_code == 409 and "already entered" in again.json()["error"]
    assert alice.delete(f"/api/bots/alice-bot/entries/{league.slug}/").status_code == 200
    rotated = alice.post("/api/bots/alice-bot/token/")
    assert rotated.status_code == 200
    new = rotated.json()["token"]
    assert authenticate_token(token) is None and authenticate_token(new) is not None
    assert alice.delete("/api/bots/alice-bot/token/").status_code == 204
    assert authenticate_token(new) is None

    me = bob.get("/api/me/").json()
    assert me["username"] == "bob" and me["bots"] == []


def test_pages_show_the_token_once_and_refuse_other_users(client: Client) -> None:
    User.objects.create_user("carol", password="a-long-pass-phrase")
    User.objects.create_user("dave", password="a-long-pass-phrase")
    assert client.get("/my/bots/").status_code == 302  # log in first
    client.login(username="carol", password="a-long-pass-phrase")
    created = client.post("/my/bots/", {"name": "carol-bot"})
    assert created.status_code == 200
    token = created.context["token"]
    assert token.startswith("aat_") and token in created.content.decode()
    assert "no-store" in created["Cache-Control"] or "no-cache" in created["Cache-Control"]
    for url in ("/my/bots/", "/my/bots/carol-bot/", "/bots/carol-bot/"):
        page = client.get(url)
        assert page.status_code == 200 and token not in page.content.decode()
        assert token[:10] in client.get("/my/bots/carol-bot/").content.decode()

    other = Client()
    other.login(username="dave", password="a-long-pass-phrase")
    assert other.get("/my/bots/carol-bot/").status_code == 403
    for action in ("rotate", "revoke"):
        assert other.post(f"/my/bots/carol-bot/{action}/").status_code == 403
    assert other.post("/my/bots/carol-bot/enter/", {"league": "x"}).status_code == 403
    assert other.get("/my/bots/nobody/").status_code == 404
    assert token[:10] not in other.get("/bots/carol-bot/").content.decode()
    assert authenticate_token(token) is not None

    rotated = client.post("/my/bots/carol-bot/rotate/")
    new = rotated.context["token"]
    assert new != token and authenticate_token(token) is None


def test_forms_need_csrf() -> None:
    User.objects.create_user("erin", password="a-long-pass-phrase")
    strict = Client(enforce_csrf_checks=True)
    strict.login(username="erin", password="a-long-pass-phrase")
    assert strict.post("/my/bots/", {"name": "x-bot"}).status_code == 403
    api = strict.post("/api/bots/", {"name": "x-bot"}, content_type="application/json")
    assert api.status_code == 403 and "CSRF" in api.json()["error"]
    assert not Bot.objects.filter(name="x-bot").exists()
    login_page = Client(enforce_csrf_checks=True).get("/accounts/login/").content.decode()
    assert "csrfmiddlewaretoken" in login_page


def test_log_in_and_token_endpoints_are_rate_limited(settings) -> None:  # noqa: ANN001
    settings.LOGIN_RATE_LIMIT = 3
    User.objects.create_user("frank", password="a-long-pass-phrase")
    client = Client()
    codes = [
        client.post("/accounts/login/", {"username": "frank", "password": "wrong"}).status_code
        for _ in range(5)
    ]
    assert codes[:3] == [200, 200, 200] and codes[3:] == [429, 429]
    api = Client()
    answers = [
        api.post("/api/auth/token/", {"username": "frank", "password": "wrong"},
                 content_type="application/json")
        for _ in range(12)
    ]  # fmt: skip
    assert [a.status_code for a in answers[:10]] == [400] * 10
    assert answers[10].status_code == 429 and answers[10].json()["code"] == "throttled"


def test_signup_logs_in_and_leads_to_my_bots(client: Client) -> None:
    response = client.post(
        "/accounts/signup/",
        {"username": "gina", "password1": "a-long-pass-phrase", "password2": "a-long-pass-phrase"},
        follow=True,
    )
    assert response.status_code == 200
    assert response.redirect_chain[-1][0] == "/my/bots/"
    assert "You have no bot yet" in response.content.decode()

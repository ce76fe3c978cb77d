"""One bot name rule everywhere (``arena.names``): the site form, the API, the
``bot`` command, the URL converter, the services and the database refuse the same names
with the same message; the migration renames old invalid names (see
tests/foundation/test_bot_name_migration.py)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction
from django.test import Client

from arena import names
from arena.models import Bot
from arena.services.bots import BotError, create_bot

pytestmark = pytest.mark.django_db

BAD = ["г1", "ｒ１", ".", "..", ".hidden", "", "a" * 65, "tab\tbot", "new\n", "a/b", "a b"]
GOOD = ["r1", "-x", "_", "v1.2", "a.b-c_d", "a" * 64]


@pytest.mark.parametrize("name", BAD)
def test_the_rule_refuses(name: str) -> None:
    assert not names.is_valid(name)
    with pytest.raises(names.BotNameError, match="ASCII letters"):
        names.check(name)
    with pytest.raises(BotError, match="not starting with '.'"):
        create_bot(name)


@pytest.mark.parametrize("name", GOOD)
def test_the_rule_accepts(name: str) -> None:
    names.check(name)
    assert create_bot(name)[0].name == name


def logged_in(username: str = "namer") -> Client:
    user = User.objects.create_user(username, password="a-long-pass-phrase")
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("name", ["г1", "ｒ１", ".", ".."])
def test_the_site_form_refuses_with_the_rule_and_my_bots_still_works(name: str) -> None:
    client = logged_in()
    response = client.post("/my/bots/", {"name": name})
    assert response.status_code == 400
    assert "ASCII letters, digits" in response.content.decode()
    assert not Bot.objects.exists()
    assert client.get("/my/bots/").status_code == 200


@pytest.mark.parametrize("name", ["г1", "ｒ１", ".", ".."])
def test_the_api_refuses_with_the_rule(name: str) -> None:
    response = logged_in().post("/api/bots/", {"name": name}, content_type="application/json")
    assert response.status_code == 400, response.content
    assert "ASCII letters, digits" in response.content.decode()
    assert not Bot.objects.exists()


@pytest.mark.parametrize("name", ["г1", "ｒ１", ".", ".."])
def test_the_command_refuses_with_the_rule(name: str) -> None:
    with pytest.raises(CommandError, match="ASCII letters, digits"):
        call_command("bot", "create", name)


@pytest.mark.parametrize("name", ["г1", "ｒ１", ".", "..", ".x"])
def test_urls_with_such_names_are_404_not_500(client: Client, name: str) -> None:
    for url in (f"/bots/{name}/", f"/api/bots/{name}/", f"/my/bots/{name}/"):
        assert logged_in(f"u{abs(hash(url))}").get(url).status_code == 404, url


def test_the_database_refuses_what_bypasses_the_services() -> None:
    for name in ("г1", "..", "new\n"):
        with pytest.raises(IntegrityError), transaction.atomic():
            Bot.objects.create(name=name)


def test_the_admin_form_validates_the_rule_too() -> None:
    bot = Bot(name="ｒ１")
    with pytest.raises(Exception, match="ASCII letters"):
        bot.full_clean()

"""Bots and tokens: shown once, stored hashed, rotated and revoked."""

from __future__ import annotations

import hashlib

import pytest
from django.core.management import call_command
from django.db import IntegrityError

from arena.models import Bot, BotKind
from arena.services import bots

pytestmark = pytest.mark.django_db


def test_a_token_is_stored_only_as_its_hash() -> None:
    bot, token = bots.create_bot("alpha")
    assert token is not None and token.startswith("aat_") and len(token) >= 4 + 43
    assert bot.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token not in {bot.token_hash, bot.token_prefix}
    assert token.startswith(bot.token_prefix)
    assert bots.authenticate_token(token) == bot
    assert bots.authenticate_token(token + "x") is None
    assert bots.authenticate_token("not even a token") is None


def test_rotate_and_revoke() -> None:
    bot, old = bots.create_bot("beta")
    assert old is not None
    new = bots.rotate_token(bot)
    assert new != old
    assert bots.authenticate_token(old) is None
    assert bots.authenticate_token(new) == bot
    bots.revoke_token(bot)
    assert bots.authenticate_token(new) is None
    assert bot.token_hash is None


def test_inactive_and_house_bots_never_authenticate() -> None:
    bot, token = bots.create_bot("gamma")
    assert token is not None
    Bot.objects.filter(pk=bot.pk).update(active=False)
    assert bots.authenticate_token(token) is None
    house, none = bots.create_bot("greedy", kind=BotKind.HOUSE)
    assert none is None and house.token_hash is None
    with pytest.raises(bots.BotError, match="is a house bot: it plays inside the arena"):
        bots.rotate_token(house)
    # a hosted bot is not a house bot: it is told what it is, and where its code goes
    hosted, none = bots.create_bot("uploaded", kind=BotKind.HOSTED)
    assert none is None
    with pytest.raises(bots.BotError, match=r"uploaded is a hosted bot: .* \(upload a new version"):
        bots.rotate_token(hosted)


def test_names_are_checked() -> None:
    bots.create_bot("delta")
    with pytest.raises(bots.BotError, match="already exists"):
        bots.create_bot("delta")
    with pytest.raises(bots.BotError, match="bad bot name"):
        bots.create_bot("no spaces")
    with pytest.raises(IntegrityError):
        Bot.objects.create(name="delta")


def test_hello_is_recorded() -> None:
    bot, _ = bots.create_bot("epsilon")
    bots.record_hello(str(bot.pk), protocol_version=1, bot_version="v2")
    bot.refresh_from_db()
    assert (bot.protocol_version, bot.bot_version) == (1, "v2")
    assert bot.last_seen_at is not None


def test_bot_command(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("bot", "create", "zeta")
    token = capsys.readouterr().out.strip().splitlines()[-1]
    assert bots.authenticate_token(token) is not None
    call_command("bot", "rotate", "zeta")
    assert bots.authenticate_token(token) is None
    call_command("bot", "revoke", "zeta")
    call_command("bot", "list")
    assert "zeta" in capsys.readouterr().out

"""A bot's page says when it connected, not "last seen": the time it records is its
stream's Hello (``arena.services.bots.record_hello``), not its last decision."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import Client

from arena.models import Bot
from tests.protocol.harness import Arena, wait_for

RANDOM = "avenue_sdk.examples.random_bot:RandomBot"
pytestmark = pytest.mark.processes


def test_the_bot_page_says_connected_since_then_last_connected(arena: Arena, settings: Any) -> None:
    settings.RELAY_PREFIX = arena.prefix  # the page reads the presence this arena keeps
    before = dt.datetime.now(dt.UTC).replace(second=0, microsecond=0)
    bot = arena.sdk_bot("presence-bot", RANDOM)
    seen = lambda: Bot.objects.get(name="presence-bot").last_seen_at  # noqa: E731
    wait_for(lambda: seen() is not None, 30, "the Hello's record")
    hello = seen()
    assert hello is not None
    assert hello >= before
    stamp = hello.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M")
    page = Client().get("/bots/presence-bot/").content.decode()
    assert "connected now" in page and f"connected since {stamp} UTC" in page
    assert "last seen" not in page

    bot.proc.terminate()
    bot.proc.wait(30)
    bot_id = arena.bot_id("presence-bot")
    wait_for(lambda: not arena.relay.is_connected(bot_id), 30, "the stream to close")
    page = Client().get("/bots/presence-bot/").content.decode()
    assert "not connected" in page and f"last connected {stamp} UTC" in page
    assert "connected since" not in page and "last seen" not in page

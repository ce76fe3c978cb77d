"""Bots and their tokens.

A token is shown once, at creation or rotation; only its sha256 is stored. The gateway
calls ``authenticate_token`` for every new stream.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from arena import names
from arena.models import Bot, BotKind, BotVersion
from arena.signals import token_revoked

if TYPE_CHECKING:
    from django.contrib.auth.models import User

#: tokens look like ``aat_<43 url-safe characters>`` (32 random bytes)
TOKEN_PREFIX = "aat_"
#: characters kept in Bot.token_prefix for display: "aat_" plus 6 of the random part
DISPLAY_CHARS = 10


class BotError(ValueError):
    """A request about bots that cannot be carried out (unknown bot, name taken, ...)."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def check_bot_name(name: str) -> None:
    """The name keeps the rule (``arena.names``) and is free."""
    try:
        names.check(name)
    except names.BotNameError as exc:
        raise BotError(str(exc)) from None
    if Bot.objects.filter(name=name).exists():
        raise BotError(f"a bot named {name!r} already exists")


def create_bot(
    name: str,
    *,
    owner: User | None = None,
    kind: BotKind = BotKind.REMOTE,
) -> tuple[Bot, str | None]:
    """Create a bot; returns it with its plaintext token (None for a house bot, which
    never connects)."""
    check_bot_name(name)
    bot = Bot(name=name, owner=owner, kind=kind)
    token = None
    if kind == BotKind.REMOTE:
        token = _new_token()
        bot.token_hash = hash_token(token)
        bot.token_prefix = token[:DISPLAY_CHARS]
    bot.save()
    return bot, token


def get_bot(name: str) -> Bot:
    try:
        return Bot.objects.get(name=name)
    except Bot.DoesNotExist:
        raise BotError(f"no bot named {name!r}") from None


@transaction.atomic
def rotate_token(bot: Bot) -> str:
    """Give ``bot`` a new token; the old one stops working at once, and the streams it
    opened are ended on every gateway once this commits."""
    if bot.kind == BotKind.HOSTED:
        raise BotError(
            f"{bot.name} is a hosted bot: the arena runs its uploaded code on the bot host's "
            "stream, so it has no token of its own (upload a new version to change it)"
        )
    if bot.kind != BotKind.REMOTE:
        raise BotError(f"{bot.name} is a house bot: it plays inside the arena and has no token")
    token = _new_token()
    Bot.objects.filter(pk=bot.pk).update(
        token_hash=hash_token(token), token_prefix=token[:DISPLAY_CHARS]
    )
    bot.refresh_from_db(fields=["token_hash", "token_prefix"])
    _end_streams(bot, "the bot's token was rotated: connect with the new token")
    return token


@transaction.atomic
def revoke_token(bot: Bot) -> None:
    """No token opens a stream for ``bot`` until ``rotate_token``; the streams already
    open are ended on every gateway once this commits."""
    Bot.objects.filter(pk=bot.pk).update(token_hash=None, token_prefix="")
    bot.refresh_from_db(fields=["token_hash", "token_prefix"])
    _end_streams(bot, "the bot's token was revoked")


def _end_streams(bot: Bot, reason: str) -> None:
    # After the commit: a gateway re-checking the token must already see the change.
    bot_id = bot.pk
    transaction.on_commit(lambda: token_revoked.send(sender=Bot, bot_id=bot_id, reason=reason))


@dataclass(frozen=True)
class BotIdentity:
    """What the gateway needs to know about an authenticated bot (no ORM object)."""

    bot_id: str
    name: str
    #: its stream is held by a bot host (``arena.hosting``), so losing it is the arena's fault
    hosted: bool = False


def authenticate_token(token: str) -> Bot | None:
    """The active remote bot this token belongs to, or None (unknown, revoked, inactive).
    A hosted bot's token is issued to the bot host that holds its stream, never to its code
    (``arena.hosting.services.issue_host_token``)."""
    if not token.startswith(TOKEN_PREFIX):
        return None
    return Bot.objects.filter(
        token_hash=hash_token(token), active=True, kind__in=[BotKind.REMOTE, BotKind.HOSTED]
    ).first()


def record_hello(bot_id: str, *, protocol_version: int, bot_version: str) -> None:
    """Remember what the bot's last Hello said, and that it was seen now; the version
    history on the bot's page (``BotVersion``) gets it too."""
    # the bot chooses this string: PostgreSQL refuses NUL in text (found by fuzzing)
    bot_version = bot_version.replace("\x00", "")[:100]
    now = timezone.now()
    known = Bot.objects.filter(pk=bot_id).update(
        protocol_version=protocol_version,
        bot_version=bot_version,
        last_seen_at=now,
    )
    if known:
        record_version(bot_id, bot_version, protocol_version, now)


def record_version(bot_id: str | int, version: str, protocol_version: int, now: datetime) -> None:
    """Count one Hello of this version (idempotent row per version; concurrent Hellos of
    one bot may race on the first insert, which the unique constraint settles)."""
    updated = BotVersion.objects.filter(
        bot_id=bot_id, version=version, protocol_version=protocol_version
    ).update(last_seen=now, hellos=F("hellos") + 1)
    if not updated:
        BotVersion.objects.get_or_create(
            bot_id=bot_id,
            version=version,
            protocol_version=protocol_version,
            defaults={"first_seen": now, "last_seen": now},
        )


def record_seen(bot_id: str) -> None:
    Bot.objects.filter(pk=bot_id).update(last_seen_at=timezone.now())

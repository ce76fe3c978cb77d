"""A user's own bots, as the web site and the API offer them: the permission checks in
front of ``arena.services.bots`` (tokens) and ``arena.services.leagues`` (entries).

``check_*`` functions look things up and authorize; they raise ``NotFound`` (no such bot or
league: the views answer 404), ``NotOwner`` (someone else's bot: 403) or the domain's own
``BotError`` / ``LeagueError`` (a refusal: 400). ``do_*`` functions change the database
through the existing services. Nothing here knows about HTTP.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction

from arena.models import Bot, BotKind, Entry, League, LeagueStatus
from arena.services import bots as bot_services
from arena.services import leagues as league_services
from arena.services.errors import LeagueError

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

    User = AbstractBaseUser | AnonymousUser

#: bots one user may own (a guard against scripted sign-ups filling the table)
MAX_BOTS_PER_USER = 20


class NotFound(LookupError):
    """No bot or league of that name."""


class NotOwner(PermissionError):
    """The bot exists but belongs to someone else (or the user is not logged in)."""


def find_bot(name: str) -> Bot:
    bot = Bot.objects.select_related("owner").filter(name=name).first()
    if bot is None:
        raise NotFound(f"no bot named {name!r}")
    return bot


def find_league(slug: str) -> League:
    league = League.objects.filter(slug=slug).first()
    if league is None:
        raise NotFound(f"no league {slug!r}")
    return league


def check_owner(user: User, bot: Bot) -> None:
    if not user.is_authenticated or bot.owner_id != user.pk:
        raise NotOwner(f"bot {bot.name} is not yours")


def owned_bot(user: User, name: str) -> Bot:
    """The user's bot of that name: ``NotFound`` / ``NotOwner`` otherwise."""
    bot = find_bot(name)
    check_owner(user, bot)
    return bot


def my_bots(user: User) -> list[Bot]:
    if not user.is_authenticated:
        return []
    return list(Bot.objects.filter(owner_id=user.pk).order_by("name"))


def check_can_create(user: User, name: str) -> None:
    if not user.is_authenticated:
        raise NotOwner("log in to create a bot")
    if Bot.objects.filter(owner_id=user.pk).count() >= MAX_BOTS_PER_USER:
        raise bot_services.BotError(
            f"you have {MAX_BOTS_PER_USER} bots already, the most one account may own"
        )
    bot_services.check_bot_name(name)


@transaction.atomic
def do_create_bot(user: User, name: str) -> tuple[Bot, str]:
    """A remote bot owned by ``user`` and its token (shown once: only a hash is kept)."""
    check_can_create(user, name)
    bot, token = bot_services.create_bot(name, owner=user, kind=BotKind.REMOTE)  # type: ignore[arg-type]
    assert token is not None
    return bot, token


def do_rotate_token(user: User, bot: Bot) -> str:
    check_owner(user, bot)
    return bot_services.rotate_token(bot)


def do_revoke_token(user: User, bot: Bot) -> None:
    check_owner(user, bot)
    bot_services.revoke_token(bot)


def open_leagues() -> list[League]:
    """Leagues a bot may enter now."""
    return list(
        League.objects.filter(open_for_entries=True)
        .exclude(status=LeagueStatus.FINISHED)
        .order_by("name")
    )


def can_play(bot: Bot) -> bool:
    """Whether the bot could play a match now: a hosted bot needs a version that passed its
    sandbox check and plays (a dial-in bot plays whenever it is connected)."""
    if bot.kind != BotKind.HOSTED:
        return True
    return bool(bot.code_versions.filter(active=True).exists())  # type: ignore[attr-defined]


def do_enter_league(user: User, bot: Bot, league: League) -> Entry:
    check_owner(user, bot)
    if not can_play(bot):
        raise LeagueError(
            f"{bot.name} has no version that passed its check yet: upload one and wait for "
            "it to be ready (a league would only count its matches as no-shows)",
            "bot",
        )
    return league_services.do_enter(league, bot)


def do_leave_league(user: User, bot: Bot, league: League) -> None:
    check_owner(user, bot)
    league_services.do_withdraw(league, bot)


def entered_league_ids(bot: Bot) -> set[int]:
    return set(Entry.objects.filter(bot=bot, active=True).values_list("league_id", flat=True))

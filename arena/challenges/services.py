"""Challenges: who may ask for one (``check_*``), making one (``do_*``), and the hook that
puts challenge games behind league play in the queue.

A challenge is one round of the hidden, unrated league of its mode (``hidden_league``):
its ``games`` matches and their participations are written in one transaction, the round's
pending count kept as the scheduler keeps it, so claims, leases, exactly-once results,
replays, the live view and round completion are the league machinery's own. Nothing here
knows about HTTP: refusals are exceptions the views translate (``ChallengeError`` 400,
``NotAccepting`` 403, ``QuotaExceeded`` 429, ``owned_bots.NotOwner`` 403,
``owned_bots.NotFound`` 404).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from arena import notify
from arena.challenges import reads
from arena.challenges.models import Challenge, ChallengeKind, ChallengeLeague, ChallengeSetting
from arena.deals import first_team_of, new_seed
from arena.dispatch import dispatcher, enqueue_round
from arena.models import (
    Bot,
    BotKind,
    Entry,
    League,
    LeagueMode,
    LeagueStatus,
    Match,
    Participation,
    Round,
    RoundStatus,
)
from arena.ratings.models import LiveRating
from arena.services import owned_bots

if TYPE_CHECKING:
    from arena.services.owned_bots import User

logger = logging.getLogger(__name__)

#: the day a quota counts over (a rolling window, as a rate limit)
QUOTA_WINDOW = timedelta(days=1)


class ChallengeError(ValueError):
    """A challenge that cannot be made as asked (400)."""


class NotAccepting(PermissionError):
    """The opponent's owner does not accept challenges (403)."""


class QuotaExceeded(ChallengeError):
    """The requester has used the day's challenges (429); ``retry_after``: seconds until
    the oldest of them leaves the window."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


# ------------------------------------------------------------------ settings of a bot


def accepts(bot: Bot) -> bool:
    """Whether others may challenge the bot: its owner's setting (off by default); an
    ownerless house bot, one of the arena's sparring partners, accepts unless a row says no."""
    row = ChallengeSetting.objects.filter(bot=bot).first()
    if row is not None:
        return row.accepts
    return bot.kind == BotKind.HOUSE and bot.owner_id is None


def accepting(bot_ids: Sequence[int]) -> set[int]:
    """Of these bots, those whose owners accept challenges (one statement)."""
    return set(
        ChallengeSetting.objects.filter(bot_id__in=bot_ids, accepts=True).values_list(
            "bot_id", flat=True
        )
    )


def do_set_accepts(user: User, bot: Bot, value: bool) -> None:
    owned_bots.check_owner(user, bot)
    ChallengeSetting.objects.update_or_create(bot=bot, defaults={"accepts": value})


# ------------------------------------------------------------------ the hidden leagues


def hidden_league(mode: str) -> League:
    """The unrated league the challenges of ``mode`` are played in, made the first time
    (two makers racing: the unique mode lets one win, the other reads its league)."""
    found = ChallengeLeague.objects.select_related("league").filter(mode=mode).first()
    if found is not None:
        return found.league
    try:
        with transaction.atomic():
            league = League.objects.create(
                name=f"Challenges ({mode})",
                slug=f"challenges-{mode}",
                description="Challenge matches and sparring runs: asked for by bots' "
                "owners, unrated, never scheduled (docs/challenges.md).",
                mode=mode,
                seats=2,
                rated=False,
                open_for_entries=False,
                # no round is ever started for it; the challenges' matches still run
                status=LeagueStatus.PAUSED,
            )
            ChallengeLeague.objects.create(league=league, mode=mode)
            return league
    except IntegrityError:
        found = ChallengeLeague.objects.select_related("league").filter(mode=mode).first()
        if found is None:  # not a racing maker: a league of that name or slug exists
            raise ChallengeError(
                f"this arena has a league named like the challenges' own (challenges-{mode}); "
                "its operator must rename it before challenges can be played"
            ) from None
        return found.league


def challenge_league_ids() -> set[int]:
    return set(ChallengeLeague.objects.values_list("league_id", flat=True))


def challenge_matches(match_ids: Sequence[int]) -> bool:
    """The dispatch port's question (``arena.dispatch.deferred``): are these challenge
    games (sent at the low priority, behind league play)? Asked before every match message,
    so one plain statement on the primary key (the ORM's compilation of the same join cost
    more than its answer: bench/challenge_dispatch.py)."""
    ids = [int(i) for i in match_ids]
    if not ids:
        return False
    marks = ", ".join(["%s"] * len(ids))
    sql = (
        f"SELECT 1 FROM {Match._meta.db_table} m"
        f" JOIN {ChallengeLeague._meta.db_table} c ON c.league_id = m.league_id"
        f" WHERE m.id IN ({marks}) LIMIT 1"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, ids)
        return cursor.fetchone() is not None


# ------------------------------------------------------------------ checks


def max_games() -> int:
    return int(settings.CHALLENGE_MAX_GAMES)


def check_games(games: int) -> None:
    cap = max_games()
    if not 1 <= games <= cap or games % 2 == 0:
        raise ChallengeError(
            f"games must be an odd number from 1 to {cap} (a best-of-N), not {games}"
        )


def check_mode(mode: str) -> None:
    if mode not in LeagueMode.values:
        raise ChallengeError(f"mode must be one of {', '.join(LeagueMode.values)}, not {mode!r}")


def _online(bot: Bot, online: Mapping[int, bool | None]) -> bool:
    """House bots always play; another bot is offline only when the relay says so
    (unknown presence is given the benefit of the doubt)."""
    return bot.kind == BotKind.HOUSE or online.get(bot.pk) is not False


def check_challenge(
    user: User,
    bot: Bot,
    opponent: Bot,
    games: int,
    mode: str,
    online: Mapping[int, bool | None],
) -> None:
    """Whether ``user`` may have ``bot`` (theirs) play ``opponent`` a best-of-``games``.
    A bot that is not connected is refused, as lichess refuses a challenge to a bot that
    is offline: nothing waits for it (``online``: presence by bot id, from the relay)."""
    owned_bots.check_owner(user, bot)
    check_games(games)
    check_mode(mode)
    if opponent.pk == bot.pk:
        raise ChallengeError(f"{bot.name} cannot challenge itself")
    if opponent.owner_id is not None and opponent.owner_id == bot.owner_id:
        raise ChallengeError(
            f"{opponent.name} is yours too: a challenge is against someone else's bot "
            "(test your own versions with a version test)"
        )
    for b in (bot, opponent):
        if not b.active:
            raise ChallengeError(f"{b.name} is deactivated and plays no match")
    if not accepts(opponent):
        raise NotAccepting(f"{opponent.name}'s owner does not accept challenges")
    if not _online(bot, online):
        raise ChallengeError(
            f"your bot {bot.name} is not connected; connect it, then challenge (nothing waits "
            "for an offline bot)"
        )
    if not _online(opponent, online):
        raise ChallengeError(
            f"{opponent.name} is not connected; challenge it when it is online (as on "
            "lichess, a challenge is not queued for an offline bot)"
        )


def check_quota(user: User, wanted: int = 1) -> None:
    """``wanted`` more challenges within the user's day (``CHALLENGES_PER_DAY``), or a
    refusal saying when the next one is possible. Call it with the user's row locked."""
    limit = int(settings.CHALLENGES_PER_DAY)
    since = timezone.now() - QUOTA_WINDOW
    recent = list(
        Challenge.objects.filter(requester_id=user.pk, created_at__gte=since)
        .order_by("created_at")
        .values_list("created_at", flat=True)
    )
    if len(recent) + wanted <= limit:
        return
    # the challenge whose leaving the window frees enough room for ``wanted`` more
    index = max(0, len(recent) + wanted - limit - 1)
    frees_at = recent[index] + QUOTA_WINDOW if index < len(recent) else timezone.now()
    wait = max(1, math.ceil((frees_at - timezone.now()).total_seconds()))
    hours, rest = divmod(wait, 3600)
    when = f"{hours} h {rest // 60} min" if hours else f"{max(1, rest // 60)} min"
    raise QuotaExceeded(
        f"you have used your {limit} challenges of the last 24 hours"
        + (f" ({wanted} asked now)" if wanted > 1 else "")
        + f"; the next one is possible in {when}",
        wait,
    )


# ------------------------------------------------------------------ making them


def _entry(league: League, bot: Bot) -> Entry:
    """The bot's (inactive) entry in the hidden league: participations need one; it is
    never scheduled (the league is not), and its rating row stays at its start (unrated)."""
    entry, _ = Entry.objects.get_or_create(league=league, bot=bot, defaults={"active": False})
    LiveRating.objects.get_or_create(league=league, bot=bot)
    return entry


def _write(
    user: User,
    bot: Bot,
    opponent: Bot,
    games: int,
    league: League,
    kind: ChallengeKind,
) -> Challenge:
    """The challenge's round, matches and seats, in the caller's transaction; the games
    are sent on commit (in embedded mode the loop that plays challenges takes them:
    ``arena.adapters.management.demo_challenges``). Locks the hidden league's row to
    number the round."""
    league = League.objects.select_for_update().get(pk=league.pk)
    last = league.rounds.order_by("-number").values_list("number", flat=True).first()
    rnd = Round.objects.create(
        league=league,
        number=(last or 0) + 1,
        status=RoundStatus.PLAYING,
        scheduled_matches=games,
        pending_matches=games,
    )
    ours, theirs = _entry(league, bot), _entry(league, opponent)
    version = None
    if bot.kind == BotKind.HOSTED:
        from arena.hosting.services import active_version

        version = active_version(bot)
    challenge = Challenge.objects.create(
        requester=user,  # type: ignore[misc]
        bot=bot,
        opponent=opponent,
        kind=kind,
        games=games,
        league=league,
        round=rnd,
        code_version=version,
    )
    now = timezone.now()
    send = not dispatcher().in_process
    matches = []
    for i in range(games):
        seed = new_seed()
        matches.append(
            Match(
                league=league,
                round=rnd,
                pairing_key=f"challenge-{challenge.pk}",
                pair_index=i // 2,
                # teams alternate: the requester's bot is team A in the odd-numbered games
                mirror=i % 2,
                deck_seed=seed,
                first_team=first_team_of(seed),
                enqueued_at=now if send else None,
            )
        )
    matches = Match.objects.bulk_create(matches)
    seats = []
    for match in matches:
        a, b = (ours, theirs) if match.mirror == 0 else (theirs, ours)
        for team, entry in enumerate((a, b)):
            seats.append(
                Participation(
                    match=match,
                    league=league,
                    entry=entry,
                    bot_id=entry.bot_id,
                    seat=team,
                    team=team,
                )
            )
    Participation.objects.bulk_create(seats)
    if send:
        house = bot.kind == BotKind.HOUSE and opponent.kind == BotKind.HOUSE
        enqueue_round([m.pk for m in matches], house_only=house)
    logger.info(
        "challenge %d: %s v %s, best of %d (%s), matches %s",
        challenge.pk, bot.name, opponent.name, games, kind, [m.pk for m in matches],
    )  # fmt: skip
    if kind == ChallengeKind.CHALLENGE:
        _challenge_received(challenge)
    return challenge


def _lock_user(user: User) -> None:
    """One requester's challenges one after the other: the quota counts what is committed."""
    get_user_model().objects.select_for_update().filter(pk=user.pk or 0).first()


def do_challenge(
    user: User,
    bot: Bot,
    opponent: Bot,
    games: int = 1,
    mode: str = LeagueMode.SIMPLE,
    *,
    online: Mapping[int, bool | None] | None = None,
) -> Challenge:
    """Check, count against the quota, and write the challenge (sent on commit)."""
    with transaction.atomic():
        check_challenge(user, bot, opponent, games, mode, online or {})
        _lock_user(user)
        check_quota(user)
        return _write(user, bot, opponent, games, hidden_league(mode), ChallengeKind.CHALLENGE)


def house_bots() -> list[Bot]:
    """The arena's sparring partners: active, ownerless house bots that accept challenges."""
    found = list(Bot.objects.filter(kind=BotKind.HOUSE, owner__isnull=True, active=True))
    refused = set(
        ChallengeSetting.objects.filter(bot__in=found, accepts=False).values_list(
            "bot_id", flat=True
        )
    )
    return [b for b in found if b.pk not in refused]


def check_spar(
    user: User, bot: Bot, games: int, online: Mapping[int, bool | None] | None = None
) -> list[Bot]:
    owned_bots.check_owner(user, bot)
    check_games(games)
    if bot.kind != BotKind.HOSTED:
        raise ChallengeError(
            f"{bot.name} is not a hosted bot: sparring plays a hosted bot's current version "
            "(challenge a house bot from its page instead)"
        )
    from arena.hosting.services import active_version

    if active_version(bot) is None:
        raise ChallengeError(f"{bot.name} has no checked version yet: upload one first")
    if not _online(bot, online or {}):
        raise ChallengeError(
            f"no bot host serves {bot.name} now, so it cannot play; try again when one runs"
        )
    partners = house_bots()
    if not partners:
        raise ChallengeError("this arena has no house bot to spar with")
    return partners


def do_spar(
    user: User,
    bot: Bot,
    games: int = 1,
    *,
    mode: str = LeagueMode.SIMPLE,
    online: Mapping[int, bool | None] | None = None,
) -> list[Challenge]:
    """ "Play my new version against the house bots now": a best-of-``games`` against each
    house bot, unrated, each counted against the quota."""
    with transaction.atomic():
        partners = check_spar(user, bot, games, online)
        _lock_user(user)
        check_quota(user, len(partners))
        league = hidden_league(mode)
        return [_write(user, bot, p, games, league, ChallengeKind.SPARRING) for p in partners]


def _challenge_received(challenge: Challenge) -> None:
    """Inside the challenge's transaction: its opponent's owner is told
    (``arena.notify.emit``: an outbox row written with the challenge, delivered after its
    commit; nothing if the challenge is rolled back, or the opponent has no owner)."""
    notify.emit(
        challenge.opponent_id,
        "challenge",
        reads.payload(challenge),
        key=f"challenge-{challenge.pk}",
    )
    logger.info(
        "challenge %d received by %s (from %s)",
        challenge.pk, challenge.opponent_id, challenge.bot_id,
    )  # fmt: skip

"""The arena's events that owners hear of, each emitted where it happens (in that
transaction): a match's fault or forfeit (``arena.services.results``), a remote bot
absent while its matches wait (``arena.services.claims.do_retry_no_show`` on the workers,
``arena.adapters.play.roundplay`` in embedded mode), a version's check and a version test
(``arena.hosting.services``, ``arena.adapters.bothost.versiontest``), and a season's end
(the ``arena.signals.season_ended`` signal, connected here). "challenge" is emitted by the
challenges app."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction

from arena import signals
from arena.models import BotKind, MatchEndReason, MatchStatus, Participation
from arena.notify.outbox import emit

if TYPE_CHECKING:  # (the hosting app's rows are typed Any: it imports this module)
    from arena.models import League, Match


def match_faults(written: Iterable[tuple[Match, list[Participation], int]]) -> None:
    """For each result written (match, its seats, the attempt): one event per seat charged
    a fault: ``forfeit`` when the match ended by forfeit (it names the cause: a no-show, a
    timeout, ...), else ``fault`` (a fault the league's policy did not forfeit). Never
    both for one incident; a subscription to ``fault`` hears of forfeits too (``outbox``)."""
    for match, parts, attempt in written:
        for p in parts:
            if not p.fault_cause or p.bot.kind == BotKind.HOUSE:
                continue
            payload = {
                "match": match.pk,
                "league": match.league.name,
                "cause": p.fault_cause,
                "detail": p.fault_detail[:500],
                "seat": p.seat,
                "path": f"/matches/{match.pk}/",
            }
            if match.end_reason == MatchEndReason.FORFEIT:
                forfeit = {**payload, "rating_change": _float(p.rating_change)}
                emit(p.bot_id, "forfeit", forfeit, key=f"forfeit:{match.pk}:{attempt}:{p.seat}")
            else:
                emit(p.bot_id, "fault", payload, key=f"fault:{match.pk}:{attempt}:{p.seat}")


def _float(x: object) -> float | None:
    return None if x is None else float(x)  # type: ignore[arg-type]


def offline_waiting(bot_ids: Iterable[int], league: League) -> None:
    """Remote bots not connected while their matches wait: at most one event per bot per
    ``NOTIFY_OFFLINE_QUIET_S`` (a key per window), however many matches and workers see it."""
    quiet = max(1, settings.NOTIFY_OFFLINE_QUIET_S)
    window = int(time.time() // quiet)
    for bot_id in sorted(set(bot_ids)):
        waiting = Participation.objects.filter(
            bot_id=bot_id, match__status=MatchStatus.QUEUED
        ).count()
        payload = {
            "league": league.name,
            "matches_waiting": waiting,
            "absent_wait_s": league.absent_wait_s,
            "path": f"/leagues/{league.slug}/",
        }
        emit(bot_id, "offline_waiting", payload, key=f"offline_waiting:{bot_id}:{window}")


def version_check(version: Any) -> None:
    """A version's check ended with a verdict (or the arena gave up checking it)."""
    passed = version.status == "ready"
    emit(
        version.bot_id,
        "version_check",
        {
            "version": version.number,
            "status": version.status,
            "passed": passed,
            "log_tail": version.check_log[-500:],
            "path": f"/my/bots/{version.bot.name}/",
        },
        key=f"version_check:{version.pk}",
    )


def version_test(row: Any) -> None:
    """A version test left ``running`` (its verdict, or failed)."""
    emit(
        row.bot_id,
        "version_test",
        {
            "test": row.pk,
            "verdict": row.status,
            "verdict_label": row.get_status_display(),
            "candidate": row.candidate.number,
            "baseline": row.baseline.number,
            "games": row.games,
            "llr": row.llr,
            "error": row.error[:300],
            "path": f"/my/bots/{row.bot.name}/tests/{row.pk}/",
        },
        key=f"version_test:{row.pk}",
    )


def _season_ended(
    sender: object, league: League, season: Any, bot_ids: Iterable[int], **_: Any
) -> None:
    """``season_ended`` is sent after the season's commit: one event per bot, together."""
    season_id = getattr(season, "pk", season)
    payload = {
        "league": league.name,
        "season": str(getattr(season, "number", season)),
        "season_id": season_id,
        "path": f"/leagues/{league.slug}/",
    }
    with transaction.atomic():
        for bot_id in sorted(set(bot_ids)):
            emit(
                bot_id,
                "season_ended",
                payload,
                key=f"season_ended:{league.pk}:{season_id}:{bot_id}",
            )


def connect() -> None:
    signals.season_ended.connect(_season_ended, dispatch_uid="arena.notify.season_ended")

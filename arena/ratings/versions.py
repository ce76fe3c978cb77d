"""Hosted bots' versions as players of their own (``VersionRating``; see its doc).

* ``do_switch``: a bot's active version changed (a new upload passed its check, or the
  owner switched back). In every league where the bot has a live rating, the version it
  replaces keeps its rating, and the incoming one becomes current: a version seen before
  comes back with its own rating; a new one starts from its parent's (else from the rating
  the bot carries). The bot's row then carries the incoming version's rating.
* ``lock_for_match`` / ``apply_change``: inside a result's transaction, the change of a
  hosted seat goes to the version that played it (``Participation.code_version``); the
  bot's row follows when that version is the current one.
* ``total_adjustment``: what the versions add to a league's total (see ``VersionRating``).

Only ids and the ORM's relations here: ``arena.hosting`` calls this module, so it imports
nothing of that app.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from django.db.models import Case, DecimalField, F, Q, Sum, Value, When

from arena.models import Bot, BotKind, League, Participation
from arena.ratings.models import START_RATING, LiveRating, VersionRating


def do_switch(bot_id: int, old_version_id: int | None, new_version_id: int) -> None:
    """Inside the transaction that activates ``new_version_id`` (in place of
    ``old_version_id``, None if none was active). Locks the bot's live rating rows by id,
    then its version rows."""
    if old_version_id == new_version_id:
        return
    lives = list(LiveRating.objects.select_for_update().filter(bot_id=bot_id).order_by("id"))
    if not lives:
        return
    parent_id = (
        Bot.objects.filter(pk=bot_id, code_versions__pk=new_version_id)
        .values_list("code_versions__parent_id", flat=True)
        .first()
    )
    rows: dict[tuple[int, int], VersionRating] = {
        (r.league_id, r.version_id): r
        for r in VersionRating.objects.select_for_update().filter(bot_id=bot_id).order_by("id")
    }
    for live in lives:
        league_id = live.league_id
        current = next((r for (lg, _), r in rows.items() if lg == league_id and r.current), None)
        if current is None and old_version_id is not None:
            # the bot's history in this league so far is the outgoing version's
            current = VersionRating.objects.create(
                league_id=league_id,
                bot_id=bot_id,
                version_id=old_version_id,
                rating=live.rating,
                current=True,
            )
            rows[(league_id, old_version_id)] = current
        incoming = rows.get((league_id, new_version_id))
        if current is not None:
            current.current = False
            current.save(update_fields=["current", "updated_at"])
        if incoming is None:
            parent = rows.get((league_id, parent_id)) if parent_id is not None else None
            start = parent.rating if parent is not None else live.rating
            if current is None:
                # the bot's first version in the league: its history is this version's
                incoming = VersionRating(rating=live.rating, start=START_RATING)
            else:
                incoming = VersionRating(rating=start, start=start)
            incoming.league_id, incoming.bot_id = league_id, bot_id
            incoming.version_id, incoming.current = new_version_id, True
            incoming.save()
            rows[(league_id, new_version_id)] = incoming
        else:
            incoming.current = True
            incoming.save(update_fields=["current", "updated_at"])
        if live.rating != incoming.rating:
            live.rating = incoming.rating
            live.save(update_fields=["rating", "updated_at"])


def _active_versions(bot_ids: Sequence[int]) -> dict[int, int]:
    return dict(
        Bot.objects.filter(pk__in=bot_ids, code_versions__active=True).values_list(
            "pk", "code_versions__pk"
        )
    )


def lock_for_match(
    league: League, parts: Sequence[Participation], lives: dict[int, LiveRating]
) -> dict[int, VersionRating]:
    """Inside ``do_finish_match``'s transaction, after the bots' live rows are locked: name
    the version of every hosted seat (the active one if the bot host never loaded one) and
    lock (or make) the version rows, keyed by seat."""
    # only hosted bots have versions: a match of dial-in and house bots costs no query
    unnamed = [
        p.bot_id for p in parts if p.code_version_id is None and p.bot.kind == BotKind.HOSTED
    ]
    if unnamed:
        active = _active_versions(unnamed)
        for p in parts:
            if p.code_version_id is None and p.bot_id in active:
                p.code_version_id = active[p.bot_id]
    hosted = [p for p in parts if p.code_version_id is not None]
    if not hosted:
        return {}
    bot_ids = sorted({p.bot_id for p in hosted})
    rows = {
        r.version_id: r
        for r in VersionRating.objects.select_for_update()
        .filter(league=league, bot_id__in=bot_ids)
        .order_by("id")
    }
    by_seat: dict[int, VersionRating] = {}
    for p in hosted:
        version_id = p.code_version_id
        assert version_id is not None
        row = rows.get(version_id)
        if row is None:
            mine = [r for r in rows.values() if r.bot_id == p.bot_id]
            current = next((r for r in mine if r.current), None)
            if current is None:
                # the bot's first version in the league carries its history so far
                row = VersionRating(rating=lives[p.bot_id].rating, current=True)
            else:
                # a version that played without ever being current here (switched away
                # while this match ran): its parent's rating, else the bot's
                parent_id = (
                    Bot.objects.filter(pk=p.bot_id, code_versions__pk=version_id)
                    .values_list("code_versions__parent_id", flat=True)
                    .first()
                )
                parent = rows.get(parent_id) if parent_id is not None else None
                start = (parent or current).rating
                row = VersionRating(rating=start, start=start)
            row.league, row.bot_id, row.version_id = league, p.bot_id, version_id
            row.save()
            rows[version_id] = row
        by_seat[p.seat] = row
    return by_seat


def rating_before(
    p: Participation, lives: dict[int, LiveRating], rows: dict[int, VersionRating]
) -> Decimal:
    """The rating the seat played at: its version's, else its bot's."""
    row = rows.get(p.seat)
    return row.rating if row is not None else lives[p.bot_id].rating


def apply_change(
    p: Participation,
    lives: dict[int, LiveRating],
    rows: dict[int, VersionRating],
    after: Decimal,
) -> None:
    """The seat's new rating goes to its version, and to its bot's row when that carries
    this version (or when the seat has no version)."""
    row = rows.get(p.seat)
    if row is None:
        lives[p.bot_id].rating = after
        return
    row.rating = after
    if row.current:
        lives[p.bot_id].rating = after


def save(rows: dict[int, VersionRating]) -> None:
    for row in rows.values():
        row.save(update_fields=["rating", "updated_at"])


def total_adjustment(league: League) -> Decimal:
    """``sum(current: rating - 1500) - sum(all: rating - start)`` over the league's version
    rows: what the league's live rows sum to beyond 1500 each."""
    agg = VersionRating.objects.filter(league=league).aggregate(
        total=Sum(
            Case(
                When(Q(current=True), then=F("start") - Value(START_RATING)),
                default=F("start") - F("rating"),
                output_field=DecimalField(max_digits=16, decimal_places=4),
            ),
            output_field=DecimalField(max_digits=16, decimal_places=4),
        )
    )
    total = agg["total"]
    return Decimal(0) if total is None else Decimal(total)

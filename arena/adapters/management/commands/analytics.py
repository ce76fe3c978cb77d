"""``manage.py analytics rebuild [--league SLUG]``: recount bot analytics from the stored
replays (for matches finished before analytics existed, or after a change to what they
count). Results keep adding to the counters as they arrive; this starts them over."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from arena.analytics.models import BotAnalytics
from arena.models import League, MatchReplay, MatchStatus
from arena.services.analytics import do_record_match
from referee.replay import ReplayError, from_json


class Command(BaseCommand):
    help = "Recount bot analytics from the stored replays."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=["rebuild"])
        parser.add_argument("--league", help="one league's slug (default: every league)")

    def handle(self, *args: Any, **o: Any) -> None:
        leagues = League.objects.order_by("id")
        if o["league"]:
            leagues = leagues.filter(slug=o["league"])
            if not leagues.exists():
                raise CommandError(f"no league {o['league']!r}")
        for league in leagues:
            counted = skipped = 0
            with transaction.atomic():
                BotAnalytics.objects.filter(league=league).delete()
                replays = (
                    MatchReplay.objects.filter(
                        match__league=league, match__status=MatchStatus.FINISHED
                    )
                    .select_related("match")
                    .order_by("match_id")
                )
                for row in replays.iterator():
                    match = row.match
                    try:
                        record = from_json(row.record)
                    except ReplayError:
                        skipped += 1
                        continue
                    parts = list(match.participations.all())
                    assert match.winner_team is not None
                    do_record_match(league, parts, record, match.end_reason, match.winner_team)
                    counted += 1
            self.stdout.write(
                f"{league.name}: {counted} matches counted"
                + (f", {skipped} unreadable replays skipped" if skipped else "")
            )

"""``manage.py games export [LEAGUE ...] [--month YYYY-MM]``: the game database's archives.

Writes every finished game of each league (all leagues by default) as gzipped NDJSON, one
file per month in which games finished (or only ``--month``), into ``ARENA_ARCHIVE_DIR``
with a ``.sha256`` beside each; the league page lists them for download. Run it again
to bring the current month up to date (an unchanged month gives the same bytes).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.models import League
from arena.services import gamedb


class Command(BaseCommand):
    help = "The game database: write each league's monthly NDJSON archives (games export)."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        export = sub.add_parser("export", help="write the monthly archives")
        export.add_argument("leagues", nargs="*", help="league names or slugs (default: all)")
        export.add_argument("--month", help="only this month, YYYY-MM (UTC)")

    def handle(self, *args: Any, **options: Any) -> None:
        month = options["month"]
        if month is not None and not gamedb.MONTH.fullmatch(month):
            raise CommandError(f"--month {month!r}: expected YYYY-MM, e.g. 2026-12")
        leagues = self._leagues(options["leagues"])
        written = 0
        for league in leagues:
            months = [month] if month else gamedb.months_with_games(league)
            if not months:
                self.stdout.write(f"{league.name}: no finished games yet")
            for m in months:
                a = gamedb.write_archive(league, m)
                written += 1
                self.stdout.write(
                    f"{league.name} {m}: {a.games} games, {a.size / 1024:.1f} KiB, "
                    f"sha256 {a.sha256[:16]}... -> {a.path}"
                )
        self.stdout.write(f"{written} archive{'s' if written != 1 else ''} written")

    @staticmethod
    def _leagues(names: list[str]) -> list[League]:
        if not names:
            return list(League.objects.order_by("name"))
        out = []
        for name in names:
            league = (
                League.objects.filter(slug=name).first() or League.objects.filter(name=name).first()
            )
            if league is None:
                raise CommandError(f"no league named {name!r}")
            out.append(league)
        return out

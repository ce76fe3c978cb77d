"""``manage.py notify sweep``: send the deliveries that are due, here (what beat's
``arena.notify_sweep`` hands to the workers; in embedded mode the only way a failed
delivery is tried again). ``manage.py notify cleanup``: delete the events past
``NOTIFY_RETENTION_DAYS`` whose deliveries are over (beat's ``arena.notify_cleanup``)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from arena.notify import retention
from arena.notify.delivery import deliver, due


class Command(BaseCommand):
    help = (
        "Notifications: `sweep` sends the deliveries that are due (retries, lost ones); "
        "`cleanup` deletes the events past NOTIFY_RETENTION_DAYS whose deliveries are over."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        sub.add_parser("sweep", help="attempt every delivery that is due, in this process")
        sub.add_parser("cleanup", help="delete the old events (every batch, in this process)")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["action"] == "cleanup":
            total = 0
            while n := retention.cleanup():
                total += n
            self.stdout.write(f"{total} events deleted (older than their retention)")
            return
        # every row due now: a command run by hand (or embedded mode) has no task in flight
        ids = due(overdue=timedelta(0))
        done = sum(1 for pk in ids if deliver(pk) is None)
        self.stdout.write(f"{len(ids)} deliveries due; {done} finished (delivered or given up)")

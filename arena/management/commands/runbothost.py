"""``manage.py runbothost [--once] [--poll S]``: the bot host of hosted bots.

What it does today: refuses to start where no sandbox can be set up (never runs uploaded
code unsandboxed), then checks uploaded versions, one at a time, each in a fresh sandbox
(``arena.hosting.checker``), and prints each verdict. Holding the active hosted bots'
streams to the gateway and playing their league matches is not built yet (see
docs/operations.md, "Hosted bots").
"""

from __future__ import annotations

import os
import signal
import socket
import threading
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.hosting.checker import check_next
from arena.hosting.sandbox import SandboxUnavailable, check_available


class Command(BaseCommand):
    help = (
        "Run the bot host: checks uploaded hosted-bot versions in bubblewrap sandboxes. "
        "Refuses to start where no sandbox can be set up. Prints 'bot host ready' once it "
        "serves; SIGTERM or Ctrl-C stops it between checks."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--once", action="store_true", help="check what waits, then exit")
        parser.add_argument("--poll", type=float, default=2.0, help="seconds between looks")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            version = check_available()
        except SandboxUnavailable as exc:
            raise CommandError(f"the bot host cannot start: {exc}") from None
        name = f"{socket.gethostname()}:{os.getpid()}"
        stop = threading.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stop.set())
        self.stdout.write(f"bot host ready ({version}) as {name}", ending="\n")
        self.stdout.flush()
        while not stop.is_set():
            checked = check_next(name)
            if checked is not None:
                self.stdout.write(f"checked {checked.bot.name} v{checked.number}: {checked.status}")
                self.stdout.flush()
                continue
            if options["once"]:
                return
            stop.wait(options["poll"])

"""``manage.py runbothost [--once] [--poll S] [--gateway HOST:PORT] [--shard I/N]``: the
bot host of hosted bots.

Refuses to start where no sandbox can be set up (it never runs uploaded code unsandboxed).
Then, until SIGTERM, the host's loop (``arena.adapters.bothost.service``): checks uploaded
versions one at a time, each in a fresh sandbox, and holds the gateway stream of every
active hosted bot of its shard (a fresh sandbox per match). Replicas split the bots by
``--shard I/N`` (bot id modulo N); checks are shared through their lease.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.adapters.bothost.probe import check_available
from arena.adapters.bothost.sandbox import Limits, SandboxUnavailable
from arena.adapters.bothost.service import HostSettings, run

log = logging.getLogger(__name__)


def _shard(text: str) -> tuple[int, int]:
    index, sep, count = text.partition("/")
    if not sep or not index.isdigit() or not count.isdigit() or not 0 <= int(index) < int(count):
        raise CommandError(f"--shard {text!r}: expected I/N with 0 <= I < N, e.g. 0/1")
    return int(index), int(count)


class Command(BaseCommand):
    help = (
        "Run the bot host: checks uploaded hosted-bot versions and holds the active hosted "
        "bots' gateway streams, running their code in bubblewrap sandboxes (one per match). "
        "Refuses to start where no sandbox can be set up. Prints 'bot host ready' once it "
        "serves; SIGTERM or Ctrl-C stops it."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--once", action="store_true", help="check what waits, then exit")
        parser.add_argument("--poll", type=float, default=2.0, help="seconds between looks")
        parser.add_argument("--gateway", help="gateway HOST:PORT (default: GATEWAY_ADDRESS)")
        parser.add_argument(
            "--shard",
            default=os.environ.get("BOTHOST_SHARD", "0/1"),
            help="this host's share of the hosted bots, I/N (BOTHOST_SHARD)",
        )
        parser.add_argument(
            "--max-matches", type=int, default=4, help="matches at once per hosted bot"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            version = check_available()
        except SandboxUnavailable as exc:
            raise CommandError(f"the bot host cannot start: {exc}") from None
        index, count = _shard(options["shard"])
        gateway = options["gateway"] or str(settings.GATEWAY_ADDRESS).replace(
            "0.0.0.0", "127.0.0.1"
        )
        name = f"{socket.gethostname()}:{os.getpid()}"
        limits = Limits.from_settings()
        stop = threading.Event()
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT):
                signal.signal(sig, lambda *_: stop.set())
        import referee

        self.stdout.write(
            f"bot host ready ({version}; rules engine {referee.ENGINE}) as {name}, "
            f"shard {index}/{count}"
        )
        self.stdout.flush()
        host = HostSettings(
            name=name,
            gateway=gateway,
            limits=limits,
            shard=(index, count),
            max_matches=options["max_matches"],
            poll_s=options["poll"],
            once=options["once"],
        )

        def say(line: str) -> None:
            self.stdout.write(line)
            self.stdout.flush()

        run(host, stop, say)

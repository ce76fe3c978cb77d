"""``manage.py runbothost [--once] [--poll S] [--gateway HOST:PORT] [--shard I/N]``: the
bot host of hosted bots.

Refuses to start where no sandbox can be set up (it never runs uploaded code unsandboxed).
Then, until SIGTERM: checks uploaded versions one at a time, each in a fresh sandbox
(``arena.adapters.bothost.checker``), and holds the gateway stream of every active hosted bot of its
shard (``arena.adapters.bothost.host``: a fresh sandbox per match). Replicas split the bots by
``--shard I/N`` (bot id modulo N); checks are shared through their lease.

Nothing one check or one look at the database raises stops the host (every hosted bot's
stream would drop with it): a check that raises is recorded on its version by
``check_next``; anything else (the database unreachable) is logged with its traceback and
the loop goes on at its next poll.
"""

from __future__ import annotations

import functools
import logging
import os
import signal
import socket
import threading
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import close_old_connections

from arena.adapters.bothost.checker import check_next
from arena.adapters.bothost.host import HostClient, serve_bot
from arena.adapters.bothost.probe import check_available
from arena.adapters.bothost.sandbox import Limits, SandboxUnavailable
from arena.hosting import services
from arena.hosting.models import VersionStatus

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
        served: dict[int, tuple[HostClient, threading.Thread]] = {}
        try:
            while not stop.is_set():
                try:
                    checked = check_next(name, limits)
                except Exception:
                    # claiming or recording failed (the check's own failures are recorded
                    # by check_next): the version's lease runs out and counts as an attempt
                    if options["once"]:
                        raise
                    log.exception("bot host %s: looking for a version to check failed", name)
                    close_old_connections()  # a broken connection is opened afresh next time
                    checked = None
                if checked is not None:
                    self.stdout.write(
                        f"checked {checked.bot.name} v{checked.number}: {checked.status}"
                        + (
                            f" (attempt {checked.check_attempts} failed)"
                            if checked.status == VersionStatus.CHECKING
                            else ""
                        )
                    )
                    self.stdout.flush()
                    continue
                if options["once"]:
                    return
                try:
                    self._serve(served, index, count, gateway, limits, options["max_matches"])
                except Exception:
                    log.exception("bot host %s: updating the served bots failed", name)
                    close_old_connections()
                stop.wait(options["poll"])
        finally:
            for client, _thread in served.values():
                client.stop()
            for client, thread in served.values():
                thread.join(30)
                client.bot.close()

    def _serve(
        self,
        served: dict[int, tuple[HostClient, threading.Thread]],
        index: int,
        count: int,
        gateway: str,
        limits: Limits,
        max_matches: int,
    ) -> None:
        """Start streams for newly served bots, stop those no longer served."""
        wanted = {b.pk: b for b in services.served_bots() if b.pk % count == index}
        for pk in [pk for pk in served if pk not in wanted or not served[pk][1].is_alive()]:
            client, thread = served.pop(pk)
            client.stop()
            thread.join(30)
            client.bot.close()
        for pk, bot in wanted.items():
            if pk in served:
                continue
            token = services.issue_host_token(bot)
            served[pk] = serve_bot(
                bot.name,
                gateway,
                token,
                functools.partial(services.match_version_files, pk),
                limits,
                max_matches=max_matches,
                record=functools.partial(services.record_fault, pk),
            )
            self.stdout.write(f"serving {bot.name}")
            self.stdout.flush()

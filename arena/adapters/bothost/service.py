"""The bot host's loop, for ``manage.py runbothost`` and for the demo (which runs it in a
thread of its own process when the sandbox works on the machine).

Until ``stop`` is set: check uploaded versions one at a time, each in a fresh sandbox
(``arena.adapters.bothost.checker``), and hold the gateway stream of every active hosted
bot of its shard (``arena.adapters.bothost.host``: a fresh sandbox per match). Every pass
says the host is alive (``arena.hosting.presence``), which the site reads to tell owners
whether their uploads will be checked at all.

Nothing one check or one look at the database raises stops the host (every hosted bot's
stream would drop with it): a check that raises is recorded on its version by
``check_next``; anything else (the database unreachable) is logged with its traceback and
the loop goes on at its next poll.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from django.db import close_old_connections

from arena.adapters.bothost.checker import check_next
from arena.adapters.bothost.host import HostClient, serve_bot
from arena.adapters.bothost.sandbox import Limits
from arena.hosting import presence, services
from arena.hosting.models import VersionStatus

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class HostSettings:
    name: str
    gateway: str
    limits: Limits
    shard: tuple[int, int] = (0, 1)
    max_matches: int = 4
    poll_s: float = 2.0
    #: check what waits, then return (``runbothost --once``)
    once: bool = False


def run(settings: HostSettings, stop: threading.Event, say: Callable[[str], None]) -> None:
    """The host's loop, until ``stop`` is set; ``say`` prints a line of progress."""
    served: dict[int, tuple[HostClient, threading.Thread]] = {}
    try:
        while not stop.is_set():
            presence.beat(settings.name, settings.poll_s)
            try:
                checked = check_next(settings.name, settings.limits)
            except Exception:
                # claiming or recording failed (the check's own failures are recorded
                # by check_next): the version's lease runs out and counts as an attempt
                if settings.once:
                    raise
                log.exception("bot host %s: looking for a version to check failed", settings.name)
                close_old_connections()  # a broken connection is opened afresh next time
                checked = None
            if checked is not None:
                say(
                    f"checked {checked.bot.name} v{checked.number}: {checked.status}"
                    + (
                        f" (attempt {checked.check_attempts} failed)"
                        if checked.status == VersionStatus.CHECKING
                        else ""
                    )
                )
                continue
            if settings.once:
                return
            try:
                _serve(served, settings, say)
            except Exception:
                log.exception("bot host %s: updating the served bots failed", settings.name)
                close_old_connections()
            stop.wait(settings.poll_s)
    finally:
        presence.gone(settings.name)
        for client, _thread in served.values():
            client.stop()
        for client, thread in served.values():
            thread.join(30)
            client.bot.close()


def _serve(
    served: dict[int, tuple[HostClient, threading.Thread]],
    settings: HostSettings,
    say: Callable[[str], None],
) -> None:
    """Start streams for newly served bots, stop those no longer served."""
    index, count = settings.shard
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
            settings.gateway,
            token,
            functools.partial(services.match_version_files, pk),
            settings.limits,
            max_matches=settings.max_matches,
            record=functools.partial(services.record_fault, pk),
        )
        say(f"serving {bot.name}")

"""The demo's SDK bot: ``sdk-heuristic``, the SDK's example ``HeuristicBot`` in a process of
its own that dials the demo's gateway over gRPC like any author's bot."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import CommandError, OutputWrapper

from arena.adapters.relay.local import shared_relay
from arena.models import Bot, BotKind, Entry, League, MatchStatus, Participation
from arena.services import bots as bot_services
from arena.services import leagues as league_services

SDK_BOT = "sdk-heuristic"
SDK_BOT_CLASS = "avenue_sdk.examples.heuristic_bot:HeuristicBot"

try:  # resolved here, not in the child: nothing may be loaded between fork and exec
    _PRCTL: Any = ctypes.CDLL(None, use_errno=True).prctl if sys.platform == "linux" else None
except (OSError, AttributeError):
    _PRCTL = None


def _die_with_parent() -> None:
    """In the SDK bot's process, between fork and exec: get SIGTERM when the demo process
    dies, even by SIGKILL, so no bot is left reconnecting to nothing (Linux only)."""
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def start_sdk_bot(
    league: League, arena: str, log_path: Path, out: OutputWrapper
) -> tuple[Bot, subprocess.Popen[bytes]]:
    """Register the SDK bot (a fresh token every run), enter it, start its process."""
    bot = Bot.objects.filter(name=SDK_BOT).first()
    if bot is None:
        bot, token = bot_services.create_bot(SDK_BOT)
        assert token is not None
    else:
        if bot.kind != BotKind.REMOTE or not bot.active:
            raise CommandError(f"bot {SDK_BOT} exists but is not an active remote bot")
        token = bot_services.rotate_token(bot)
    if not Entry.objects.filter(league=league, bot=bot, active=True).exists():
        league_services.do_enter(league, bot)
        out.write(f"entered remote bot {bot.name} in {league.name}")
    out.write(f"\n---- SDK bot {SDK_BOT}: a separate process, over gRPC ----")
    command = [sys.executable, "-m", "avenue_sdk", "run", SDK_BOT_CLASS, "--arena", arena]
    env = {**os.environ, "AVENUE_TOKEN": token, "PYTHONUNBUFFERED": "1"}
    with log_path.open("ab") as log_file:
        proc = subprocess.Popen(
            command,
            cwd=settings.BASE_DIR,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C reaches the demo process, which stops the bot
            preexec_fn=_die_with_parent,  # noqa: PLW1509 - only a resolved prctl call
        )
    out.write(
        f"started (pid {proc.pid}, log {log_path}): python -m avenue_sdk run "
        f"{SDK_BOT_CLASS} --arena {arena} --token $AVENUE_TOKEN"
    )
    return bot, proc


def wait_connected(
    bot: Bot, proc: subprocess.Popen[bytes], arena: str, log_path: Path, out: OutputWrapper
) -> None:
    """Until the bot's stream is open on the gateway; its log's end if it exits first."""
    relay = shared_relay()
    deadline = time.monotonic() + 30
    while not relay.is_connected(str(bot.pk)):
        if proc.poll() is not None:
            tail = log_path.read_text(errors="replace").splitlines()[-15:]
            raise CommandError(
                f"the SDK bot exited with code {proc.returncode} before connecting; the "
                f"end of {log_path}:\n  " + "\n  ".join(tail)
            )
        if time.monotonic() > deadline:
            raise CommandError(
                f"the SDK bot did not connect to {arena} within 30 s; see {log_path}"
            )
        time.sleep(0.1)
    out.write(f"{SDK_BOT} connected to the gateway")


def stop_sdk(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)  # the SDK closes its stream and exits
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def sdk_summary() -> str | None:
    """One line on the SDK bot's finished matches and its mean decision round trip."""
    parts = Participation.objects.filter(
        bot__name=SDK_BOT, match__status=MatchStatus.FINISHED
    ).exclude(latency_mean_ms=None)
    n = parts.count()
    if not n:
        return None
    mean = sum(p.latency_mean_ms or 0.0 for p in parts) / n
    return (
        f"{SDK_BOT} played {n} matches over gRPC, mean decision round trip "
        f"{mean:.1f} ms (runner -> gateway -> bot process -> back)"
    )

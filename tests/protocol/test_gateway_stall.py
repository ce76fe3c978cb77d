"""A gateway that stops running for a while (``SIGSTOP``: a frozen container, a stalled
machine) with a bot's answer owed is the arena's pause, not the bot's: the runner holds
the bot's clock while the gateway's beats are late (``RunnerRelay.gateway_paused``), and
the gateway leaves its own pause out of the bot's measure (``arena.adapters.gateway.stalls``).
Real gateway process, real SDK bot, Redis."""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings

from arena.adapters.relay.redis import RedisRunnerRelay
from arena.adapters.runner import HouseSeat, MatchStatus, RemoteSeat, TimeControl, run_match
from referee import GameConfig
from tests.protocol.harness import Arena, Background, clear_prefix, new_prefix, wait_for
from tests.protocol.test_distributed import GatewayProcess, django_env

pytestmark = [pytest.mark.processes, pytest.mark.serial]  # a 4 s pause, timed

SLEEPY = "tests.protocol.testbots:SleepyBot"


def test_a_gateway_stopped_while_its_bot_holds_a_decision_costs_the_bot_nothing(
    arena: Arena, background: Background, tmp_path: Path
) -> None:
    prefix = new_prefix()
    gateway = GatewayProcess(django_env(prefix), tmp_path / "gateway.log")
    relay = RedisRunnerRelay(str(settings.REDIS_URL), prefix)
    try:
        _, token = arena.bot("frozen-out")
        marker = tmp_path / "asked"
        argv = [sys.executable, "-m", "avenue_sdk", "run", SLEEPY]
        argv += ["--arena", f"127.0.0.1:{gateway.port}", "--token", token]
        env = {"AVENUE_TEST_SLEEP": "0.2", "AVENUE_TEST_MARKER": str(marker)}
        arena._spawn("frozen-out", argv, env, wait=False)
        bot_id = arena.bot_id("frozen-out")
        wait_for(lambda: relay.is_connected(bot_id), 60, "the bot to connect")
        # 1.5 s a decision, 0.5 s of bank: a 4 s pause would be a timeout if it were hers
        tc = TimeControl(decision_ms=1_500, bank_ms=500)
        seats = [RemoteSeat(bot_id, "frozen-out", relay), HouseSeat("random", 1)]
        future = background.run(
            run_match, seats, GameConfig.for_seats(2), 3, match_id="stall-1", time_control=tc
        )
        wait_for(marker.exists, 60, "the bot's first decision")
        gateway.proc.send_signal(signal.SIGSTOP)
        time.sleep(4.0)
        gateway.proc.send_signal(signal.SIGCONT)
        outcome = future.result(timeout=120)
        assert outcome.status == MatchStatus.FINISHED, outcome.to_json()
        assert not outcome.faults, outcome.to_json()
        wait_for(lambda: "did not run for" in gateway.output(), 10, "the gateway's own note")
    finally:
        gateway.proc.send_signal(signal.SIGCONT)
        gateway.stop()
        relay.close()
        clear_prefix(prefix)

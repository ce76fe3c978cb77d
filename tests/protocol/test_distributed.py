"""Distributed mode with real processes: two `manage.py rungateway` and two runners (one in
this process, one `manage.py playmatch`) at once over one Redis; a bot that reconnects to
the other gateway takes over its old stream; SIGTERM stops a gateway gracefully."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from arena.adapters.relay.redis import RedisRunnerRelay
from arena.adapters.runner import MatchStatus, RemoteSeat, run_match
from referee import GameConfig
from referee.replay import validate
from tests.protocol.harness import ROOT, Arena, BotProcess, clear_prefix, finished, new_prefix

pytestmark = pytest.mark.processes

RANDOM = "avenue_sdk.examples.random_bot:RandomBot"
HEURISTIC = "avenue_sdk.examples.heuristic_bot:HeuristicBot"


def django_env(prefix: str) -> dict[str, str]:
    """The settings of this test run (its test database, its Redis key prefix)."""
    db = connection.settings_dict
    url = f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AVENUE_", "GATEWAY_"))}
    env.update(
        DATABASE_URL=url,
        REDIS_URL=str(settings.REDIS_URL),
        RELAY_PREFIX=prefix,
        DJANGO_SETTINGS_MODULE="config.settings",
        PYTHONPATH=str(ROOT),
        PYTHONUNBUFFERED="1",
    )
    return env


class GatewayProcess:
    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.log = log
        with open(log, "w") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "manage.py", "rungateway", "--port", "0", "--heartbeat", "0.5"],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                text=True,
            )
        # a generous readiness wait: Django's import alone takes seconds on a busy machine
        deadline = time.monotonic() + 90
        while not (found := re.search(r"gateway listening on [\d.]+:(\d+)", self.output())):
            assert self.proc.poll() is None, self.output()
            assert time.monotonic() < deadline, f"the gateway did not start:\n{self.output()}"
            time.sleep(0.05)
        self.port = int(found.group(1))

    def output(self) -> str:
        return self.log.read_text()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)


@pytest.fixture
def cluster(
    arena: Arena, tmp_path: Path
) -> Iterator[tuple[Arena, dict[str, str], list[GatewayProcess]]]:
    """Two gateway processes sharing a fresh relay prefix (the in-thread gateway of
    ``arena`` only provides the database helpers here)."""
    prefix = new_prefix()
    env = django_env(prefix)
    gateways = [GatewayProcess(env, tmp_path / f"gateway{i}.log") for i in (1, 2)]
    try:
        yield arena, env, gateways
    finally:
        for g in gateways:
            g.stop()
        clear_prefix(prefix)


def sdk_at(arena: Arena, gateway: GatewayProcess, name: str, spec: str, token: str) -> BotProcess:
    argv = [sys.executable, "-m", "avenue_sdk", "run", spec]
    argv += ["--arena", f"127.0.0.1:{gateway.port}", "--token", token]
    return arena._spawn(name, argv, None, wait=False)


def test_two_gateways_and_two_runners_at_once(cluster, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    arena, env, (g1, g2) = cluster
    relay = RedisRunnerRelay(str(settings.REDIS_URL), env["RELAY_PREFIX"])
    tokens = {name: arena.bot(name)[1] for name in ("b1", "b2", "b3", "b4")}
    for name, gateway in (("b1", g1), ("b2", g1), ("b3", g2), ("b4", g2)):
        sdk_at(arena, gateway, name, RANDOM if name in ("b1", "b2") else HEURISTIC, tokens[name])
    deadline = time.monotonic() + 60
    while not all(relay.is_connected(arena.bot_id(n)) for n in tokens):
        assert time.monotonic() < deadline, "bots did not connect"
        time.sleep(0.05)

    # Runner 2: another process, playing b2 (gateway 1) against b4 (gateway 2)...
    other = subprocess.Popen(
        [sys.executable, "manage.py", "playmatch", "b2", "b4", "--games", "3", "--json"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # ...while runner 1, here, plays b1 (gateway 1) against b3 (gateway 2), both ways round.
    for seed in (1, 2, 3):
        seats = [
            RemoteSeat(arena.bot_id(n), n, relay) for n in (("b1", "b3"), ("b3", "b1"))[seed % 2]
        ]
        outcome = run_match(seats, GameConfig.for_seats(2), seed, match_id=f"r1-{seed}")
        assert outcome.status == MatchStatus.FINISHED and not outcome.faults, outcome.to_json()
        validate(outcome.record)
    out, err = other.communicate(timeout=60)
    assert other.returncode == 0, err
    results = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert len(results) == 3
    assert all(r["status"] == "finished" and not r["faults"] for r in results), results

    # b1 connects again, through gateway 2: the old stream (gateway 1) is superseded.
    old_b1 = next(p for p in arena.processes if p.name == "b1")
    new_b1 = sdk_at(arena, g2, "b1-again", RANDOM, tokens["b1"])
    assert "another connection of this bot took over" in finished(old_b1)
    assert old_b1.proc.returncode == 2
    seats = [RemoteSeat(arena.bot_id(n), n, relay) for n in ("b1", "b3")]
    outcome = run_match(seats, GameConfig.for_seats(2), 9, match_id="r1-after-takeover")
    assert outcome.status == MatchStatus.FINISHED and not outcome.faults
    assert "started" in new_b1.output()

    # SIGTERM: gateway 1 tells its bots to go elsewhere and exits cleanly.
    g1.proc.send_signal(signal.SIGTERM)
    assert g1.proc.wait(10) == 0, g1.output()
    assert "gateway stopped" in g1.output()
    b2 = next(p for p in arena.processes if p.name == "b2")
    deadline = time.monotonic() + 10
    while "shutting_down" not in b2.output():
        assert time.monotonic() < deadline, b2.output()
        time.sleep(0.05)
    assert not relay.is_connected(arena.bot_id("b2"))
    assert relay.is_connected(arena.bot_id("b4")), "gateway 2 is unaffected"
    relay.close()

"""Reconnect and resume: a bot whose stream drops mid-match may come back within the grace
and the same game goes on; one that does not is charged ``disconnect``; a gateway that goes
away is the arena's fault; a bot is charged the gateway's measure of its answers."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection

from agent_avenue.v1 import arena_pb2 as pb
from arena.adapters.gateway import DatabaseAuthenticator, Gateway, GatewayThread
from arena.adapters.play.matches import play_match
from arena.adapters.relay.base import Inbound
from arena.adapters.relay.presence import GATEWAY_TTL
from arena.adapters.relay.redis import RedisGatewayRelay, RedisRunnerRelay
from arena.adapters.runner import ArenaFault, FaultCause, RemoteSeat, Seat, TimeControl
from arena.adapters.runner import MatchStatus as RunStatus
from arena.models import Bot, Match, MatchStatus
from arena.ratings.models import RatedMatch
from arena.services import leagues as svc
from arena.services.claims import PlayOutcome
from arena.services.rounds import do_schedule_round
from referee.replay import validate
from tests.leagues.conftest import database_url
from tests.protocol.harness import FAST, ROOT, Arena, Background, BotProcess, bot_env, wait_for
from tests.protocol.test_faults import assert_forfeit
from tests.protocol.testbots import read_records

pytestmark = pytest.mark.processes

PAUSING = "tests.protocol.testbots:PausingBot"
RANDOM = "avenue_sdk.examples.random_bot:RandomBot"
#: long decisions, no bank: a clock that ran while the bot was away would show
PATIENT = TimeControl(decision_ms=20_000, bank_ms=0)


def messages(record: Path) -> list[pb.ArenaMessage]:
    return [pb.ArenaMessage.FromString(data) for tag, data in read_records(record) if tag == "W"]


def paused_at(marker: Path) -> int:
    wait_for(lambda: marker.exists() and marker.read_text() != "", 30, "the bot's pause")
    return int(marker.read_text())


def pausing_bot(
    arena: Arena, name: str, tmp: Path, run: int, token: str, sleep: float
) -> BotProcess:
    env = {
        "AVENUE_TEST_RECORD": str(tmp / f"{name}-{run}.rec"),
        "AVENUE_TEST_MARKER": str(tmp / f"{name}.paused"),
        "AVENUE_TEST_SLEEP": str(sleep),
        "AVENUE_TEST_SEED": str(run),
    }
    return arena.sdk_bot(name, PAUSING, token=token, env=env, wait=False)


def test_a_bot_back_within_the_grace_plays_the_same_game_on(
    arena: Arena, background: Background, tmp_path: Path
) -> None:
    _, token = arena.bot("phoenix")
    first = pausing_bot(arena, "phoenix", tmp_path, 1, token, sleep=120)
    arena.wait_connected("phoenix", 30)
    arena.sdk_bot("steady", RANDOM)
    seats = [arena.remote("phoenix"), arena.remote("steady")]
    future = background.run(arena.play, seats, time_control=PATIENT, reconnect_grace_s=30)
    seq = paused_at(tmp_path / "phoenix.paused")
    first.kill9()  # the bot's own fault: its process died holding decision `seq`
    time.sleep(1.0)  # away for a while: its clock must not run meanwhile
    pausing_bot(arena, "phoenix", tmp_path, 2, token, sleep=0)
    outcome = future.result(timeout=90)

    assert outcome.status == RunStatus.FINISHED and not outcome.faults, outcome.to_json()
    validate(outcome.record)  # one game, start to end: it replays
    # the new process was told the match goes on, then asked the same decision again,
    # with the whole history and the allowance it had left
    seen = messages(tmp_path / "phoenix-2.rec")
    kinds = [m.WhichOneof("kind") for m in seen]
    assert kinds[:3] == ["welcome", "match_started", "decision_request"], kinds
    started, again = seen[1].match_started, seen[2].decision_request
    assert started.resumed and started.match_id == again.match_id
    # the bot is told the grace, at the start and on the resumption
    assert started.reconnect_grace_ms == 30_000
    before = [
        m.match_started for m in messages(tmp_path / "phoenix-1.rec") if m.match_started.match_id
    ]
    assert [m.reconnect_grace_ms for m in before] == [30_000], before
    assert again.resent and again.seq == seq
    assert again.observation.history_start == 0
    assert len(again.observation.history) > 0
    answered = outcome.record.decisions[seq - 1]  # seq: the position in the replay, from 1
    # the time away (kill, 1 s, a process start) is not the bot's
    assert answered.latency_ms is not None and answered.latency_ms < 1_000, answered
    # the match's report says who was away, and how long (nothing was charged)
    [back] = outcome.resumes
    assert (back.bot, back.seats, back.arena) == ("phoenix", (0,), False), back
    assert back.away_s is not None and back.away_s >= 1.0, back
    assert outcome.to_json()["resumes"] == [back.to_json()]


def test_a_bot_not_back_within_the_grace_is_charged_disconnect(
    arena: Arena, background: Background, tmp_path: Path
) -> None:
    _, token = arena.bot("gone")
    first = pausing_bot(arena, "gone", tmp_path, 1, token, sleep=120)
    arena.wait_connected("gone", 30)
    arena.sdk_bot("steady", RANDOM)
    seats = [arena.remote("gone"), arena.remote("steady")]
    future = background.run(arena.play, seats, time_control=PATIENT, reconnect_grace_s=2)
    paused_at(tmp_path / "gone.paused")
    # the clock starts before the kill: the gateway may see the stream close before
    # kill9's wait for the process returns, and its grace runs from that moment
    left = time.monotonic()
    first.kill9()
    outcome = future.result(timeout=60)
    assert time.monotonic() - left >= 2.0, "charged before its grace ran out"
    assert_forfeit(outcome, FaultCause.DISCONNECT, seat=0)
    assert "reconnect grace" in outcome.faults[0].detail


def _restart_gateway(arena: Arena) -> GatewayThread:
    """Stop the arena's gateway (it drains) and start a new one on the same port."""
    arena.thread.stop()
    gateway = Gateway(FAST, RedisGatewayRelay(_url(), arena.prefix), DatabaseAuthenticator())
    thread = GatewayThread(gateway, f"127.0.0.1:{arena.port}")
    thread.start()
    arena.gateway, arena.thread = gateway, thread
    return thread


def _url() -> str:
    return str(settings.REDIS_URL)


def test_a_gateway_restart_mid_decision_resumes_every_bot_of_the_match(
    arena: Arena, background: Background, tmp_path: Path
) -> None:
    _, token_a = arena.bot("alpha")
    _, token_b = arena.bot("beta")
    # thinks longer than a busy machine takes to drain and restart a gateway, so that the
    # answer can only come on the new stream (well inside PATIENT's 20 s decision time)
    alpha_bot = pausing_bot(arena, "alpha", tmp_path, 1, token_a, sleep=10)
    beta_env = {
        "AVENUE_TEST_RECORD": str(tmp_path / "beta-1.rec"),
        "AVENUE_TEST_MARKER": str(tmp_path / "beta.paused"),
        "AVENUE_TEST_PAUSE_AT": "100000",
    }
    arena.sdk_bot("beta", PAUSING, token=token_b, env=beta_env, wait=False)
    arena.wait_connected("alpha", 30)
    arena.wait_connected("beta", 30)
    seats = [arena.remote("alpha"), arena.remote("beta")]
    future = background.run(arena.play, seats, time_control=PATIENT, reconnect_grace_s=30)
    seq = paused_at(tmp_path / "alpha.paused")
    # alpha thinks; its gateway shuts down under it (and beta's), then comes back
    _restart_gateway(arena)
    outcome = future.result(timeout=90)

    assert outcome.status == RunStatus.FINISHED and not outcome.faults, outcome.to_json()
    validate(outcome.record)
    alpha = messages(tmp_path / "alpha-1.rec")
    resent = [m.decision_request for m in alpha if m.decision_request.resent]
    assert [r.seq for r in resent] == [seq]
    assert any(m.match_started.resumed for m in alpha)
    # beta was not being asked, and was told all the same that the match goes on
    assert any(m.match_started.resumed for m in messages(tmp_path / "beta-1.rec"))
    # both returns are in the match's report, seat by seat
    assert sorted((r.bot, r.seats) for r in outcome.resumes) == [("alpha", (0,)), ("beta", (1,))]
    # the SDK went on with the match it knew: one start, one resumption, one end
    match = outcome.match_id
    # the runner is done once it has sent MatchEnded; the bot's process logs it a moment later
    wait_for(lambda: f"match {match} ended" in alpha_bot.output(), 30, "the bot's match end")
    log = alpha_bot.output()
    assert log.count(f"match {match} started") == 1, log
    assert log.count(f"match {match} resumed") == 1, log
    assert log.count(f"match {match} ended") == 1, log


def test_a_gateway_gone_for_longer_than_the_grace_voids_the_match(
    arena: Arena, background: Background, tmp_path: Path
) -> None:
    _, token = arena.bot("stranded")
    pausing_bot(arena, "stranded", tmp_path, 1, token, sleep=120)
    arena.wait_connected("stranded", 30)
    steady = arena.sdk_bot("steady", RANDOM)
    seats = [arena.remote("stranded"), arena.remote("steady")]
    future = background.run(arena.play, seats, time_control=PATIENT, reconnect_grace_s=2)
    paused_at(tmp_path / "stranded.paused")
    arena.thread.stop()  # drains: the bots' matches hear it is the arena's doing
    with pytest.raises(ArenaFault, match="no fault of its own"):
        future.result(timeout=60)
    # a gateway again, long after the match's 2 s grace: the SDK knows the match is over
    # for it (it was told the grace) and frees what it kept of it
    _restart_gateway(arena)
    wait_for(
        lambda: "longer than its reconnect grace; forgetting it" in steady.output(),
        60,
        "the SDK to forget the lost match",
    )


class LaggingRelay(RedisRunnerRelay):
    """A runner relay whose every read of a match's inbox is late by ``lag`` seconds, as
    a busy Redis or a busy worker would make it."""

    def __init__(self, url: str, prefix: str, lag: float) -> None:
        super().__init__(url, prefix)
        self.lag = lag

    def pop(self, match_id: str, timeout: float) -> Inbound | None:
        time.sleep(self.lag)
        return super().pop(match_id, timeout)

    def deliver_and_pop(self, bot_id, delivery, match_id, wait):  # type: ignore[no-untyped-def]
        time.sleep(self.lag)
        return super().deliver_and_pop(bot_id, delivery, match_id, 0.002)


def test_the_arenas_delays_are_not_charged_to_the_bot(arena: Arena) -> None:
    arena.sdk_bot("quick", RANDOM)
    arena.sdk_bot("quicker", RANDOM)
    relay = LaggingRelay(_url(), arena.prefix, lag=0.4)
    try:
        seats: list[Seat] = [
            RemoteSeat(arena.bot_id("quick"), "quick", relay),
            RemoteSeat(arena.bot_id("quicker"), "quicker", relay),
        ]
        started = time.monotonic()
        # 300 ms per decision and no bank: charged the runner's wall time (>= 400 ms per
        # decision here), every decision would be a timeout
        outcome = arena.play(seats, time_control=TimeControl(decision_ms=300, bank_ms=0))
        wall = time.monotonic() - started
    finally:
        relay.close()
    assert outcome.status == RunStatus.FINISHED and not outcome.faults, outcome.to_json()
    latencies = [d.latency_ms for d in outcome.record.decisions if d.latency_ms is not None]
    assert latencies and max(latencies) < 300, latencies
    assert wall >= 0.4 * len(latencies), "the lag was there"


def test_a_gateway_killed_for_good_is_the_arenas_fault_not_the_bots(
    arena: Arena, background: Background, tmp_path: Path
) -> None:
    """kill -9 leaves no goodbye: the runner finds the bot unreachable, waits with its
    clock stopped, and once the dead gateway's heartbeat key has expired knows whose fault
    it is; the bot never came back (its gateway did not), so the match is voided."""
    log = tmp_path / "gateway.log"
    env = bot_env(
        DATABASE_URL=database_url(), REDIS_URL=_url(), RELAY_PREFIX=arena.prefix, LOG_LEVEL="INFO"
    )
    with open(log, "w") as out:
        gateway = subprocess.Popen(
            [sys.executable, "manage.py", "rungateway", "--host", "127.0.0.1", "--port", "0"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for(lambda: "gateway listening on" in log.read_text(), 60, "the gateway to start")
        port = log.read_text().split("gateway listening on 127.0.0.1:")[1].split()[0]
        _, token = arena.bot("orphan")
        env_bot = {
            "AVENUE_TEST_RECORD": str(tmp_path / "orphan.rec"),
            "AVENUE_TEST_MARKER": str(tmp_path / "orphan.paused"),
            "AVENUE_TEST_SLEEP": "120",
        }
        argv = [sys.executable, "-m", "avenue_sdk", "run", PAUSING, "--arena"]
        argv += [f"127.0.0.1:{port}", "--token", token]
        orphan = subprocess.Popen(
            argv, cwd=ROOT, env=bot_env(**env_bot), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            arena.wait_connected("orphan", 30)
            arena.sdk_bot("steady", RANDOM)
            grace = GATEWAY_TTL + 3.0
            seats = [arena.remote("orphan"), arena.remote("steady")]
            future = background.run(
                arena.play, seats, time_control=PATIENT, reconnect_grace_s=grace
            )
            paused_at(tmp_path / "orphan.paused")
            gateway.kill()  # SIGKILL: no notice, the presence entry stays behind
            gone = time.monotonic()
            with pytest.raises(ArenaFault, match="its gateway went away"):
                future.result(timeout=60)
            assert time.monotonic() - gone >= grace - 0.5
        finally:
            orphan.kill()
            orphan.wait(10)
    finally:
        if gateway.poll() is None:
            gateway.kill()
        gateway.wait(10)


def test_a_league_match_the_arena_cannot_go_on_with_is_voided_not_forfeited(
    arena: Arena, background: Background, tmp_path: Path, settings: Any
) -> None:
    """Through ``play_match`` (what the Celery task runs): the gateway drains while a bot
    thinks and nobody comes back within the league's grace: the attempt is void, the
    match queued again, nothing rated, nobody charged."""
    settings.ARENA_DISPATCHER = "arena.adapters.embedded.InProcessDispatcher"  # no broker message
    league = svc.do_create_league(
        svc.LeagueSettings(name="Drained", decision_ms=20_000, bank_ms=0, reconnect_grace_ms=2_000)
    )
    first_bot, token = arena.bot("drained")
    pausing_bot(arena, "drained", tmp_path, 1, token, sleep=120)
    arena.wait_connected("drained", 30)
    arena.sdk_bot("steady", RANDOM)
    for bot in (first_bot, Bot.objects.get(name="steady")):
        svc.do_enter(league, bot)
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    match_id = scheduled.matches[0]
    relay = lambda: RedisRunnerRelay(_url(), arena.prefix)  # noqa: E731

    def play() -> PlayOutcome:
        try:
            return play_match(match_id, relay_factory=relay)
        finally:
            connection.close()  # this thread's: the test database is dropped at the end

    future = background.run(play)  # type: ignore[arg-type]
    paused_at(tmp_path / "drained.paused")
    arena.thread.stop()
    assert future.result(timeout=60) is PlayOutcome.REQUEUED
    m = Match.objects.get(pk=match_id)
    assert (m.status, m.attempts, m.rated) == (MatchStatus.QUEUED, 1, False)
    assert "ArenaFault" in m.error and "no fault of its own" in m.error
    assert not m.participations.exclude(fault_cause="").exists()
    assert not RatedMatch.objects.filter(match_id=match_id).exists()

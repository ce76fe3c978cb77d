"""An owner's event told to the bot's open stream (``ArenaMessage.notice``): emitted as a
worker emits it (``arena.notify.emit`` in a transaction), it reaches the SDK bot's
``on_notice`` through real gateways, once, and only that bot; a decision in flight still
completes. Distributed mode (two ``manage.py rungateway`` processes over Redis) and
embedded mode (the in-process relay)."""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction

from agent_avenue.v1 import arena_pb2 as pb
from arena import notify
from arena.adapters.gateway import DatabaseAuthenticator, Gateway, GatewayThread
from arena.adapters.relay import shared_relay
from arena.adapters.relay.botnotices import announce_notice, notice_message
from arena.adapters.relay.redis import RedisRunnerRelay
from arena.adapters.runner import MatchStatus, RemoteSeat, TimeControl, run_match
from arena.models import Bot
from arena.notify.models import Event
from arena.services.bots import create_bot
from referee import GameConfig
from tests.protocol.harness import FAST, Arena, Background, BotProcess, wait_for
from tests.protocol.test_distributed import cluster  # noqa: F401 - the fixture

NOTICE_BOT = "tests.protocol.testbots:NoticeBot"
pytestmark = pytest.mark.processes


def owned_bot(name: str) -> tuple[Bot, str]:
    owner = get_user_model().objects.create_user(f"owner-{uuid.uuid4().hex[:8]}", "", "pw-1234567")
    bot, token = create_bot(name, owner=owner)
    assert token is not None
    return bot, token


def spawn(
    arena: Arena, gateway: Any, name: str, token: str, record: Path, **paths: Path
) -> BotProcess:
    """A ``NoticeBot`` process connected to ``gateway`` (a ``GatewayProcess``)."""
    argv = [sys.executable, "-m", "avenue_sdk", "run", NOTICE_BOT]
    argv += ["--arena", f"127.0.0.1:{gateway.port}", "--token", token]
    env = {"AVENUE_TEST_NOTICES": str(record)}
    env.update({f"AVENUE_TEST_{k}": str(v) for k, v in paths.items()})
    return arena._spawn(name, argv, env, wait=False)


def notices(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def emit(bot: Bot, kind: str, payload: dict[str, Any], key: str) -> Event:
    """As a worker emits it: inside a transaction, told after its commit."""
    with transaction.atomic():
        notify.emit(bot.pk, kind, payload, key=key)
    return Event.objects.get(key=key)


def test_a_notice_reaches_only_its_bot_across_gateways_while_a_decision_is_in_flight(
    cluster,  # type: ignore[no-untyped-def]  # noqa: F811
    settings: Any,
    tmp_path: Path,
) -> None:
    arena, env, (g1, g2) = cluster
    settings.RELAY_PREFIX = env["RELAY_PREFIX"]  # where this process publishes notices
    relay = RedisRunnerRelay(str(settings.REDIS_URL), env["RELAY_PREFIX"])
    a, token_a = owned_bot("told")
    b, token_b = owned_bot("bystander")
    files = {n: tmp_path / f"{n}.notices" for n in ("told", "bystander")}
    marker, go = tmp_path / "deciding", tmp_path / "go"
    # each bot on a gateway of its own; the emitting process (this one) is neither
    procs = {
        "told": spawn(arena, g1, "told", token_a, files["told"], MARKER=marker, GO=go),
        "bystander": spawn(arena, g2, "bystander", token_b, files["bystander"]),
    }
    wait_for(lambda: relay.is_connected(str(a.pk)) and relay.is_connected(str(b.pk)), 60, "bots")

    background = Background()
    try:
        seats = [RemoteSeat(str(a.pk), "told", relay), RemoteSeat(str(b.pk), "bystander", relay)]
        match = background.run(
            run_match,
            seats,
            GameConfig.for_seats(2),
            7,
            match_id=f"m-{uuid.uuid4().hex[:8]}",
            time_control=TimeControl(decision_ms=90_000, bank_ms=90_000),
        )
        wait_for(marker.exists, 60, "the told bot's first decision to be in flight")
        payload = {"challenger": "their-bot", "path": "/challenges/12/"}
        event = emit(a, "challenge", payload, "challenge:test:12")
        emit(a, "challenge", payload, "challenge:test:12")  # the same event again: nothing
        go.touch()
        outcome = match.result(120)
        assert outcome.status == MatchStatus.FINISHED and not outcome.faults, outcome.to_json()
    finally:
        background.close()

    wait_for(lambda: len(notices(files["told"])) >= 1, 30, "the notice")
    # the bystander's own event, after the other's: it gets that one, and only that one
    other = emit(b, "season_ended", {"league": "L", "season": "1", "season_id": 3}, "se:test:b")
    wait_for(lambda: len(notices(files["bystander"])) >= 1, 30, "the bystander's notice")
    # a malformed notice of a kind the SDK does not know: on_notice has it, the bot goes on
    future = pb.ArenaMessage(
        notice=pb.Notice(event_id="x", kind="from_the_future", text="?", data_json="[not json")
    ).SerializeToString()
    announce_notice(a.pk, future)
    wait_for(lambda: len(notices(files["told"])) >= 2, 30, "the unknown kind's notice")

    told = notices(files["told"])
    assert [n["kind"] for n in told] == ["challenge", "from_the_future"]
    first = told[0]
    assert first["event_id"] == str(event.id)
    assert first["data"] == {"bot": "told", **payload}
    assert first["text"] == "told: challenged by their-bot"
    assert first["created_at_ms"] == int(event.created_at.timestamp() * 1000)
    assert told[1]["data"] == {}  # notice_data of bytes that are no JSON object
    seen = notices(files["bystander"])
    assert [(n["kind"], n["event_id"]) for n in seen] == [("season_ended", str(other.id))]
    assert procs["told"].proc.poll() is None and relay.is_connected(str(a.pk))
    relay.close()


@pytest.fixture
def local_gateway(transactional_db: None) -> Iterator[GatewayThread]:
    thread = GatewayThread(Gateway(FAST, shared_relay(), DatabaseAuthenticator()))
    thread.start(30)
    yield thread
    thread.stop()


def test_embedded_mode_tells_the_bot_through_the_in_process_relay(
    local_gateway: GatewayThread, settings: Any, tmp_path: Path
) -> None:
    settings.REDIS_URL = ""  # embedded: no Redis to publish on
    relay = shared_relay()
    arena = Arena(local_gateway.port, "", local_gateway.gateway, local_gateway, relay, tmp_path)
    files = {n: tmp_path / f"{n}.notices" for n in ("e-told", "e-other")}
    try:
        bots = {}
        for name in files:
            bot, token = owned_bot(name)
            bots[name] = bot
            arena.sdk_bot(
                name, NOTICE_BOT, token=token, env={"AVENUE_TEST_NOTICES": str(files[name])}
            )
        forfeit = {"match": 5, "league": "L", "cause": "timeout", "rating_change": -8.5}
        event = emit(bots["e-told"], "forfeit", forfeit, "forfeit:test:5")
        # a kind that is not for the stream: no notice (the owner's channels have it)
        emit(bots["e-told"], "offline_waiting", {"matches_waiting": 1}, "ow:test")
        emit(bots["e-other"], "challenge", {"challenger": "x"}, "challenge:test:e")
        wait_for(lambda: len(notices(files["e-other"])) == 1, 30, "the other's notice")
        wait_for(lambda: len(notices(files["e-told"])) == 1, 30, "the notice")
        # a notice written straight to the relay after both: it comes after the others
        when = datetime(2026, 1, 2, tzinfo=UTC)
        announce_notice(bots["e-told"].pk, notice_message("marker", "challenge", "", {}, when))
        wait_for(lambda: len(notices(files["e-told"])) == 2, 30, "the last notice")
        told = notices(files["e-told"])
        assert [n["event_id"] for n in told] == [str(event.id), "marker"]
        assert told[0]["kind"] == "forfeit" and told[0]["data"]["rating_change"] == -8.5
        assert told[1]["created_at_ms"] == int(when.timestamp() * 1000)
        assert [n["kind"] for n in notices(files["e-other"])] == ["challenge"]
    finally:
        for p in arena.processes:
            p.stop()

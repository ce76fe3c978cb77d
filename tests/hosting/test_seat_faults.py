"""The bot host's ``SeatFault`` at a real gateway (port 0, Redis relay): honoured on a hosted
bot's stream for the pending decision and a sandbox's causes only. A dial-in bot that
sends one is refused and its decision stays pending, so it cannot turn the timeout it is
about to take into another cause. No sandbox here: a raw stream speaks for the host, so
each rule of the gateway is seen on its own (tests/hosting/test_hosted_matches.py plays
real sandboxes)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from arena.adapters.runner import FaultCause, HouseSeat, MatchStatus, TimeControl
from arena.hosting import services
from referee import EndReason
from tests.protocol.harness import Arena, finished, running_arena, wait_for

pytestmark = pytest.mark.processes

#: short: the refused reports end in a timeout, which is waited for
SHORT = TimeControl(decision_ms=1_000, bank_ms=1_000)
#: long: an honoured report ends the match long before this could time out
PATIENT = TimeControl(decision_ms=60_000, bank_ms=0)


@pytest.fixture
def arena(tmp_path: Path, transactional_db: None) -> Iterator[Arena]:
    with running_arena(tmp_path) as a:
        yield a


def hosted_token(name: str) -> str:
    owner = get_user_model().objects.create_user(f"{name}-owner", password="pw-pw-pw-pw")
    return services.issue_host_token(services.do_create_hosted_bot(owner, name))


def test_a_hosted_bots_stream_reports_its_typed_fault(arena: Arena) -> None:
    arena.raw_bot("hosted", "seat_fault", token=hosted_token("hosted"))
    outcome = arena.play([arena.remote("hosted"), HouseSeat("random", 3)], time_control=PATIENT)
    assert outcome.status == MatchStatus.FINISHED, outcome.to_json()
    assert [(f.seat, f.cause) for f in outcome.faults] == [(0, FaultCause.MEMORY)]
    assert outcome.faults[0].detail == "reported by the stream itself"
    assert outcome.result is not None and outcome.result.reason is EndReason.FORFEIT
    assert arena.stats()["seat_faults"] == 1


def test_a_dial_in_bot_cannot_name_its_own_fault(arena: Arena) -> None:
    # it would rather be charged "memory" than the timeout it takes by not answering
    raw = arena.raw_bot("dialin", "seat_fault")
    outcome = arena.play([arena.remote("dialin"), HouseSeat("random", 3)], time_control=SHORT)
    assert [(f.seat, f.cause) for f in outcome.faults] == [(0, FaultCause.TIMEOUT)]
    stats = arena.stats()
    assert stats["seat_faults_refused"] >= 1 and not stats.get("seat_faults")
    wait_for(lambda: "not_a_bot_host" in raw.output(), 15, "the refusal")
    raw.stop()
    assert "error not_a_bot_host" in finished(raw)


@pytest.mark.parametrize(
    ("cause", "offset", "code"),
    [
        # not a cause a sandbox has: the host cannot make a bot's answer "illegal"
        ("FAULT_CAUSE_ILLEGAL_ACTION", 0, "invalid_seat_fault"),
        # a decision that is not pending
        ("FAULT_CAUSE_CRASH", 1000, "wrong_seq"),
    ],
)
def test_a_hosts_report_outside_the_rules_is_refused(
    arena: Arena, cause: str, offset: int, code: str
) -> None:
    raw = arena.raw_bot(
        "hosted",
        "seat_fault",
        token=hosted_token("hosted"),
        args=("--fault-cause", cause, "--fault-seq-offset", str(offset)),
    )
    outcome = arena.play([arena.remote("hosted"), HouseSeat("random", 3)], time_control=SHORT)
    assert [(f.seat, f.cause) for f in outcome.faults] == [(0, FaultCause.TIMEOUT)]
    wait_for(lambda: f"error {code}" in raw.output(), 15, f"the {code} refusal")
    assert not arena.stats().get("seat_faults")


def test_an_owner_cannot_get_a_hosted_bots_token(transactional_db: None) -> None:
    """What makes a stream a hosted bot's is its token, which only a bot host is issued:
    its owner cannot rotate one out of the arena to dial in with and report faults."""
    from arena.services import owned_bots
    from arena.services.bots import BotError

    owner = get_user_model().objects.create_user("owner", password="pw-pw-pw-pw")
    bot = services.do_create_hosted_bot(owner, "mine-hosted")
    with pytest.raises(BotError):
        owned_bots.do_rotate_token(owner, bot)


#: a wait long beside the transport's: the decision's whole charge on a dial-in stream
WAIT_MS = 1_000


@pytest.mark.parametrize("hosted", [True, False], ids=["hosted", "dial-in"])
def test_the_hosts_wait_for_a_sandbox_is_not_charged_to_the_bot(arena: Arena, hosted: bool) -> None:
    """The bot host says how long a request waited for the bot's sandbox to start
    (``Action.arena_wait_us``): the gateway takes it off a hosted bot's charge; the same
    claim from a dial-in bot changes nothing."""
    token = hosted_token("waiter") if hosted else None
    arena.raw_bot("waiter", "claims_wait", token=token, args=("--sleep-ms", str(WAIT_MS)))
    outcome = arena.play([arena.remote("waiter"), HouseSeat("random", 3)], time_control=PATIENT)
    assert outcome.status == MatchStatus.FINISHED and not outcome.faults, outcome.to_json()
    latency = outcome.seats[0].latency
    assert latency.count > 0
    if hosted:
        # every answer came WAIT_MS after its request, all of it the host's: what is left
        # is the transport's part, far below the wait itself
        assert latency.max < WAIT_MS, outcome.to_json()
    else:
        assert latency.p50 >= WAIT_MS, outcome.to_json()


def test_a_hosts_own_failure_voids_the_attempt_and_rates_nobody(arena: Arena, settings) -> None:  # noqa: ANN001
    """The host could not answer for reasons of its own (``HostFailure``): the attempt is
    void, the match queued again, no fault and no rating for anyone; before, the host
    answered nothing and the bot was charged a timeout."""
    from arena.adapters.play.matches import play_match
    from arena.models import Bot, Match
    from arena.models import MatchStatus as Status
    from arena.services import leagues as league_services
    from arena.services.claims import PlayOutcome
    from arena.services.rounds import do_schedule_round

    settings.RELAY_PREFIX = arena.prefix
    settings.ARENA_DISPATCHER = "arena.adapters.embedded.InProcessDispatcher"  # no broker here
    raw = arena.raw_bot("hosted", "host_failure", token=hosted_token("hosted"))
    league = league_services.do_create_league(
        league_services.LeagueSettings(name="host failure", decision_ms=60_000, bank_ms=0)
    )
    league_services.do_enter(league, Bot.objects.get(name="hosted"))
    league_services.do_enter(league, league_services.do_create_house_bot("hf-house", "random"))
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    match_id = scheduled.matches[0]
    assert play_match(match_id, worker="host-failure-test") is PlayOutcome.REQUEUED
    match = Match.objects.get(pk=match_id)
    assert match.status == Status.QUEUED and match.attempts == 1, match.error
    assert not match.rated and "ArenaFault" in match.error
    assert "the host could not load the version" in match.error
    assert not match.participations.exclude(fault_cause="").exists()
    assert not match.participations.exclude(rating_change=None).exists()
    assert arena.stats()["host_failures"] == 1
    raw.stop()


def test_a_dial_in_bot_cannot_void_its_game_as_a_host_failure(arena: Arena) -> None:
    raw = arena.raw_bot("dialin", "host_failure")
    outcome = arena.play([arena.remote("dialin"), HouseSeat("random", 3)], time_control=SHORT)
    assert [(f.seat, f.cause) for f in outcome.faults] == [(0, FaultCause.TIMEOUT)]
    stats = arena.stats()
    assert stats["host_failures_refused"] >= 1 and not stats.get("host_failures")
    wait_for(lambda: "not_a_bot_host" in raw.output(), 15, "the refusal")
    raw.stop()


def test_the_host_reports_its_own_failure_instead_of_answering_nothing() -> None:
    """What the bot host sends when it cannot load the version for the match (here: the
    database read fails): a ``HostFailure`` for the decision, never silence."""
    from agent_avenue.v1 import arena_pb2 as pb
    from arena.adapters.bothost.host import HostClient, SandboxedBot
    from arena.adapters.bothost.sandbox import Limits

    def unreachable(match_id: str) -> tuple[dict[str, bytes], str]:
        raise ConnectionError("the database is unreachable")

    client = HostClient(SandboxedBot("h", unreachable, Limits()), "127.0.0.1:1", "t")
    request = pb.DecisionRequest(match_id="7.1", seq=3, decision_ms=1_000, bank_ms=0)
    reply = client._answer(request)
    assert reply is not None and reply.WhichOneof("kind") == "host_failure"
    assert (reply.host_failure.match_id, reply.host_failure.seq) == ("7.1", 3)
    assert "the database is unreachable" in reply.host_failure.detail

"""The hidden-information audit: every message the arena sends a bot, checked against
what the bot's seat may know.

Games run through the real match runner with ``RemoteSeat``s, so each DecisionRequest is
built by the production path (runner -> ``observe`` -> ``avenue_sdk.protocol.convert``). A
loopback relay stands in for the network: it keeps every payload and answers with a random
legal choice. Afterwards each request is checked twice against the re-simulated state:

1. fidelity: the same pipeline, fed the true state, gives the same bytes;
2. no leak: fed a state in which every card the seat cannot see has been redealt
   (``tests.referee.hidden.perturb``), it still gives the same bytes.

A message that fails either check is a leak. ``observer`` swaps the runner's ``observe``
for another function, which is how the audit proves it catches a leaking build.
"""

from __future__ import annotations

import queue
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from agent_avenue.v1 import arena_pb2 as pb
from arena.adapters.relay.base import Delivery, DeliveryKind, Inbound, InboundKind, RunnerRelay
from arena.adapters.runner import RemoteSeat, TimeControl, run_match
from arena.adapters.runner import match as runner_match
from avenue_sdk.protocol import convert
from referee import GameConfig, legal_actions
from referee.config import RULESETS
from referee.observation import Observation
from referee.replay import replay
from referee.state import State
from tests.referee.hidden import perturb

Observer = Callable[[State, "int | None"], Observation]

CONFIGS = [
    GameConfig.for_seats(seats, mode, ruleset=ruleset)
    for seats in (2, 3, 4)
    for mode in ("simple", "advanced")
    for ruleset in sorted(RULESETS)
]


class LoopbackRelay(RunnerRelay):
    """Every bot is connected and answers at once with a random legal choice."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.sent: list[tuple[str, bytes]] = []  # (bot id, DecisionRequest payload)
        self.inbox: queue.SimpleQueue[Inbound] = queue.SimpleQueue()

    def deliver(self, bot_id: str, delivery: Delivery) -> bool:
        if delivery.kind is DeliveryKind.REQUEST:
            self.sent.append((bot_id, delivery.payload))
            request = pb.ArenaMessage.FromString(delivery.payload).decision_request
            answer = pb.Action(
                match_id=request.match_id,
                seq=request.seq,
                choice_index=self.rng.randrange(len(request.legal)),
            )
            self.inbox.put(
                Inbound(
                    InboundKind.ACTION,
                    bot_id,
                    delivery.match_id,
                    delivery.seq,
                    answer.SerializeToString(),
                )
            )
        return True

    def is_connected(self, bot_id: str) -> bool:
        return True

    def presence(self, bot_id: str) -> dict[str, object] | None:
        return {"conn": "loopback", "max_matches": 1, "since": 0.0}

    def open_match(self, match_id: str) -> None:
        pass

    def close_match(self, match_id: str) -> None:
        pass

    def _pop(self, match_id: str, timeout: float) -> Inbound | None:
        try:
            return self.inbox.get(timeout=timeout)
        except queue.Empty:
            return None


@dataclass
class AuditReport:
    games: int = 0
    messages: int = 0
    leaks: int = 0
    examples: list[str] = field(default_factory=list)

    def merge(self, other: AuditReport) -> None:
        self.games += other.games
        self.messages += other.messages
        self.leaks += other.leaks
        self.examples += other.examples[: max(0, 5 - len(self.examples))]


def audit_game(config: GameConfig, seed: int, rng: random.Random, report: AuditReport) -> None:
    observe = runner_match.observe  # whatever the runner uses (a leaking build, in the proof)
    relay = LoopbackRelay(rng)
    seats = [RemoteSeat(f"bot{s}", f"bot{s}", relay) for s in range(config.seats)]
    match_id = f"audit-{seed}"
    outcome = run_match(seats, config, seed, match_id=match_id, time_control=TimeControl(60_000, 0))
    asked = [
        state
        for state in replay(outcome.record)
        if state.decision is not None and len(legal_actions(state)) > 1
    ]
    assert len(asked) == len(relay.sent), "every asked decision was sent exactly once"
    history_sent = [0] * config.seats
    for state, (bot_id, payload) in zip(asked, relay.sent, strict=True):
        seat = state.actor
        assert bot_id == f"bot{seat}"
        request = pb.ArenaMessage.FromString(payload).decision_request

        report.messages += 1
        problem = None
        sent_before = history_sent[seat]
        if _rebuild(observe, state, seat, request, match_id, sent_before) != payload:
            problem = "the message is not what the seat's view of the true state gives"
        elif (
            _rebuild(observe, perturb(state, seat, rng), seat, request, match_id, sent_before)
            != payload
        ):
            problem = "the message changes when cards the seat cannot see are redealt"
        if problem:
            report.leaks += 1
            if len(report.examples) < 5:
                report.examples.append(
                    f"{config.seats}p {config.mode.value} {config.ruleset} seed {seed} "
                    f"seq {request.seq} seat {seat}: {problem}"
                )
        history_sent[seat] = len(observe(state, seat).history)
    report.games += 1


def _rebuild(
    observe: Observer,
    state: State,
    seat: int,
    request: pb.DecisionRequest,
    match_id: str,
    history_start: int,
) -> bytes:
    """The request the production pipeline builds for ``seat`` from ``state``."""
    return convert.decision_request(
        match_id=match_id,
        seq=request.seq,
        obs=observe(state, seat),
        first_team=request.observation.config.first_team,
        legal=legal_actions(state),
        history_start=history_start,
        decision_ms=request.decision_ms,
        bank_ms=request.bank_ms,
        previous_latency_ms=request.previous_latency_ms or None,
    )


def run_audit(games: int, seed: int = 0, start: int = 0) -> AuditReport:
    """``games`` games spread evenly over every mode, seat count and ruleset."""
    report = AuditReport()
    rng = random.Random(seed)
    for g in range(start, start + games):
        audit_game(CONFIGS[g % len(CONFIGS)], seed * 1_000_003 + g, rng, report)
    return report

"""The forward model: sampled states agree with what the seat was sent, never leak what it
was not, and simulated actions map back to the request's legal indices."""

from __future__ import annotations

import dataclasses
import logging
import random

import pytest

from agent_avenue.v1 import arena_pb2 as pb
from avenue_sdk import session, sim
from avenue_sdk.protocol import convert
from avenue_sdk.protocol.decode import observation_of
from referee import GameConfig, State, apply, legal_actions, new_game
from referee.observation import Observation, observe

CONFIGS = [
    GameConfig.for_seats(seats, mode, ruleset=ruleset)
    for seats in (2, 3, 4)
    for mode in ("simple", "advanced")
    for ruleset in ("standard", "summary-board")
]


def asked(config: GameConfig, seed: int) -> list[tuple[State, pb.DecisionRequest]]:
    """Every decision of a random game, with the request the arena would send for it."""
    rng = random.Random(seed)
    state = new_game(config, seed)
    out: list[tuple[State, pb.DecisionRequest]] = []
    while state.decision is not None:
        legal = legal_actions(state)
        obs = observe(state, state.actor)
        payload = convert.decision_request(
            match_id="m",
            seq=len(out) + 1,
            obs=obs,
            first_team=state.active,
            legal=legal,
            history_start=0,
            decision_ms=5000,
            bank_ms=60000,
            previous_latency_ms=None,
        )
        out.append((state, pb.ArenaMessage.FromString(payload).decision_request))
        state = apply(state, rng.choice(legal))
    return out


def comparable(obs: Observation) -> Observation:
    """The view minus what the wire does not carry (the config's first-team setting)."""
    return dataclasses.replace(obs, config=dataclasses.replace(obs.config, first_team=None))


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.seats}-{c.mode.value}-{c.ruleset}")
def test_decoding_a_request_gives_back_the_seats_view(config: GameConfig) -> None:
    for state, request in asked(config, 3)[::3]:
        obs = observe(state, state.actor)
        assert comparable(observation_of(request.observation)) == comparable(obs)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.seats}-{c.mode.value}-{c.ruleset}")
def test_samples_agree_with_the_observation_and_vary_where_it_is_silent(
    config: GameConfig,
) -> None:
    rng = random.Random(1)
    varied = 0
    for state, request in asked(config, 4)[::2]:
        pos = sim.Position(request)
        seat = request.seat
        samples = [pos.sample(rng) for _ in range(8)]
        for world in samples:
            # what the seat sees of the sample is exactly what it was sent
            seen = observe(world, seat)
            truth = observe(state, seat)
            assert dataclasses.replace(seen, history=()) == dataclasses.replace(
                truth, history=(), config=seen.config
            )
            assert world.hands[seat] == state.hands[seat]
            assert [sum(h) for h in world.hands] == [sum(h) for h in state.hands]
            assert len(world.deck) == len(state.deck)
            # the seat to move and its options are the request's
            assert sim.to_move(world) == seat
            assert tuple(sim.legal_actions(world)) == pos.legal
        hidden = {(w.deck, tuple(h for s, h in enumerate(w.hands) if s != seat)) for w in samples}
        if len(state.deck) > 2:
            varied += len(hidden) > 1
    assert varied > 0, "sampling from one request must vary what the seat cannot see"


def test_simulated_actions_map_back_to_the_request() -> None:
    for _, request in asked(GameConfig.for_seats(4, "advanced"), 8):
        pos = sim.Position(request)
        assert len(pos.legal) == len(request.legal)
        for i, action in enumerate(pos.legal):
            assert pos.index(action) == i
            assert pos.choice(action) == request.legal[i]
        world = pos.sample(random.Random(2))
        for action in sim.legal_actions(world):
            assert request.legal[pos.index(action)] == convert.choice(action)
        final = sim.rollout(sim.apply(world, pos.legal[-1]), random.Random(3))
        assert sim.is_over(final) and sim.winner(final) in (0, 1)
        assert sim.result(final) is not None
    with pytest.raises(ValueError, match="not one of this request's legal choices"):
        sim.Position(asked(GameConfig.for_seats(2), 1)[0][1]).index(object())  # type: ignore[arg-type]


def test_a_ruleset_the_engine_does_not_have_warns_once(caplog: pytest.LogCaptureFixture) -> None:
    config = pb.MatchConfig(ruleset="standard", ruleset_version=99)
    with caplog.at_level(logging.WARNING, logger="avenue_sdk"):
        assert session.check_engine(config) is False
        assert session.check_engine(config) is False
        assert session.check_engine(pb.MatchConfig(ruleset="standard", ruleset_version=1))
    warnings = [r for r in caplog.records if "version 99" in r.getMessage()]
    assert len(warnings) == 1
    assert "local engine" in warnings[0].getMessage()

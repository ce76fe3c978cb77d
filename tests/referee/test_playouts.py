"""Random playouts over thousands of seeded games of every mode and seat count, checking
the invariants every state must keep (the second test layer of STYLE.md #5)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from referee import Action, Decision, GameConfig, apply, legal_actions, new_game, result
from referee.cards import BLACK_MARKET_CARDS, COPIES, N_AGENTS
from referee.config import RULESETS, Mode
from referee.observation import Observation, observe
from referee.replay import loads, record_game, replay
from referee.state import State
from tests.referee.hidden import leaks, perturb

CONFIGS = [
    GameConfig.for_seats(seats, mode, ruleset=ruleset)
    for seats in (2, 3, 4)
    for mode in ("simple", "advanced")
    for ruleset in sorted(RULESETS)
]
GAMES_PER_CONFIG = 250  # 12 configurations: 3,000 games
MAX_DECISIONS = 500
BEFORE_ANY_MOVE = {
    Decision.DISCARD,
    Decision.PLAY,
    Decision.NAME_FACE_UP,
    Decision.PLAY_FACE_UP,
    Decision.PLAY_FACE_DOWN,
    Decision.RECRUIT,
}


def assert_conserved(s: State) -> None:
    counts = [0] * N_AGENTS
    for card in s.deck:
        counts[card] += 1
    for vec in (*s.hands, *s.discards, *s.in_play):
        for a in range(N_AGENTS):
            assert vec[a] >= 0, "a negative count"
            counts[a] += vec[a]
    for offered in (s.offer_up, s.offer_down):
        if offered is not None:
            counts[offered] += 1
    assert tuple(counts) == COPIES, f"agent cards not conserved: {counts}"
    black_market = [*s.market, *s.bm_deck, *s.bm_discard, *s.ongoing[0], *s.ongoing[1]]
    if s.config.mode is Mode.ADVANCED:
        assert sorted(black_market) == list(BLACK_MARKET_CARDS), "Black Market cards lost"
        assert len(s.market) <= 3
    else:
        assert black_market == []


def assert_consistent(s: State) -> None:
    assert_conserved(s)
    # the unwrapped gap and the positions agree modulo the board
    assert (s.pos[1] - s.pos[0]) % 14 == s.gap % 14
    if s.decision is not None:
        assert legal_actions(s), f"no legal action for {s.decision}"
        assert 0 <= s.actor < s.config.seats
        if s.decision in BEFORE_ANY_MOVE:
            assert 1 <= s.gap <= 13, "between turns the gap is 1..13"
    else:
        assert s.outcome is not None and not legal_actions(s)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.seats}p-{c.mode.value}-{c.ruleset}")
def test_random_playouts_keep_every_invariant(config: GameConfig) -> None:
    rng = random.Random(f"{config}")
    for game in range(GAMES_PER_CONFIG):
        state = new_game(config, seed=game)
        initial, states = state, [state]
        actions: list[Action] = []
        while not state.over:
            assert_consistent(state)
            assert len(actions) < MAX_DECISIONS, "a game that does not end"
            action = rng.choice(legal_actions(state))
            actions.append(action)
            state = apply(state, action)
            states.append(state)
        assert_consistent(state)
        assert result(state) is not None
        # the replay re-simulates every intermediate state, also after a JSON round trip
        record = loads(record_game(initial, actions).dumps())
        replayed = list(replay(record))
        assert len(replayed) == len(states)
        for a, b in zip(replayed, states, strict=True):
            assert a[1:] == b[1:]  # the record's config names the first team it drew


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.seats}p-{c.mode.value}-{c.ruleset}")
def test_observations_leak_nothing(config: GameConfig) -> None:
    rng = random.Random(f"leak {config}")
    checked = 0
    for game in range(60):
        state = new_game(config, seed=10_000 + game)
        while not state.over:
            assert leaks(state, rng) == []
            checked += 1
            state = apply(state, rng.choice(legal_actions(state)))
    assert checked > 1000


def test_the_leak_check_catches_a_leaking_observer() -> None:
    """Prove the check can fail: an observer that also reports the next seat's hand."""

    def leaky(state: State, seat: int | None) -> Observation:
        obs = observe(state, seat)
        if seat is None:
            return obs
        nxt = (seat + 1) % state.config.seats
        return dataclasses.replace(obs, discards=state.hands[nxt])

    def peeks_at_the_deck(state: State, seat: int | None) -> Observation:
        obs = observe(state, seat)
        return dataclasses.replace(obs, deck_size=int(state.deck[0]) if state.deck else 0)

    rng = random.Random(5)
    state = new_game(GameConfig.for_seats(2, "simple"), seed=1)
    assert leaks(state, rng) == []
    assert "seat 0" in leaks(state, rng, leaky, tries=5)
    assert leaks(state, rng, peeks_at_the_deck, tries=8) != []


def test_perturb_changes_hidden_cards_but_keeps_counts() -> None:
    rng = random.Random(2)
    state = new_game(GameConfig.for_seats(4, "advanced"), seed=3)
    other = perturb(state, 0, rng)
    assert other.hands[0] == state.hands[0]
    assert [sum(h) for h in other.hands] == [sum(h) for h in state.hands]
    assert len(other.deck) == len(state.deck)
    assert (other.deck, other.hands[1:]) != (state.deck, state.hands[1:])
    assert_conserved(other)

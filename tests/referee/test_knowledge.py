"""The forward model never contradicts what a seat knows (issue 28 §2).

Over thousands of positions of random games in every configuration, at every decision
and for every seat: what ``knowledge`` reads from the public log holds in the real hidden
state (each bound is a fact), and every determinized sample keeps to it, shows the seat
the very observation it has, and offers the deciding seat the same legal choices. The
positions where the log told a seat something about another's cards are counted, so the
test cannot pass on games where nothing was learnt.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from referee import GameConfig, apply, legal_actions, new_game
from referee.bots.determinize import determinize
from referee.bots.knowledge import knowledge, satisfies
from referee.observation import observe
from referee.state import State

#: (seats, mode, ruleset, games): every configuration, and enough games in the ones where
#: Black Market cards and recalls put known cards into hands
CONFIGS = [
    (2, "simple", "standard", 60),
    (2, "advanced", "standard", 80),
    (2, "simple", "summary-board", 60),
    (2, "advanced", "summary-board", 80),
    (3, "advanced", "standard", 50),
    (4, "simple", "summary-board", 50),
    (4, "advanced", "standard", 50),
    (4, "advanced", "summary-board", 50),
]


def _public(obs: object) -> dict[str, object]:
    """The observation's fields but the log (a sample carries none)."""
    out = {f.name: getattr(obs, f.name) for f in dataclasses.fields(obs)}  # type: ignore[arg-type]
    out.pop("history")
    return out


def _check(state: State, seat: int, rng: random.Random) -> bool:
    """Check one position from one seat; whether the seat knew something of the others."""
    obs = observe(state, seat)
    know = knowledge(obs)
    for other, bounds in know.seats.items():
        pending = other == know.face_down_seat
        broken = satisfies(state, other, bounds, pending)
        assert broken is None, f"unsound: {broken} (the real game, seen by seat {seat})"
    sample = determinize(obs, rng)
    for other, bounds in know.seats.items():
        broken = satisfies(sample, other, bounds, other == know.face_down_seat)
        assert broken is None, f"a sample contradicts seat {seat}: {broken}"
    assert _public(observe(sample, seat)) == _public(obs)
    if state.actor == seat:
        assert legal_actions(sample) == legal_actions(state)
    return not know.trivial


@pytest.mark.parametrize(("seats", "mode", "ruleset", "games"), CONFIGS)
def test_samples_keep_to_what_every_seat_knows(
    seats: int, mode: str, ruleset: str, games: int
) -> None:
    config = GameConfig.for_seats(seats, mode, ruleset=ruleset)
    rng = random.Random(f"{seats}-{mode}-{ruleset}")
    positions = informed = 0
    for _ in range(games):
        state = new_game(config, rng.randrange(2**32))
        while state.decision is not None:
            for seat in range(seats):
                positions += 1
                informed += _check(state, seat, rng)
            state = apply(state, rng.choice(legal_actions(state)))
    assert positions >= 2_000, positions
    if mode == "advanced" or ruleset == "summary-board":
        # Black Market cards or recall spaces: seats learn of others' cards in these games
        assert informed >= 100, (informed, positions)
    print(f"{seats}p {mode} {ruleset}: {positions} positions, {informed} with knowledge")

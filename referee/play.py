"""Playing whole games between bots in-process (command line, benchmarks, house matches)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.bots.base import Bot
from referee.config import GameConfig
from referee.engine import GameResult, apply, legal_actions, new_game, result
from referee.observation import observe
from referee.replay import Record, Recorder


@dataclass(frozen=True)
class Played:
    record: Record
    result: GameResult
    decisions: int


def play_game(
    config: GameConfig, seed: int, bots: Sequence[Bot], *, deck_seed: int | None = None
) -> Played:
    """Play one game; ``bots[s]`` answers for seat ``s``. A decision with one legal option is
    taken without asking the bot (spec section 6); the record still holds it.

    ``deck_seed`` deals from another seed's deck (mirrored pairs share one deck)."""
    if len(bots) != config.seats:
        raise ValueError(f"{config.seats} seats need {config.seats} bots, got {len(bots)}")
    state = new_game(config, seed if deck_seed is None else deck_seed)
    recorder = Recorder(state)
    decisions = 0
    while state.decision is not None:
        legal = legal_actions(state)
        if len(legal) == 1:
            action = legal[0]
        else:
            action = bots[state.actor].act(observe(state, state.actor), legal)
        recorder.add(state, action)
        state = apply(state, action)
        decisions += 1
    final = result(state)
    assert final is not None
    return Played(recorder.finish(state), final, decisions)

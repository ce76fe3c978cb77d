"""The moment the game was decided (issue 26 §4, the graph under the board): the first step
from which the eventual winner stayed ahead on the gap to the end, or the last step when it
did not finish ahead; nothing while the game is being played."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from avenue_sdk.viewer.frames import SPECTATOR, Perspective, decided, frames, viewer_payload
from referee import GameConfig
from referee.bots import make_bot
from referee.play import play_game
from referee.replay import Record


def _frames(gaps: list[int], winner: int | None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [
        {"step": i, "turn": 1 + i // 2, "gap": g, "outcome": None} for i, g in enumerate(gaps)
    ]
    if winner is not None:
        out[-1]["outcome"] = {"winner": winner, "reason": "catch"}
    return out


@pytest.mark.parametrize(
    ("gaps", "winner", "step", "by_gap"),
    [
        # A leads from step 3 on (below 7), after B had led
        ([7, 8, 6, 5, 9, 4, 3, 0], 0, 5, True),
        # level (7) is not ahead: the lead taken for good at step 3
        ([7, 5, 7, 6, 2, -3], 0, 3, True),
        # B leads from the first move to a catch at 14 or beyond
        ([7, 9, 10, 16], 1, 1, True),
        # B wins (3 Codebreakers, say) while A leads the race: decided at the last step
        ([7, 6, 5, 4], 1, 3, False),
        # a tie at 7 when the cards ran out: the last step too
        ([7, 8, 7], 0, 2, False),
    ],
)
def test_the_step_the_winner_took_the_lead_for_good(
    gaps: list[int], winner: int, step: int, by_gap: bool
) -> None:
    fs = _frames(gaps, winner)
    got = decided(fs)
    assert got == {"step": step, "turn": fs[step]["turn"], "winner": winner, "by_gap": by_gap}
    # the definition, restated: ahead from that step to the end, and not just before it
    ahead = [g < 7 if winner == 0 else g > 7 for g in gaps]
    if by_gap:
        assert all(ahead[step:]) and not ahead[step - 1]
    else:
        assert not ahead[-1]


def test_nothing_is_decided_while_the_game_is_played() -> None:
    assert decided(_frames([7, 5, 3], None)) is None
    assert decided([]) is None


def _game(seed: int) -> Record:
    config = GameConfig.for_seats(2, "simple")
    return play_game(config, seed, [make_bot("greedy", seed), make_bot("random", seed + 1)]).record


@pytest.mark.parametrize("seed", range(6))
def test_played_games_carry_it_and_a_live_prefix_does_not(seed: int) -> None:
    record = _game(seed)
    payload = viewer_payload(record, Perspective(SPECTATOR))
    got = payload["decided"]
    fs = payload["frames"]
    assert got is not None and 0 < got["step"] < len(fs)
    assert got["winner"] == fs[-1]["outcome"]["winner"]
    assert got["turn"] == fs[got["step"]]["turn"]
    # the same in every perspective (the gap is public)
    omniscient = frames(record, Perspective("omniscient"))
    assert decided(omniscient) == got
    # a live match's payload is a prefix of its decisions: not over, nothing decided
    live = replace(record, decisions=record.decisions[: len(record.decisions) // 2], result=None)
    assert viewer_payload(live, Perspective(SPECTATOR))["decided"] is None

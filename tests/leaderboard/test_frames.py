"""Replay viewer frames: what each perspective may see (pure, no database)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from avenue_sdk.viewer.frames import (
    OMNISCIENT,
    SPECTATOR,
    Perspective,
    PerspectiveError,
    frames,
    parse_perspective,
    viewer_payload,
)
from referee import GameConfig
from referee.bots import make_bot
from referee.engine import apply, forfeit, result
from referee.play import play_game
from referee.replay import Record, validate


def a_game(seats: int = 2, mode: str = "advanced", seed: int = 6) -> Record:
    config = GameConfig.for_seats(seats, mode)
    return play_game(config, seed, [make_bot("greedy", seed + s) for s in range(seats)]).record


def test_one_frame_per_state_and_the_last_one_is_the_result() -> None:
    record = a_game()
    fs = frames(record, Perspective(SPECTATOR))
    assert len(fs) == len(record.decisions) + 1
    final = validate(record)
    assert final.outcome is not None
    assert fs[-1]["outcome"] == {
        "winner": final.outcome.winner,
        "reason": final.outcome.reason.value,
    }
    assert fs[-1]["positions"] == list(final.pos)
    assert any("wins" in e for e in fs[-1]["events"])
    assert [f["step"] for f in fs] == list(range(len(fs)))


@pytest.mark.parametrize("decisions", [0, 3])
def test_a_forfeit_has_a_frame_of_its_own(decisions: int) -> None:
    """A fault ends the game in a state no decision led to (``referee.forfeit``): the
    viewer shows it last, and a forfeit at the first decision has frames too (a hosted
    bot's crash; this raised IndexError on the match page)."""
    record = a_game()
    kept = record.decisions[:decisions]
    state = record.initial_state()
    for d in kept:
        state = apply(state, d.action)
    ended = forfeit(state, state.actor)
    forfeited = dataclasses.replace(record, decisions=kept, result=result(ended))
    fs = frames(forfeited, Perspective(SPECTATOR))
    assert len(fs) == decisions + 2
    assert fs[-1]["last"] is None and fs[-1]["ending"]
    assert [f["last"] is None for f in fs] == [True] + [False] * decisions + [True]


@pytest.mark.parametrize("seats", [2, 4])
def test_each_perspective_sees_exactly_what_it_may(seats: int) -> None:
    record = a_game(seats=seats)
    spectator = frames(record, Perspective(SPECTATOR))
    omniscient = frames(record, Perspective(OMNISCIENT))
    for seat in range(seats):
        mine = frames(record, Perspective("seat", seat))
        for f, o, sp in zip(mine, omniscient, spectator, strict=True):
            for info, oinfo, spinfo in zip(f["seats"], o["seats"], sp["seats"], strict=True):
                if info["seat"] == seat:
                    assert info["hand"] == oinfo["hand"] and info["discards"] == oinfo["discards"]
                else:
                    assert info["hand"] is None and info["discards"] is None
                assert spinfo["hand"] is None and spinfo["discards"] is None
                assert info["hand_size"] == oinfo["hand_size"]
            assert "deck" not in f and "deck" not in sp and "deck" in o
            offer, ooffer = f["offer"], o["offer"]
            if ooffer["face_down_offered"]:
                assert ooffer["face_down"] is not None
                assert sp["offer"]["face_down"] is None
                if offer["face_down"] is not None:
                    assert offer["face_down"] == ooffer["face_down"]
    # the face-down card reaches exactly the seat that played it, before the reveal
    hidden_from_all = [f for f in spectator if f["offer"]["face_down_offered"]]
    assert hidden_from_all


def test_no_perspective_but_omniscient_contains_a_hidden_card_name() -> None:
    record = a_game(seats=2, mode="simple", seed=11)
    text = json.dumps(frames(record, Perspective("seat", 0)))
    omni = frames(record, Perspective(OMNISCIENT))
    assert '"deck"' not in text and '"deck"' in json.dumps(omni)


def test_parse_perspective() -> None:
    record = a_game(seats=4)
    assert parse_perspective("seat:3", record) == Perspective("seat", 3)
    assert parse_perspective("omniscient", record).kind == OMNISCIENT
    with pytest.raises(PerspectiveError, match="unknown perspective 'seat:4'"):
        parse_perspective("seat:4", record)
    payload = viewer_payload(record, Perspective(SPECTATOR))
    assert payload["perspectives"] == [
        "seat:0",
        "seat:1",
        "seat:2",
        "seat:3",
        "spectator",
        "omniscient",
    ]
    json.dumps(payload)

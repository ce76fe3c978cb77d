"""The hidden-information audit (issue 7): a sample in every CI run; the full 20,000 games
run with ``bench/audit_hidden_info.py`` (docs/reliability.md has the figures)."""

from __future__ import annotations

import dataclasses

import pytest

from arena.adapters.runner import match as runner_match
from referee.observation import Observation, observe
from referee.state import State
from tests.reliability.audit import CONFIGS, run_audit

SAMPLE_GAMES = 2 * len(CONFIGS) * 25  # 600 games, every configuration


def test_no_message_tells_a_bot_more_than_its_seat_may_know() -> None:
    report = run_audit(SAMPLE_GAMES, seed=1)
    assert report.games == SAMPLE_GAMES
    assert report.messages > 10 * SAMPLE_GAMES
    assert report.leaks == 0, report.examples


def _peeks_at_the_next_hand(state: State, seat: int | None) -> Observation:
    obs = observe(state, seat)
    if seat is None:
        return obs
    nxt = (seat + 1) % state.config.seats
    return dataclasses.replace(obs, discards=state.hands[nxt])


def _shows_every_face_down_card(state: State, seat: int | None) -> Observation:
    return dataclasses.replace(observe(state, seat), my_face_down=state.offer_down)


@pytest.mark.parametrize("leaky", [_peeks_at_the_next_hand, _shows_every_face_down_card])
def test_the_audit_catches_a_leaking_build(monkeypatch: pytest.MonkeyPatch, leaky) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(runner_match, "observe", leaky)
    report = run_audit(2 * len(CONFIGS), seed=2)
    assert report.leaks > 0
    assert "redealt" in report.examples[0]

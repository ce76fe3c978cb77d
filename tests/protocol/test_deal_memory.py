"""A bot that remembers deals learns nothing under independent deals (issue 11 section 1).

A real SDK bot process (``HandMemoryBot``) dials in through a gateway and plays a league
round against two house bots, every match through the real worker path (``play_match``:
claim, the runner over the Redis relay, the one-transaction result). It notes its starting
hand in every match and, when a deal looks like one it has seen, predicts its opponent's
hand from memory. Under mirrored pairs (the arena's old default) every second game of a
pair is such a repeat and the prediction is right; under the default it must never be.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings

from arena.adapters.play.matches import play_match
from arena.adapters.relay.redis import RedisRunnerRelay
from arena.models import Bot, Match, MatchStatus
from arena.services import leagues as svc
from arena.services.claims import PlayOutcome
from arena.services.rounds import do_schedule_round
from avenue_sdk.protocol.convert import _counts
from referee.replay import from_json
from tests.protocol.harness import Arena

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.processes]


def _hand(counts: tuple[int, ...]) -> list[list[int]]:
    """A referee count vector as the bot sees a hand: sorted [agent, count] pairs."""
    return sorted([c.agent, c.count] for c in _counts(counts))


def test_a_bot_that_remembers_deals_never_knows_its_opponents_hand(
    arena: Arena, tmp_path: Path
) -> None:
    record = tmp_path / "hands.jsonl"
    league = svc.do_create_league(
        svc.LeagueSettings(name="Memory", mode="advanced", pairs_per_pairing=3)
    )
    arena.sdk_bot("memory", "tests.protocol.testbots:HandMemoryBot",
                  env={"AVENUE_TEST_RECORD": str(record)})  # fmt: skip
    memory = Bot.objects.get(name="memory")
    svc.do_enter(league, memory)
    for spec in ("random", "greedy"):
        svc.do_enter(league, svc.do_create_house_bot(f"memory-{spec}", spec))
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    url = str(settings.REDIS_URL)
    for match_id in sorted(scheduled.matches):  # queue order, as one worker plays them
        outcome = play_match(match_id, relay_factory=lambda: RedisRunnerRelay(url, arena.prefix))
        assert outcome is PlayOutcome.FINISHED, Match.objects.get(pk=match_id).error

    notes = {}
    for line in record.read_text().splitlines():
        note = json.loads(line)
        notes[int(note["match_id"].split(".")[0])] = note
    played = list(
        Match.objects.filter(league=league, participations__bot=memory, status=MatchStatus.FINISHED)
        .select_related("replay")
        .order_by("id")
    )
    assert len(played) == 12 and set(notes) == {m.pk for m in played}

    own, opponent, decks = {}, {}, {}
    for m in played:
        state = from_json(m.replay.record).initial_state()
        seat = m.participations.get(bot=memory).seat
        own[m.pk] = _hand(state.hands[seat])
        opponent[m.pk] = _hand(state.hands[1 - seat])
        decks[m.pk] = m.replay.record["deck"]
    # the bot's notes are its real starting hands (it decided before its hand changed)
    assert sum(notes[pk]["hand"] == own[pk] for pk in own) >= len(own) // 2, (notes, own)

    # its own predictions: never right
    predictions = {pk: n["predicted_opponent_hand"] for pk, n in notes.items()}
    right = [pk for pk, hand in predictions.items() if hand is not None and hand == opponent[pk]]
    assert right == [], f"the bot knew its opponent's hand in matches {right}"
    # nor would any memory have been: no later match deals its opponent a hand this bot
    # held before from the same deck order (a chance equal hand alone is no knowledge)
    order = [m.pk for m in played]
    repeats = [
        (earlier, later)
        for i, earlier in enumerate(order)
        for later in order[i + 1 :]
        if decks[earlier] == decks[later] and own[earlier] == opponent[later]
    ]
    assert repeats == [], f"deals repeated with the hands swapped: {repeats}"

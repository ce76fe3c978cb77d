"""A bot's announced ``--max-matches`` is a ceiling across workers: matches sent to many
workers at once (here: six threads, each its own worker id, as a threads-pool worker or
several workers would) never seat a dial-in bot in more matches than it asked for; the
others wait in the queue, their attempt budget unspent, and nobody is charged. Real
gateway, real SDK bot process, PostgreSQL, Redis."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from django.db import connection
from django.db.models import Q
from django.utils import timezone

from arena.adapters.play.matches import play_match
from arena.models import Match, MatchStatus, Participation
from arena.services.claims import PlayOutcome
from arena.services.leagues import do_enter
from arena.services.rounds import do_schedule_round
from tests.leagues.factory import house_league
from tests.protocol.harness import Arena

pytestmark = [pytest.mark.slow, pytest.mark.processes]

SLEEPY = "tests.protocol.testbots:SleepyBot"
CAP = 2


def _most_at_once(windows: list[tuple[float, float]]) -> int:
    """The largest number of the (start, end) windows open at one moment."""
    events = sorted([(s, 1) for s, _ in windows] + [(e, -1) for _, e in windows])
    most = now = 0
    for _, step in events:
        now += step
        most = max(most, now)
    return most


def test_a_bot_never_plays_more_matches_than_it_asked_for(arena: Arena, settings) -> None:  # noqa: ANN001
    settings.RELAY_PREFIX = arena.prefix
    settings.ARENA_SEAT_WAIT_SECONDS = 1
    league = house_league("Seat ceiling", ["random", "greedy", "random", "greedy"])
    bot, token = arena.bot("capped")
    do_enter(league, bot)
    arena.sdk_bot(
        "capped", SLEEPY, token=token, env={"AVENUE_TEST_SLEEP": "0.03"},
        args=("--max-matches", str(CAP)),
    )  # fmt: skip
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    theirs = sorted(
        Participation.objects.filter(match__in=scheduled.matches, bot=bot)
        .values_list("match_id", flat=True)
        .distinct()
    )
    assert len(theirs) > 3 * CAP
    outcomes: list[PlayOutcome] = []
    lock = threading.Lock()

    def worker() -> None:
        try:
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline:
                due = list(
                    Match.objects.filter(pk__in=theirs, status=MatchStatus.QUEUED)
                    .filter(Q(not_before__isnull=True) | Q(not_before__lte=timezone.now()))
                    .values_list("pk", flat=True)
                )
                if not due:
                    if not Match.objects.filter(
                        pk__in=theirs, status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING]
                    ).exists():
                        return
                    time.sleep(0.05)
                    continue
                for match_id in due:
                    outcome = play_match(match_id)
                    with lock:
                        outcomes.append(outcome)
        finally:
            connection.close()

    with ThreadPoolExecutor(6) as pool:
        for future in [pool.submit(worker) for _ in range(6)]:
            future.result()

    matches = list(Match.objects.filter(pk__in=theirs))
    assert all(m.status == MatchStatus.FINISHED for m in matches), [
        (m.pk, m.status, m.error) for m in matches
    ]
    # the ceiling held: the games' own play windows (a game's duration, ending where its
    # result was written) never overlap more than the bot asked for
    windows = []
    for m in matches:
        assert m.finished_at is not None and m.duration_ms is not None
        end = m.finished_at.timestamp()
        windows.append((end - m.duration_ms / 1000, end))
    assert _most_at_once(windows) <= CAP
    # ... and it was tried: matches were sent back to wait for a seat
    assert PlayOutcome.SEAT_WAIT in outcomes
    # waiting spent no attempt and charged nobody
    assert all(m.attempts == 1 for m in matches), [(m.pk, m.attempts) for m in matches]
    assert not Participation.objects.filter(match__in=theirs).exclude(fault_cause="").exists()
    assert all(m.not_before is None or m.not_before < timezone.now() + timedelta(seconds=2)
               for m in matches)  # fmt: skip

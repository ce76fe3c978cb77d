"""Challenges played by real Celery workers (subprocesses) on the real queue: a best-of-3
end to end (claims, results, replays, the pages), unrated; and league matches taken before
challenge games when both wait in the queue."""

from __future__ import annotations

import pytest
from django.test import Client

from arena.challenges.models import Challenge
from arena.models import Match, MatchReplay, MatchStatus, Participation, RoundStatus
from arena.ratings.models import BatchRating, LiveRating, RatedMatch
from arena.services import leagues as league_services
from arena.services.rounds import do_schedule_round
from tests.challenges.conftest import People
from tests.leagues.conftest import Cluster, wait_for
from tests.leagues.factory import house_league

pytestmark = [pytest.mark.processes, pytest.mark.services, pytest.mark.slow]


def _over(challenge_id: int) -> bool:
    c = Challenge.objects.select_related("round").get(pk=challenge_id)
    return c.round.status == RoundStatus.COMPLETE


def test_a_best_of_three_played_end_to_end_by_a_worker_unrated(
    cluster: Cluster, people: People
) -> None:
    # alice's bot also plays a rated league: its rating there must not move
    league = house_league("Main", ["random"])
    league_services.do_enter(league, people.mine)
    before = {(r.league_id, r.bot_id): (r.rating, r.games) for r in LiveRating.objects.all()}
    alice = people.client(people.alice)
    made = alice.post(
        "/api/challenges/",
        {"bot": people.mine.name, "opponent": people.house.name, "games": 3},
        content_type="application/json",
    ).json()
    # the live viewer's page is there as soon as the challenge is made
    first = made["watch"]
    assert alice.get(first).status_code == 200
    cluster.start_worker()
    wait_for(lambda: _over(made["id"]), 120, "the challenge's three games", step=0.2)
    games = list(Match.objects.filter(round__challenge=made["id"]).order_by("id"))
    assert len(games) == 3
    assert all(m.status == MatchStatus.FINISHED and not m.rated for m in games), [
        (m.pk, m.status, m.error) for m in games
    ]
    assert MatchReplay.objects.filter(match__in=games).count() == 3
    # no batch fit either: the challenge's league has no ratings to show
    assert not BatchRating.objects.filter(league=games[0].league_id).exists()
    assert not RatedMatch.objects.filter(match__in=games).exists()
    assert not Participation.objects.filter(match__in=games, rating_change__isnull=False).exists()
    after = {
        (r.league_id, r.bot_id): (r.rating, r.games)
        for r in LiveRating.objects.filter(league=league)
    }
    assert after == {k: v for k, v in before.items() if k[0] == league.pk}
    # the requester gets the score and every replay
    state = alice.get("/api/challenges/").json()["challenges"][0]
    assert state["status"] == "finished" and sum(state["score"]) == 3
    assert state["winner"] in (people.mine.name, people.house.name)
    for m in games:
        assert Client().get(f"/api/matches/{m.pk}/replay/").status_code == 200
    page = Client().get(f"/matches/{games[-1].pk}/").content.decode()
    assert "game 3 of 3" in page and "takes it" in page


def test_league_matches_are_taken_before_challenge_games(
    cluster: Cluster,
    people: People,
    settings,  # noqa: ANN001
) -> None:
    """Both queued before any worker runs, the challenge first: one worker (one match at a
    time) starts every league match before the first challenge game. A message per match
    (no chunks), so that the order is the broker's for each of the 15 (sent first in first
    out, the challenge's three would be taken first)."""
    settings.ARENA_MATCH_CHUNK = 1
    league = house_league("Main", ["random", "greedy", "random"], pairs_per_pairing=2)
    alice = people.client(people.alice)
    made = alice.post(
        "/api/challenges/",
        {"bot": people.mine.name, "opponent": people.house.name, "games": 3},
        content_type="application/json",
    )
    assert made.status_code == 201
    scheduled = do_schedule_round(league)
    assert scheduled is not None and len(scheduled.matches) == 12
    cluster.start_worker()
    wait_for(
        lambda: (
            _over(made.json()["id"])
            and not Match.objects.filter(
                league=league, status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING]
            ).exists()
        ),
        180,
        "the challenge and the league round",
        step=0.2,
    )
    league_starts = list(Match.objects.filter(league=league).values_list("started_at", flat=True))
    challenge_starts = list(
        Match.objects.filter(round__challenge=made.json()["id"]).values_list(
            "started_at", flat=True
        )
    )
    starts = [s for s in league_starts + challenge_starts if s is not None]
    assert len(starts) == 15
    league_last = max(s for s in league_starts if s is not None)
    challenge_first = min(s for s in challenge_starts if s is not None)
    assert league_last < challenge_first, (league_starts, challenge_starts)

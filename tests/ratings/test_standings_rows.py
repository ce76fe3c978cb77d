"""The standings rows as shown (``LiveRating.shown_*``, ``arena.ratings.standings``): kept
by each result's transaction, equal to a recompute from the results after a played league
with voids, re-runs and mirrored pairs, and never showing a game whose mirrored partner
is still being played."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from arena.adapters.play.matches import play_match
from arena.models import League, Match, MatchStatus
from arena.ratings.models import LiveRating
from arena.ratings.standings import SHOWN_FIELDS, recompute_standings
from arena.services.claims import PlayOutcome, do_claim_match, do_void_attempt
from arena.services.rounds import do_schedule_round
from leaderboard.reads.leagues import league_standings
from tests.leagues.factory import house_league

pytestmark = pytest.mark.services

LIVE = ["rating", "games", "wins", "losses", "forfeits"]


def _rows(league: League, fields: list[str]) -> dict[int, tuple[Any, ...]]:
    return {
        bot: tuple(values)
        for bot, *values in LiveRating.objects.filter(league=league).values_list("bot_id", *fields)
    }


def _pairs(matches: list[int]) -> list[tuple[Match, Match]]:
    by_deal: dict[tuple[object, ...], list[Match]] = {}
    for m in Match.objects.filter(pk__in=matches).order_by("id"):
        by_deal.setdefault((m.pairing_key, m.pair_index), []).append(m)
    return [(a, b) for a, b in by_deal.values()]


def _void(match_id: int) -> None:
    """Every attempt of the match fails for the infrastructure: it ends void."""
    while True:
        claim = do_claim_match(match_id, "failing-worker")
        assert claim is not None
        if do_void_attempt(claim, "RuntimeError: relay down") is PlayOutcome.VOID:
            return


@pytest.mark.django_db
def test_a_mirrored_game_shows_in_the_standings_once_its_partner_is_over(
    settings, client: Client
) -> None:
    settings.ARENA_MAX_ATTEMPTS = 2
    league = house_league(
        "Shown", ["random", "greedy", "random", "greedy"], deals="mirrored", pairs_per_pairing=2
    )
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    pairs = _pairs(scheduled.matches)
    # the first game of every pair: played, rated, and not shown anywhere yet
    for first, _ in pairs:
        assert play_match(first.pk) is PlayOutcome.FINISHED
    live, shown = _rows(league, LIVE), _rows(league, SHOWN_FIELDS)
    assert all(v[1] > 0 for v in live.values())
    assert all(v[1:] == (0, 0, 0, 0) for v in shown.values())
    assert {r.games for r in league_standings(league).rows} == {0}
    api = client.get(f"/api/leagues/{league.slug}/standings/").json()["standings"]
    assert {r["games"] for r in api} == {0}
    report = recompute_standings(league.pk)
    assert report.exact and report.withheld == len(pairs) and report.released == 0

    # partners: one pair's ends void (its first game comes out), one is re-run after a
    # failed attempt, the rest are played
    (_, voided), (_, rerun), *rest = pairs
    _void(voided.pk)
    claim = do_claim_match(rerun.pk, "w1")
    assert claim is not None
    assert do_void_attempt(claim, "RuntimeError: relay down") is PlayOutcome.REQUEUED
    assert play_match(rerun.pk) is PlayOutcome.FINISHED
    for _, second in rest:
        assert play_match(second.pk) is PlayOutcome.FINISHED
    assert Match.objects.get(pk=voided.pk).status == MatchStatus.VOID

    # every result is out: the shown rows are the live ones, and a recompute agrees
    assert _rows(league, SHOWN_FIELDS) == _rows(league, LIVE)
    report = recompute_standings(league.pk)
    assert report.exact and report.withheld == 0
    assert report.released == len(pairs) * 2 - 1
    top = league_standings(league).rows
    assert sum(r.games for r in top) == sum(v[1] for v in _rows(league, LIVE).values())


@pytest.mark.django_db
def test_independent_deals_show_each_result_at_once_and_the_command_rebuilds_rows(
    capsys,
) -> None:
    league = house_league("Shown at once", ["random", "greedy", "random"])
    for _ in range(2):
        scheduled = do_schedule_round(league, enqueue=False)
        assert scheduled is not None
        for match_id in scheduled.matches:
            assert play_match(match_id) is PlayOutcome.FINISHED
            assert _rows(league, SHOWN_FIELDS) == _rows(league, LIVE)
    assert recompute_standings(league.pk).exact
    # a row gone wrong is found, and --fix rebuilds it from the results
    LiveRating.objects.filter(league=league).update(shown_games=0, shown_wins=0)
    with pytest.raises(Exception, match="rows differ"):
        call_command("league", "recompute-standings", league.name)
    call_command("league", "recompute-standings", league.name, "--fix")
    assert "fixed 3 rows" in capsys.readouterr().out
    assert _rows(league, SHOWN_FIELDS) == _rows(league, LIVE)
    assert recompute_standings(league.pk).exact

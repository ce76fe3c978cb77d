"""The head-to-head records (``HeadToHead``, ``arena.ratings.headtohead``): kept by each
result's transaction, they equal a recount from the matches after a league of mirrored
pairs with a game withheld then released, a void, a failed attempt played again and an
operator's re-run; a withheld game is in no record until its partner is over (the pages
that read them: tests/web/test_pages_read_model.py)."""

from __future__ import annotations

from collections import Counter

import pytest
from django.core.management import call_command

from arena.adapters.play.matches import play_match
from arena.models import League, Match, MatchStatus, Participation
from arena.ratings.models import HeadToHead
from arena.ratings.standings import recompute_standings, withheld_matches
from arena.services.claims import PlayOutcome, do_claim_match, do_void_attempt
from arena.services.rerun import void_and_rerun
from arena.services.rounds import do_schedule_round
from tests.leagues.factory import house_league
from tests.ratings.test_standings_rows import _pairs, _void

pytestmark = pytest.mark.services

Records = dict[tuple[int, int], tuple[int, int]]


def _stored(league: League) -> Records:
    return {
        (b, o): (g, w)
        for b, o, g, w in HeadToHead.objects.filter(league=league, games__gt=0).values_list(
            "bot_id", "opponent_id", "games", "wins"
        )
    }


def _recount(league: League) -> Records:
    """From the matches, by hand: every finished match not withheld, each pair of seats
    of different teams, as the first seat's result."""
    hidden = withheld_matches(league)
    seats: dict[int, list[Participation]] = {}
    for p in Participation.objects.filter(league=league, match__status=MatchStatus.FINISHED):
        if p.match_id not in hidden:
            seats.setdefault(p.match_id, []).append(p)
    games: Counter[tuple[int, int]] = Counter()
    wins: Counter[tuple[int, int]] = Counter()
    for ps in seats.values():
        for p in ps:
            for o in ps:
                if o.team != p.team:
                    games[(p.bot_id, o.bot_id)] += 1
                    wins[(p.bot_id, o.bot_id)] += int(bool(p.won))
    return {k: (n, wins[k]) for k, n in games.items()}


def _bots_of(match: Match) -> set[int]:
    return set(Participation.objects.filter(match=match).values_list("bot_id", flat=True))


@pytest.mark.django_db
def test_the_records_equal_a_recount_through_withheld_void_rerun_and_operator_rerun(
    settings,  # noqa: ANN001 - pytest-django's
) -> None:
    settings.ARENA_MAX_ATTEMPTS = 2
    league = house_league(
        "Records", ["random", "greedy", "random", "greedy"], deals="mirrored", pairs_per_pairing=2
    )
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    pairs = _pairs(scheduled.matches)
    # the first game of every pair: played, and in no record while its partner waits
    for first, _ in pairs:
        assert play_match(first.pk) is PlayOutcome.FINISHED
    assert _stored(league) == {} == _recount(league)
    assert recompute_standings(league.pk).exact

    (withheld, voided), (requeued, rerun), *rest = pairs
    _void(voided.pk)  # released: the first game of that pair joins the records
    assert _stored(league) == _recount(league)
    assert sum(g for g, _ in _stored(league).values()) == 2  # one game, two sides
    assert set(b for b, _ in _stored(league)) == _bots_of(withheld)
    claim = do_claim_match(rerun.pk, "w1")
    assert claim is not None
    assert do_void_attempt(claim, "RuntimeError: relay down") is PlayOutcome.REQUEUED
    assert _stored(league) == _recount(league)  # a failed attempt counts nowhere
    assert play_match(rerun.pk) is PlayOutcome.FINISHED  # releases its partner too
    for _, second in rest:
        assert play_match(second.pk) is PlayOutcome.FINISHED
    assert _stored(league) == _recount(league)
    assert sum(g for g, _ in _stored(league).values()) == 2 * (2 * len(pairs) - 1)
    assert recompute_standings(league.pk).exact

    # an operator voids a pair and plays it again: counted once, not twice
    report = void_and_rerun(league, [requeued.pk], reason="suspect")
    assert sorted(report.rerun) == sorted([requeued.pk, rerun.pk])
    assert _stored(league) == _recount(league)
    assert sum(g for g, _ in _stored(league).values()) == 2 * (2 * len(pairs) - 3)
    assert play_match(requeued.pk) is PlayOutcome.FINISHED
    assert _stored(league) == _recount(league)  # its partner queued: withheld again
    assert play_match(rerun.pk) is PlayOutcome.FINISHED
    assert _stored(league) == _recount(league)
    assert sum(g for g, _ in _stored(league).values()) == 2 * (2 * len(pairs) - 1)
    assert recompute_standings(league.pk).exact


@pytest.mark.django_db
def test_the_command_finds_a_wrong_record_and_fix_rebuilds_it(capsys) -> None:  # noqa: ANN001
    league = house_league("Records fixed", ["random", "greedy", "random"])
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    for match_id in scheduled.matches:
        assert play_match(match_id) is PlayOutcome.FINISHED
    want = _recount(league)
    assert _stored(league) == want and recompute_standings(league.pk).exact
    HeadToHead.objects.filter(league=league).order_by("id").first().delete()  # type: ignore[union-attr]
    with pytest.raises(Exception, match="rows differ"):
        call_command("league", "recompute-standings", league.name)
    call_command("league", "recompute-standings", league.name, "--fix")
    assert _stored(league) == want and recompute_standings(league.pk).exact

"""A bot page's recent-match rows, rendered from one plain statement
(``match_rows._recent_seats``), are exactly the rows the ORM's participations with their
prefetched seats rendered before (``replays.withhold_seats`` blanking a withheld game):
for matches finished, withheld, running, queued and void, two seats and four."""

from __future__ import annotations

import pytest
from django.db.models import Prefetch
from django.template.loader import render_to_string

from arena.adapters.play.matches import play_match
from arena.models import League, MatchStatus, Participation
from arena.services import leagues as svc
from arena.services.claims import PlayOutcome, do_claim_match, do_void_attempt
from arena.services.rounds import do_schedule_round
from leaderboard import match_rows
from leaderboard.replays import withheld_ids, withhold_seats
from tests.web.helpers import make_league

pytestmark = pytest.mark.django_db


def _orm_rows(ids: list[int]) -> dict[int, str]:
    """The rows as the ORM built them: each seat with its match, league and every seat."""
    seats = Participation.objects.select_related("bot").only(
        "match_id", "seat", "team", "won", "bot__name", "fault_cause"
    )
    parts = list(
        Participation.objects.filter(pk__in=ids)
        .select_related("match__league", "match__round")
        .prefetch_related(Prefetch("match__participations", queryset=seats.order_by("seat")))
    )
    withhold_seats(parts)
    return {
        p.pk: render_to_string(
            match_rows.RECENT_TEMPLATE,
            {
                "row": {
                    "p": p,
                    "opponents": [o for o in p.match.participations.all() if o.seat != p.seat],
                }
            },
        )
        for p in parts
    }


def _lean_rows(ids: list[int]) -> dict[int, str]:
    return {
        pk: render_to_string(match_rows.RECENT_TEMPLATE, {"row": row})
        for pk, row in match_rows._recent_seats(ids).items()
    }


def _mirrored_league_in_every_state(settings) -> League:  # noqa: ANN001 - pytest-django's
    settings.ARENA_MAX_ATTEMPTS = 1
    league = svc.do_create_league(svc.LeagueSettings(name="Recent Rows", deals="mirrored"))
    for i, spec in enumerate(["random", "greedy", "random"]):
        svc.do_enter(league, svc.do_create_house_bot(f"{league.slug}-{i}", spec))
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    ids = sorted(scheduled.matches)  # three pairings, a mirrored pair each
    for match_id in ids[:2]:  # a pair over
        assert play_match(match_id) is PlayOutcome.FINISHED
    assert play_match(ids[2]) is PlayOutcome.FINISHED  # withheld: its partner is queued
    claim = do_claim_match(ids[4], "test-worker")  # running
    assert claim is not None
    void = do_claim_match(ids[5], "test-worker")
    assert void is not None
    assert do_void_attempt(void, "gone") is PlayOutcome.VOID
    return league


def test_the_lean_rows_are_the_orm_rows_in_every_state(settings) -> None:  # noqa: ANN001
    league = _mirrored_league_in_every_state(settings)
    four = make_league("Recent Four", ["random", "greedy", "random", "greedy"], seats=4)
    parts = list(Participation.objects.filter(league__in=[league, four]).select_related("match"))
    ids = [p.pk for p in parts]
    assert {p.match.status for p in parts} == set(MatchStatus.values)
    hidden = withheld_ids(p.match_id for p in parts)
    assert hidden  # a finished game whose mirrored partner is queued
    lean, orm = _lean_rows(ids), _orm_rows(ids)
    assert lean.keys() == orm.keys() == set(ids)
    for pk in ids:
        assert lean[pk] == orm[pk], pk
    for p in parts:
        if p.match_id in hidden:
            assert 'class="won"' not in lean[p.pk] and 'class="lost"' not in lean[p.pk]
            assert p.won is not None  # stored: only the row hides it

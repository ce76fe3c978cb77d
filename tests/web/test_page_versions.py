"""A league page's and a bot page's versions move with every committed result, whatever
order results commit in. Two results of one league for different bots do not wait for
each other: the one that stamped its rating rows first can commit last. The version used
the rows' ``MAX(updated_at)``, which that later commit does not move, so the page cached
after the first commit was served without the second result until the league's next one;
a bot's page likewise for two results of the bot in two leagues.

Real commits and a real interleaving: the first result (A) is held, after its rating
rows are written, by a lock another connection takes on its bots' analytics rows (the
result locks those next); the second (B) commits meanwhile; a visitor caches the page;
then A commits."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable

import pytest
from django.db import connection, transaction
from django.test import Client

from arena.adapters.play.matches import play_match
from arena.analytics.models import BotAnalytics
from arena.models import League, Match, MatchStatus, Round
from arena.ratings.models import LiveRating
from arena.services import leagues as svc
from arena.services.claims import PlayOutcome, do_claim_match
from arena.services.rounds import do_schedule_round
from tests.web.helpers import make_league
from tests.web.test_pages_after_result import _counts, _rows_by_bot
from tests.web.test_pages_current import _shown

pytestmark = pytest.mark.django_db(transaction=True)


def _bots(match_id: int) -> set[int]:
    return set(Match.objects.get(pk=match_id).participations.values_list("bot_id", flat=True))


class _Hold(threading.Thread):
    """Another connection's transaction holding ``bots``' analytics rows of ``league``
    until ``release`` is set."""

    def __init__(self, league: League, bots: set[int]) -> None:
        super().__init__(daemon=True)
        self.league, self.bots = league, bots
        self.held, self.release = threading.Event(), threading.Event()

    def run(self) -> None:
        try:
            with transaction.atomic():
                rows = BotAnalytics.objects.select_for_update().filter(
                    league=self.league, bot_id__in=self.bots
                )
                assert len(rows) > 0, "the bots met in the first round: their rows exist"
                self.held.set()
                assert self.release.wait(120), "the test never released the rows"
        finally:
            connection.close()


def _waiting_on_a_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT COUNT(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return int(cursor.fetchone()[0]) > 0


def _held_then(league: League, first: int, meanwhile: Callable[[], None]) -> None:
    """Play ``first`` until it has written its rating rows and waits for its bots'
    analytics rows (held by another connection), run ``meanwhile``, then let it commit."""
    hold = _Hold(league, _bots(first))
    hold.start()
    assert hold.held.wait(60), "the rows were not locked"
    outcome: list[PlayOutcome] = []

    def play() -> None:
        try:
            outcome.append(play_match(first))
        finally:
            connection.close()

    a = threading.Thread(target=play)
    a.start()
    deadline = time.monotonic() + 60
    while not _waiting_on_a_lock():  # A has written its rating rows and waits for the rows
        assert time.monotonic() < deadline, "the first result never reached the held rows"
        assert a.is_alive(), "the first result ended without waiting"
        time.sleep(0.01)
    try:
        meanwhile()
    finally:
        hold.release.set()
        a.join(60)
        hold.join(60)
    assert outcome == [PlayOutcome.FINISHED]


def test_a_result_committed_after_a_later_stamped_one_moves_the_league_page(client: Client) -> None:
    league = make_league("Order League", ["random", "greedy", "random", "greedy"], rounds=1)
    scheduled = do_schedule_round(league, enqueue=False, when_previous_incomplete=True)
    assert scheduled is not None
    first = scheduled.matches[0]
    second = next(m for m in scheduled.matches if not _bots(m) & _bots(first))
    url = f"/leagues/{league.slug}/"
    assert client.get(url).status_code == 200

    def second_then_a_view() -> None:
        assert play_match(second) is PlayOutcome.FINISHED  # stamped after A, committed first
        page = client.get(url).content.decode()  # cached as of B
        assert _standings(page) == _shown(league)

    _held_then(league, first, second_then_a_view)
    page = client.get(url).content.decode()
    assert _standings(page) == _shown(league), (
        "the page still shows the standings without the result committed last"
    )


def test_a_result_committed_after_a_later_stamped_one_of_the_bot_moves_its_page(
    client: Client,
) -> None:
    one = make_league("Order One", ["random", "greedy"], rounds=1)
    shared = LiveRating.objects.filter(league=one).order_by("bot_id")[0].bot
    two = svc.do_create_league(svc.LeagueSettings(name="Order Two"))
    svc.do_enter(two, shared)
    svc.do_enter(two, svc.do_create_house_bot("order-two-1", "greedy"))
    in_one = do_schedule_round(one, enqueue=False, when_previous_incomplete=True)
    in_two = do_schedule_round(two, enqueue=False)
    assert in_one is not None and in_two is not None
    url = f"/bots/{shared.name}/"
    assert client.get(url).status_code == 200

    def ratings(page: str) -> dict[str, list[int]]:
        return {slug: _counts(row) for slug, row in _rows_by_bot(page, "ratings").items()}

    def shown() -> dict[str, list[int]]:
        return {
            slug: [g, w, lo, f]
            for slug, g, w, lo, f in LiveRating.objects.filter(bot=shared).values_list(
                "league__slug", "shown_games", "shown_wins", "shown_losses", "shown_forfeits"
            )
        }

    def other_league_then_a_view() -> None:
        assert play_match(in_two.matches[0]) is PlayOutcome.FINISHED
        assert ratings(client.get(url).content.decode()) == shown()  # cached as of it

    _held_then(one, in_one.matches[0], other_league_then_a_view)
    assert ratings(client.get(url).content.decode()) == shown(), (
        "the bot's page still shows its ratings without the result committed last"
    )


def _standings(page: str) -> dict[str, list[int]]:
    return {name: _counts(row) for name, row in _rows_by_bot(page, "standings").items()}


def _finished_in_rounds(page: str) -> list[int]:
    """The rounds table's "Finished" column, newest round first."""
    table = page.split('<table class="rounds">', 1)[1].split("</table>", 1)[0]
    cells = r'<td class="num">\d+</td><td class="num">(\d+)</td>'
    return [int(n) for n in re.findall(cells, table)]


def test_a_match_that_ends_while_another_starts_moves_the_rounds_section(client: Client) -> None:
    """A result stamped before B's but committed after it, while a third match started:
    the running count and the latest finish are both as they were when the page was
    cached, yet the round has one more finished match."""
    league = make_league("Rounds Order", ["random", "greedy", "random", "greedy"], rounds=1)
    scheduled = do_schedule_round(league, enqueue=False, when_previous_incomplete=True)
    assert scheduled is not None
    first = scheduled.matches[0]
    second = next(m for m in scheduled.matches if not _bots(m) & _bots(first))
    third = next(m for m in scheduled.matches if m not in (first, second))
    url = f"/leagues/{league.slug}/"
    assert client.get(url).status_code == 200

    def finished_now() -> list[int]:
        return [
            Match.objects.filter(round=r, status=MatchStatus.FINISHED).count()
            for r in Round.objects.filter(league=league).order_by("-number")
        ]

    def second_then_a_view_then_a_start() -> None:
        assert play_match(second) is PlayOutcome.FINISHED
        assert _finished_in_rounds(client.get(url).content.decode()) == finished_now()
        assert do_claim_match(third, "another-worker") is not None  # starts: one more live

    _held_then(league, first, second_then_a_view_then_a_start)
    assert _finished_in_rounds(client.get(url).content.decode()) == finished_now(), (
        "the rounds section still shows the round without the match that ended last"
    )

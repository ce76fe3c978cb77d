"""The information format (matchmaking, ``games_per_bot`` single games a round) against
PostgreSQL: settings, a few hundred house bots scheduled in bounded transactions, rounds
interrupted midway (an exception between batches, a scheduler killed with SIGKILL) and
finished by the next run, statements that grow linearly with the league."""

from __future__ import annotations

import random
import re
import signal
import subprocess
import sys
from collections import Counter
from decimal import Decimal
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from arena.admin import LeagueForm
from arena.matchmaking import PROVISIONAL_GAMES, planned_games
from arena.models import Bot, BotKind, Entry, League, Match, Participation, Round, RoundStatus
from arena.ratings.models import LiveRating
from arena.services import leagues as svc
from arena.services.matchmade import candidates_of
from arena.services.rounds import do_reap, do_schedule_round
from tests.leagues.conftest import ROOT, Cluster, wait_for

pytestmark = pytest.mark.services


def big_league(name: str, n: int, *, games_per_bot: int = 10, provisional: int = 0) -> League:
    """``n`` house bots: the first ``provisional`` new (no game yet), the others with a
    rating history (as if the league had played for a while)."""
    league = svc.do_create_league(
        svc.LeagueSettings(name=name, format="information", games_per_bot=games_per_bot)
    )
    bots = Bot.objects.bulk_create(
        Bot(name=f"{league.slug}-{i}", kind=BotKind.HOUSE, house_spec="random") for i in range(n)
    )
    Entry.objects.bulk_create(Entry(league=league, bot=b) for b in bots)
    rng = random.Random(n)
    ratings = [Decimal(1500) if i < provisional else Decimal(round(rng.gauss(1500, 200), 4))
               for i in range(n)]  # fmt: skip
    LiveRating.objects.bulk_create(
        LiveRating(league=league, bot=b, rating=r, games=0 if i < provisional else 200)
        for i, (b, r) in enumerate(zip(bots, ratings, strict=True))
    )
    return league


def round_games(rnd: Round) -> list[tuple[int, int]]:
    """(entry of seat 0, entry of seat 1) of every match of the round."""
    seats: dict[int, dict[int, int]] = {}
    for match_id, seat, entry in Participation.objects.filter(match__round=rnd).values_list(
        "match_id", "seat", "entry_id"
    ):
        seats.setdefault(match_id, {})[seat] = entry
    assert all(sorted(s) == [0, 1] for s in seats.values())
    return [(s[0], s[1]) for s in seats.values()]


def plan_of(league: League) -> dict[int, int]:
    """Each entry's games a round as the league's ratings stand (``planned_games``)."""
    entries = list(Entry.objects.filter(league=league))
    return planned_games(candidates_of(league, entries), league.games_per_bot)


def assert_sound_round(rnd: Round) -> Counter[int]:
    """Every entry at most its planned games (and all of them but for one game of an odd
    total), no pair twice, the round counted and playing."""
    rnd.refresh_from_db()
    plan = plan_of(rnd.league)
    games = round_games(rnd)
    assert rnd.status == RoundStatus.PLAYING
    assert rnd.scheduled_matches == len(games) == rnd.matches.count()
    pairs = [frozenset(g) for g in games]
    assert all(len(p) == 2 for p in pairs)
    assert len(set(pairs)) == len(pairs), "a pair meets twice in one round"
    per_entry = Counter(e for g in games for e in g)
    assert all(per_entry[e] <= plan[e] for e in plan)
    assert sum(plan.values()) - 2 * len(games) <= 1
    return per_entry


def test_settings_of_the_format_are_checked(db: None) -> None:
    refusals: list[tuple[dict[str, Any], str, str]] = [
        ({"format": "swiss"}, "format", "unknown format 'swiss': use round_robin or information"),
        ({"games_per_bot": 0}, "games_per_bot", "games per bot and round must be between 1"),
        ({"seats": 4}, "format", "single games between two bots.*needs round robin"),
        ({"deals": "mirrored"}, "deals", "no pairs to mirror: use independent deals"),
        ({"pairs_per_pairing": 2}, "pairs_per_pairing", "pairs per pairing is a round-robin"),
    ]
    for changes, field, message in refusals:
        bad = svc.LeagueSettings(name="Bad", **{"format": "information", **changes})
        with pytest.raises(svc.LeagueError, match=message) as caught:
            svc.do_create_league(bad)
        assert caught.value.field == field
    assert not League.objects.exists()
    # round robin keeps its pairs and mirrored deals; the games per bot do not matter to it
    svc.do_create_league(svc.LeagueSettings(name="RR", deals="mirrored", pairs_per_pairing=2))
    call_command("league", "create", "CLI info", "--format", "information", "--games-per-bot", "4")
    league = League.objects.get(name="CLI info")
    assert (league.format, league.games_per_bot) == ("information", 4)
    base = {
        **svc.settings_of(league).__dict__, "name": "Admin info", "slug": "admin-info",
        "fault_policy": "{}", "status": "active", "live_delay_decisions": 3,
    }  # fmt: skip
    assert LeagueForm(data=base).is_valid()
    form = LeagueForm(data={**base, "seats": 3})
    assert not form.is_valid() and "needs round robin" in str(form.errors["format"])


def test_a_round_gives_every_bot_its_games_against_close_opponents(db: None) -> None:
    k, n, new = 10, 300, 25
    league = big_league("Large", n, games_per_bot=k, provisional=new)
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    rnd = scheduled.round
    per_entry = assert_sound_round(rnd)
    entries = list(Entry.objects.filter(league=league).order_by("id"))
    provisional = {e.pk for e in entries[:new]}
    # provisional bots (nobody knows them yet) get the most games a bot can have, and all
    plan = plan_of(league)
    assert all(per_entry[e] == plan[e] == 2 * k for e in provisional)
    # the settled ones theirs (an odd total leaves one game short), k on average
    assert sum(plan[e.pk] - per_entry[e.pk] for e in entries) <= 1
    assert abs(len(scheduled.matches) - n * k // 2) <= n * k // 40
    assert len(scheduled.matches) == rnd.scheduled_matches
    # opponents close in rating: far closer than blind pairing would make them
    rating = {
        e.pk: float(r)
        for e, r in zip(
            entries,
            [LiveRating.objects.get(league=league, bot_id=e.bot_id).rating for e in entries],
            strict=True,
        )
    }
    settled = [(a, b) for a, b in round_games(rnd) if a not in provisional and b not in provisional]
    gap = sum(abs(rating[a] - rating[b]) for a, b in settled) / len(settled)
    assert gap < 226 / 4  # two independent N(1500, 200) ratings are 226 apart on average
    # one game a pair, dealt independently; queue order goes slot by slot, and no bot plays
    # twice in one slot
    matches = list(Match.objects.filter(round=rnd).order_by("id"))
    assert len({m.deck_seed for m in matches}) == len(matches)
    assert {m.mirror for m in matches} == {0}
    assert [m.slot for m in matches] == sorted(m.slot for m in matches)
    slot_of = {m.pk: m.slot for m in matches}
    seen = Counter(
        (slot_of[mid], e)
        for mid, e in Participation.objects.filter(match__round=rnd).values_list(
            "match_id", "entry_id"
        )
    )
    assert max(seen.values()) == 1
    # seat 0 (team A) is either bot of a pair, about as often
    lower_first = sum(a < b for a, b in round_games(rnd)) / len(matches)
    assert 0.4 < lower_first < 0.6
    # the next round waits for this one; started anyway, it is as sound on its own
    assert do_schedule_round(league, enqueue=False) is None
    again = do_schedule_round(league, enqueue=False, when_previous_incomplete=True)
    assert again is not None and again.round.number == 2
    assert_sound_round(again.round)


@pytest.mark.parametrize("batch", [200])
def test_scheduling_statements_grow_linearly_in_bounded_transactions(
    db: None,
    settings,
    batch: int,  # noqa: ANN001 - pytest-django's settings fixture
) -> None:
    settings.ARENA_SCHEDULE_BATCH = batch
    k = 10
    counts = {}
    for n in (100, 400):
        league = big_league(f"Linear {n}", n, games_per_bot=k, provisional=n // 10)
        with CaptureQueriesContext(connection) as captured:
            scheduled = do_schedule_round(league, enqueue=False)
        assert scheduled is not None
        sql = [q["sql"] for q in captured.captured_queries]
        # inside the test's transaction each of the scheduler's transactions is a savepoint
        savepoints = sum(s.startswith("SAVEPOINT") for s in sql)
        batches = -(-len(scheduled.matches) // batch)
        assert scheduled.transactions == batches + 3 == savepoints
        assert scheduled.largest_transaction_rows <= 3 * batch
        counts[n] = (len(sql), savepoints, len(scheduled.matches))
        assert_sound_round(scheduled.round)
    (s1, t1, m1), (s4, t4, m4) = counts[100], counts[400]
    assert m4 / m1 == pytest.approx(4, rel=0.05)
    # linear: four times the bots, at most four times the statements and transactions
    # (a round robin's rows grow sixteen-fold); and they do grow with the round
    assert 2 < s4 / s1 <= 4, counts
    assert 2 < t4 / t1 <= 4, counts


def test_a_run_stopped_midway_is_finished_by_the_next_never_doubled(db: None, settings) -> None:  # noqa: ANN001
    settings.ARENA_SCHEDULE_BATCH = 100
    k, n, new = 6, 200, 20
    league = big_league("Stopped", n, games_per_bot=k, provisional=new)

    class Crash(Exception):
        pass

    def crash_after_two(written: int, total: int) -> None:
        if written >= 200:
            raise Crash(f"stopped at {written} of {total}")

    with pytest.raises(Crash):
        do_schedule_round(league, enqueue=False, on_batch=crash_after_two)
    rnd = Round.objects.get(league=league)
    assert rnd.status == RoundStatus.SCHEDULING and rnd.completed_at is None
    assert rnd.scheduled_matches == rnd.matches.count() == 200
    # half a round neither looks complete nor is sent: the reaper leaves it alone
    report = do_reap()
    assert rnd.pk not in report.completed_rounds
    assert not set(report.requeued) & set(rnd.matches.values_list("id", flat=True))
    rnd.refresh_from_db()
    assert rnd.status == RoundStatus.SCHEDULING
    # the next run finishes this round instead of starting another
    finished = do_schedule_round(league, enqueue=False)
    assert finished is not None and finished.round.pk == rnd.pk
    assert Round.objects.filter(league=league).count() == 1
    per_entry = assert_sound_round(rnd)
    plan = plan_of(league)
    provisional = list(Entry.objects.filter(league=league).order_by("id"))[:new]
    assert all(per_entry[e.pk] == plan[e.pk] == 2 * k for e in provisional)
    assert len(finished.matches) >= (sum(plan.values()) - k) // 2


def test_a_scheduler_overtaken_midway_stops_and_the_other_finishes(db: None, settings) -> None:  # noqa: ANN001
    settings.ARENA_SCHEDULE_BATCH = 100
    k = 8
    league = big_league("Overtaken", 150, games_per_bot=k)
    others: list[object] = []

    def overtake(written: int, total: int) -> None:
        if not others:  # a second scheduler runs between the first one's batches
            others.append(do_schedule_round(league, enqueue=False))

    first = do_schedule_round(league, enqueue=False, on_batch=overtake)
    assert first is None, "its count was stale: it stopped"
    assert others and others[0] is not None
    rnd = Round.objects.get(league=league)
    assert_sound_round(rnd)


@pytest.mark.processes
@pytest.mark.slow
def test_a_scheduler_killed_midway_leaves_a_round_the_next_run_finishes(
    cluster: Cluster,
) -> None:
    """A real crash: ``manage.py league schedule`` killed with SIGKILL between (or inside)
    its transactions, then the periodic job's next run."""
    k, n = 8, 250
    env = {**cluster.env, "ARENA_SCHEDULE_BATCH": "10"}
    for attempt in range(5):
        league = big_league(f"Killed {attempt}", n, games_per_bot=k, provisional=20)
        proc = subprocess.Popen(
            [sys.executable, "manage.py", "league", "schedule", league.slug],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )  # fmt: skip

        def midway(league: League = league, proc: subprocess.Popen[bytes] = proc) -> Round | None:
            rnd = Round.objects.filter(league=league).first()
            if rnd is not None and (rnd.scheduled_matches > 0 or rnd.status != "scheduling"):
                return rnd
            assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
            return None

        rnd = wait_for(midway, 120, "the scheduler to write its first batch", step=0.005)
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        rnd.refresh_from_db()
        if rnd.status == RoundStatus.SCHEDULING:
            break
    else:
        pytest.fail("the scheduler finished every time before it could be killed")
    assert 0 < rnd.scheduled_matches == rnd.matches.count() < sum(plan_of(league).values()) // 2
    finished = do_schedule_round(league, enqueue=False)
    assert finished is not None and finished.round.pk == rnd.pk
    assert Round.objects.filter(league=league).count() == 1
    assert_sound_round(rnd)


@pytest.mark.processes
@pytest.mark.slow
def test_a_small_league_plays_rounds_to_completion_in_embedded_mode(tmp_path) -> None:  # noqa: ANN001
    import os

    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL") and not k.startswith(("CELERY", "ARENA_"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        PYTHONPATH=str(ROOT),
        DATABASE_URL=f"sqlite:///{tmp_path / 'info.sqlite3'}",
    )

    def manage(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Traceback" not in done.stderr
        return done.stdout

    manage("migrate", "--noinput", "-v0")
    out = manage("league", "create", "Info", "--format", "information", "--games-per-bot", "3")
    assert "information matchmaking, 3 games per bot a round on average" in out
    manage("league", "enter", "Info", "random", "greedy", "search:1", "search:2", "search:3",
           "search:4")  # fmt: skip
    out = manage("league", "run", "Info", "--rounds", "1")
    assert "round 1 of Info: scheduled, 9 matches" in out
    assert "round 1: complete, 9 matches" in out
    assert "[  9/9]" in out
    # nobody has a rating yet: every rank interval is the whole league, so every bot
    # plans the same games_per_bot
    assert _games_in_standings(out) == [3] * 6, out
    out = manage("league", "run", "Info", "--rounds", "1")
    # from now on a bot's games follow the width of its rank interval (planned_games):
    # between half and twice games_per_bot (at most the five opponents), not even
    found = re.search(r"round 2 of Info: scheduled, (\d+) matches", out)
    assert found, out
    second = int(found.group(1))
    assert f"round 2: complete, {second} matches" in out
    games = _games_in_standings(out)
    assert sum(games) == 2 * (9 + second), out
    assert all(3 + 1 <= g <= 3 + 5 for g in games), out
    assert PROVISIONAL_GAMES > 6  # all of them still provisional, so all served first


def _games_in_standings(out: str) -> list[int]:
    """The games column of the standings ``league run`` prints last."""
    standings = out[out.index("Standings of Info") :].splitlines()
    assert len(standings) == 8, out  # title, header, six bots
    return sorted(int(line.split()[-4]) for line in standings[2:])


def test_pages_and_the_api_show_the_format(db: None, client, settings) -> None:  # noqa: ANN001
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    league = big_league("Shown", 30, games_per_bot=4, provisional=30)
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    page = client.get(f"/leagues/{league.slug}/").content.decode()
    assert "information matchmaking, 4 games per bot a round on average" in page
    match = client.get(f"/matches/{scheduled.matches[0]}/").content.decode()
    assert "a single game (information matchmaking)" in match
    detail = client.get(f"/api/leagues/{league.slug}/").json()
    assert (detail["format"], detail["games_per_bot"]) == ("information", 4)
    svc.do_create_league(svc.LeagueSettings(name="Shown RR"))
    rr = client.get("/api/leagues/shown-rr/").json()
    assert (rr["format"], rr["games_per_bot"]) == ("round_robin", None)
    assert "round robin" in client.get("/leagues/shown-rr/").content.decode()

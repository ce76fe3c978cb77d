"""League services against PostgreSQL, in this process: checks, scheduling, claims, the
one-transaction result path, voided attempts, recompute."""

from __future__ import annotations

import threading
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError, connection, transaction
from django_celery_beat.models import PeriodicTask

from arena.adapters.play.matches import play_match
from arena.adapters.relay.redis import RedisRunnerRelay
from arena.adapters.runner import HouseSeat, run_match
from arena.admin import LeagueForm
from arena.models import League, Match, MatchEndReason, MatchStatus, Participation, Round
from arena.ratings.models import LiveRating, RatedMatch
from arena.ratings.services import fit_batch_ratings, recompute_ratings
from arena.services import leagues as svc
from arena.services.bots import create_bot
from arena.services.claims import PlayOutcome, do_claim_match
from arena.services.results import do_finish_match
from arena.services.rounds import do_schedule_due_rounds, do_schedule_round
from referee import GameConfig
from tests.leagues.factory import assert_rated_once, house_league, rating_total

pytestmark = pytest.mark.services


def _schedule(league: League) -> list[int]:
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    return scheduled.matches


def _play_round(league: League) -> Round:
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    for match_id in scheduled.matches:
        assert play_match(match_id) is PlayOutcome.FINISHED
    scheduled.round.refresh_from_db()
    return scheduled.round


# ------------------------------------------------------------------ bad configuration


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"ruleset": "tournament"}, "ruleset", "unknown ruleset 'tournament': known rulesets"),
        ({"seats": 5}, "seats", r"has 2 seats \(one against one\) or 3 or 4 \(teams\), not 5"),
        ({"seats": 1}, "seats", "not 1"),
        ({"mode": "expert"}, "mode", "unknown mode 'expert'"),
        ({"pairs_per_pairing": 0}, "pairs_per_pairing", "between 1 and 50, not 0"),
        ({"k_factor": -3.0}, "k_factor", "K must be between"),
        ({"fault_policy": {"timeout": "shrug"}}, "fault_policy", "not forfeit or abort"),
        ({"fault_policy": {"sulking": "abort"}}, "fault_policy", "unknown fault cause"),
        ({"no_show_window_s": 0}, "no_show_window_s", "need a window"),
    ],
)
def test_bad_settings_are_refused_with_a_clear_message(changes, field, message) -> None:
    bad = svc.LeagueSettings(name="Bad", **changes)
    with pytest.raises(svc.LeagueError, match=message) as caught:
        svc.do_create_league(bad)
    assert caught.value.field == field
    assert not League.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("every 1s", "the shortest interval is 10 s"),
        ("0 0 31 2 *", "that day of the month never occurs in the months given"),
        ("61 * * * *", "impossible schedule"),
        ("now and then", "cannot read the schedule"),
    ],
)
def test_impossible_schedules_are_refused_and_nothing_is_half_applied(text, message) -> None:
    with pytest.raises(svc.LeagueError, match=message):
        svc.do_create_league(svc.LeagueSettings(name="Sched"), svc.ScheduleSpec.parse(text))
    assert not League.objects.exists()
    assert not PeriodicTask.objects.exists()


@pytest.mark.django_db
def test_a_schedule_is_a_beat_entry_that_follows_the_league() -> None:
    league = svc.do_create_league(
        svc.LeagueSettings(name="Timed"), svc.ScheduleSpec.parse("every 30m")
    )
    task = PeriodicTask.objects.get(pk=league.schedule_id)
    assert task.task == "arena.schedule_due_rounds"
    assert task.kwargs == f'{{"league_id": {league.pk}}}'
    assert task.interval.every == 1800 and task.enabled
    assert PeriodicTask.objects.filter(name=svc.REAPER_TASK_NAME).exists()
    svc.do_set_schedule(league, svc.ScheduleSpec.parse("*/15 * * * *"))
    task.refresh_from_db()
    assert task.interval is None and task.crontab.minute == "*/15"
    assert svc.schedule_of(league) == svc.ScheduleSpec(cron="*/15 * * * *")
    svc.do_set_status(league, svc.LeagueStatus.PAUSED)
    task.refresh_from_db()
    assert not task.enabled
    svc.do_set_schedule(league, None)
    assert not PeriodicTask.objects.filter(pk=task.pk).exists()


@pytest.mark.django_db
def test_too_few_entries_is_refused_everywhere() -> None:
    league = house_league("Lonely", ["greedy", "random", "random"], seats=4)
    with pytest.raises(svc.LeagueError, match="has 3 active entries; a 4-seat league needs"):
        do_schedule_round(league)
    with pytest.raises(CommandError, match="a 4-seat league needs at least 4"):
        call_command("league", "run", league.slug, "--rounds", "1")
    assert not Round.objects.exists()
    report = do_schedule_due_rounds(league.pk)
    assert "a 4-seat league needs at least 4" in report.refused


@pytest.mark.django_db
def test_the_admin_form_shows_the_same_refusals() -> None:
    base = {
        "name": "Admin league", "slug": "admin-league", "mode": "simple", "seats": 2,
        "ruleset": "standard", "pairs_per_pairing": 1,
        "format": "round_robin", "games_per_bot": 10, "decision_ms": 5000, "bank_ms": 60000,
        "fault_policy": "{}", "connect_grace_ms": 2000, "reconnect_grace_ms": 30000,
        "no_show_retries": 3,
        "no_show_window_s": 300, "absent_wait_s": 60, "live_delay_decisions": 3,
        "k_factor": 24, "rated": True,
        "open_for_entries": True,
        "status": "active", "deals": "independent",
    }  # fmt: skip
    assert LeagueForm(data={**base, "schedule_text": "every 1h"}).is_valid()
    form = LeagueForm(data={**base, "ruleset": "tournament"})
    assert not form.is_valid()
    assert "unknown ruleset" in str(form.errors["ruleset"])
    form = LeagueForm(data={**base, "schedule_text": "0 0 30 2 *"})
    assert not form.is_valid()
    assert "never occurs" in str(form.errors["schedule_text"])
    form = LeagueForm(data={**base, "seats": 6})
    assert not form.is_valid() and "not 6" in str(form.errors["seats"])
    form = LeagueForm(data={**base, "reconnect_grace_ms": 900_000})
    assert not form.is_valid()
    assert "reconnect grace" in str(form.errors["reconnect_grace_ms"])


@pytest.mark.django_db
def test_game_settings_are_fixed_once_a_round_exists() -> None:
    league = house_league("Fixed", ["random", "greedy"])
    _play_round(league)
    changed = svc.LeagueSettings(**{**svc.settings_of(league).__dict__, "seats": 4})
    with pytest.raises(svc.LeagueError, match="seats cannot change once rounds were played"):
        svc.check_league_settings(changed, league=league)
    fine = svc.LeagueSettings(**{**svc.settings_of(league).__dict__, "k_factor": 32.0})
    svc.check_league_settings(fine, league=league)


# ------------------------------------------------------------------ scheduling


@pytest.mark.django_db(transaction=True)
def test_two_schedulers_at_once_make_one_round_without_duplicates() -> None:
    league = house_league("Race", ["random", "greedy", "random", "greedy", "random"])
    barrier = threading.Barrier(2)
    results: list[object] = []

    def schedule() -> None:
        try:
            barrier.wait(5)
            results.append(do_schedule_round(league, enqueue=False))
        finally:
            connection.close()

    threads = [threading.Thread(target=schedule) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(results) == 2 and sum(r is not None for r in results) == 1
    assert Round.objects.filter(league=league).count() == 1
    # 5 entries: 10 pairings, each a mirrored pair; every game once
    keys = list(Match.objects.values_list("pairing_key", "pair_index", "mirror"))
    assert len(keys) == 20 == len(set(keys))
    assert Participation.objects.count() == 40
    # and a scheduler that got past the lock would hit the unique constraint
    m = Match.objects.order_by("id")[0]
    with pytest.raises(IntegrityError), transaction.atomic():
        Match.objects.create(
            league=league, round=m.round, pairing_key=m.pairing_key, pair_index=m.pair_index,
            mirror=m.mirror, deck_seed=1,
        )  # fmt: skip


@pytest.mark.django_db
def test_a_mirrored_league_plays_each_pair_on_one_deck() -> None:
    league = house_league(
        "Mirror", ["random", "greedy", "random"], pairs_per_pairing=2, deals="mirrored"
    )
    rnd = _play_round(league)
    matches = list(Match.objects.filter(round=rnd))
    assert len(matches) == 3 * 2 * 2
    by_pair: dict[tuple[str, int], list[Match]] = {}
    for m in matches:
        by_pair.setdefault((m.pairing_key, m.pair_index), []).append(m)
    seeds = set()
    for pair in by_pair.values():
        a, b = sorted(pair, key=lambda m: m.mirror)
        assert (a.deck_seed, a.first_team) == (b.deck_seed, b.first_team)
        seeds.add(a.deck_seed)
        team_of = {p.bot_id: p.team for p in a.participations.all()}
        assert {p.bot_id: 1 - p.team for p in b.participations.all()} == team_of
        assert a.replay.record["deck"] == b.replay.record["deck"]
    assert len(seeds) == len(by_pair)


# ------------------------------------------------------------------ claims and results


@pytest.mark.django_db(transaction=True)
def test_only_one_of_many_racing_claims_wins() -> None:
    league = house_league("Claims", ["random", "greedy"])
    match_id = _schedule(league)[0]
    barrier = threading.Barrier(6)
    claims = []

    def claim(i: int) -> None:
        try:
            barrier.wait(5)
            claims.append(do_claim_match(match_id, f"racer-{i}"))
        finally:
            connection.close()

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    won = [c for c in claims if c is not None]
    assert len(won) == 1 and won[0].attempt == 1
    assert Match.objects.get(pk=match_id).worker_id == won[0].worker


@pytest.mark.django_db
def test_a_result_from_a_lost_lease_is_discarded_and_rated_once(settings) -> None:
    league = house_league("Lease", ["random", "greedy"])
    match_id = _schedule(league)[0]
    slow = do_claim_match(match_id, "slow-worker")
    assert slow is not None and do_claim_match(match_id, "other") is None
    Match.objects.filter(pk=match_id).update(lease_expires_at="2000-01-01T00:00:00Z")
    assert play_match(match_id, worker="fast-worker") is PlayOutcome.FINISHED
    # the first worker comes back with its own (valid) result: nothing of it is written
    outcome = run_match(
        [HouseSeat("random", 1), HouseSeat("greedy", 2)], GameConfig(), 3, match_id="late"
    )
    assert do_finish_match(slow, outcome) is PlayOutcome.LOST_LEASE
    assert RatedMatch.objects.filter(match_id=match_id).count() == 1
    m = Match.objects.get(pk=match_id)
    assert (m.attempts, m.worker_id) == (2, "fast-worker")
    assert play_match(match_id) is PlayOutcome.SKIPPED  # a late duplicate message


@pytest.mark.django_db
def test_a_relay_failure_voids_the_attempt_and_never_touches_ratings(settings) -> None:
    settings.ARENA_MAX_ATTEMPTS = 2
    league = house_league("Broken relay", ["greedy"])
    bot, _ = create_bot("remote-on-broken-relay")
    svc.do_enter(league, bot)
    match_id = _schedule(league)[0]
    broken = lambda: RedisRunnerRelay("redis://127.0.0.1:1/0")  # noqa: E731 - nothing listens
    assert play_match(match_id, relay_factory=broken) is PlayOutcome.REQUEUED
    m = Match.objects.get(pk=match_id)
    assert (m.status, m.attempts, m.rated) == (MatchStatus.QUEUED, 1, False)
    assert "RelayError" in m.error
    assert play_match(match_id, relay_factory=broken) is PlayOutcome.VOID
    m.refresh_from_db()
    assert (m.status, m.end_reason) == (MatchStatus.VOID, MatchEndReason.INFRASTRUCTURE)
    assert not RatedMatch.objects.exists()
    assert set(LiveRating.objects.values_list("rating", "games")) == {(Decimal(1500), 0)}
    assert not hasattr(m, "replay") or not m.replay


# ------------------------------------------------------------------ ratings


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("seats", "specs", "mode"),
    [
        (2, ["random", "greedy", "random", "greedy"], "simple"),
        (3, ["random", "greedy", "random", "greedy"], "advanced"),
        (4, ["random", "greedy", "random", "greedy", "random"], "simple"),
    ],
)
def test_recompute_reproduces_the_stored_ratings_exactly(seats, specs, mode) -> None:
    league = house_league(f"Recompute {seats}", specs, seats=seats, mode=mode, k_factor=32)
    for _ in range(2):
        assert _play_round(league).status == "complete"
    assert_rated_once(league)
    report = recompute_ratings(league.pk)
    assert report.exact, report.mismatches
    assert report.rated == Match.objects.filter(league=league).count()
    # the ledger is checked, not trusted: a tampered row is found and can be fixed
    row = LiveRating.objects.filter(league=league).order_by("id")[0]
    LiveRating.objects.filter(pk=row.pk).update(rating=row.rating + Decimal("0.0001"))
    report = recompute_ratings(league.pk)
    assert not report.exact and "stored rating" in report.mismatches[0]
    assert recompute_ratings(league.pk, fix=True).fixed
    assert recompute_ratings(league.pk).exact
    total, expected = rating_total(league)
    assert total == expected


@pytest.mark.django_db
def test_batch_fit_is_stored_with_intervals() -> None:
    league = house_league("Batch", ["random", "greedy", "search:30"], pairs_per_pairing=3)
    _play_round(league)
    report = fit_batch_ratings(league.pk, bootstrap=50)
    assert (report.bots, report.matches, report.bootstrap) == (3, 18, 50)
    rows = list(league.batch_ratings.order_by("rank"))
    assert [r.rank for r in rows] == [1, 2, 3]
    for r in rows:
        assert r.low <= r.elo <= r.high and r.rank_low <= r.rank <= r.rank_high
        assert r.games == 12
    assert abs(sum(r.elo for r in rows) / 3 - 1500) < 1e-6


@pytest.mark.django_db
def test_league_command_runs_rounds_and_prints_standings(capsys) -> None:
    call_command("league", "create", "CLI league", "--pairs", "1")
    call_command("league", "enter", "CLI league", "random", "greedy", "search:20")
    call_command("league", "run", "cli-league", "--rounds", "2")
    call_command("league", "recompute-ratings", "cli-league")
    out = capsys.readouterr().out
    assert "round 1 of CLI league: scheduled, 6 matches" in out
    assert "[  6/6]" in out and "Standings of CLI league" in out
    assert "stored ratings equal the recomputed ones exactly" in out
    assert_rated_once(League.objects.get(slug="cli-league"))
    with pytest.raises(CommandError, match="unknown ruleset"):
        call_command("league", "create", "Nope", "--ruleset", "tournament")
    with pytest.raises(CommandError, match="neither a registered bot nor a house bot"):
        call_command("league", "enter", "cli-league", "nobody")


@pytest.mark.django_db
def test_the_admin_creates_a_league_with_its_schedule_or_nothing(admin_client) -> None:
    data = {
        "name": "Admin made", "slug": "admin-made", "mode": "advanced", "seats": 4,
        "ruleset": "standard", "pairs_per_pairing": 1,
        "format": "round_robin", "games_per_bot": 10, "decision_ms": 5000, "bank_ms": 60000,
        "fault_policy": "{}", "connect_grace_ms": 2000, "reconnect_grace_ms": 30000,
        "no_show_retries": 3,
        "no_show_window_s": 300, "absent_wait_s": 60, "live_delay_decisions": 3,
        "k_factor": 24, "rated": "on",
        "open_for_entries": "on",
        "status": "active", "deals": "independent", "schedule_text": "0 0 31 2 *",
        "entries-TOTAL_FORMS": 0, "entries-INITIAL_FORMS": 0,
    }  # fmt: skip
    refused = admin_client.post("/admin/arena/league/add/", data)
    assert refused.status_code == 200 and b"never occurs" in refused.content
    assert not League.objects.exists() and not PeriodicTask.objects.exists()
    made = admin_client.post("/admin/arena/league/add/", {**data, "schedule_text": "every 2h"})
    assert made.status_code == 302, made.content[:2000]
    league = League.objects.get(slug="admin-made")
    assert league.deals == "independent" and league.ruleset_version == 1
    assert svc.schedule_of(league) == svc.ScheduleSpec(every_s=7200)
    page = admin_client.get(f"/admin/arena/league/{league.pk}/change/")
    assert b'value="every 2h"' in page.content

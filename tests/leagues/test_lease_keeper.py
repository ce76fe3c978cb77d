"""The lease keeper: one thread per process extends every lease the process holds (one
UPDATE per beat, not a thread and a statement per match), and tells a heartbeat whose
lease another worker took over that it is lost."""

from __future__ import annotations

import threading
import time
from contextlib import ExitStack
from datetime import datetime

from django.db.models import QuerySet
from django.utils import timezone

from arena.models import Match
from arena.services.claims import Claim, LeaseHeartbeat, do_claim_match
from arena.services.rounds import do_schedule_round
from tests.leagues.conftest import wait_for
from tests.leagues.factory import house_league


def test_one_keeper_thread_extends_every_lease_and_notices_a_takeover(
    transactional_db: None,
    settings,  # noqa: ANN001
) -> None:
    settings.ARENA_LEASE_SECONDS = 3  # a beat every second
    league = house_league("Kept leases", ["random", "random", "greedy", "greedy", "random"])
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None and len(scheduled.matches) >= 10
    claims = [do_claim_match(m, f"test-worker-{m}") for m in scheduled.matches]
    assert all(c is not None for c in claims)
    held: list[Claim] = [c for c in claims if c is not None]
    leases = Match.objects.filter(pk__in=[c.match_id for c in held])
    first = _leases(leases)
    with ExitStack() as stack:
        beats = [stack.enter_context(LeaseHeartbeat(c)) for c in held]
        keepers = [t for t in threading.enumerate() if t.name == "lease-keeper"]
        assert len(keepers) == 1
        # every lease moves forward, and stays ahead of the clock
        wait_for(
            lambda: all(lease > first[pk] for pk, lease in _leases(leases).items()),
            30,
            "every lease to be extended",
        )
        # another worker takes one over (as a claim after an expired lease would)
        victim = held[0]
        Match.objects.filter(pk=victim.match_id).update(
            worker_id="another-worker", attempts=victim.attempt + 1
        )
        wait_for(lambda: beats[0].lost, 30, "the keeper to notice the takeover")
        assert not any(b.lost for b in beats[1:])
        later = timezone.now()
        wait_for(
            lambda: all(
                lease > later for lease in _leases(leases.exclude(pk=victim.match_id)).values()
            ),
            30,
            "the other leases to be extended again",
        )
    # out of the with-blocks: nobody extends them any more (two beats' time)
    after = _leases(leases)
    time.sleep(2.5)
    assert _leases(leases) == after


def _leases(matches: QuerySet[Match]) -> dict[int, datetime]:
    found = dict(matches.values_list("pk", "lease_expires_at"))
    assert None not in found.values(), "a held match without a lease"
    return {pk: lease for pk, lease in found.items() if lease is not None}


def test_an_attempt_past_the_match_time_limit_loses_its_lease(
    transactional_db: None,
    settings,  # noqa: ANN001
    monkeypatch,  # noqa: ANN001
) -> None:
    """A ``--pool threads`` worker does not enforce Celery's time limits: a match thread
    stuck for good would keep its lease extended for ever and its match would never be
    played. Past the limit the keeper stops extending that lease (the others go on), so
    the reaper can hand the match to a new attempt."""
    from arena.services import claims

    settings.ARENA_LEASE_SECONDS = 3  # a beat every second
    settings.ARENA_MATCH_TIME_LIMIT_SECONDS = 2
    monkeypatch.setattr(claims, "HARD_LIMIT_MARGIN_S", 0)
    league = house_league("Overdue leases", ["random", "greedy", "random"])
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    stuck_claim, fresh_claim = (
        do_claim_match(m, f"test-worker-{m}") for m in scheduled.matches[:2]
    )
    assert stuck_claim is not None and fresh_claim is not None
    with LeaseHeartbeat(stuck_claim) as stuck:
        wait_for(lambda: stuck.overdue, 30, "the keeper to let the stuck attempt go")
        with LeaseHeartbeat(fresh_claim) as fresh:
            before = _leases(Match.objects.filter(pk=fresh_claim.match_id))
            stuck_lease = _leases(Match.objects.filter(pk=stuck_claim.match_id))
            wait_for(
                lambda: _leases(Match.objects.filter(pk=fresh_claim.match_id)) != before,
                30,
                "the other lease to be extended",
            )
            assert not fresh.overdue and not stuck.lost
            # the stuck one is not extended any more: its lease runs out
            assert _leases(Match.objects.filter(pk=stuck_claim.match_id)) == stuck_lease
            expires = stuck_lease[stuck_claim.match_id]
            wait_for(lambda: timezone.now() > expires, 30, "the stuck lease to expire")
            assert _leases(Match.objects.filter(pk=stuck_claim.match_id)) == stuck_lease

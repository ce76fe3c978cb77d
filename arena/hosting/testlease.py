"""Who plays a version test, and recovering one whose task was lost.

A test's task plays pairs for a slice of time, then sends itself on (``workers.tasks``).
Like a match, a test is played by the worker that claims it: a conditional update sets
``VersionTest.worker`` and a lease, every recorded pair extends the lease, and the end of
a slice hands the test over (lease cleared) before the next message is sent. So a second
delivery of a message (a broker redelivery, or the reaper's re-send) claims nothing and
plays nothing while the test is being played, and a worker that died leaves a lease that
expires. The reaper (``reap``, run with the matches' reaper) re-sends a running test that
has shown no sign of life (``touched_at``) for ``ARENA_REQUEUE_AFTER_SECONDS``: its message
was lost (a broker restarted without it, say).
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from arena import dispatch
from arena.hosting.models import VersionTest, VersionTestStatus

logger = logging.getLogger(__name__)

#: longer than any pair takes (four sandboxes, two games bounded by their clocks)
LEASE = timedelta(minutes=15)


def claim(test_id: int, worker: str) -> bool:
    """Take the running test for ``worker`` unless another worker's lease holds it."""
    now = timezone.now()
    free = Q(lease_expires_at__isnull=True) | Q(lease_expires_at__lt=now)
    return bool(
        VersionTest.objects.filter(free, pk=test_id, status=VersionTestStatus.RUNNING).update(
            worker=worker, lease_expires_at=now + LEASE, touched_at=now
        )
    )


def renew(row: VersionTest, worker: str) -> bool:
    """Inside the pair's transaction (``row`` locked): extend ``worker``'s lease; False if
    the test is no longer its own (taken over after its lease expired)."""
    if row.worker != worker:
        return False
    now = timezone.now()
    row.lease_expires_at, row.touched_at = now + LEASE, now
    return True


def hand_over(test_id: int, worker: str) -> None:
    """The end of ``worker``'s slice: the next message's worker may claim it at once."""
    VersionTest.objects.filter(pk=test_id, worker=worker).update(
        worker="", lease_expires_at=None, touched_at=timezone.now()
    )


def reap() -> list[int]:
    """Re-send every running test whose lease expired, or that is between slices and has
    not been touched for ``ARENA_REQUEUE_AFTER_SECONDS``; returns their ids."""
    now = timezone.now()
    quiet = now - timedelta(seconds=settings.ARENA_REQUEUE_AFTER_SECONDS)
    lost = VersionTest.objects.filter(status=VersionTestStatus.RUNNING).filter(
        Q(lease_expires_at__lt=now) | Q(lease_expires_at__isnull=True, touched_at__lt=quiet)
    )
    ids = list(lost.values_list("pk", flat=True))
    if ids:
        # touched: re-sent once per quiet period, not at every reaper run
        VersionTest.objects.filter(pk__in=ids).update(touched_at=now)
        for test_id in ids:
            logger.warning("version test %d: no sign of life; sent again", test_id)
            dispatch.enqueue_version_test(test_id)
    return ids

"""Celery's Django fix-up, with Django's own rule for database connections between tasks.

Celery's ``DjangoWorkerFixup`` (5.7) closes every database connection before and after
each task, whatever ``CONN_MAX_AGE`` says: a worker then opens a new PostgreSQL connection
for every match (~5 ms, a backend process forked for it), which was the largest share of a
house match's orchestration. This fix-up closes them the way Django does at the end of a
request instead (``close_if_unusable_or_obsolete``): a connection past ``CONN_MAX_AGE``
(``DATABASE_CONN_MAX_AGE``; 0, the default, still closes after every task), in error, or
left in a transaction's state is closed; a healthy one is kept, and checked before its
next use (``CONN_HEALTH_CHECKS``). A pool's connection goes back to the pool either way
(``CONN_MAX_AGE`` is 0 with ``DATABASE_POOL_SIZE``). Everything else (Django's setup, the
model checks, closing what a forked pool child inherited, the caches) is Celery's.
"""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from celery.fixups.django import DjangoFixup, DjangoWorkerFixup

__all__ = ["fixup"]


class _WorkerFixup(DjangoWorkerFixup):
    def close_database(self, **kwargs: Any) -> None:
        for conn in self._db.connections.all(initialized_only=True):
            conn.close_if_unusable_or_obsolete()


class _Fixup(DjangoFixup):
    @property
    def worker_fixup(self) -> DjangoWorkerFixup:
        if self._worker_fixup is None:
            self._worker_fixup: DjangoWorkerFixup | None = _WorkerFixup(self.app)
        return self._worker_fixup


def fixup(app: Celery) -> DjangoFixup | None:
    """For ``Celery(fixups=[...])``: installed when a Django settings module is set, like
    Celery's own."""
    if not os.environ.get("DJANGO_SETTINGS_MODULE"):
        return None
    return _Fixup(app).install()

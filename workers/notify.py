"""The notification tasks (``arena.notify``): one delivery's attempt, the sweeper that
beat runs every ``NOTIFY_SWEEP_EVERY_S`` (also ``manage.py notify sweep``), and the hourly
cleanup of events older than ``NOTIFY_RETENTION_DAYS`` (also ``manage.py notify cleanup``)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from workers.celery import app


@app.task(name="arena.notify_deliver", soft_time_limit=120, time_limit=150, ignore_result=True)
def deliver(delivery_id: int) -> bool:
    """One attempt; a failed one sends its retry after the backoff. Acknowledged early: a
    worker killed mid-attempt leaves the row ``sending`` with a lease, and the sweeper
    sends it again when the lease has run out (the row, not the message, is the record)."""
    from arena.notify.delivery import deliver as attempt

    wait = attempt(int(delivery_id))
    if wait is not None and not app.conf.task_always_eager:
        deliver.apply_async((delivery_id,), countdown=wait.total_seconds())
    return wait is None


@app.task(name="arena.notify_sweep", soft_time_limit=60, time_limit=90, ignore_result=True)
def sweep() -> int:
    """Send the deliveries that are due and have no task on the way (lost, or their worker
    died mid-attempt): their claims make a second task for one of them a no-op."""
    from arena.notify.delivery import due

    ids = due()
    send(ids)
    return len(ids)


@app.task(name="arena.notify_cleanup", soft_time_limit=300, time_limit=360, ignore_result=True)
def cleanup() -> int:
    """Delete the events past their retention whose deliveries are over, in bounded
    batches (``arena.notify.retention``); the rest of a backlog waits for the next run."""
    from arena.notify.retention import cleanup as delete_old

    return delete_old()


def send(delivery_ids: list[int]) -> None:
    """``settings.NOTIFY_SENDER``: a task per delivery. In embedded mode, where Celery is
    eager, they run in this process on a thread of their own: the caller is the thread
    that committed the event, often a match's, which a webhook's timeout must not hold."""
    if app.conf.task_always_eager:
        for pk in delivery_ids:
            _embedded_pool().submit(_deliver_here, int(pk))
        return
    for pk in delivery_ids:
        deliver.delay(int(pk))


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _embedded_pool() -> ThreadPoolExecutor:
    """One thread, in order; the interpreter waits for what it holds before it exits (so
    ``manage.py notify sweep`` still sends everything it found)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(1, thread_name_prefix="notify-embedded")
        return _pool


def _deliver_here(delivery_id: int) -> None:
    from django.db import connection

    try:
        deliver.apply((delivery_id,))
    finally:
        connection.close()  # the thread's own; closed after each delivery

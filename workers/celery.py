"""The Celery app. Configuration comes from Django settings (namespace CELERY).

Embedded mode (no REDIS_URL) sets task_always_eager, so a task runs inside the
process that enqueues it and no broker or worker is needed.
"""

import logging
import os

from celery import Celery, concurrency, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# Celery's Django fix-up, except that a connection is kept between tasks as Django keeps
# it between requests (CONN_MAX_AGE): workers/fixup.py
app = Celery("workers", fixups=["workers.fixup:fixup"])
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# ``--pool threads`` is Celery's thread pool whose idle threads exit and whose process
# gives its memory back after a burst (workers/pool.py)
concurrency.ALIASES["threads"] = "workers.pool:TaskPool"


@signals.worker_ready.connect
def _say_engine(**_: object) -> None:
    """The worker's log says which build of the rules engine its matches run."""
    import referee

    logging.getLogger("workers").info(
        "rules engine: %s (%s)", referee.ENGINE, referee.ENGINE_REASON
    )


@signals.worker_ready.connect
def _say_restarted(**_: object) -> None:
    """After a restart in place (``workers.restart``), how long it took."""
    from workers.restart import say_restarted

    say_restarted()

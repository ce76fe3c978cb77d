"""The Celery app. Configuration comes from Django settings (namespace CELERY).

Embedded mode (no REDIS_URL) sets task_always_eager, so a task runs inside the
process that enqueues it and no broker or worker is needed.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

app = Celery("workers")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

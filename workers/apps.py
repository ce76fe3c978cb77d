from django.apps import AppConfig


class WorkersConfig(AppConfig):
    """Makes every Django process (web, gateway, commands) load the Celery app.

    Without this, a task enqueued from a web request would go through Celery's
    default app, which knows nothing of the broker configured in settings.
    """

    name = "workers"
    verbose_name = "Workers"

    def ready(self) -> None:
        import workers.celery  # noqa: F401  (registers the app as Celery's current app)

from django.apps import AppConfig


class NotifyConfig(AppConfig):
    """Owners told what happened to their bots: subscriptions, an outbox of events, and
    their deliveries by webhook and e-mail (docs/notifications.md)."""

    name = "arena.notify"
    label = "notify"
    verbose_name = "Notifications"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from arena.notify import sources

        sources.connect()

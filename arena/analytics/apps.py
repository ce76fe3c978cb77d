from django.apps import AppConfig


class AnalyticsConfig(AppConfig):
    """Per-bot counters from every finished match (``arena.services.analytics``)."""

    name = "arena.analytics"
    label = "analytics"
    verbose_name = "Bot analytics"
    default_auto_field = "django.db.models.BigAutoField"

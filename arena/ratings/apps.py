from django.apps import AppConfig


class RatingsConfig(AppConfig):
    """Live Elo, its ledger and the batch fit of every league (the competition domain)."""

    name = "arena.ratings"
    label = "ratings"
    verbose_name = "Ratings"
    default_auto_field = "django.db.models.BigAutoField"

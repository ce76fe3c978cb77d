from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    """Ratings (live and batch Elo), web pages (standings, bots, matches, replays), REST API."""

    name = "leaderboard"
    verbose_name = "Leaderboard"
    default_auto_field = "django.db.models.BigAutoField"

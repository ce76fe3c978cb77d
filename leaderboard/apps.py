from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    """Ratings (live and batch Elo), web pages (standings, bots, matches, replays), REST API."""

    name = "leaderboard"
    verbose_name = "Leaderboard"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # a result refreshes the watched pages it changed, right after its commit
        from arena.services import result_hooks
        from leaderboard import refresh

        result_hooks.register(refresh.after_result)

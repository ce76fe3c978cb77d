from django.apps import AppConfig


class SeasonsConfig(AppConfig):
    """Seasons, divisions, promotion and relegation (the competition domain)."""

    name = "arena.seasons"
    label = "seasons"
    verbose_name = "Seasons"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from arena.seasons.services import check_season_room
        from arena.services import rounds

        if check_season_room not in rounds.round_guards:
            rounds.round_guards.append(check_season_room)

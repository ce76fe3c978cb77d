from django.apps import AppConfig


class SeasonsConfig(AppConfig):
    """Seasons, divisions, promotion and relegation (the competition domain)."""

    name = "arena.seasons"
    label = "seasons"
    verbose_name = "Seasons"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from arena.seasons.placement import place_before_round, provisional_pairs
        from arena.seasons.services import check_season_room
        from arena.services import matchmade, rounds

        if check_season_room not in rounds.round_guards:
            rounds.round_guards.append(check_season_room)
        if place_before_round not in rounds.before_round:
            rounds.before_round.append(place_before_round)
        if provisional_pairs not in matchmade.outside_divisions:
            matchmade.outside_divisions.append(provisional_pairs)

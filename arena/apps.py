from django.apps import AppConfig


class ArenaConfig(AppConfig):
    """The competition domain: bots, tokens, leagues, rounds, matches, runner, gateway."""

    name = "arena"
    verbose_name = "Arena"
    default_auto_field = "django.db.models.BigAutoField"

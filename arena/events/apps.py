from django.apps import AppConfig


class EventsConfig(AppConfig):
    """Tournaments (knockout, Swiss, round robin) over the league machinery."""

    name = "arena.events"
    label = "events"
    verbose_name = "Events"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from arena.events import advance
        from arena.services import rerun, result_hooks

        # the next round starts when a result completes the last one (after its commit)
        result_hooks.register(advance.after_result)
        # a knockout tie whose winner moved on is not played again
        rerun.register_guard(advance.rerun_refusal)

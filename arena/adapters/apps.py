from django.apps import AppConfig


class AdaptersConfig(AppConfig):
    """The arena's adapters as an app: its management commands (``manage.py league``,
    ``rungateway``, ``runbothost``, ...) and the receivers that connect the domain's signals
    to the relay."""

    name = "arena.adapters"
    label = "adapters"
    verbose_name = "Arena adapters"

    def ready(self) -> None:
        from arena.adapters.relay import botnotices, revocation

        revocation.connect()
        botnotices.connect()

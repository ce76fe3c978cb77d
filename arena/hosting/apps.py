from django.apps import AppConfig


class HostingConfig(AppConfig):
    """Hosted bots: their uploaded code versions and the checks that admit them."""

    name = "arena.hosting"
    label = "hosting"
    verbose_name = "Hosted bots"
    default_auto_field = "django.db.models.BigAutoField"

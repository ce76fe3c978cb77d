from django.contrib import admin

from arena.models import Bot


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Tokens are created and rotated with `manage.py bot`; the admin shows their prefix."""

    list_display = ["name", "kind", "owner", "active", "token_prefix", "last_seen_at", "bot_version"]
    list_filter = ["kind", "active"]
    search_fields = ["name"]
    readonly_fields = [
        "token_prefix",
        "created_at",
        "last_seen_at",
        "protocol_version",
        "bot_version",
    ]

"""The admin's view of challenges, and of who accepts them (staff may switch a house bot off)."""

from django.contrib import admin

from arena.challenges.models import Challenge, ChallengeLeague, ChallengeSetting


@admin.register(ChallengeSetting)
class ChallengeSettingAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("bot", "accepts", "updated_at")
    list_filter = ("accepts",)
    search_fields = ("bot__name",)
    autocomplete_fields = ("bot",)


@admin.register(Challenge)
class ChallengeAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("pk", "kind", "requester", "bot", "opponent", "games", "created_at")
    list_filter = ("kind",)
    search_fields = ("bot__name", "opponent__name", "requester__username")
    # written by the services only: the admin reads
    readonly_fields = [f.name for f in Challenge._meta.fields]

    def has_add_permission(self, request: object) -> bool:
        return False


admin.site.register(ChallengeLeague)

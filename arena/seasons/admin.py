"""Seasons in the admin: a league's season settings (saving them starts season 1 when
none runs, through ``do_configure_seasons``) and its seasons, read only."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.http import HttpRequest

from arena.seasons.models import Season, SeasonSettings
from arena.seasons.services import SeasonConfig, check_season_config, do_configure_seasons
from arena.services.errors import LeagueError

FIELDS = [
    "rounds_per_season", "seconds_per_season", "start_rule", "soft_factor", "divisions",
    "division_size", "promote", "placement", "placement_games",
]  # fmt: skip


class SeasonSettingsForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        model = SeasonSettings
        fields = ["league", *FIELDS]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        league = data.get("league")
        seats = league.seats if league is not None else 2
        try:
            check_season_config(SeasonConfig(**{f: data.get(f) for f in FIELDS}), seats)  # type: ignore[arg-type]
        except LeagueError as exc:
            raise ValidationError(str(exc)) from None
        return data


@admin.register(SeasonSettings)
class SeasonSettingsAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["league", *FIELDS]
    form = SeasonSettingsForm

    def save_model(
        self, request: HttpRequest, obj: SeasonSettings, form: Any, change: bool
    ) -> None:
        do_configure_seasons(obj.league, SeasonConfig.of(obj))


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["league", "number", "status", "started_at", "ends_at", "rounds", "ended_at"]
    list_filter = ["status", "league"]
    readonly_fields = [f.name for f in Season._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

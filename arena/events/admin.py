"""Tournaments in the admin: made with the same checks as ``manage.py tournament create``
and the API (``arena.events.services``); started with the *Start* action."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from arena.events.advance import do_start
from arena.events.models import Bye, Entrant, Tournament, TournamentFormat
from arena.events.services import EventError, TournamentSettings, check_settings, do_create
from arena.models import Bot, DealMode, League


class TournamentAddForm(forms.ModelForm):  # type: ignore[type-arg]
    slug = forms.SlugField(required=False, help_text="empty: made from the name")
    bots = forms.ModelMultipleChoiceField(
        queryset=Bot.objects.filter(active=True).order_by("name"),
        help_text="the entrants (2 to 64); seeded by their rating in the seed league",
    )
    deals = forms.ChoiceField(
        choices=DealMode.choices, initial=DealMode.MIRRORED,
        help_text="mirrored: each two games on one deal, teams swapped (house and hosted "
        "bots only); independent: every game its own deal",
    )  # fmt: skip
    rated = forms.BooleanField(required=False, help_text="the event's games change ratings")
    seed_league_choice = forms.ModelChoiceField(
        queryset=League.objects.filter(tournament__isnull=True), required=False,
        label="Seed league", help_text="seeds by live rating there; empty: the bots' order",
    )  # fmt: skip

    class Meta:
        model = Tournament
        fields = ["name", "slug", "description", "format", "rounds", "games_per_pairing"]

    def settings(self) -> TournamentSettings:
        d = self.cleaned_data
        seed = d.get("seed_league_choice")
        return TournamentSettings(
            name=d["name"], slug=d.get("slug") or "", description=d.get("description") or "",
            format=d["format"], bots=[b.name for b in d["bots"]], rounds=d.get("rounds") or 0,
            games_per_pairing=d["games_per_pairing"], deals=d["deals"], rated=d["rated"],
            seed_league=seed.slug if seed else "",
        )  # fmt: skip

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not self.errors:
            try:
                check_settings(self.settings())
            except EventError as exc:
                field = exc.field if exc.field in self.fields else None
                self.add_error(field, str(exc))
        return data


class EntrantInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Entrant
    extra = 0
    readonly_fields = ["bot", "listed", "seed", "seed_rating"]
    can_delete = False


class ByeInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Bye
    extra = 0
    readonly_fields = ["round_number", "bot"]
    can_delete = False


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["name", "format", "status", "rounds", "games_per_pairing", "winner"]
    list_filter = ["format", "status"]
    search_fields = ["name", "slug"]
    actions = ["start"]
    inlines = [EntrantInline, ByeInline]

    def get_form(
        self, request: HttpRequest, obj: Any | None = None, change: bool = False, **kwargs: Any
    ) -> Any:
        if obj is None:
            kwargs["form"] = TournamentAddForm
        return super().get_form(request, obj, change, **kwargs)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return [
                "name", "slug", "description", "format", "bots", "rounds",
                "games_per_pairing", "deals", "rated", "seed_league_choice",
            ]  # fmt: skip
        return [
            "name", "slug", "description", "format", "status", "league", "rounds",
            "games_per_pairing", "seed_league", "winner", "started_at", "finished_at",
        ]  # fmt: skip

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return []
        return [f for f in self.get_fields(request, obj) if f != "description"]

    def get_inlines(self, request: HttpRequest, obj: Any) -> Any:
        return [] if obj is None else self.inlines

    def save_model(self, request: HttpRequest, obj: Tournament, form: Any, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        made = do_create(form.settings())
        obj.pk, obj.league_id = made.pk, made.league_id
        obj.refresh_from_db()

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        if change:
            super().save_related(request, form, formsets, change)

    @admin.action(description="Start the selected draft tournaments (seed, round 1)")
    def start(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        for t in queryset:
            try:
                done = do_start(t)
            except EventError as exc:
                self.message_user(request, f"{t.name}: {exc}", messages.ERROR)
            else:
                self.message_user(request, f"{t.name}: round {done.round} started")


__all__ = ["TournamentAdmin", "TournamentFormat"]

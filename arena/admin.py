from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import URLPattern, path
from django.utils.html import format_html

from arena.admin_faults import faults_link, league_faults_view, rerun_matches
from arena.models import (
    Bot,
    DealMode,
    Entry,
    Incident,
    League,
    Match,
    MatchStatus,
    Participation,
    Round,
)  # fmt: skip
from arena.services import leagues as svc
from arena.services.rounds import do_schedule_round


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Tokens are created and rotated with `manage.py bot`; the admin shows their prefix."""

    list_display = [
        "name", "kind", "owner", "active", "token_prefix", "last_seen_at", "bot_version",
    ]  # fmt: skip
    list_filter = ["kind", "active"]
    search_fields = ["name"]
    readonly_fields = [
        "token_prefix",
        "created_at",
        "last_seen_at",
        "protocol_version",
        "bot_version",
    ]


# ------------------------------------------------------------------ leagues


class LeagueForm(forms.ModelForm):  # type: ignore[type-arg]
    """The same checks as ``manage.py league create`` (``arena.services.leagues``); the
    schedule is written as text ('every 30m', a cron expression) and stored as the league's
    django-celery-beat entry, which the Periodic tasks admin shows too."""

    schedule_text = forms.CharField(
        label="Schedule",
        required=False,
        help_text="'every 30m', '2h', '1d' or a cron expression such as '0 */2 * * *' (UTC); "
        "empty: rounds start by hand (`manage.py league schedule NAME`)",
    )

    class Meta:
        model = League
        exclude = ["schedule", "ruleset_version"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            spec = svc.schedule_of(self.instance)
            if spec is not None:
                self.fields["schedule_text"].initial = (
                    f"cron:{spec.cron}" if spec.cron else spec.describe()
                )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors:
            return data
        try:
            values = {f: data[f] for f in svc.LeagueSettings.__dataclass_fields__ if f in data}
            settings_ = svc.LeagueSettings(**values)
            svc.check_league_settings(settings_, league=self.instance if self.instance.pk else None)
            text = (data.get("schedule_text") or "").strip()
            spec = svc.ScheduleSpec.parse(text) if text else None
            if spec is not None:
                svc.check_schedule(spec)
        except svc.LeagueError as exc:
            field = exc.field if exc.field in self.fields else None
            if exc.field == "schedule":
                field = "schedule_text"
            self.add_error(field, str(exc))
            return data
        data["schedule_spec"] = spec
        return data


class EntryFormSet(forms.BaseInlineFormSet):  # type: ignore[type-arg]
    """The entries typed in with the league: a mirrored league takes house bots only
    (``arena.deals``), whether it is being created or edited."""

    def clean(self) -> None:
        super().clean()
        if getattr(self.instance, "deals", None) != DealMode.MIRRORED:
            return
        bots = [
            f.cleaned_data["bot"]
            for f in self.forms
            if f.cleaned_data.get("bot") is not None
            and f.cleaned_data.get("active", True)
            and not f.cleaned_data.get("DELETE")
        ]
        try:
            svc.check_memory_controlled(bots)
        except svc.LeagueError as exc:
            raise forms.ValidationError(str(exc)) from None


class EntryInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Entry
    formset = EntryFormSet
    extra = 0
    fields = ["bot", "active", "created_at"]
    readonly_fields = ["created_at"]
    raw_id_fields = ["bot"]


@admin.register(League)
class LeagueAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    form = LeagueForm
    list_display = [
        "name", "mode", "seats", "format", "status", "rated", "open_for_entries", "schedule",
    ]  # fmt: skip
    list_filter = ["status", "mode", "seats", "format"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [EntryInline]
    actions = ["schedule_next_round"]
    readonly_fields = ["fault_report"]

    def get_urls(self) -> list[URLPattern]:
        own = [
            path(
                "<path:league_id>/faults/",
                self.admin_site.admin_view(self.faults_view),
                name="arena_league_faults",
            )
        ]
        return own + super().get_urls()

    def faults_view(self, request: HttpRequest, league_id: str) -> HttpResponse:
        return league_faults_view(self, request, league_id)

    @admin.display(description="Faults")
    def fault_report(self, obj: League) -> str:
        if obj.pk is None:
            return "-"
        return format_html('<a href="{}">fault report and re-runs</a>', faults_link(obj))

    def save_model(self, request: HttpRequest, obj: League, form: Any, change: bool) -> None:
        # The admin's change view runs in one transaction: the league and its beat entry
        # are saved together or not at all.
        if not change:
            from referee.config import RULESETS

            obj.ruleset_version = RULESETS[obj.ruleset].version
        super().save_model(request, obj, form, change)
        svc.do_set_schedule(obj, form.cleaned_data.get("schedule_spec"))

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        super().save_formset(request, form, formset, change)
        if formset.model is Entry:
            from arena.ratings.models import LiveRating

            for entry in Entry.objects.filter(league=form.instance):
                LiveRating.objects.get_or_create(league=form.instance, bot_id=entry.bot_id)

    @admin.action(description="Schedule the next round now (sent to the workers)")
    def schedule_next_round(self, request: HttpRequest, queryset: QuerySet[League]) -> None:
        for league in queryset:
            try:
                scheduled = do_schedule_round(league)
            except svc.LeagueError as exc:
                self.message_user(request, str(exc), messages.ERROR)
                continue
            if scheduled is None:
                self.message_user(
                    request, f"{league.name}: the last round is still playing", messages.WARNING
                )
            else:
                self.message_user(
                    request,
                    f"{league.name}: round {scheduled.round.number} with "
                    f"{len(scheduled.matches)} matches",
                )


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = [
        "league", "number", "status", "scheduled_matches", "created_at", "completed_at",
    ]  # fmt: skip
    list_filter = ["status", "league"]
    readonly_fields = [
        "league", "number", "status", "scheduled_matches", "created_at", "completed_at",
    ]  # fmt: skip


PARTICIPATION_FIELDS = [
    "seat", "team", "bot", "won", "rating_before", "rating_change", "rating_after",
    "decisions", "latency_p50_ms", "fault_cause", "fault_detail",
]  # fmt: skip


class ParticipationInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Participation
    extra = 0
    can_delete = False
    fields = tuple(PARTICIPATION_FIELDS)
    readonly_fields = PARTICIPATION_FIELDS


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Read-only: matches change through the workers' claim/finish path only."""

    list_display = [
        "id", "league", "round", "pairing_key", "mirror", "status", "attempts",
        "winner_team", "end_reason", "rated", "finished_at",
    ]  # fmt: skip
    list_filter = ["status", "end_reason", "rated", "league"]
    list_select_related = ["league", "round"]
    inlines = [ParticipationInline]
    actions = [rerun_matches]

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # read only: the re-run action (which checks the model's change permission
        # itself) is the one way an operator changes a match
        return False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def get_exclude(self, request: HttpRequest, obj: Any = None) -> list[str]:
        # the deal's secret: an operator's screen is no place for it while a bot could
        # still use it (the replay holds it once the match is over)
        exclude = list(super().get_exclude(request, obj) or [])
        if obj is None or obj.status != MatchStatus.FINISHED or _deal_in_play(obj):
            exclude.append("deck_seed")
        return exclude


def _deal_in_play(match: Match) -> bool:
    """Whether the other game of a mirrored pair, dealt from the same seed, still plays."""
    return (
        match.same_deal()
        .exclude(pk=match.pk)
        .filter(status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING])
        .exists()
    )


@admin.register(Incident)
class IncidentAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """What the arena went through (gateway drains, voided attempts): read only; the
    operator's fault report (`manage.py league faults NAME`) sets charged faults against it."""

    list_display = ["at", "kind", "source", "match", "detail"]
    list_filter = ["kind"]
    search_fields = ["source", "detail"]
    date_hierarchy = "at"
    readonly_fields = ["kind", "at", "source", "match", "detail"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

"""The operator's fault pages in the admin: a league's fault report (the same as
``manage.py league faults NAME``) with its suspects ready to void and re-run, and the
*Void and re-run* action on matches (``arena.services.rerun``: ratings recomputed)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone

from arena.models import League, Match
from arena.services.faultreport import fault_report
from arena.services.rerun import RerunReport, void_and_rerun


class RerunForm(forms.Form):
    reason = forms.CharField(
        max_length=500,
        help_text="Kept with each voided result (the match's incident) and shown on the match.",
    )
    matches = forms.TypedMultipleChoiceField(coerce=int, widget=forms.CheckboxSelectMultiple)


def _tell(model_admin: admin.ModelAdmin[Any], request: HttpRequest, report: RerunReport) -> None:
    if report.rerun:
        model_admin.message_user(
            request,
            f"{report.league}: voided and queued again matches {report.rerun}; ratings "
            f"recomputed ({report.fixed} stored values changed).",
        )
    for match_id, why in sorted(report.refused.items()):
        model_admin.message_user(request, f"match {match_id} refused: {why}", messages.WARNING)


def league_faults_view(
    model_admin: admin.ModelAdmin[Any], request: HttpRequest, league_id: str
) -> HttpResponse:
    """``/admin/arena/league/<id>/faults/?hours=H``: the fault report; POST re-runs the
    ticked matches."""
    if not request.user.has_perm("arena.change_match"):
        raise PermissionDenied
    league = get_object_or_404(League, pk=league_id)
    try:
        hours = float(request.GET.get("hours", "") or 0) or None
    except ValueError:
        hours = None
    since = timezone.now() - timedelta(hours=hours) if hours else None
    report = fault_report(league, since=since)
    form = RerunForm(request.POST or None)
    ticks = form.fields["matches"]
    assert isinstance(ticks, forms.TypedMultipleChoiceField)
    ticks.choices = sorted({(f.match_id, str(f.match_id)) for f in report.faults})
    ticks.initial = [f.match_id for f in report.suspects]
    if request.method == "POST" and form.is_valid():
        done = void_and_rerun(
            league, form.cleaned_data["matches"], reason=form.cleaned_data["reason"],
            by=f"admin:{request.user}",
        )  # fmt: skip
        _tell(model_admin, request, done)
        return HttpResponseRedirect(request.get_full_path())
    context = {
        **model_admin.admin_site.each_context(request),
        "title": f"Faults charged in {league.name}",
        "league": league,
        "report": report,
        # a Counter's .items in a template would be its key "items"
        "incidents": sorted(report.incidents.items()),
        "faults": sorted(report.faults, key=lambda f: (not f.suspect, f.at)),
        "form": form,
        "hours": hours,
        "opts": model_admin.model._meta,
    }
    return TemplateResponse(request, "admin/arena/league_faults.html", context)


def faults_link(league: League) -> str:
    return reverse("admin:arena_league_faults", args=[league.pk])


@admin.action(description="Void and re-run the selected matches (ratings recomputed)")
def rerun_matches(
    model_admin: admin.ModelAdmin[Any], request: HttpRequest, queryset: QuerySet[Match]
) -> HttpResponse | None:
    """Asks for the reason first (a confirmation page), then re-runs, league by league."""
    if not request.user.has_perm("arena.change_match"):
        raise PermissionDenied
    ids = list(queryset.values_list("pk", flat=True))
    if "reason" in request.POST and request.POST["reason"].strip():
        reason = request.POST["reason"].strip()[:500]
        for league in League.objects.filter(matches__in=ids).distinct().order_by("pk"):
            mine = list(queryset.filter(league=league).values_list("pk", flat=True))
            _tell(
                model_admin, request,
                void_and_rerun(league, mine, reason=reason, by=f"admin:{request.user}"),
            )  # fmt: skip
        return None
    context = {
        **model_admin.admin_site.each_context(request),
        "title": "Void and re-run matches",
        "matches": queryset.select_related("league").order_by("pk"),
        "action": "rerun_matches",
        "opts": model_admin.model._meta,
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
    }
    return TemplateResponse(request, "admin/arena/rerun_confirm.html", context)

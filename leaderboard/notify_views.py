"""My bot, notifications: which events of the bot go by webhook and by e-mail, the owner's
webhook secret (shown once, when made or rotated) and the delivery log, a section of the
My bot page (``templatetags/notify_tags.py``). The changes are ``arena.notify.subscriptions``."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_POST

from arena.notify import subscriptions as notify
from arena.notify.models import Channel
from arena.services import owned_bots as svc
from leaderboard.ratelimit import over_limit
from leaderboard.views import error_page, owned_bot_or_error


def _back(name: str) -> HttpResponse:
    return redirect(reverse("leaderboard:my-bot", kwargs={"name": name}) + "#notifications")


def secret_once(request: HttpRequest, secret: str, back: str) -> HttpResponse:
    response = render(
        request, "leaderboard/notify_secret_once.html", {"secret": secret, "back": back}
    )
    add_never_cache_headers(response)
    return response


@require_POST
@login_required
def subscribe(request: HttpRequest, name: str) -> HttpResponse:
    bot = owned_bot_or_error(request, name)
    if isinstance(bot, HttpResponse):
        return bot
    made = None
    try:
        made = notify.do_subscribe(
            request.user,  # type: ignore[arg-type]
            bot,
            Channel.WEBHOOK,
            request.POST.getlist("webhook_kinds"),
            request.POST.get("webhook_url", ""),
        )
        notify.do_subscribe(
            request.user,  # type: ignore[arg-type]
            bot,
            Channel.EMAIL,
            request.POST.getlist("email_kinds"),
        )
    except notify.NotifyError as exc:
        messages.error(request, f"Not saved: {exc}")
        return _back(bot.name)
    if made is not None:
        return secret_once(request, made, reverse("leaderboard:my-bot", args=[bot.name]))
    messages.success(request, f"The notifications of {bot.name} are saved.")
    return _back(bot.name)


@require_POST
@login_required
def rotate_secret(request: HttpRequest) -> HttpResponse:
    if over_limit("bot-token", request):
        return error_page(request, 429, "Too many attempts", "Too many attempts; wait a minute.")
    secret = notify.do_rotate_secret(request.user)  # type: ignore[arg-type]
    back = request.POST.get("bot", "")
    url = reverse("leaderboard:my-bots")
    if back:
        try:
            url = reverse("leaderboard:my-bot", args=[svc.owned_bot(request.user, back).name])
        except (svc.NotFound, svc.NotOwner):
            pass
    return secret_once(request, secret, url)

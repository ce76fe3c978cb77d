"""My bots, hosted: create a hosted bot, upload a version, switch the active one. The
versions and their check logs are shown on the owner's bot page (``account_views.my_bot``
includes ``versions_context``). Checks and changes are ``arena.hosting.services``."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from arena.hosting import services as hosting
from arena.models import Bot, BotKind
from arena.services import owned_bots as svc
from arena.services.bots import BotError
from leaderboard.views import error_page, not_found


def versions_context(bot: Bot) -> dict[str, Any]:
    if bot.kind != BotKind.HOSTED:
        return {"hosted": False}
    limits = hosting.upload_limits()
    return {
        "hosted": True,
        "versions": hosting.versions(bot),
        "sandbox_faults": hosting.recent_faults(bot),
        "upload_kb": limits.upload_bytes // 1024,
    }


def _owned(request: HttpRequest, name: str) -> Bot | HttpResponse:
    try:
        return svc.owned_bot(request.user, name)
    except svc.NotFound as exc:
        return not_found(request, str(exc))
    except svc.NotOwner as exc:
        return error_page(request, 403, "Not yours", str(exc))


@require_POST
@login_required
def create_hosted(request: HttpRequest) -> HttpResponse:
    name = str(request.POST.get("name", "")).strip()
    try:
        bot = hosting.do_create_hosted_bot(request.user, name)
    except (BotError, svc.NotOwner) as exc:
        messages.error(request, str(exc))
        return redirect("leaderboard:my-bots")
    messages.success(request, f"{bot.name} is a hosted bot: upload its code below.")
    return redirect("leaderboard:my-bot", name=bot.name)


@require_POST
@login_required
def upload(request: HttpRequest, name: str) -> HttpResponse:
    bot = _owned(request, name)
    if isinstance(bot, HttpResponse):
        return bot
    file = request.FILES.get("file")
    entry_point = str(request.POST.get("entry_point", "")).strip()
    limit = hosting.upload_limits().upload_bytes
    try:
        if file is None:
            raise hosting.HostingError("choose a .py or .zip file to upload")
        if file.size is not None and file.size > limit:
            raise hosting.HostingError(
                f"the file is {file.size:,} bytes; uploads may be at most {limit:,}"
            )
        version = hosting.do_upload(
            request.user, bot, file.name or "", file.read(limit + 1), entry_point
        )
    except hosting.HostingError as exc:
        messages.error(request, f"Upload refused: {exc}")
    else:
        messages.success(
            request, f"Version {version.number} uploaded; a bot host checks it in a sandbox "
            "(it plays one game against random) before it plays."
        )
    return redirect("leaderboard:my-bot", name=bot.name)


@require_POST
@login_required
def activate(request: HttpRequest, name: str, number: int) -> HttpResponse:
    bot = _owned(request, name)
    if isinstance(bot, HttpResponse):
        return bot
    try:
        hosting.do_activate(request.user, bot, number)
    except (hosting.HostingError, svc.NotFound) as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Version {number} is the one that plays now.")
    return redirect("leaderboard:my-bot", name=bot.name)

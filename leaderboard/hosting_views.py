"""My bots, hosted: create a hosted bot, upload a version, switch the active one, start a
version test and follow it. The versions, their check logs and the tests are shown on the
owner's bot page (``account_views.my_bot`` includes ``versions_context``). Checks and
changes are ``arena.hosting.services`` and ``arena.adapters.bothost.versiontest``."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from arena.adapters.bothost import versiontest
from arena.hosting import presence
from arena.hosting import services as hosting
from arena.models import Bot, BotKind
from arena.services import owned_bots as svc
from arena.services.bots import BotError
from leaderboard.views import not_found, owned_bot_or_error


def versions_context(bot: Bot) -> dict[str, Any]:
    if bot.kind != BotKind.HOSTED:
        return {"hosted": False}
    limits = hosting.upload_limits()
    versions = hosting.versions(bot)
    return {
        "hosted": True,
        #: a bot host seen alive lately (None: uploads wait, hosted bots cannot play)
        "bot_host": presence.running(),
        "playable": any(v.active for v in versions),
        "versions": versions,
        "ready_versions": [v for v in versions if v.status == "ready"],
        "sandbox_faults": hosting.recent_faults(bot),
        "upload_kb": limits.upload_bytes // 1024,
        "version_tests": [
            {"test": t, "p": versiontest.progress(t)} for t in versiontest.tests_of(bot)
        ],
        "test_defaults": versiontest.SprtSettings(),
    }


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
    bot = owned_bot_or_error(request, name)
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
            request,
            f"Version {version.number} uploaded; a bot host checks it in a sandbox "
            "(it plays one game against random) before it plays.",
        )
    return redirect("leaderboard:my-bot", name=bot.name)


@require_POST
@login_required
def activate(request: HttpRequest, name: str, number: int) -> HttpResponse:
    bot = owned_bot_or_error(request, name)
    if isinstance(bot, HttpResponse):
        return bot
    try:
        hosting.do_activate(request.user, bot, number)
    except (hosting.HostingError, svc.NotFound) as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Version {number} is the one that plays now.")
    return redirect("leaderboard:my-bot", name=bot.name)


def _form_number(request: HttpRequest, key: str, kind: type, default: Any) -> Any:
    raw = str(request.POST.get(key, "")).strip()
    if not raw:
        if default is None:
            raise versiontest.VersionTestError(f"choose the {key} version")
        return default
    try:
        return kind(raw)
    except ValueError:
        raise versiontest.VersionTestError(f"{key} must be a number") from None


@require_POST
@login_required
def start_test(request: HttpRequest, name: str) -> HttpResponse:
    bot = owned_bot_or_error(request, name)
    if isinstance(bot, HttpResponse):
        return bot
    defaults = versiontest.SprtSettings()
    try:
        settings = versiontest.SprtSettings(
            elo0=_form_number(request, "elo0", float, defaults.elo0),
            elo1=_form_number(request, "elo1", float, defaults.elo1),
            max_games=_form_number(request, "max_games", int, defaults.max_games),
        )
        test = versiontest.do_start(
            request.user,
            bot,
            _form_number(request, "candidate", int, None),
            _form_number(request, "baseline", int, None),
            settings,
        )
    except (hosting.HostingError, svc.NotFound) as exc:
        messages.error(request, f"Test refused: {exc}")
        return redirect("leaderboard:my-bot", name=bot.name)
    return redirect("leaderboard:version-test", name=bot.name, pk=test.pk)


@login_required
def test_page(request: HttpRequest, name: str, pk: int) -> HttpResponse:
    bot = owned_bot_or_error(request, name)
    if isinstance(bot, HttpResponse):
        return bot
    try:
        test = versiontest.find_test(bot, pk)
    except svc.NotFound as exc:
        return not_found(request, str(exc))
    return render(
        request,
        "leaderboard/version_test.html",
        {"bot": bot, "test": test, "p": versiontest.progress(test)},
    )

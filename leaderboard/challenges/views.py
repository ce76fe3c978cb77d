"""The site's challenge pages: send one (the bot page's form), the bot's setting and the
sparring run (My bots), and the list of one's challenges. Refusals render the error page
with the API's status (403, 400, 429 with the time until the next challenge)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from arena.challenges import reads
from arena.challenges import services as challenges
from arena.models import LeagueMode
from arena.services import owned_bots as svc
from leaderboard.challenges.presence import online
from leaderboard.views import error_page


def _games(request: HttpRequest) -> int | None:
    raw = request.POST.get("games", "1")
    return int(raw) if raw.isdigit() and len(raw) < 4 else None


def _refused(request: HttpRequest, exc: Exception) -> HttpResponse:
    if isinstance(exc, challenges.QuotaExceeded):
        response = error_page(request, 429, "No challenges left today", str(exc))
        response["Retry-After"] = str(exc.retry_after)
        return response
    if isinstance(exc, (challenges.NotAccepting, svc.NotOwner)):
        return error_page(request, 403, "Challenge refused", str(exc))
    if isinstance(exc, svc.NotFound):
        return error_page(request, 404, "Not found", str(exc))
    return error_page(request, 400, "Challenge refused", str(exc))


@login_required
@require_POST
def send(request: HttpRequest) -> HttpResponse:
    """The bot page's Challenge form: on success, the first game's page (its live view)."""
    games = _games(request)
    mode = request.POST.get("mode", LeagueMode.SIMPLE)
    try:
        bot = svc.owned_bot(request.user, request.POST.get("bot", "")[:64])
        opponent = svc.find_bot(request.POST.get("opponent", "")[:64])
        if games is None:
            raise challenges.ChallengeError("games must be a whole number (an odd N)")
        made = challenges.do_challenge(
            request.user, bot, opponent, games, mode, online=online(bot, opponent)
        )
    except (challenges.ChallengeError, challenges.NotAccepting, svc.NotOwner, svc.NotFound) as exc:
        return _refused(request, exc)
    first = reads.state(made).games[0].match_id
    messages.success(
        request,
        f"Challenge sent: {made.bot.name} v {made.opponent.name}, best of {made.games}, "
        "unrated. This is its first game; its replay stays here when it ends.",
    )
    return redirect("leaderboard:match", pk=first)


@login_required
@require_POST
def set_accepts(request: HttpRequest, name: str) -> HttpResponse:
    try:
        bot = svc.owned_bot(request.user, name)
    except (svc.NotOwner, svc.NotFound) as exc:
        return _refused(request, exc)
    value = request.POST.get("accepts") == "on"
    challenges.do_set_accepts(request.user, bot, value)
    messages.success(
        request, f"{bot.name} {'accepts' if value else 'no longer accepts'} challenges."
    )
    back = request.POST.get("next")
    if back == "bot":
        return redirect("leaderboard:my-bot", name=bot.name)
    return redirect("leaderboard:my-bots")


@login_required
@require_POST
def spar(request: HttpRequest, name: str) -> HttpResponse:
    """My bot's "play my version against the house bots now"."""
    games = _games(request)
    try:
        bot = svc.owned_bot(request.user, name)
        if games is None:
            raise challenges.ChallengeError("games must be a whole number (an odd N)")
        made = challenges.do_spar(request.user, bot, games, online=online(bot))
    except (challenges.ChallengeError, svc.NotOwner, svc.NotFound) as exc:
        return _refused(request, exc)
    messages.success(
        request,
        f"{bot.name} plays {', '.join(c.opponent.name for c in made)} now "
        f"(best of {games} each, unrated); the results fill in below.",
    )
    return redirect(reverse("leaderboard:my-bot", args=[bot.name]) + "#sparring")


@login_required
def mine(request: HttpRequest) -> HttpResponse:
    found = reads.sent_and_received(request.user)
    return render(
        request,
        "challenges/mine.html",
        {"states": reads.states(found), "per_day": settings.CHALLENGES_PER_DAY},
    )

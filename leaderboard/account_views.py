"""Accounts and a user's bots: sign-up, log-in (rate-limited), and the pages that create
bots, rotate or revoke their tokens and enter or leave leagues. Views translate: the
checks and changes are ``arena.services.owned_bots``; a token is rendered in the response
to the POST that made it, once, and never stored in plain text anywhere."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_POST

from arena import public_facts
from arena.services import owned_bots as svc
from arena.services.bots import BotError
from arena.services.leagues import LeagueError
from leaderboard.api.auth import issue_api_key, revoke_api_key
from leaderboard.forms import BotNameForm, LeagueChoiceForm, SignUpForm
from leaderboard.hosting_views import versions_context
from leaderboard.models import ApiToken
from leaderboard.ratelimit import over_limit
from leaderboard.reads.bots import bot_summaries, connected_now
from leaderboard.views import error_page, not_found, owned_bot_or_error


def too_many(request: HttpRequest) -> HttpResponse:
    return error_page(
        request, 429, "Too many attempts", "Too many attempts from your address; wait a minute."
    )


class LoginView(auth_views.LoginView):
    template_name = "leaderboard/login.html"

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if over_limit("login", request):
            return too_many(request)
        return super().post(request, *args, **kwargs)


def admin_login(request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
    """The admin's log-in, sharing the site log-in's limit (one count per address)."""
    if request.method == "POST" and over_limit("login", request):
        return too_many(request)
    return admin.site.login(request, extra_context)


def signup(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        if over_limit("signup", request):
            return too_many(request)
        form = SignUpForm(request.POST)
        if form.is_valid():
            user = form.save()
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, f"Welcome, {user.get_username()}. Create your first bot.")
            return redirect("leaderboard:my-bots")
    else:
        form = SignUpForm()
    return render(request, "leaderboard/signup.html", {"form": form})


def _shown_once(request: HttpRequest, bot: Any, token: str, what: str) -> HttpResponse:
    response = render(
        request,
        "leaderboard/token_once.html",
        {
            "bot": bot,
            "token": token,
            "what": what,
            "gateway_address": public_facts.gateway_address(),
            "sdk_url": request.build_absolute_uri(reverse("sdk-download")),
        },
    )
    add_never_cache_headers(response)
    return response


@login_required
def my_bots(request: HttpRequest) -> HttpResponse:
    form = BotNameForm(request.POST or None)
    if request.method == "POST":
        # a new bot is a new token: counted with rotations, like the API's bot_tokens
        if over_limit("bot-token", request):
            return too_many(request)
        if form.is_valid():
            try:
                bot, token = svc.do_create_bot(request.user, form.cleaned_data["name"])
            except (BotError, svc.NotOwner) as exc:
                form.add_error("name", str(exc))
            else:
                return _shown_once(request, bot, token, "created")
    bots = svc.my_bots(request.user)
    api_key = ApiToken.objects.filter(user=request.user).first()  # type: ignore[misc]
    return render(
        request,
        "leaderboard/my_bots.html",
        {"form": form, "rows": bot_summaries(bots), "api_key": api_key},
        status=400 if form.errors else 200,
    )


@login_required
def my_bot(request: HttpRequest, name: str) -> HttpResponse:
    bot = owned_bot_or_error(request, name)
    if isinstance(bot, HttpResponse):
        return bot
    entered = svc.entered_league_ids(bot)
    leagues = svc.open_leagues()
    return render(
        request,
        "leaderboard/my_bot.html",
        {
            "bot": bot,
            "connected": connected_now([bot.pk])[bot.pk],
            "can_enter": [lg for lg in leagues if lg.pk not in entered],
            "entered_all": list(
                bot.entries.filter(active=True).select_related("league").order_by("league__name")
            ),
            **versions_context(bot),
        },
    )


@require_POST
@login_required
def rotate(request: HttpRequest, name: str) -> HttpResponse:
    bot = owned_bot_or_error(request, name)
    if isinstance(bot, HttpResponse):
        return bot
    if over_limit("bot-token", request):
        return too_many(request)
    try:
        token = svc.do_rotate_token(request.user, bot)
    except BotError as exc:
        messages.error(request, str(exc))
        return redirect("leaderboard:my-bot", name=bot.name)
    return _shown_once(request, bot, token, "rotated")


@require_POST
@login_required
def revoke(request: HttpRequest, name: str) -> HttpResponse:
    bot = owned_bot_or_error(request, name)
    if isinstance(bot, HttpResponse):
        return bot
    svc.do_revoke_token(request.user, bot)
    messages.success(request, f"The token of {bot.name} is revoked; rotate to make a new one.")
    return redirect("leaderboard:my-bot", name=bot.name)


def _league_action(request: HttpRequest, name: str, enter: bool) -> HttpResponse:
    bot = owned_bot_or_error(request, name)
    if isinstance(bot, HttpResponse):
        return bot
    form = LeagueChoiceForm(request.POST)
    if not form.is_valid():
        return error_page(request, 400, "Bad request", "choose a league")
    try:
        league = svc.find_league(form.cleaned_data["league"])
        if enter:
            svc.do_enter_league(request.user, bot, league)
            messages.success(request, f"{bot.name} is entered in {league.name}.")
        else:
            svc.do_leave_league(request.user, bot, league)
            messages.success(request, f"{bot.name} has left {league.name}.")
    except svc.NotFound as exc:
        return not_found(request, str(exc))
    except LeagueError as exc:
        messages.error(request, str(exc))
    return redirect("leaderboard:my-bot", name=bot.name)


@require_POST
@login_required
def enter(request: HttpRequest, name: str) -> HttpResponse:
    return _league_action(request, name, enter=True)


@require_POST
@login_required
def leave(request: HttpRequest, name: str) -> HttpResponse:
    return _league_action(request, name, enter=False)


@require_POST
@login_required
def api_key(request: HttpRequest) -> HttpResponse:
    if request.POST.get("action") == "revoke":
        revoke_api_key(request.user)
        messages.success(request, "Your API key is revoked.")
        return redirect("leaderboard:my-bots")
    if over_limit("api-key", request):
        return too_many(request)
    key = issue_api_key(request.user)
    return _shown_once(request, None, key, "api key")

"""The challenge parts of shared pages, each one tag so that those pages change by a line:
the bot page's Challenge form, the badge of a challenge's match rows, the match page's box,
and the My bots / My bot panels (``arena.challenges``)."""

from __future__ import annotations

from typing import Any

from django import template
from django.conf import settings
from django.template.loader import render_to_string
from django.utils.html import format_html
from django.utils.safestring import SafeString

from arena.challenges import reads
from arena.challenges import services as challenges
from arena.models import Bot, BotKind, LeagueMode

register = template.Library()


def _user(context: template.Context) -> Any:
    request = context.get("request")
    return getattr(request, "user", None)


def _games() -> list[int]:
    return list(range(1, challenges.max_games() + 1, 2))


@register.simple_tag(takes_context=True)
def challenge_form(context: template.Context, bot: Bot) -> SafeString:
    """The bot page's form: for a signed-in owner of another bot, when this one accepts."""
    user = _user(context)
    if user is None or not user.is_authenticated or bot.owner_id == user.pk:
        return SafeString("")
    own = list(Bot.objects.filter(owner_id=user.pk, active=True).order_by("name"))
    return render_to_string(
        "challenges/_form.html",
        {
            "target": bot,
            "own": own,
            "accepts": challenges.accepts(bot),
            "games": _games(),
            "modes": LeagueMode.choices,
            "per_day": settings.CHALLENGES_PER_DAY,
        },
        request=context.get("request"),
    )


@register.simple_tag
def challenge_badge(match: Any) -> SafeString:
    """A challenge's match rows say so, and who asked (rows are cached: this renders once).
    Only a row of a challenge league asks which challenge (a league's own round table, whose
    rows carry no league, is never one: the challenge leagues are listed nowhere)."""
    league_id = getattr(match, "league_id", None)
    league = getattr(match, "league", None)
    key = league_id if isinstance(league_id, int) else getattr(league, "slug", None)
    if key is None or not reads.is_challenge_league(key):
        return SafeString("")
    found = reads.of_match(int(match.pk))
    if found is None:
        return SafeString("")
    what = "sparring" if found.kind == "sparring" else "challenge"
    return format_html(
        '<span class="tag challenge" title="asked for by {0}: {1} v {2}, unrated">{3} · {0}</span>',
        found.requester.get_username(), found.bot.name, found.opponent.name, what,
    )  # fmt: skip


@register.simple_tag(takes_context=True)
def challenge_box(context: template.Context, match: Any) -> SafeString:
    found = reads.of_match(int(match.pk))
    if found is None:
        return SafeString("")
    st = reads.state(found)
    number = next((i for i, g in enumerate(st.games, 1) if g.match_id == match.pk), 0)
    return render_to_string(
        "challenges/_match_box.html",
        {"c": found, "st": st, "number": number, "match": match},
        request=context.get("request"),
    )


@register.simple_tag(takes_context=True)
def my_bots_challenges(context: template.Context) -> SafeString:
    """My bots: each bot's "accepts challenges" switch, and the way to one's challenges."""
    user = _user(context)
    if user is None or not user.is_authenticated:
        return SafeString("")
    bots = list(Bot.objects.filter(owner_id=user.pk).order_by("name"))
    on = challenges.accepting([b.pk for b in bots])
    return render_to_string(
        "challenges/_my_bots.html",
        {"bots": [(b, b.pk in on) for b in bots], "per_day": settings.CHALLENGES_PER_DAY},
        request=context.get("request"),
    )


@register.simple_tag(takes_context=True)
def my_bot_challenges(context: template.Context, bot: Bot) -> SafeString:
    """My bot: its switch, and for a hosted bot the sparring run and its results."""
    hosted = bot.kind == BotKind.HOSTED
    return render_to_string(
        "challenges/_my_bot.html",
        {
            "bot": bot,
            "accepts": challenges.accepts(bot),
            "hosted": hosted,
            "partners": challenges.house_bots() if hosted else [],
            "runs": reads.states(reads.sparring_of(bot.pk)) if hosted else [],
            "games": _games(),
        },
        request=context.get("request"),
    )

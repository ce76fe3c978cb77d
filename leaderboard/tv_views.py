"""TV (issue 26 §5): ``/tv/`` shows the most interesting match being played
(``leaderboard.reads.tv``) in the replay viewer's live mode and moves on to the next when
it ends; ``/bots/<name>/tv/`` follows one bot from match to match.

A page is in one of three states, which ``leaderboard/static/leaderboard/tv.js`` moves
between (``data-state`` on ``#tv``):

* ``live``: the chosen match, exactly as its own page shows it live (the spectator's view,
  the league's delay behind: the viewer asks ``/api/matches/<id>/frames/``, nothing else).
  The viewer's ``data-on-end`` sends it to ``?ended=<id>`` when the match is over.
* ``ended`` (``?ended=<id>``, a match that is over): its replay plays out from the step the
  live view had reached to the last one, which stays ``HOLD_S`` seconds; then the page goes
  to the next match (the TV page again, which chooses anew). A replay not released yet (the
  other game of its mirrored pair is still being played) is not shown: the note says why.
* ``none``: nothing (or, following, nothing of that bot's) is being played. The page
  lists recent finished matches and asks ``/api/tv/`` every ``POLL_S`` seconds; when a
  match is being played it loads it.
"""

from __future__ import annotations

import re

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from arena.models import Bot, Match
from arena.services.gamedb import OVER
from leaderboard import replays
from leaderboard.reads import tv as tv_reads
from leaderboard.views import not_found

#: how long the ended match's last step stays on the screen before TV moves on (seconds)
HOLD_S = 8
#: how often a page with nothing to show asks again, and how often a live page checks
#: that its match is still the one to show (seconds)
POLL_S = 15
ENDED = re.compile(r"[0-9]{1,18}")


def tv(request: HttpRequest) -> HttpResponse:
    return _page(request, None)


def bot_tv(request: HttpRequest, name: str) -> HttpResponse:
    bot = Bot.objects.filter(name=name).first()
    if bot is None:
        return not_found(request, f"There is no bot named {name!r}.")
    return _page(request, bot)


def _ended(request: HttpRequest, bot: Bot | None) -> Match | None:
    """``?ended=<id>``: the match that just ended here, if it is one that is over (and, when
    following a bot, one it played); anything else is ignored (TV shows what is live)."""
    raw = request.GET.get("ended", "")
    if not ENDED.fullmatch(raw):
        return None
    rows = Match.objects.filter(pk=int(raw), status__in=OVER).select_related("league")
    if bot is not None:
        rows = rows.filter(participations__bot=bot)
    return rows.first()


def _page(request: HttpRequest, bot: Bot | None) -> HttpResponse:
    here = reverse("leaderboard:bot-tv", args=[bot.name]) if bot else reverse("leaderboard:tv")
    api = reverse("api:tv") + (f"?bot={bot.name}" if bot else "")
    context: dict[str, object] = {
        "bot": bot,
        "here": here,
        "api_url": api,
        "rule": tv_reads.RULE,
        "hold_s": HOLD_S,
        "poll_s": POLL_S,
    }
    ended = _ended(request, bot)
    if ended is not None:
        state = replays.replay_state(ended)
        last_step = None
        if state == "available":
            try:
                last_step = len(replays.viewer_json(ended, "spectator")["frames"]) - 1
            except replays.ReplayUnavailable:
                state = "none"
        context.update(
            state="ended",
            match=ended,
            replay_state=state,
            last_step=last_step,
            frames_url=reverse("api:match-frames", args=[ended.pk]),
        )
    else:
        chosen = tv_reads.choose(bot)
        if chosen is not None:
            match = Match.objects.select_related("league", "round").get(pk=chosen.match_id)
            context.update(
                state="live",
                match=match,
                chosen=chosen,
                teams=[
                    [
                        (b, r)
                        for b, t, r in zip(chosen.bots, chosen.teams, chosen.ratings, strict=True)
                        if t == team
                    ]
                    for team in (0, 1)
                ],
                frames_url=reverse("api:match-frames", args=[match.pk]),
                on_end=f"{here}?ended={match.pk}",
            )
        else:
            context.update(state="none", recent=tv_reads.recent_finished(bot))
    response = render(request, "leaderboard/tv.html", context)
    response["Cache-Control"] = "no-store"
    return response

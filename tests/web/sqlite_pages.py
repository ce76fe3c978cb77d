"""Run by ``test_sqlite_pages.py`` in a process of its own, on a fresh SQLite database (the
embedded mode's, ``DATABASE_URL=sqlite:///...``): a league with a finished round, a round
in play and a mirrored pair half played, then every page and API view the site has for
them; prints ``URL STATUS`` per line and exits 1 if any answered other than 200."""

from __future__ import annotations

import os
import sys

import django

os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
django.setup()

from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

from arena.adapters.play.matches import play_match  # noqa: E402
from arena.models import Match, MatchStatus  # noqa: E402
from arena.services import leagues as svc  # noqa: E402
from arena.services.rounds import do_schedule_round  # noqa: E402


def main() -> int:
    call_command("migrate", verbosity=0)
    league = svc.do_create_league(svc.LeagueSettings(name="Lite"))
    mirrored = svc.do_create_league(svc.LeagueSettings(name="Lite Pairs", deals="mirrored"))
    for i, spec in enumerate(["random", "greedy", "random"]):
        bot = svc.do_create_house_bot(f"lite-{i}", spec)
        svc.do_enter(league, bot)
        svc.do_enter(mirrored, bot)
    first = do_schedule_round(league, enqueue=False)
    assert first is not None
    for match_id in first.matches:
        play_match(match_id)
    playing = do_schedule_round(league, enqueue=False)  # a round in play: one game over
    assert playing is not None
    play_match(playing.matches[0])
    pairs = do_schedule_round(mirrored, enqueue=False)  # one game of a pair: withheld
    assert pairs is not None
    play_match(sorted(pairs.matches)[0])
    done = Match.objects.filter(status=MatchStatus.FINISHED).order_by("pk").first()
    assert done is not None
    urls = [
        "/", "/leagues/", "/bots/", "/matches/", f"/matches/{done.pk}/",
        "/leagues/lite/", "/leagues/lite/?round=1", "/leagues/lite-pairs/",
        "/bots/lite-0/", "/bots/lite-0/?league=lite", "/bots/lite-0/?league=lite-pairs",
        "/api/leagues/", "/api/leagues/lite/standings/", "/api/bots/", "/api/bots/lite-0/",
        "/api/bots/lite-0/analytics/", "/api/bots/lite-0/analytics/?league=lite-pairs",
        "/api/matches/", "/api/matches/?bot=lite-0", f"/api/matches/{done.pk}/",
        f"/api/matches/{done.pk}/replay/",
    ]  # fmt: skip
    setup_test_environment()
    client = Client(raise_request_exception=False)
    failed = 0
    for _ in range(2):  # cold, then from the cache
        for url in urls:
            status = client.get(url).status_code
            print(url, status, flush=True)
            failed += status != 200
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

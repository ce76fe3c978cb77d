"""The demo's part (issue 25 §6): a bot that accepts, a bot of the visitor's that is always
online, a challenge sent from the site's form, and the games played by the demo's loop
(embedded mode has no worker) -- here on the real database, the loop's function itself."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from arena.adapters.management import demo_challenges
from arena.challenges import services as challenges
from arena.challenges.models import Challenge
from arena.models import Bot, BotKind, Match, MatchStatus
from arena.services import leagues as league_services

pytestmark = [pytest.mark.services]


def test_the_visitor_challenges_from_the_site_and_the_loop_plays_it(
    transactional_db: None, queue: str
) -> None:
    admin = get_user_model().objects.create_superuser("admin", "", "pw-admin-123")
    # the demo's dial-in bot, and a house bot
    Bot.objects.create(name=demo_challenges.ACCEPTING, kind=BotKind.REMOTE)
    greedy = league_services.do_create_house_bot("greedy", "greedy")
    mine = demo_challenges.setup("admin")
    assert mine is not None and mine.owner_id == admin.pk and mine.kind == BotKind.HOUSE
    assert demo_challenges.setup("admin") == mine  # idempotent
    assert challenges.accepts(Bot.objects.get(name=demo_challenges.ACCEPTING))
    site = Client()
    site.force_login(admin)
    page = site.get(f"/bots/{greedy.name}/").content.decode()
    assert 'id="challenge-form"' in page and f'<option value="{mine.name}">' in page
    sent = site.post("/challenges/new/", {"bot": mine.name, "opponent": greedy.name, "games": "3"})
    assert sent.status_code == 302
    challenge = Challenge.objects.get()
    first = Match.objects.filter(round=challenge.round).order_by("id").first()
    assert first is not None and sent["Location"] == f"/matches/{first.pk}/"
    assert "Challenge sent" in site.get(sent["Location"]).content.decode()
    assert demo_challenges.play_queued(lambda: False) == 3
    statuses = set(Match.objects.filter(round=challenge.round).values_list("status", flat=True))
    assert statuses == {MatchStatus.FINISHED}
    mine_page = site.get("/my/challenges/").content.decode()
    assert f'data-challenge="{challenge.pk}"' in mine_page and "finished" in mine_page

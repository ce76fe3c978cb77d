"""A hosted bot's versions keep the pair embargo: while one of a version's mirrored games is
withheld (its partner still to be played), the bot page and the API leave that game out of
the version's games and wins and do not show its live rating, which already has it."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from arena.hosting import services
from arena.models import Match, MatchStatus, Participation
from arena.ratings.models import VersionRating
from arena.services import leagues as svc
from arena.services.rounds import do_schedule_round

pytestmark = pytest.mark.django_db

CODE = b"from avenue_sdk import Bot\n\n\nclass Mine(Bot):\n    def decide(self, r):\n        return 0\n"  # noqa: E501


def _finish(match: Match, hosted_won: bool, version_id: int, hosted_id: int) -> None:
    """What a result writes that the versions table reads: the match over, its seats' wins
    and the version that played the hosted seat."""
    Match.objects.filter(pk=match.pk).update(
        status=MatchStatus.FINISHED, finished_at=timezone.now()
    )
    for p in Participation.objects.filter(match=match):
        mine = p.bot_id == hosted_id
        p.won = hosted_won if mine else not hosted_won
        p.code_version_id = version_id if mine else None
        p.save(update_fields=["won", "code_version"])


def test_a_withheld_game_leaves_its_version_s_record_until_its_partner_is_over() -> None:
    owner = get_user_model().objects.create_user("vera", password="pw-pw-pw-pw")
    hosted = services.do_create_hosted_bot(owner, "vera-hosted")
    version = services.do_upload(owner, hosted, "mine.py", CODE, "mine:Mine")
    league = svc.do_create_league(svc.LeagueSettings(name="Held Versions", deals="mirrored"))
    house = svc.do_create_house_bot("held-versions-house", "random")
    svc.do_enter(league, hosted)
    svc.do_enter(league, house)
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    first, second = (Match.objects.get(pk=pk) for pk in sorted(scheduled.matches))
    VersionRating.objects.create(
        league=league, bot=hosted, version=version, rating=1516, start=1500, current=True
    )
    _finish(first, hosted_won=True, version_id=version.pk, hosted_id=hosted.pk)

    def shown() -> tuple[dict, str]:  # type: ignore[type-arg]
        detail = Client().get(f"/api/bots/{hosted.name}/").json()
        (row,) = [v for v in detail["versions"] if v["league"] == league.slug]
        page = Client().get(f"/bots/{hosted.name}/?league={league.slug}").content.decode()
        table = page[page.index('id="code-versions"') :]
        return row, table[: table.index("</table>")]

    row, table = shown()
    assert row["held"] is True and row["rating"] is None
    assert (row["games"], row["wins"], row["losses"]) == (0, 0, 0)
    assert ">held</span>" in table and "1516" not in table

    _finish(second, hosted_won=False, version_id=version.pk, hosted_id=hosted.pk)
    # as a result writes it (the page's cached parts follow the rows' updated_at)
    VersionRating.objects.filter(version=version).update(rating=1499, updated_at=timezone.now())
    row, table = shown()
    assert row["held"] is False and row["rating"] == 1499.0
    assert (row["games"], row["wins"], row["losses"]) == (2, 1, 1)
    assert ">held</span>" not in table and "1499" in table

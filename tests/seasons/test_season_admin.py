"""Season settings from the admin: saving them starts season 1; bad ones are refused with
the service's message."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from arena.models import Entry
from arena.seasons.models import Season
from tests.leagues.factory import house_league

pytestmark = [pytest.mark.services, pytest.mark.django_db]


def _form(league_id: int, **changes: object) -> dict[str, object]:
    form = {
        "league": league_id, "rounds_per_season": 3, "seconds_per_season": "",
        "start_rule": "soft", "soft_factor": 0.5, "divisions": 2, "division_size": 2,
        "promote": 1, "placement": "lowest", "placement_games": 10,
    }  # fmt: skip
    form.update(changes)
    return form


def test_the_admin_starts_season_one_and_refuses_bad_settings() -> None:
    league = house_league("Admin Seasons", ["random"] * 4)
    client = Client()
    client.force_login(User.objects.create_superuser("root", "root@example.com", "pw"))
    url = "/admin/seasons/seasonsettings/add/"
    refused = client.post(url, _form(league.pk, promote=2))
    assert refused.status_code == 200
    assert "promote 1 to 1 bots (half a division of 2), not 2" in refused.content.decode()
    assert not Season.objects.filter(league=league).exists()
    refused = client.post(url, _form(league.pk, placement="provisional", placement_games=0))
    assert "a newcomer plays 1 to 1000 provisional games" in refused.content.decode()
    assert not Season.objects.filter(league=league).exists()
    saved = client.post(url, _form(league.pk, placement="provisional", placement_games=6))
    assert saved.status_code == 302, saved.content.decode()[:2000]
    season = Season.objects.get(league=league)
    assert (season.number, season.rounds, season.start_rule) == (1, 3, "soft")
    assert season.placement_games == 6
    divisions = Entry.objects.filter(league=league).values_list("division", flat=True)
    assert sorted(d or 0 for d in divisions) == [1, 1, 2, 2]

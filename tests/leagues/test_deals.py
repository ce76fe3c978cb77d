"""Deals no bot can know (issue 11 section 1): every match its own secret seed of 128 bits,
independent deals by default, mirrored pairs only where the arena controls every bot's
memory, and house bots whose randomness says nothing of the deal."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from arena.adapters.play.matches import game_config, play_match
from arena.deals import SEED_BITS, first_team_of, house_bot_seed
from arena.models import Bot, BotKind, Entry, League, Match, MatchStatus
from arena.ratings.models import LiveRating
from arena.services import leagues as svc
from arena.services.bots import create_bot
from arena.services.rounds import do_schedule_due_rounds, do_schedule_round
from referee import new_game
from tests.leagues.factory import house_league
from tests.protocol.testbots import SeedSpy

pytestmark = pytest.mark.django_db

MESSAGE = "remembers game 1"


def _rounds(league: League, n: int) -> list[Match]:
    for _ in range(n):
        scheduled = do_schedule_round(league, enqueue=False, when_previous_incomplete=True)
        assert scheduled is not None
    return list(Match.objects.filter(league=league).order_by("id"))


def test_every_match_is_dealt_from_its_own_128_bit_secret(caplog: Any) -> None:
    league = house_league("Deals", ["random", "greedy", "random"], pairs_per_pairing=2)
    assert league.deals == "independent", "independent deals are the default"
    caplog.set_level(logging.DEBUG)
    matches = _rounds(league, 2)
    assert len(matches) == 2 * 3 * 2 * 2
    seeds = [m.deck_seed for m in matches]  # read back from the database
    assert all(type(s) is int for s in seeds)
    assert len(set(seeds)) == len(seeds), "two matches share a deal"
    assert all(0 <= s < 2**SEED_BITS for s in seeds)
    # 24 draws of 128 bits: the chance that none reaches 2**120 is 2**-192
    assert max(seeds) >= 2**120, "seeds narrower than 128 bits"
    assert all(m.first_team == first_team_of(m.deck_seed) for m in matches)
    # the games of a pair deal different decks
    for m in matches[:4]:
        play_match(m.pk)
    played = Match.objects.filter(pk__in=[m.pk for m in matches[:4]], status="finished")
    decks = {tuple(m.replay.record["deck"]) for m in played}
    assert len(decks) == 4
    # the replay keeps the full seed (JSON numbers of any size) and re-simulates from it
    for m in played:
        assert m.replay.record["seed"] == m.deck_seed
        parts = list(m.participations.order_by("seat"))
        state = new_game(game_config(league, m, parts), m.deck_seed)
        assert [c.name for c in state.deck] == m.replay.record["deck"][-len(state.deck) :]
    # no log line names a seed
    assert not [s for s in seeds if str(s) in caplog.text]


def test_the_demo_league_has_no_constant_seed(tmp_path: Any) -> None:
    call_command("league", "demo", "--rounds", "0", "--search-playouts", "5")
    league = League.objects.get(slug="demo")
    assert league.deals == "independent"
    matches = _rounds(league, 1)
    assert len({m.deck_seed for m in matches}) == len(matches)
    assert max(m.deck_seed for m in matches) >= 2**120


# ------------------------------------------------------------------ mirrored pairs


def _remote(name: str) -> Bot:
    bot, _ = create_bot(name)
    return bot


def test_a_mirrored_league_refuses_a_dial_in_bot_at_entry_and_says_why() -> None:
    league = house_league("Mirrored", ["random", "greedy"], deals="mirrored")
    with pytest.raises(svc.LeagueError, match=MESSAGE) as refused:
        svc.do_enter(league, _remote("dialler"))
    assert "dialler is a dial-in bot" in str(refused.value)
    assert "opponent's hand" in str(refused.value)
    assert not Entry.objects.filter(league=league, bot__name="dialler").exists()
    # the command line says the same
    call_command("league", "create", "CLI mirrored", "--deals", "mirrored")
    call_command("league", "enter", "CLI mirrored", "random")
    with pytest.raises(CommandError, match=MESSAGE):
        call_command("league", "enter", "CLI mirrored", "dialler")


def test_a_league_with_dial_in_bots_cannot_turn_mirrored() -> None:
    league = house_league("Open", ["random"])
    svc.do_enter(league, _remote("dialler"))
    mirrored = svc.LeagueSettings(**{**svc.settings_of(league).__dict__, "deals": "mirrored"})
    with pytest.raises(svc.LeagueError, match=MESSAGE):
        svc.check_league_settings(mirrored, league=league)
    bad = svc.LeagueSettings(**{**svc.settings_of(league).__dict__, "deals": "shuffled"})
    with pytest.raises(svc.LeagueError, match="unknown deals 'shuffled'"):
        svc.check_league_settings(bad, league=league)


def test_a_mirrored_league_with_a_dial_in_entry_schedules_nothing() -> None:
    league = house_league("Sneaked", ["random", "greedy"], deals="mirrored")
    bot = _remote("sneaked-in")
    # an entry made past the services (an old row, a hand-written one)
    Entry.objects.create(league=league, bot=bot)
    LiveRating.objects.create(league=league, bot=bot)
    with pytest.raises(svc.LeagueError, match=MESSAGE):
        do_schedule_round(league, enqueue=False)
    report = do_schedule_due_rounds(league.pk)
    assert report.scheduled is None and MESSAGE in report.refused
    assert not Match.objects.filter(league=league).exists()


def test_the_admin_refuses_a_mirrored_league_created_with_a_dial_in_entry(admin_client) -> None:  # type: ignore[no-untyped-def]
    house = svc.do_create_house_bot("admin-random", "random")
    remote = _remote("admin-dialler")
    data = {
        "name": "Admin mirrored", "slug": "admin-mirrored", "mode": "simple", "seats": 2,
        "ruleset": "standard", "deals": "mirrored", "pairs_per_pairing": 1,
        "format": "round_robin", "games_per_bot": 10,
        "decision_ms": 5000, "bank_ms": 60000, "fault_policy": "{}",
        "connect_grace_ms": 2000, "reconnect_grace_ms": 30000, "no_show_retries": 3,
        "no_show_window_s": 300, "absent_wait_s": 60, "live_delay_decisions": 3,
        "k_factor": 24, "rated": "on",
        "open_for_entries": "on",
        "status": "active",
        "schedule_text": "", "entries-TOTAL_FORMS": 2, "entries-INITIAL_FORMS": 0,
        "entries-0-bot": house.pk, "entries-0-active": "on",
        "entries-1-bot": remote.pk, "entries-1-active": "on",
    }  # fmt: skip
    refused = admin_client.post("/admin/arena/league/add/", data)
    assert refused.status_code == 200
    assert MESSAGE in refused.content.decode().replace("&#x27;", "'")
    assert not League.objects.filter(slug="admin-mirrored").exists()
    fine = {**data, "entries-TOTAL_FORMS": 1}
    made = admin_client.post("/admin/arena/league/add/", fine)
    assert made.status_code == 302, made.content[:3000]
    assert League.objects.get(slug="admin-mirrored").deals == "mirrored"


# ------------------------------------------------------------------ house bots' randomness


def test_a_house_bots_randomness_reveals_nothing_of_the_deal() -> None:
    league = house_league("Spies", ["random"])
    spy = Bot.objects.create(name="spy", kind=BotKind.HOUSE,
                             house_spec="tests.protocol.testbots:SeedSpy")  # fmt: skip
    Entry.objects.create(league=league, bot=spy)
    LiveRating.objects.create(league=league, bot=spy)
    matches = _rounds(league, 1)
    SeedSpy.seen.clear()
    for m in matches:
        assert play_match(m.pk).value == "finished"
    assert Match.objects.filter(league=league, status=MatchStatus.FINISHED).count() == 2
    expected = []
    for m in matches:
        seat = m.participations.get(bot=spy).seat
        expected.append(house_bot_seed(m.deck_seed, seat))
        # the seed the spy saw says nothing of the deck: not a simple function of it ...
        seen = SeedSpy.seen[len(expected) - 1]
        assert seen >> 3 != m.deck_seed and seen != m.deck_seed
        # ... nor does it deal the same game
        config = game_config(league, m, list(m.participations.order_by("seat")))
        assert new_game(config, seen).deck != new_game(config, m.deck_seed).deck
    assert SeedSpy.seen == expected
    # one-way: neighbouring seats and seeds give unrelated values
    s = matches[0].deck_seed
    values = [house_bot_seed(s, 0), house_bot_seed(s, 1), house_bot_seed(s + 1, 0)]
    assert len(set(values)) == 3 and abs(values[0] - values[1]) > 2**32

"""Bot analytics: counted in each result's transaction, equal to what the replays say when
recounted from scratch, shown on the bot page and in the API."""

from __future__ import annotations

import pytest
from django.test import Client

from arena.analytics.measure import measure
from arena.analytics.models import BotAnalytics
from arena.models import Match, MatchReplay, MatchStatus, Participation
from arena.ratings.models import LiveRating
from referee import GameConfig
from referee.actions import Decision
from referee.bots import make_bot
from referee.cards import Agent
from referee.play import play_game
from referee.replay import from_json, replay
from referee.state import EventKind
from tests.web.helpers import make_league

pytestmark = pytest.mark.django_db


def test_measure_reads_offers_choices_and_handed_thirds_from_a_replay() -> None:
    handed_seen = 0
    for seed in range(40):
        config = GameConfig.for_seats(2, "simple")
        record = play_game(
            config, seed, [make_bot("greedy", seed), make_bot("random", seed + 1)]
        ).record
        facts = measure(record)
        states = list(replay(record))
        recruits = [i for i, d in enumerate(record.decisions) if d.kind is Decision.RECRUIT]
        assert len(facts.offers) == len(recruits)
        for offer, i in zip(facts.offers, recruits, strict=True):
            before, after = states[i], states[i + 1]
            new = after.events()[len(before.events()) :]
            chose = next(e for e in new if e.kind is EventKind.CHOSE)
            assert offer.face_down_taken == (
                chose.side is not None and chose.side.value == "face_down"
            )
            assert offer.chooser == record.decisions[i].seat != offer.offerer
            thirds = [
                e.agent for e in new
                if e.kind is EventKind.RECRUITED and e.amount == 3 and e.team == chose.team
                and e.agent in (Agent.DAREDEVIL, Agent.CODEBREAKER)
            ]  # fmt: skip
            assert offer.handed_third == (thirds[0] if thirds else None)
            handed_seen += bool(thirds)
        assert sum(sum(b) for b in facts.latency.values()) == sum(
            1 for d in record.decisions if d.latency_ms is not None
        )
    assert handed_seen  # 40 games of greedy and random hand some over


def test_counts_added_as_results_arrive_equal_a_recount_from_the_replays(client: Client) -> None:
    league = make_league("Stats League", ["greedy", "random", "search:20"], rounds=2, fit=False)
    rows = {(r.bot_id, r.opponent_id): r for r in BotAnalytics.objects.filter(league=league)}
    for live in LiveRating.objects.filter(league=league):
        overall = rows[(live.bot_id, None)]
        assert overall.games == live.games == live.wins + live.losses
        assert sum(overall.end_for.values()) == live.wins
        assert sum(overall.end_against.values()) == live.losses
        mine = [r for (b, o), r in rows.items() if b == live.bot_id and o is not None]
        assert sum(r.games for r in mine) == overall.games  # 2 seats: one opponent a game
        assert sum(r.offers for r in mine) == overall.offers
    # recount every bot's offers from the stored replays
    offers: dict[int, int] = {}
    taken: dict[int, int] = {}
    for replay_row in MatchReplay.objects.filter(match__league=league):
        seats = dict(
            Participation.objects.filter(match_id=replay_row.match_id).values_list("seat", "bot_id")
        )
        for o in measure(from_json(replay_row.record)).offers:
            offers[seats[o.offerer]] = offers.get(seats[o.offerer], 0) + 1
            taken[seats[o.offerer]] = taken.get(seats[o.offerer], 0) + int(o.face_down_taken)
    for bot_id, n in offers.items():
        assert rows[(bot_id, None)].offers == n
        assert rows[(bot_id, None)].face_down_taken == taken[bot_id]

    name = f"{league.slug}-0"
    api = client.get(f"/api/bots/{name}/analytics/?league={league.slug}").json()
    overall = rows[(LiveRating.objects.get(league=league, bot__name=name).bot_id, None)]
    assert api["overall"]["games"] == overall.games and api["overall"]["offers"] == overall.offers
    assert {o["opponent"] for o in api["opponents"]} == {f"{league.slug}-1", f"{league.slug}-2"}
    assert sum(api["overall"]["decision_ms"].values()) == api["overall"]["decisions"] > 0
    assert client.get(f"/api/bots/{name}/analytics/?leage=x").status_code == 400
    html = client.get(f"/bots/{name}/").content.decode()
    assert 'id="analytics"' in html and 'id="end-reasons"' in html and 'id="decision-times"' in html


def test_a_four_seat_match_counts_once_overall(client: Client) -> None:
    league = make_league("Team Stats", ["greedy", "random", "greedy", "random"], seats=4,
                         rounds=1, fit=False)  # fmt: skip
    finished = Match.objects.filter(league=league, status=MatchStatus.FINISHED).count()
    for live in LiveRating.objects.filter(league=league):
        overall = BotAnalytics.objects.get(league=league, bot_id=live.bot_id, opponent=None)
        assert overall.games == live.games
        per_opponent = BotAnalytics.objects.filter(league=league, bot_id=live.bot_id,
                                                   opponent__isnull=False)  # fmt: skip
        assert sum(r.games for r in per_opponent) == 2 * overall.games  # two opponents a game
    assert finished


def test_rebuild_recounts_what_arrived_incrementally() -> None:
    from io import StringIO

    from django.core.management import call_command

    league = make_league("Rebuild League", ["greedy", "random"], rounds=2, fit=False)

    def snapshot() -> dict[tuple[int, int | None], tuple[object, ...]]:
        return {
            (r.bot_id, r.opponent_id): (
                r.games, r.offers, r.face_down_taken, round(r.gain_total, 6),
                r.handed_third_daredevil, r.handed_third_codebreaker, r.end_for,
                r.end_against, r.decisions, r.latency,
            )
            for r in BotAnalytics.objects.filter(league=league)
        }  # fmt: skip

    incremental = snapshot()
    assert incremental
    out = StringIO()
    call_command("analytics", "rebuild", "--league", league.slug, stdout=out)
    assert "4 matches counted" in out.getvalue()  # 2 rounds of one mirrored pair
    assert snapshot() == incremental

"""Knockouts on PostgreSQL, played through the real result-writing path: seeding by
rating, byes for the top seeds, winners advancing when their ties are over, and a tie
voided and re-run by an operator."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from arena.events import results
from arena.events.advance import do_advance, do_start
from arena.events.models import Bye, TournamentStatus
from arena.events.services import EventError
from arena.models import League, Match, MatchStatus, Round, RoundStatus
from arena.ratings.models import LiveRating
from arena.services import leagues as league_services
from arena.services.rerun import void_and_rerun
from tests.events.factory import house_event, play_out, play_queued

pytestmark = [pytest.mark.services, pytest.mark.django_db]


def _names(t) -> dict[int, str]:  # noqa: ANN001
    return {e.bot_id: e.bot.name for e in t.entrants.select_related("bot")}


def test_seeded_by_rating_with_byes_for_the_top_seeds_and_played_to_a_winner() -> None:
    t = house_event("KO six", "knockout", ["random"] * 3 + ["greedy"] * 3)
    # seed league: ratings make the listed order upside down
    rated = league_services.do_create_league(league_services.LeagueSettings(name="KO seeds"))
    bots = [e.bot for e in t.entrants.order_by("listed")]
    for i, bot in enumerate(bots):
        league_services.do_enter(rated, bot)
        LiveRating.objects.filter(league=rated, bot=bot).update(rating=1400 + 20 * i)
    t.seed_league = rated
    t.save(update_fields=["seed_league"])

    first = do_start(t, enqueue=False)
    t.refresh_from_db()
    seeds = {e.bot_id: e.seed or 0 for e in t.entrants.all()}
    assert [seeds[b.pk] for b in bots] == [6, 5, 4, 3, 2, 1]
    # 6 in a bracket of 8: seeds 1 and 2 have byes; round 1 is 3 v 6 and 4 v 5
    had_bye = Bye.objects.filter(tournament=t).values_list("bot", flat=True)
    assert sorted(seeds[b] for b in had_bye) == [1, 2]
    ties = {frozenset(seeds[x] for x in (pr.a, pr.b)) for pr in results.pairing_results(t)[1]}
    assert ties == {frozenset((3, 6)), frozenset((4, 5))}
    assert len(first.matches) == 2 * 2  # two games a tie

    # the next round waits for every tie of this one
    from arena.adapters.play.matches import play_match

    play_match(first.matches[0])
    assert do_advance(t.pk, enqueue=False).waiting == "a round is still being played"
    play_queued(t)
    assert Match.objects.filter(league=t.league, status=MatchStatus.FINISHED).count() == 4
    steps = play_out(t)
    assert steps[-1].finished
    t.refresh_from_db()
    assert t.status == TournamentStatus.FINISHED
    assert t.league.rounds.count() == 3
    assert not t.league.rounds.exclude(status=RoundStatus.COMPLETE).exists()
    bracket = results.bracket(t)
    assert [len(r) for r in bracket] == [4, 2, 1]
    # every later tie is between the winners of the two ties that feed it
    for number in (1, 2):
        winners = [tie.winner for tie in bracket[number - 1]]
        assert all(winners)
        for i, tie in enumerate(bracket[number]):
            assert {tie.a, tie.b} == {winners[2 * i], winners[2 * i + 1]}
            assert tie.winner in (tie.a, tie.b)
            won = results.tie_winner(tie.result, seeds)  # type: ignore[arg-type]
            assert won is not None and won[0] == tie.winner
    assert t.winner_id == bracket[-1][0].winner
    # the event's league is not a league anyone enters, and finished with it
    league = League.objects.get(pk=t.league_id)
    assert (league.open_for_entries, league.status) == (False, "finished")
    # a second advance, or start, does nothing twice
    assert do_advance(t.pk).waiting
    with pytest.raises(EventError, match="only a draft can start"):
        do_start(t)


def test_the_tie_break_is_more_wins_then_over_the_board_then_the_seed() -> None:
    pr = results.PairingResult(1, 10, 20)
    seed = {10: 1, 20: 2}
    pr.games = [results.Game(1, "finished", 10, False), results.Game(2, "finished", 20, False)]
    assert results.tie_winner(pr, seed) == (10, "seed")
    pr.games[0].forfeit = True  # 10 won game 1 by 20's fault: 20 won over the board
    assert results.tie_winner(pr, seed) == (20, "over the board")
    pr.games.append(results.Game(3, "finished", 10, False))
    assert results.tie_winner(pr, seed) == (10, "games")
    pr.games.append(results.Game(4, "void", None, False))  # a void game counts for nothing
    assert results.tie_winner(pr, seed) == (10, "games")
    pr.games.append(results.Game(5, "queued", None, False))
    assert results.tie_winner(pr, seed) is None


def test_a_tie_voided_and_rerun_is_decided_by_its_new_games_only() -> None:
    t = house_event("KO rerun", "knockout", ["greedy", "random", "greedy", "random"])
    do_start(t, enqueue=False)
    t.refresh_from_db()
    play_queued(t)
    first = results.bracket(t)[0]
    assert all(tie.winner for tie in first)
    target = first[0].result
    assert target is not None
    ids = [g.match_id for g in target.games]

    report = void_and_rerun(t.league, ids[:1], reason="gateway fault", by="test")
    # mirrored deals: the pair goes together
    assert sorted(report.rerun) == sorted(ids)
    tie = results.bracket(t)[0][0]
    assert tie.winner is None and tie.result is not None
    assert [g.winner for g in tie.result.games] == [None, None]
    assert tie.result.wins(tie.a) == tie.result.wins(tie.b) == 0  # type: ignore[arg-type]
    # the round is open again: the bracket waits for the re-run
    assert do_advance(t.pk, enqueue=False).waiting == "a round is still being played"
    assert Round.objects.get(league=t.league, number=1).status == RoundStatus.PLAYING

    play_queued(t)
    replayed = results.bracket(t)[0][0]
    assert replayed.result is not None
    # the winner as the new games say, counted from the match rows themselves
    wins = {replayed.a: 0, replayed.b: 0}
    for m in Match.objects.filter(pk__in=ids).prefetch_related("participations"):
        assert m.status == MatchStatus.FINISHED and m.reruns == 1
        wins[m.participations.get(team=m.winner_team or 0).bot_id] += 1
    seeds = {e.bot_id: e.seed or 0 for e in t.entrants.all()}
    if wins[replayed.a] != wins[replayed.b]:
        assert replayed.winner == max(wins, key=wins.__getitem__)
    else:
        assert replayed.winner == results.tie_winner(replayed.result, seeds)[0]  # type: ignore[index]
    second = do_advance(t.pk, enqueue=False)
    assert second.round == 2
    final = results.bracket(t)[1][0]
    assert {final.a, final.b} == {replayed.winner, results.bracket(t)[0][1].winner}

    # now round 1 fed the final: its ties are not played again
    refused = void_and_rerun(t.league, ids[:1], reason="again", by="test")
    assert refused.rerun == []
    assert "moved on to round 2" in refused.refused[ids[0]]
    play_queued(t)
    assert do_advance(t.pk, enqueue=False).finished
    out = StringIO()
    call_command("tournament", "show", t.slug, stdout=out)
    text = out.getvalue()
    assert "round 2:" in text and "tie-break: more games won" in text
    names = _names(t)
    t.refresh_from_db()
    assert t.winner_id is not None and f"won by {names[t.winner_id]}" in text

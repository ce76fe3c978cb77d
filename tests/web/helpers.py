"""Leagues with played matches for the web and API tests, built through the services.

Matches are played in-process by house bots (``play_match``), so no worker or relay is
needed; a "live" match is one claimed by a worker that has not finished it. ``until``: a wait
in a browser page under the site's policy.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from arena.adapters.play.matches import do_claim_match, game_config, play_match
from arena.models import League, Match, MatchStatus
from arena.ratings.services import fit_batch_ratings
from arena.services import leagues as svc
from arena.services.rounds import do_schedule_round
from avenue_sdk.viewer.frames import _cards
from referee import new_game


def make_league(
    name: str,
    specs: list[str],
    *,
    mode: str = "simple",
    seats: int = 2,
    rounds: int = 1,
    fit: bool = True,
) -> League:
    """A league of house bots ``{slug}-{i}`` with ``rounds`` rounds played to the end."""
    league = svc.do_create_league(svc.LeagueSettings(name=name, mode=mode, seats=seats))
    for i, spec in enumerate(specs):
        bot = svc.do_create_house_bot(f"{league.slug}-{i}", spec)
        svc.do_enter(league, bot)
    for _ in range(rounds):
        scheduled = do_schedule_round(league, enqueue=False, when_previous_incomplete=True)
        assert scheduled is not None
        for match_id in scheduled.matches:
            play_match(match_id)
    if fit:
        fit_batch_ratings(league.pk, bootstrap=20)
    return league


@dataclass
class LiveSetup:
    league: League
    live: Match
    partner: Match
    #: strings that must never reach a browser while ``live`` runs
    secrets: list[str]


def hidden_strings(match: Match) -> list[str]:
    """What a running match keeps private, as it would appear in a response: each seat's
    dealt hand and the deck order as JSON lists (both separators), and the seed."""
    parts = list(match.participations.select_related("bot").order_by("seat"))
    state = new_game(game_config(match.league, match, parts), match.deck_seed)
    lists = [_cards(h) for h in state.hands] + [[c.name for c in state.deck]]
    out = [str(match.deck_seed), f"{match.deck_seed:x}"]
    for cards in lists:
        out += [json.dumps(cards), json.dumps(cards, separators=(",", ":")), ", ".join(cards)]
    return out


def find_leaks(text: str, secrets: list[str]) -> list[str]:
    found = [s for s in secrets if s in text]
    for marker in ('"hand": [', '"hand":[', '"deck":', '"deck": ', '"seed"', "deck_seed"):
        if marker in text:
            found.append(marker)
    return found


def make_live(name: str = "Live League") -> LiveSetup:
    """A league of house bots playing mirrored pairs whose first match finished and whose
    mirror game (same deck) is running."""
    league = svc.do_create_league(svc.LeagueSettings(name=name, deals="mirrored"))
    for i, spec in enumerate(["random", "greedy"]):
        svc.do_enter(league, svc.do_create_house_bot(f"{league.slug}-{i}", spec))
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    first, second = sorted(scheduled.matches)
    play_match(first)
    assert do_claim_match(second, "test-worker") is not None
    live = Match.objects.select_related("league").get(pk=second)
    partner = Match.objects.get(pk=first)
    assert live.status == MatchStatus.RUNNING and partner.status == MatchStatus.FINISHED
    return LiveSetup(league, live, partner, hidden_strings(live))


def longest_finished(min_turns: int = 4) -> Match:
    """The finished match with the most turns (a test that steps through turns needs a
    few; a deal can end a game in two)."""
    match = Match.objects.filter(status=MatchStatus.FINISHED).order_by("-turns", "id").first()
    assert match is not None and (match.turns or 0) >= min_turns, (
        f"no finished game lasted {min_turns} turns"
    )
    return match


def until(pg: Any, expression: str) -> None:
    """Wait for ``expression`` to hold, asked from here: Playwright's wait_for_function
    evaluates a string in the page, which the policy forbids."""
    deadline = time.monotonic() + 30
    while not pg.evaluate(expression):
        assert time.monotonic() < deadline, f"waited 30 s for {expression}"
        pg.wait_for_timeout(50)

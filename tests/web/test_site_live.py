"""Live games: a match being played shows its public moves as the runner records them, the
league's delay behind, only as a spectator sees them, and only once the other game of its
mirrored pair is over; the page follows the game and becomes the replay at the end.

The match is really played by the runner (house seats) in a thread, one decision at a time
through a gate, while the site is read."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client

from arena.adapters.play.matches import do_claim_match, game_config, play_match
from arena.adapters.runner import run_match
from arena.adapters.runner.seats import Answer, Ask, HouseSeat, MatchContext
from arena.models import League, Match
from arena.services import leagues as svc
from arena.services import live
from arena.services.claims import Claim
from arena.services.results import do_finish_match
from arena.services.rounds import do_schedule_round
from arena.terms.result import MatchResult
from referee.replay import replay
from tests.web.helpers import find_leaks, hidden_strings
from tests.web.test_browser import browser, page, step_is

__all__ = ["browser", "page"]
pytestmark = pytest.mark.django_db(transaction=True)
DEADLINE_S = 60


class GatedSeat(HouseSeat):
    """A house bot that answers only when the test lets it (one permit per decision)."""

    def __init__(
        self, spec: str, seed: int, name: str, gate: threading.Semaphore,
        waiting: threading.Event,
    ) -> None:  # fmt: skip
        super().__init__(spec, seed, name=name)
        self.gate = gate
        self.waiting = waiting

    def ask(self, ctx: MatchContext, seat: int, ask: Ask) -> Answer:
        # every decision before this one has been published: the runner tells its
        # listener before it asks again
        if not self.gate.acquire(blocking=False):
            self.waiting.set()
            if not self.gate.acquire(timeout=DEADLINE_S):
                raise TimeoutError("the test never let the seat answer")
        self.waiting.clear()
        return super().ask(ctx, seat, ask)


@dataclass
class LiveGame:
    league: League
    match: Match
    claim: Claim
    gate: threading.Semaphore
    waiting: threading.Event
    thread: threading.Thread
    outcome: list[MatchResult]

    def decisions(self) -> int:
        return len(live.decisions_so_far(self.match.pk))

    def let(self, n: int) -> int:
        """Let the seats answer ``n`` more times; the number of decisions recorded once the
        runner waits again (auto-played single choices are recorded without asking)."""
        wait_for(self.settled, "the runner to wait at the gate")
        self.waiting.clear()
        self.gate.release(n)
        return int(wait_for(self.settled, "the runner to use its permits"))

    def settled(self) -> int | None:
        """The decisions recorded, once the runner waits at the gate (or the game is over)."""
        if self.waiting.is_set() or not self.thread.is_alive():
            assert live.written(), "the live writer did not write within 30 s"
            return self.decisions()
        return None

    def finish(self) -> None:
        self.gate.release(10_000)
        self.thread.join(DEADLINE_S)
        assert not self.thread.is_alive() and self.outcome
        do_finish_match(self.claim, self.outcome[0])


def wait_for(probe: Callable[[], Any], what: str) -> Any:
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        found = probe()
        if found is not None:
            return found
        time.sleep(0.05)
    raise AssertionError(f"waited {DEADLINE_S} s for {what}")


def start_live(name: str, *, partner_over: bool = True, delay: int = 3) -> LiveGame:
    # mirrored pairs (house bots): the partner game shares the deck, which is what is tested
    league = svc.do_create_league(svc.LeagueSettings(name=name, deals="mirrored"))
    League.objects.filter(pk=league.pk).update(live_delay_decisions=delay)
    league.refresh_from_db()
    for i, spec in enumerate(["greedy", "random"]):
        svc.do_enter(league, svc.do_create_house_bot(f"{league.slug}-{i}", spec))
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    first, second = sorted(scheduled.matches)
    if partner_over:
        play_match(first)
    claim = do_claim_match(second, "live-test")
    assert claim is not None
    match = Match.objects.select_related("league").get(pk=second)
    parts = list(match.participations.select_related("bot").order_by("seat"))
    gate, waiting = threading.Semaphore(0), threading.Event()
    seats = [
        GatedSeat(p.bot.spec, match.deck_seed * 8 + p.seat, p.bot.name, gate, waiting)
        for p in parts
    ]
    outcome: list[MatchResult] = []

    def play() -> None:
        outcome.append(run_match(
            seats, game_config(league, match, parts), match.deck_seed,
            match_id=f"{match.pk}.1", replay_id=str(match.pk),
            on_decision=live.publisher(match.pk),
        ))  # fmt: skip

    thread = threading.Thread(target=play, name="live-game", daemon=True)
    thread.start()
    return LiveGame(league, match, claim, gate, waiting, thread, outcome)


@pytest.fixture
def cleanup(settings: Any) -> Iterator[list[LiveGame]]:
    # the result's follow-up work (the batch fit) runs here, not through Celery: this is
    # about watching, and a Celery pool another test closed must not fail it
    settings.ARENA_DISPATCHER = "arena.adapters.embedded.InProcessDispatcher"
    games: list[LiveGame] = []
    yield games
    for g in games:
        g.gate.release(10_000)
        g.thread.join(DEADLINE_S)


def test_live_frames_follow_the_game_a_delay_behind_as_a_spectator(
    client: Client, cleanup: list[LiveGame]
) -> None:
    game = start_live("Live Frames", delay=3)
    cleanup.append(game)
    secrets = hidden_strings(game.match)
    url = f"/api/matches/{game.match.pk}/frames/"
    recorded = game.let(6)
    assert recorded >= 6
    data = client.get(url).json()
    assert data["live"] is True and data["perspectives"] == ["spectator"]
    assert "3 decisions behind" in data["note"]
    frames = data["frames"]
    assert len(frames) == recorded - 3 + 1  # the deal, then every decision but the last 3
    assert find_leaks(client.get(url).content.decode(), secrets) == []
    assert all(s["hand"] is None for f in frames for s in f["seats"])
    assert client.get(f"{url}?perspective=seat:0").status_code == 403
    more = game.let(5)
    assert len(client.get(url).json()["frames"]) == more - 3 + 1
    # the frames are the game's: the finished replay goes through the same states
    game.finish()
    done = client.get(url).json()
    assert done["live"] is False
    states = list(replay(game.outcome[0].record))
    assert [f["positions"] for f in frames] == [list(s.pos) for s in states[: len(frames)]]


def test_a_live_game_whose_pair_partner_is_not_over_shows_the_deal_only(
    client: Client, cleanup: list[LiveGame]
) -> None:
    game = start_live("Live Pair", partner_over=False, delay=0)
    cleanup.append(game)
    assert game.let(6) >= 6
    data = client.get(f"/api/matches/{game.match.pk}/frames/").json()
    assert len(data["frames"]) == 1 and "same deck" in data["note"]


@pytest.mark.browser
@pytest.mark.processes
def test_the_live_page_follows_the_game_and_becomes_the_replay(
    page: Any, live_server: Any, cleanup: list[LiveGame]
) -> None:
    game = start_live("Live Page", delay=2)
    cleanup.append(game)
    recorded = game.let(4)
    # a deep link to a seat's view of a live match falls back to the spectator's
    page.goto(f"{live_server.url}/matches/{game.match.pk}/?perspective=seat:0")
    step_is(page, recorded - 2)
    assert page.input_value("#perspective") == "spectator"
    assert "spectator" in page.inner_text("#viewer-status")
    assert page.locator("#seat-0 .hand .card.agent").count() == 0
    assert "2 decisions behind" in page.inner_text("#viewer-status")
    # a simple-mode game offers no jump to a Black Market card it cannot have
    assert page.locator("#next-market").is_hidden()
    assert "Black Market" not in page.inner_text("main")
    more = game.let(4)
    step_is(page, more - 2)  # it followed without a reload
    # the deciding seat's clock counts while it thinks (issue 26 §3)
    thinking = page.inner_text(".seat.acting .clock")
    assert thinking.startswith("clock: bank") and "thinking" in thinking, thinking
    page.wait_for_function(
        "before => document.querySelector('.seat.acting .clock').textContent !== before",
        arg=thinking,
    )
    # the seat table counts the decisions shown so far (it was rendered with none)
    shown = live_client_frames(game)
    for seat in (0, 1):
        asked = [f for f in shown if f["last"] and f["last"]["seat"] == seat]
        answered = sum(f["last"]["latency_ms"] is not None for f in asked)
        auto = len(asked) - answered
        cell = page.inner_text(f'[data-seat-decisions="{seat}"]')
        assert cell == f"{answered}" + (f" (+{auto} auto)" if auto else "")
        latency = page.inner_text(f'[data-seat-latency="{seat}"]')
        assert (latency == "—") == (answered == 0), latency
    game.finish()
    page.wait_for_selector("#replay-download", timeout=DEADLINE_S * 1000)
    page.wait_for_function("window.viewer && window.viewer.data && !window.viewer.data.live")
    assert page.locator("#perspective option").count() == 4  # every perspective now
    # the game is played out from the step the live page had shown to the replay's last
    # step (the visitor speeds it up), not left where the live delay had held it
    last = len(Client().get(f"/api/matches/{game.match.pk}/frames/").json()["frames"]) - 1
    assert page.inner_text("#play") == "pause"
    page.select_option("#speed", "8")
    page.wait_for_function(
        "n => document.querySelector('#step-label').textContent.startsWith(`step ${n} `)",
        arg=last, timeout=DEADLINE_S * 1000,
    )  # fmt: skip
    assert page.inner_text("#play") == "play"
    assert "wins" in page.inner_text("#result")


def live_client_frames(game: LiveGame) -> list[dict[str, Any]]:
    data = Client().get(f"/api/matches/{game.match.pk}/frames/").json()
    assert data["live"] is True
    return list(data["frames"])

"""Live matches pushed to their watchers (issue 26 §1): the server-sent events of
``/matches/<id>/live/`` against a real match played by the runner a decision at a time,
read over a real HTTP connection from the test server.

What the stream must do: send what the frames API gives (the spectator's view, the delay
behind) and nothing a spectator may not see, each new step when the runner has it (no
polling: the event arrives after news of the decision), an ``end`` once the match is over,
and give its place back when the watcher goes away, whenever that is."""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlparse

import pytest
from django.test import Client

from arena.services import livenews
from leaderboard import live_stream
from tests.web.helpers import find_leaks, hidden_strings
from tests.web.test_browser import browser, page, step_is
from tests.web.test_site_live import DEADLINE_S, LiveGame, cleanup, start_live, wait_for

__all__ = ["browser", "cleanup", "page"]
pytestmark = pytest.mark.django_db(transaction=True)


class Stream:
    """An SSE client on one HTTP connection: ``next()`` gives the next event as
    ``(name, data, id)``; comments (keep-alives) are counted, not returned."""

    def __init__(self, base: str, path: str) -> None:
        url = urlparse(base)
        self.conn = http.client.HTTPConnection(url.hostname or "", url.port, timeout=DEADLINE_S)
        self.conn.request("GET", path, headers={"Accept": "text/event-stream"})
        self.response = self.conn.getresponse()
        self.comments = 0
        self.raw: list[str] = []

    def next(self) -> tuple[str, Any, str | None]:
        name, data, event_id = "message", list[str](), None
        while True:
            line = self.response.readline().decode()
            assert line, "the stream ended before the next event"
            self.raw.append(line)
            line = line.rstrip("\n")
            if not line:
                if data:
                    return name, json.loads("\n".join(data)), event_id
                continue
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field == "":
                self.comments += 1
            elif field == "event":
                name = value
            elif field == "data":
                data.append(value)
            elif field == "id":
                event_id = value

    def close(self) -> None:
        # a watcher that goes away: the socket shut, not a polite end
        sock = self.conn.sock
        if sock is not None:
            sock.shutdown(socket.SHUT_RDWR)
        self.response.close()  # its file holds the socket open otherwise
        self.conn.close()


@pytest.fixture
def streams() -> Iterator[list[Stream]]:
    opened: list[Stream] = []
    yield opened
    for s in opened:
        s.close()


def open_stream(base: str, match_id: int, opened: list[Stream]) -> Stream:
    s = Stream(base, f"/matches/{match_id}/live/")
    opened.append(s)
    return s


def api_frames(game: LiveGame) -> list[dict[str, Any]]:
    return list(Client().get(f"/api/matches/{game.match.pk}/frames/").json()["frames"])


def test_the_stream_pushes_each_step_as_the_frames_api_has_it_then_the_end(
    live_server: Any, cleanup: list[LiveGame], streams: list[Stream]
) -> None:
    game = start_live("Live Stream", delay=2)
    cleanup.append(game)
    secrets = hidden_strings(game.match)
    recorded = game.let(4)
    s = open_stream(live_server.url, game.match.pk, streams)
    assert s.response.status == 200
    assert s.response.getheader("Content-Type") == "text/event-stream"
    name, data, event_id = s.next()
    assert name == "frames" and data["from"] == 0 and data["live"] is True
    frames = data["frames"]
    assert len(frames) == recorded - 2 + 1 and event_id == str(len(frames))
    assert frames == api_frames(game)
    assert data["perspectives"] == ["spectator"] and "2 decisions behind" in data["note"]
    # each step the runner records reaches the watcher without the watcher asking
    for _ in range(3):
        recorded = game.let(1)
        name, data, event_id = s.next()
        assert name == "frames" and 0 < data["from"] <= len(frames)
        frames = frames[: data["from"]] + data["frames"]
        assert len(frames) == recorded - 2 + 1 and event_id == str(len(frames))
        assert frames == api_frames(game)
    game.finish()
    # the rest of the game as the runner recorded it (still the delay behind), then the end
    name, data, _ = s.next()
    while name == "frames":
        frames = frames[: data["from"]] + data["frames"]
        name, data, _ = s.next()
    assert (name, data) == ("end", {"match": game.match.pk, "status": "finished"})
    decisions = len(game.outcome[0].record.decisions)
    assert len(frames) in (recorded - 2 + 1, decisions - 2 + 1)
    assert find_leaks("".join(s.raw), secrets) == []
    assert all(seat["hand"] is None for f in frames for seat in f["seats"])


def test_a_stream_of_a_game_whose_pair_partner_plays_shows_the_deal_only(
    live_server: Any, cleanup: list[LiveGame], streams: list[Stream]
) -> None:
    game = start_live("Live Stream Pair", partner_over=False, delay=0)
    cleanup.append(game)
    secrets = hidden_strings(game.match)
    game.let(3)
    s = open_stream(live_server.url, game.match.pk, streams)
    name, data, _ = s.next()
    assert name == "frames" and len(data["frames"]) == 1 and "same deck" in data["note"]
    game.let(2)  # news of these decisions shows nothing new: no event but keep-alives
    game.finish()
    name, _, _ = s.next()
    assert name == "end"
    assert find_leaks("".join(s.raw), secrets) == []


def test_a_watcher_that_goes_away_gives_its_stream_back(
    live_server: Any, cleanup: list[LiveGame], streams: list[Stream], settings: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    settings.LIVE_STREAMS_MAX = 1
    monkeypatch.setattr(live_stream, "KEEPALIVE_S", 0.5)  # the writes that find it gone
    game = start_live("Live Stream Places", delay=0)
    cleanup.append(game)
    game.let(2)
    first = open_stream(live_server.url, game.match.pk, streams)
    assert first.next()[0] == "frames"
    refused = open_stream(live_server.url, game.match.pk, streams)
    assert refused.response.status == 503
    assert (
        "every live stream of this server is taken" in json.loads(refused.response.read())["error"]
    )
    assert refused.response.getheader("Retry-After") == "10"
    first.close()  # gone without a word: the server finds out at its next write
    game.let(1)
    wait_for(lambda: live_stream.streams.open == 0 or None, "the stream's place back")
    again = open_stream(live_server.url, game.match.pk, streams)
    assert again.response.status == 200 and again.next()[0] == "frames"


def test_the_stream_of_an_unknown_or_finished_match(
    live_server: Any, cleanup: list[LiveGame], streams: list[Stream]
) -> None:
    gone = open_stream(live_server.url, 987654, streams)
    assert gone.response.status == 404
    assert json.loads(gone.response.read()) == {"error": "there is no match 987654"}
    game = start_live("Live Stream Over", delay=0)
    cleanup.append(game)
    game.finish()
    over = open_stream(live_server.url, game.match.pk, streams)
    assert over.response.status == 200
    assert over.next() == ("end", {"match": game.match.pk, "status": "finished"}, None)
    assert Client().post(f"/matches/{game.match.pk}/live/").status_code == 405


def test_news_wakes_a_listener_and_only_that_matchs() -> None:
    with livenews.listen(7001) as seven, livenews.listen(7002) as other:
        assert seven.wait(0.05) is False
        livenews.announce([7001])
        assert seven.wait(DEADLINE_S) is True
        assert other.wait(0.2) is False
        livenews.announce([7001, 7001, 7002])  # a burst counts once
        assert seven.wait(DEADLINE_S) is True and seven.wait(0.2) is False
        assert other.wait(DEADLINE_S) is True


def test_news_in_embedded_mode_wakes_a_listener(settings: Any) -> None:
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    with livenews.listen(7003) as listener:
        assert listener.wait(0.05) is False
        livenews.announce([7003])
        assert listener.wait(DEADLINE_S) is True
        assert listener.wait(0.05) is False


def follow_in_browser(page: Any, live_server: Any, game: LiveGame) -> dict[str, int]:
    """Open the live page, let the game go on, and count what the page asked the server."""
    asked = {"frames": 0, "live": 0}

    def seen(request: Any) -> None:
        path = urlparse(request.url).path
        if path == f"/api/matches/{game.match.pk}/frames/":
            asked["frames"] += 1
        elif path == f"/matches/{game.match.pk}/live/":
            asked["live"] += 1

    page.on("request", seen)
    recorded = game.let(3)
    page.goto(f"{live_server.url}/matches/{game.match.pk}/")
    step_is(page, recorded - 1)
    for _ in range(3):
        step_is(page, game.let(2) - 1)  # it followed without a reload
    game.finish()
    page.wait_for_selector("#replay-download", timeout=DEADLINE_S * 1000)
    return asked


@pytest.mark.browser
@pytest.mark.processes
def test_the_live_page_is_pushed_each_step_and_asks_nothing(
    page: Any, live_server: Any, cleanup: list[LiveGame]
) -> None:
    game = start_live("Live Pushed", delay=1)
    cleanup.append(game)
    asked = follow_in_browser(page, live_server, game)
    # one look at the frames when the page opened (the replay's after the end is the
    # replay's own request), one stream: every step after came pushed
    assert asked["live"] == 1, asked
    assert asked["frames"] == 2, asked


@pytest.mark.browser
@pytest.mark.processes
def test_with_no_stream_to_spare_the_live_page_polls(
    page: Any, live_server: Any, cleanup: list[LiveGame], settings: Any
) -> None:
    settings.LIVE_STREAMS_MAX = 0
    game = start_live("Live Polled", delay=1)
    cleanup.append(game)
    asked = follow_in_browser(page, live_server, game)
    assert asked["live"] == 1, asked  # refused (503): the page asks every 2 s instead
    assert asked["frames"] > 2, asked

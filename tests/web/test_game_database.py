"""The game database (issue 26 §8): every finished game as NDJSON, streamed with filters
from ``/api/games/`` and written as monthly gzipped archives with checksums, listed and
served on the league page, and read back by ``avenue_sdk.games.load`` from a file and from
a real HTTP server."""

from __future__ import annotations

import gzip
import hashlib
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client, override_settings
from django.utils import timezone

from arena.models import Match, MatchStatus
from arena.services import gamedb
from avenue_sdk import games
from referee.replay import validate
from tests.web.helpers import make_league

pytestmark = pytest.mark.django_db


@pytest.fixture
def archive_dir(tmp_path: Path) -> Iterator[Path]:
    with override_settings(ARENA_ARCHIVE_DIR=tmp_path / "archives"):
        yield tmp_path / "archives"


def _lines(client: Client, query: str) -> list[dict[str, object]]:
    response = client.get(f"/api/games/{query}")
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"] == "application/x-ndjson"
    body = b"".join(response.streaming_content)  # type: ignore[attr-defined]
    return [json.loads(line) for line in body.splitlines()]


def test_the_stream_has_every_finished_game_with_filters_and_a_cursor(client: Client) -> None:
    league = make_league("Games League", ["random", "greedy", "random"], rounds=1, fit=False)
    make_league("Other League", ["random", "greedy"], rounds=1, fit=False)
    finished = list(
        Match.objects.filter(league=league, status=MatchStatus.FINISHED)
        .order_by("id")
        .values_list("id", flat=True)
    )
    rows = _lines(client, "?league=games-league")
    assert [r["match"] for r in rows] == finished and len(finished) >= 6
    for row in rows:
        record = games.Game(**{**row, "bots": tuple(row["bots"])}).record  # type: ignore[arg-type]
        final = validate(record)  # the whole game, re-simulated through the rules
        assert final.outcome is not None and row["winner_team"] == final.outcome.winner
        assert client.get(f"/api/matches/{row['match']}/replay/").json() == row["replay"]
    # a bot's games only; a cursor and a limit page through them
    bot = "games-league-1"
    mine = _lines(client, f"?bot={bot}")
    assert mine and all(bot in r["bots"] for r in mine)  # type: ignore[operator]
    assert {r["league"] for r in mine} == {"games-league"}
    first, rest = _lines(client, "?league=games-league&limit=2"), finished[2:]
    assert [r["match"] for r in first] == finished[:2]
    after = _lines(client, f"?league=games-league&after={finished[1]}")
    assert [r["match"] for r in after] == rest
    month = timezone.now().strftime("%Y-%m")
    assert len(_lines(client, f"?league=games-league&month={month}")) == len(finished)
    assert _lines(client, "?league=games-league&month=1999-01") == []


def test_a_withheld_game_stays_out_until_its_partner_is_over(client: Client) -> None:
    league = make_league("Held League", ["random", "greedy"], rounds=1, fit=False)
    shown = {r["match"] for r in _lines(client, "?league=held-league")}
    game = Match.objects.filter(league=league, status=MatchStatus.FINISHED).order_by("id")[0]
    partner = (
        Match.objects.filter(league=league, status=MatchStatus.FINISHED)
        .exclude(pk=game.pk)
        .filter(round_id=game.round_id, pairing_key=game.pairing_key, pair_index=game.pair_index)
        .first()
    )
    assert game.pk in shown and partner is not None
    # the two games of a pair on one deal: while one is played, the other is held back
    Match.objects.filter(pk=partner.pk).update(
        deck_seed=game.deck_seed, status=MatchStatus.RUNNING, rated=False
    )
    assert game.pk not in {r["match"] for r in _lines(client, "?league=held-league")}


def test_bad_filters_are_clear_errors(client: Client) -> None:
    make_league("Bad League", ["random", "greedy"], rounds=1, fit=False)
    for query, field in [
        ("?league=no/such", "league"),
        ("?bot=" + "x" * 65, "bot"),
        ("?month=2026-13", "month"),
        ("?after=-1", "after"),
        ("?limit=ten", "limit"),
        ("?colour=red", "query"),
    ]:
        response = client.get(f"/api/games/{query}")
        assert response.status_code == 400, query
        assert field in response.json()["fields"], (query, response.json())
    assert client.get("/api/games/?league=nope").status_code == 404
    assert client.get("/api/games/?bot=nobody").status_code == 404


def test_monthly_archives_are_written_listed_served_and_read_back(
    client: Client, archive_dir: Path, tmp_path: Path
) -> None:
    league = make_league("Archive League", ["random", "greedy"], rounds=1, fit=False)
    assert "No monthly archive yet" in client.get("/leagues/archive-league/").content.decode()
    call_command("games", "export", "archive-league")
    month = timezone.now().strftime("%Y-%m")
    name = f"archive-league-{month}.ndjson.gz"
    path = archive_dir / "archive-league" / name
    data = path.read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    assert (path.parent / (name + ".sha256")).read_text().startswith(f"{sha}  {name}\n")
    # the archive's lines are the stream's, byte for byte
    stream = client.get(f"/api/games/?league=archive-league&month={month}")
    assert gzip.decompress(data) == b"".join(stream.streaming_content)  # type: ignore[attr-defined]
    # written again with no new game: the same bytes, the same checksum
    call_command("games", "export", "archive-league", "--month", month)
    assert path.read_bytes() == data

    page = client.get("/leagues/archive-league/").content.decode()
    assert f"/leagues/archive-league/games/{name}" in page and sha in page
    download = client.get(f"/leagues/archive-league/games/{name}")
    assert download.status_code == 200
    assert b"".join(download.streaming_content) == data  # type: ignore[attr-defined]
    for crafted in ["..%2F..%2Fsettings.py", f"other-{month}.ndjson.gz", name + ".sha256", "x"]:
        assert client.get(f"/leagues/archive-league/games/{crafted}").status_code == 404

    # the SDK reads the file, and the same bytes over real HTTP
    read = list(games.load(path))
    n = Match.objects.filter(league=league, status=MatchStatus.FINISHED).count()
    assert len(read) == n and all(g.league == "archive-league" for g in read)
    observed, legal, chosen = next(read[0].positions())
    assert chosen in legal and observed.seat is not None
    assert sum(1 for _ in read[0].positions()) == len(read[0].record.decisions)
    served = _serve(path.parent)
    try:
        over_http = list(games.load(f"http://127.0.0.1:{served.server_port}/{name}"))
    finally:
        served.shutdown()
    assert [g.match for g in over_http] == [g.match for g in read]


def test_a_line_that_is_not_a_game_says_where(tmp_path: Path) -> None:
    bad = tmp_path / "bad.ndjson"
    bad.write_text('{"match": 1}\n')
    with pytest.raises(ValueError, match="line 1 is not a game"):
        list(games.load(bad))


def _serve(folder: Path) -> http.server.ThreadingHTTPServer:
    def handler(*args: object, **kwargs: object) -> http.server.SimpleHTTPRequestHandler:
        return http.server.SimpleHTTPRequestHandler(*args, directory=str(folder), **kwargs)  # type: ignore[arg-type]

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)  # type: ignore[arg-type]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_every_month_with_games_gets_an_archive(archive_dir: Path) -> None:
    league = make_league("Months League", ["random", "greedy"], rounds=1, fit=False)
    assert gamedb.months_with_games(league) == [timezone.now().strftime("%Y-%m")]
    assert gamedb.archives(league) == []
    gamedb.write_archive(league, gamedb.months_with_games(league)[0])
    (only,) = gamedb.archives(league)
    assert only.games == Match.objects.filter(league=league, status="finished").count()

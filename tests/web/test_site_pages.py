"""The ranking the standings explain, the bot and league indexes, friendly errors, the
favicon and the API's conventions."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from django.test import Client

from arena.ratings.models import BatchRating, LiveRating
from leaderboard.reads import leagues as league_reads
from leaderboard.reads.ranking import StandingRow, rank_rows
from tests.web.helpers import make_league

pytestmark = pytest.mark.django_db


def row(name: str, games: int, rating: int, elo: float | None, rank: int = 0) -> StandingRow:
    batch = None
    if elo is not None:
        batch = BatchRating(elo=elo, low=elo - 100, high=elo + 100, rank=rank, rank_low=1,
                            rank_high=rank, games=games)  # fmt: skip
    return StandingRow(
        rank=None, bot_id=hash(name) % 1000, bot=name, owner="", kind="house",
        rating=Decimal(rating), games=games, wins=0, losses=0, forfeits=0, batch=batch,
        provisional=games < league_reads.PROVISIONAL_GAMES, entered=True,
    )  # fmt: skip


def test_rank_follows_the_batch_fit_and_provisional_bots_come_last_unranked() -> None:
    rows = [
        row("lucky", 1, 1540, 1800.0, 1),  # one game: the best live Elo and fit, provisional
        row("steady", 61, 1520, 1700.0, 2),
        row("twin-a", 40, 1490, 1650.0, 3),
        row("twin-b", 40, 1510, 1650.0, 4),
        row("unfitted", 30, 1600, None),
    ]
    ranked = rank_rows(rows)
    assert [(r.bot, r.rank) for r in ranked] == [
        ("steady", 1), ("twin-b", 2), ("twin-a", 2), ("unfitted", 4), ("lucky", None),
    ]  # fmt: skip
    assert [r.order for r in ranked] == [0, 1, 2, 3, 4]


def test_identical_fits_get_identical_rank_intervals(client: Client) -> None:
    league = make_league("Tie League", ["random", "random", "greedy"], rounds=1)
    fits = list(BatchRating.objects.filter(league=league).order_by("bot__name"))
    a, b = fits[0], fits[1]
    # what the bootstrap gives two bots with the same fit: ties broken by index
    for fit, (rank, low, high) in ((a, (1, 1, 3)), (b, (2, 1, 4))):
        fit.elo, fit.low, fit.high = 1764.0, 1500.0, 1840.0
        fit.rank, fit.rank_low, fit.rank_high = rank, low, high
        fit.save()
    LiveRating.objects.filter(league=league).update(games=30, shown_games=30)  # established
    rows = client.get(f"/api/leagues/{league.slug}/standings/").json()["standings"]
    tied = [r for r in rows if r["bot"] in (a.bot.name, b.bot.name)]
    assert [(r["batch"]["rank_low"], r["batch"]["rank_high"]) for r in tied] == [(1, 4), (1, 4)]
    assert tied[0]["rank"] == tied[1]["rank"] is not None
    html = client.get(f"/leagues/{league.slug}/").content.decode()
    assert html.count('<td class="num">1–4</td>') == 2


def test_sort_minus_is_descending_everywhere(client: Client) -> None:
    league = make_league("Sort League", ["random", "greedy", "random"], rounds=1)
    url = f"/api/leagues/{league.slug}/standings/"
    down = [r["rating"] for r in client.get(f"{url}?sort=-rating").json()["standings"]]
    up = [r["rating"] for r in client.get(f"{url}?sort=rating").json()["standings"]]
    assert down == sorted(down, reverse=True) and up == sorted(up) and down != up
    page = client.get(f"/leagues/{league.slug}/?sort=-rating")
    assert [float(r.rating) for r in page.context["standings"].rows] == down
    # the header's first click on a number sorts it high-first
    assert 'href="?sort=-rating"' in client.get(f"/leagues/{league.slug}/").content.decode()


def test_bot_index_searches_names_and_owners(client: Client) -> None:
    make_league("Index League", ["random", "greedy"], rounds=1)
    html = client.get("/bots/").content.decode()
    assert 'href="/bots/index-league-0/"' in html and 'href="/bots/index-league-1/"' in html
    found = client.get("/bots/?q=LEAGUE-1").content.decode()
    assert 'href="/bots/index-league-1/"' in found and 'href="/bots/index-league-0/"' not in found
    none = client.get("/bots/?q=nobody-here").content.decode()
    assert "No bot's name or owner contains" in none
    assert client.get("/bots/?page=abc").status_code == 400
    leagues = client.get("/leagues/").content.decode()
    assert 'href="/leagues/index-league/"' in leagues


@pytest.mark.parametrize("debug", [False, True])
def test_unknown_addresses_get_the_friendly_404_or_json(
    client: Client, settings, debug: bool
) -> None:  # noqa: ANN001, E501
    settings.DEBUG = debug
    page = client.get("/no/such/page/")
    assert page.status_code == 404
    html = page.content.decode()
    assert "Page not found" in html and 'href="/bots/"' in html and "URLconf" not in html
    api = client.get("/api/no-such-thing/")
    assert api.status_code == 404 and api.json()["code"] == "not_found"
    # APPEND_SLASH still works with the catch-all pattern
    redirect = client.get("/bots?q=x")
    assert redirect.status_code == 301 and redirect["Location"] == "/bots/?q=x"


def test_favicon(client: Client) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].endswith("favicon.svg")
    assert 'rel="icon"' in client.get("/").content.decode()


def test_unknown_query_parameters_answer_400_naming_the_allowed_ones(client: Client) -> None:
    make_league("Param League", ["random", "greedy"], rounds=1)
    bad = client.get("/api/leagues/param-league/standings/?sotr=-rating")
    assert bad.status_code == 400
    message = bad.json()["fields"]["query"][0]
    assert "'sotr'" in message and "allowed: sort" in message
    none = client.get("/api/leagues/?page=2")
    assert (
        none.status_code == 400 and "takes no query parameters" in none.json()["fields"]["query"][0]
    )
    matches = client.get("/api/matches/?league=param-league&limit=2&colour=red")
    assert matches.status_code == 400 and "limit" in matches.json()["fields"]["query"][0]
    assert client.get("/api/matches/?league=param-league&limit=2").status_code == 200


def test_schema_marks_only_the_operations_that_need_a_user(client: Client) -> None:
    schema = client.get("/api/schema/?format=json").json()
    secured = sorted(
        f"{method.upper()} {path}"
        for path, ops in schema["paths"].items()
        for method, op in ops.items()
        if op.get("security")
    )
    assert secured == sorted([
        "POST /api/bots/", "POST /api/bots/{name}/token/", "DELETE /api/bots/{name}/token/",
        "POST /api/bots/{name}/entries/", "DELETE /api/bots/{name}/entries/{slug}/",
        "DELETE /api/auth/token/", "GET /api/me/",
        "POST /api/hosted/", "GET /api/bots/{name}/versions/", "POST /api/bots/{name}/versions/",
        "POST /api/bots/{name}/versions/{number}/activate/",
        "GET /api/bots/{name}/tests/", "POST /api/bots/{name}/tests/",
        "GET /api/bots/{name}/tests/{id}/",
        # challenges (docs/challenges.md)
        "GET /api/challenges/", "POST /api/challenges/", "PUT /api/bots/{name}/challenges/accept/",
        "GET /api/bots/{name}/sparring/", "POST /api/bots/{name}/sparring/",
        "GET /api/bots/{name}/notifications/", "PUT /api/bots/{name}/notifications/",
        "GET /api/notifications/secret/", "POST /api/notifications/secret/",
    ])  # fmt: skip
    assert all({} not in op.get("security", [1]) for ops in schema["paths"].values()
               for op in ops.values())  # fmt: skip


def test_redoc_page_asks_no_one_else_for_anything(client: Client) -> None:
    html = client.get("/api/redoc/").content.decode()
    # Redoc starts from its element (no inline script: the Content-Security-Policy)
    assert "<redoc spec-url=" in html and "googleapis" not in html and "https://" not in html


def test_the_site_shows_the_gateway_that_runs_and_the_announced_next_round(
    client: Client,
    settings,  # noqa: ANN001
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from arena import public_facts

    league = make_league("Facts League", ["random", "greedy"], rounds=0, fit=False)
    settings.GATEWAY_ADDRESS = "0.0.0.0:50051"
    assert "<code>127.0.0.1:50051</code>" in client.get("/").content.decode()
    settings.GATEWAY_PUBLIC_ADDRESS = "arena.example.org:443"
    assert "<code>arena.example.org:443</code>" in client.get("/").content.decode()
    when = timezone.now() + timedelta(seconds=120)
    try:
        public_facts.set_gateway_address("127.0.0.1:50351")
        public_facts.announce_next_round(league.pk, when)
        assert "<code>127.0.0.1:50351</code>" in client.get("/").content.decode()
        api = client.get("/api/leagues/facts-league/").json()
        assert api["next_round_at"] == when.isoformat() and api["schedule_note"] == ""
        assert "by hand" not in client.get("/leagues/facts-league/").content.decode()
    finally:
        public_facts.set_gateway_address(None)
        public_facts.announce_next_round(league.pk, None)
    assert client.get("/api/leagues/facts-league/").json()["schedule_note"] == "by hand"


@pytest.mark.processes
def test_the_sdk_archive_installs_outside_a_checkout(client: Client, tmp_path) -> None:  # noqa: ANN001
    import io
    import subprocess
    import sys
    import tarfile

    response = client.get("/downloads/agent-avenue-sdk.tar.gz")
    assert response.status_code == 200
    archive = tmp_path / "agent-avenue-sdk.tar.gz"
    archive.write_bytes(response.content)
    names = tarfile.open(fileobj=io.BytesIO(response.content)).getnames()
    assert "agent-avenue-sdk/pyproject.toml" in names
    assert "agent-avenue-sdk/avenue_sdk/viewer/static/viewer/viewer.js" in names
    assert not any("__pycache__" in n for n in names)
    assert "agent-avenue-sdk/engine/pyproject.toml" in names  # the rules engine rides along
    # a fresh environment outside any checkout: pip builds both and brings no server stack
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    subprocess.run(
        [str(venv / "bin/python"), "-m", "pip", "install", "--quiet", str(archive)],
        check=True, cwd=tmp_path, timeout=900,
    )  # fmt: skip
    found = subprocess.run(
        [str(venv / "bin/python"), "-c",
         "import avenue_sdk.viewer as v, referee, importlib.util as u; "
         "print(v.__file__); print(referee.__file__); print(u.find_spec('django'))"],
        cwd=tmp_path, capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    viewer, engine, django = found.stdout.split()
    assert viewer.startswith(str(venv)) and engine.startswith(str(venv)), found.stdout
    assert django == "None"
    site = Path(viewer).parent
    assert (site / "static/viewer/viewer.js").is_file()  # package data


def test_dropped_answers_on_the_match_page_and_in_the_api(client: Client) -> None:
    from arena.models import Match, MatchReplay, MatchStatus

    make_league("Drop League", ["random", "greedy"], rounds=1, fit=False)
    match = Match.objects.filter(status=MatchStatus.FINISHED).order_by("id")[0]
    # the runner's own report of this match: house bots answer nothing out of turn
    assert client.get(f"/api/matches/{match.pk}/").json()["dropped"] == {"stale": 0, "foreign": 0}
    replay = MatchReplay.objects.get(match=match)
    replay.report = {**replay.report, "dropped": {"stale": 3, "foreign": 1}}
    replay.save()
    assert client.get(f"/api/matches/{match.pk}/").json()["dropped"] == {"stale": 3, "foreign": 1}
    html = client.get(f"/matches/{match.pk}/").content.decode()
    assert "<strong>3</strong> stale" in html and "<strong>1</strong> foreign" in html


def test_resumes_on_the_match_page_and_in_the_api(client: Client) -> None:
    from arena.models import Match, MatchReplay, MatchStatus

    make_league("Resume League", ["random", "greedy"], rounds=1, fit=False)
    match = Match.objects.filter(status=MatchStatus.FINISHED).order_by("id")[0]
    # house bots never drop: the runner's own report has no resumes, and the page says none
    assert client.get(f"/api/matches/{match.pk}/").json()["resumes"] == []
    assert 'id="resumes"' not in client.get(f"/matches/{match.pk}/").content.decode()
    name = match.participations.get(seat=1).bot.name
    resumes = [
        {"seats": [1], "bot": name, "away_s": 5.2, "arena": False, "why": "its stream closed"},
        {"seats": [1], "bot": name, "away_s": None, "arena": False, "why": "not seen"},
        {"seats": [1], "bot": name, "away_s": 0.8, "arena": True, "why": "its gateway went away"},
    ]
    replay = MatchReplay.objects.get(match=match)
    replay.report = {**replay.report, "resumes": resumes}
    replay.save()
    assert client.get(f"/api/matches/{match.pk}/").json()["resumes"] == resumes
    html = client.get(f"/matches/{match.pk}/").content.decode()
    section = html[html.index('id="resumes"') : html.index("</ul>", html.index('id="resumes"'))]
    assert "nothing was charged" in section
    assert section.count('data-resume-seats="1"') == 3
    assert f">{name}</a>) away <strong>5.2 s</strong> (its stream closed)" in section
    assert "before its old one was seen to end (not seen)" in section
    assert "(its gateway went away: the arena's doing)" in section


def test_crosstable_cells_read_w_l_and_open_the_head_to_head(client: Client) -> None:
    from arena.models import Match, MatchStatus, Participation

    league = make_league("H2H League", ["random", "greedy", "random"], rounds=2, fit=False)
    a, b = "h2h-league-0", "h2h-league-1"
    won = Participation.objects.filter(
        bot__name=a, match__participations__bot__name=b, match__status=MatchStatus.FINISHED
    ).values_list("won", flat=True)
    wins, losses = sum(1 for w in won if w), sum(1 for w in won if w is False)
    html = client.get(f"/leagues/{league.slug}/").content.decode()
    link = f'href="/leagues/{league.slug}/h2h/{a}/{b}/"'
    assert link in html and f'{wins}–{losses} <span class="n">({wins + losses})</span>' in html
    page = client.get(f"/leagues/{league.slug}/h2h/{a}/{b}/")
    assert page.status_code == 200
    record = page.context["h2h"]
    assert (record.wins, record.losses) == (wins, losses) and wins + losses == 4  # 2 rounds
    shown = {m.pk for m in record.matches}
    expected = set(
        Match.objects.filter(participations__bot__name=a)
        .filter(participations__bot__name=b)
        .values_list("pk", flat=True)
    )
    assert shown == expected
    assert client.get(f"/leagues/{league.slug}/h2h/{a}/nobody/").status_code == 404
    assert client.get(f"/leagues/{league.slug}/h2h/{a}/{a}/").status_code == 400


def test_bot_chart_by_game_number_with_its_band(client: Client) -> None:
    from leaderboard.charts import elo_band

    league = make_league("Chart League", ["random", "greedy"], rounds=2, fit=False)
    html = client.get(f"/bots/{league.slug}-0/").content.decode()
    games = LiveRating.objects.get(league=league, bot__name=f"{league.slug}-0").games
    assert '<polygon class="band"' in html and "game 1</text>" in html
    assert f"game {games}</text>" in html and f"<title>game {games}:" in html
    low, high = elo_band(1500, 1)
    low16, high16 = elo_band(1500, 16)
    assert abs((high - low) - 4 * (high16 - low16)) < 1e-9  # narrows as 1/√n
    assert round(high - 1500) == round(1.96 * 347.4)


def test_a_crash_gets_the_friendly_500_page_or_json(settings) -> None:  # noqa: ANN001
    settings.ROOT_URLCONF = "tests.web.crash_urls"
    settings.DEBUG = False
    client = Client(raise_request_exception=False)
    page = client.get("/crash/")
    assert page.status_code == 500
    html = page.content.decode()
    assert "Server error" in html and 'href="/leagues/"' in html and "RuntimeError" not in html
    api = client.get("/api/crash/")
    assert api.status_code == 500 and api.json()["code"] == "server_error"


def test_a_post_to_no_address_is_a_json_404_not_a_csrf_page() -> None:
    client = Client(enforce_csrf_checks=True)
    client.cookies["sessionid"] = "whatever"
    response = client.post("/api/bots/null%2Cnull/entries/", {"league": "0"},
                           content_type="application/json")  # fmt: skip
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert client.post("/no/such/page/").status_code == 404


def test_the_schema_is_json_like_every_other_api_path(client: Client) -> None:
    schema = client.get("/api/schema/")
    assert schema["Content-Type"].startswith("application/vnd.oai.openapi+json")
    assert schema.json()["info"]["title"] == "Agent Avenue Arena API"
    assert client.get("/api/schema/?format=yaml").content.startswith(b"openapi:")


def test_the_match_page_says_whose_condition_won(client: Client) -> None:
    from arena.models import Match, MatchStatus

    make_league("Ending League", ["greedy", "random"], rounds=1, fit=False)
    match = Match.objects.filter(status=MatchStatus.FINISHED).order_by("id").last()
    assert match is not None
    frames = client.get(f"/api/matches/{match.pk}/frames/").json()["frames"]
    ending = frames[-1]["ending"]
    assert "wins" in ending
    html = client.get(f"/matches/{match.pk}/").content.decode()
    assert 'id="match-ending"' in html and ending[1:40] in html


def test_the_owner_alone_sees_where_their_bot_faulted(client: Client) -> None:
    """Issue 26 §7: the match page shows a bot's owner the step its fault was at (a link
    into the viewer from its seat), the fault's detail and a hosted bot's stderr tail."""
    from django.contrib.auth import get_user_model

    from arena.hosting.models import SandboxFault
    from arena.models import Bot, BotKind, Match, MatchReplay, MatchStatus, Participation

    make_league("Fault League", ["random", "greedy"], rounds=1, fit=False)
    match = Match.objects.filter(status=MatchStatus.FINISHED).order_by("id")[0]
    seat = match.participations.get(seat=1)
    users = get_user_model()
    owner = users.objects.create_user("olive", password="pw-pw-pw-pw")
    other = users.objects.create_user("otto", password="pw-pw-pw-pw")
    Bot.objects.filter(pk=seat.bot_id).update(owner=owner, kind=BotKind.HOSTED)
    Participation.objects.filter(pk=seat.pk).update(
        fault_cause="timeout", fault_detail="no answer to decision 9 within 5 s"
    )
    stderr = "\n".join(f"line {i}" for i in range(50))
    SandboxFault.objects.create(
        bot_id=seat.bot_id, match_id=f"{match.pk}.1", cause="timeout", detail="d", stderr=stderr
    )
    recorded = len(MatchReplay.objects.get(match=match).record["decisions"])
    assert match.decisions == recorded

    client.force_login(owner)
    html = client.get(f"/matches/{match.pk}/").content.decode()
    box = html[
        html.index('id="owner-fault-1"') : html.index("</div>", html.index('id="owner-fault-1"'))
    ]
    assert f'data-fault-step="{recorded}"' in box
    assert f"?step={recorded}&amp;perspective=seat:1#viewer" in box
    assert f"at decision {recorded + 1}" in box and "no answer to decision 9 within 5 s" in box
    assert "line 49" in box and "line 20" in box and "line 19" not in box  # the last 30 lines
    # the link opens a frame that exists, from the bot's own seat
    frames = client.get(f"/api/matches/{match.pk}/frames/?perspective=seat:1").json()["frames"]
    assert len(frames) > recorded
    for viewer in (other, None):
        client.logout()
        if viewer is not None:
            client.force_login(viewer)
        page = client.get(f"/matches/{match.pk}/").content.decode()
        assert 'id="owner-fault' not in page and "line 49" not in page


def test_a_replay_embeds_on_other_sites(client: Client) -> None:
    """Issue 26 §6: /matches/<id>/embed/ is the viewer alone and may be framed by any site
    (the rest of the site by none); the match page offers the iframe; oEmbed answers it."""
    from arena.models import Match, MatchStatus

    make_league("Embed League", ["random", "greedy"], rounds=1, fit=False)
    match = Match.objects.filter(status=MatchStatus.FINISHED).order_by("id")[0]
    embed = client.get(f"/matches/{match.pk}/embed/?autoplay=1")
    assert embed.status_code == 200
    assert "X-Frame-Options" not in embed
    assert "frame-ancestors *" in embed["Content-Security-Policy"]
    body = embed.content.decode()
    assert 'id="viewer"' in body and 'data-autoplay="true"' in body
    assert 'class="top"' not in body  # no site header inside someone else's page
    assert "data-autoplay" not in client.get(f"/matches/{match.pk}/embed/").content.decode()
    page = client.get(f"/matches/{match.pk}/")
    assert page["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in page["Content-Security-Policy"]
    html = page.content.decode()
    assert f"http://testserver/matches/{match.pk}/embed/" in html and 'id="embed-snippet"' in html
    assert 'type="application/json+oembed"' in html

    url = f"http://testserver/matches/{match.pk}/"
    answer = client.get("/oembed/", {"url": url, "maxwidth": "600"}).json()
    assert answer["type"] == "rich" and answer["version"] == "1.0"
    assert answer["width"] == 600 and 'width="600"' in answer["html"]
    assert f'src="http://testserver/matches/{match.pk}/embed/"' in answer["html"]
    assert "Embed League" in answer["title"]
    assert client.get("/oembed/", {"url": "http://testserver/bots/x/"}).status_code == 404
    assert client.get("/oembed/", {"url": "http://testserver/matches/999999/"}).status_code == 404
    assert client.get("/oembed/", {"url": url, "format": "xml"}).status_code == 501
    assert client.get("/matches/999999/embed/").status_code == 404

"""A hosted bot's versions in a league, played for real (a gateway on port 0, the Redis relay,
the bot host's stream with a sandbox per match, ``play_match`` as a worker runs it): every
seat records the version that played it; a new version starts from its parent's rating; a
switch back restores the old version's own rating; the league's total, the recompute and
the batch fit (each version a player) all agree."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Sum
from django.test import Client

from arena.adapters.bothost.checker import check_next
from arena.adapters.bothost.host import serve_bot
from arena.adapters.bothost.probe import check_available
from arena.adapters.bothost.sandbox import Limits, SandboxUnavailable
from arena.adapters.play.matches import play_match
from arena.adapters.relay.redis import RedisRunnerRelay
from arena.hosting import services
from arena.hosting.models import CodeVersion
from arena.models import Bot, League, Participation
from arena.ratings import versions
from arena.ratings.models import START_RATING, BatchRating, LiveRating, VersionFit, VersionRating
from arena.ratings.services import fit_batch_ratings, recompute_ratings
from arena.services import leagues as svc
from arena.services.claims import PlayOutcome
from arena.services.rounds import do_schedule_round
from tests.protocol.harness import Arena, running_arena

try:
    check_available()
except SandboxUnavailable as exc:  # pragma: no cover - make test installs bubblewrap
    pytest.skip(f"no sandbox here: {exc}", allow_module_level=True)

pytestmark = [pytest.mark.slow, pytest.mark.services, pytest.mark.processes]

HEAD = b"from avenue_sdk import Bot\n\n\nclass Mine(Bot):\n    def decide(self, r):\n"
LAST = HEAD + b"        return len(r.legal) - 1\n"
FIRST = HEAD + b"        return 0\n"


@pytest.fixture
def arena(tmp_path: Path, transactional_db: None) -> Iterator[Arena]:
    with running_arena(tmp_path) as a:
        yield a


def _round(league: League, arena: Arena) -> list[int]:
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    for match_id in scheduled.matches:
        outcome = play_match(
            match_id, relay_factory=lambda: RedisRunnerRelay(str(settings.REDIS_URL), arena.prefix)
        )
        assert outcome is PlayOutcome.FINISHED, outcome
    return list(scheduled.matches)


def _total_holds(league: League) -> None:
    rows = LiveRating.objects.filter(league=league)
    total = rows.aggregate(t=Sum("rating"))["t"]
    assert total == START_RATING * rows.count() + versions.total_adjustment(league)


def _version_rows(bot: Bot, league: League) -> dict[int, VersionRating]:
    return {
        r.version.number: r
        for r in VersionRating.objects.filter(bot=bot, league=league).select_related("version")
    }


def test_versions_carry_and_keep_their_ratings(arena: Arena) -> None:
    owner = get_user_model().objects.create_user("ann", password="pw-pw-pw-pw")
    bot = services.do_create_hosted_bot(owner, "ann-league")
    services.do_upload(owner, bot, "mine.py", LAST, "mine:Mine")
    assert check_next("host-test") is not None
    league = svc.do_create_league(svc.LeagueSettings(name="Versions", k_factor=32))
    house = svc.do_create_house_bot("versions-random", "random")
    for b in (bot, house):
        svc.do_enter(league, b)
    token = services.issue_host_token(bot)
    client, thread = serve_bot(
        bot.name,
        arena.address,
        token,
        lambda match_id: services.match_version_files(bot.pk, match_id),
        Limits(),
    )
    try:
        arena.wait_connected(bot.name, timeout=30)
        v1 = CodeVersion.objects.get(bot=bot, number=1)
        first = _round(league, arena)
        seats = Participation.objects.filter(match_id__in=first, bot=bot)
        assert {p.code_version_id for p in seats} == {v1.pk}
        assert not Participation.objects.filter(bot=house, code_version__isnull=False).exists()
        live = LiveRating.objects.get(league=league, bot=bot)
        rows = _version_rows(bot, league)
        assert set(rows) == {1} and rows[1].current and rows[1].rating == live.rating
        r1 = live.rating
        _total_holds(league)

        # v2 passes its check and becomes active: it starts from v1's rating
        services.do_upload(owner, bot, "mine.py", FIRST, "mine:Mine")
        v2 = check_next("host-test")
        assert v2 is not None and v2.active and v2.parent_id == v1.pk
        rows = _version_rows(bot, league)
        assert rows[2].current and not rows[1].current
        assert rows[2].start == rows[2].rating == rows[1].rating == r1
        assert LiveRating.objects.get(league=league, bot=bot).rating == r1

        r2 = r1
        for _ in range(4):  # until v2's games moved its rating (a split round may not)
            second = _round(league, arena)
            assert {
                p.code_version_id
                for p in Participation.objects.filter(match_id__in=second, bot=bot)
            } == {v2.pk}
            r2 = LiveRating.objects.get(league=league, bot=bot).rating
            if r2 != r1:
                break
        assert r2 != r1
        rows = _version_rows(bot, league)
        assert rows[1].rating == r1 and rows[2].rating == r2 and rows[2].current
        _total_holds(league)

        # switch back: v1's own rating, not v2's
        services.do_activate(owner, bot, 1)
        rows = _version_rows(bot, league)
        assert rows[1].current and not rows[2].current
        assert LiveRating.objects.get(league=league, bot=bot).rating == r1
        assert rows[2].rating == r2
        _total_holds(league)
        # and forward again: v2 is back at its own rating
        services.do_activate(owner, bot, 2)
        assert LiveRating.objects.get(league=league, bot=bot).rating == r2
        services.do_activate(owner, bot, 1)
        _round(league, arena)  # v1 plays on from its own rating
        _total_holds(league)
    finally:
        client.stop()
        thread.join(30)
        client.bot.close()

    report = recompute_ratings(league.pk)
    assert report.exact, report.mismatches

    fit_batch_ratings(league.pk, bootstrap=20)
    fits = {f.version.number: f for f in VersionFit.objects.filter(league=league)}
    assert set(fits) == {1, 2}
    games = {
        n: Participation.objects.filter(bot=bot, code_version__number=n).count() for n in (1, 2)
    }
    assert {n: f.games for n, f in fits.items()} == games
    mine = BatchRating.objects.get(league=league, bot=bot)
    assert mine.elo == pytest.approx(fits[1].elo)  # the bot's row: its current version
    assert fits[1].low <= fits[1].elo <= fits[1].high
    assert sorted(BatchRating.objects.filter(league=league).values_list("rank", flat=True)) == [
        1,
        2,
    ]
    assert Decimal(0) != r2 - r1

    # the bot page and the API show each version's record and ratings (v1 played on)
    rows = _version_rows(bot, league)
    r1 = rows[1].rating
    assert rows[2].rating == r2
    page = Client().get(f"/bots/{bot.name}/?league={league.slug}").content.decode()
    table = page[page.index('id="code-versions"') :]
    table = table[: table.index("</table>")]
    assert 'v1 <span class="tag">current</span>' in table and "v2" in table
    assert f"{float(r1):.0f}" in table and f"{float(r2):.0f}" in table
    detail = Client().get(f"/api/bots/{bot.name}/").json()
    shown = {v["version"]: v for v in detail["versions"]}
    assert set(shown) == {1, 2}
    for n in (1, 2):
        assert shown[n]["games"] == games[n] == shown[n]["wins"] + shown[n]["losses"]
        assert shown[n]["league"] == league.slug and shown[n]["batch"] is not None
    assert shown[1]["current"] and not shown[2]["current"]
    assert shown[1]["rating"] == float(r1) and shown[2]["rating"] == float(r2)
    assert shown[2]["start_rating"] == float(rows[2].start)  # v1 at the switch
    assert shown[1]["batch"]["low"] <= shown[1]["batch"]["elo"] <= shown[1]["batch"]["high"]

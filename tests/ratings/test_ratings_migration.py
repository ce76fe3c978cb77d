"""The rating models and BotVersion moved from the leaderboard app to the competition domain
(``ratings`` and ``arena``) with their data: the migrations only change Django's state, so a
populated database keeps every row, and the ledger still replays to the stored ratings.

The database is populated through the services (a league of house bots plays two rounds, a
batch fit, bot versions from Hellos), taken back to the schema before the move, where the
old models must read exactly the same rows and can still write, then brought forward again.
"""

from __future__ import annotations

from collections.abc import Iterator
from io import StringIO
from typing import Any

import pytest
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from arena.models import BotVersion, MatchReplay, Participation
from arena.ratings.models import BatchRating, LiveRating, RatedMatch
from arena.ratings.services import fit_batch_ratings, recompute_ratings
from arena.services.bots import record_hello
from arena.services.matches import play_match
from arena.services.rounds import do_schedule_round
from tests.leagues.factory import assert_rated_once, house_league

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

#: the schema before the move: leaderboard owned the ratings, the ratings app did not exist
BEFORE = [("leaderboard", "0002_web"), ("arena", "0003_match_duration_float"), ("ratings", None)]
MOVED = {
    "liverating": ("ratings", LiveRating),
    "ratedmatch": ("ratings", RatedMatch),
    "batchrating": ("ratings", BatchRating),
    "botversion": ("arena", BotVersion),
}


def _migrate(targets: list[tuple[str, str | None]]) -> Any:
    """Migrate the test database to ``targets``; the apps registry of that state."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    # (app, None) means "none of the app's migrations": no node of the graph to state
    return executor.loader.project_state([(a, n) for a, n in targets if n is not None]).apps


def _latest() -> list[tuple[str, str | None]]:
    return list(MigrationExecutor(connection).loader.graph.leaf_nodes())


@pytest.fixture
def back_to_latest() -> Iterator[None]:
    latest = _latest()
    try:
        yield
    finally:
        _migrate(latest)


def _rows(model: Any) -> list[dict[str, Any]]:
    return list(model.objects.order_by("pk").values())


def _populate() -> int:
    league = house_league("Migrated", ["random", "greedy", "random"], k_factor=32)
    for _ in range(2):
        scheduled = do_schedule_round(league, enqueue=False)
        assert scheduled is not None
        for match_id in scheduled.matches:
            play_match(match_id)
    assert_rated_once(league)
    fit_batch_ratings(league.pk, bootstrap=20)
    bot = league.entries.first().bot  # type: ignore[union-attr]
    for version in ("1.0", "1.1", "1.0"):
        record_hello(str(bot.pk), protocol_version=1, bot_version=version)
    return league.pk


def test_a_populated_database_moves_to_the_new_schema_with_every_row(back_to_latest) -> None:
    league_id = _populate()
    snapshot = {name: _rows(model) for name, (_, model) in MOVED.items()}
    participations = _rows(Participation)
    replays = MatchReplay.objects.count()
    assert all(snapshot.values()), {k: len(v) for k, v in snapshot.items()}
    type_ids = {
        name: ContentType.objects.get(app_label=app, model=name).pk
        for name, (app, _) in MOVED.items()
    }

    # today's schema: the leaderboard app's models read the very same rows, and still write
    old = _migrate(BEFORE)
    for name, rows in snapshot.items():
        before = _rows(old.get_model("leaderboard", name))
        # (columns added since, such as the standings rows' shown_*, are not there yet)
        assert before == [{k: r[k] for k in before[0]} for r in rows], name
        assert ContentType.objects.get(app_label="leaderboard", model=name).pk == type_ids[name]
    old_version = old.get_model("leaderboard", "BotVersion")
    now = timezone.now()
    old_version.objects.create(
        bot_id=snapshot["botversion"][0]["bot_id"],
        version="written-before-the-move",
        protocol_version=1,
        first_seen=now,
        last_seen=now,
    )

    # the new schema: everything is still there, plus what the old models wrote
    _migrate(_latest())
    for name, (app, model) in MOVED.items():
        rows = _rows(model)
        if name == "botversion":
            assert rows[: len(snapshot[name])] == snapshot[name]
            assert rows[-1]["version"] == "written-before-the-move"
        else:
            assert rows == snapshot[name], name
        assert ContentType.objects.get(app_label=app, model=name).pk == type_ids[name]
    assert _rows(Participation) == participations
    assert MatchReplay.objects.count() == replays

    # and the ledger still replays to the stored ratings, to the last digit
    assert recompute_ratings(league_id).exact
    out = StringIO()
    call_command("league", "recompute-ratings", "Migrated", stdout=out)
    assert "stored ratings equal the recomputed ones exactly" in out.getvalue()

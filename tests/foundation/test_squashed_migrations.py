"""The squashed migrations make the schema the old history made, and a database that ran
the old history needs nothing new (tests/foundation/schema.py says how the old schema was
recorded)."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.loader import MigrationLoader

from tests.foundation.schema import APP_LABELS, SNAPSHOT, describe

pytestmark = pytest.mark.django_db


def _initial_nodes(loader: MigrationLoader) -> list[tuple[str, str]]:
    return [key for key in loader.graph.root_nodes() if key[0] in APP_LABELS]


def test_the_squashed_schema_is_the_old_historys() -> None:
    if connection.vendor != "postgresql":
        pytest.fail(f"this test reads PostgreSQL's catalogs; the suite runs on {connection.vendor}")
    executor = MigrationExecutor(connection)
    # the initial migrations only: what a later migration changes is not the squash's
    assert not any(
        key[0] in APP_LABELS and key[1] not in ("0001_initial", "0002_participation_code_version")
        for key in executor.loader.graph.nodes
    ), "a migration after the squash: migrate this test's database back to the initial ones"
    expected = json.loads(SNAPSHOT.read_text())
    actual = describe(connection)
    assert sorted(actual) == sorted(expected)
    for table in expected:
        assert actual[table] == expected[table], table


def test_each_app_starts_from_one_initial_migration() -> None:
    loader = MigrationLoader(connection)
    for label in APP_LABELS:
        names = sorted(name for app, name in loader.graph.nodes if app == label)
        if label == "arena":
            # the one cycle (Participation -> CodeVersion -> Bot) takes a second file
            assert names == ["0001_initial", "0002_participation_code_version"]
        elif label != "workers":
            assert names == ["0001_initial"], (label, names)


def test_a_database_that_ran_the_old_history_needs_nothing() -> None:
    loader = MigrationLoader(connection)
    replaced = [
        (key, old) for key, migration in loader.replacements.items() for old in migration.replaces
    ]
    assert {key[0] for key, _ in replaced} == {"arena", "leaderboard"}
    assert len(replaced) == 30, "27 arena migrations and 3 of leaderboard's before the squash"
    with connection.cursor() as cur:
        # as the old history left it: its names recorded, not the squashed ones
        for key, _ in replaced:
            cur.execute("DELETE FROM django_migrations WHERE app = %s AND name = %s", list(key))
        for _, (app, name) in replaced:
            cur.execute(
                "INSERT INTO django_migrations (app, name, applied) VALUES (%s, %s, now())",
                [app, name],
            )
    executor = MigrationExecutor(connection)
    leaves = executor.loader.graph.leaf_nodes()
    assert executor.migration_plan(leaves) == []
    for key, _ in replaced:
        assert key in executor.loader.applied_migrations, key

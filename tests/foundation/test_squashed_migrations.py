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


#: the squash's last migration of each app it made (arena's one cycle, Participation ->
#: CodeVersion -> Bot, takes a second file); what comes after them is new history
SQUASHED = {"arena": ["0001_initial", "0002_participation_code_version"]}


def _squash(label: str) -> list[str]:
    return SQUASHED.get(label, ["0001_initial"])


def test_the_squashed_schema_is_the_old_historys() -> None:
    """The test's database migrated back to the squash's migrations (what later ones
    change is not the squash's) has the schema the old history made; then forward again."""
    if connection.vendor != "postgresql":
        pytest.fail(f"this test reads PostgreSQL's catalogs; the suite runs on {connection.vendor}")
    executor = MigrationExecutor(connection)
    nodes = executor.loader.graph.nodes
    targets = [
        (label, _squash(label)[-1]) for label in APP_LABELS if (label, _squash(label)[-1]) in nodes
    ]
    expected = json.loads(SNAPSHOT.read_text())
    executor.migrate(targets)
    try:
        actual = describe(connection, sorted(expected))
        for table in expected:
            assert actual[table] == expected[table], table
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())


def test_each_app_starts_from_one_initial_migration() -> None:
    """Each app's history starts at the squash; every later migration is new (it replaces
    nothing) and follows it."""
    loader = MigrationLoader(connection)
    for label in APP_LABELS:
        if label == "workers":
            continue
        names = sorted(name for app, name in loader.graph.nodes if app == label)
        squash = _squash(label)
        assert names[: len(squash)] == squash, (label, names)
        for name in names[len(squash) :]:
            migration = loader.graph.nodes[(label, name)]
            assert not migration.replaces, (label, name)
            assert name > squash[-1], (label, name)


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

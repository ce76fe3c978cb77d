"""The seasons tests use the league tests' real components (Celery workers as
subprocesses on a queue of their own, the committed PostgreSQL test database)."""

from tests.leagues.conftest import cluster  # noqa: F401 - the fixture, for these tests

"""The league tests' real Celery workers (``tests.leagues.conftest``), for events played
end to end."""

from tests.leagues.conftest import cluster  # noqa: F401 - the fixture, shared

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from django.conf import settings

if TYPE_CHECKING:  # imported in the fixtures: a conftest loads before Django is set up
    from tests.protocol.harness import Arena, Background


@pytest.fixture
def redis_url() -> str:
    if not settings.REDIS_URL:
        pytest.fail(
            "the protocol tests need a real Redis: set REDIS_URL (as `make test` does: redis://127.0.0.1:6379/0)"
        )
    return str(settings.REDIS_URL)


@pytest.fixture
def arena(tmp_path: Path, transactional_db: None, redis_url: str) -> Iterator[Arena]:
    """A gateway on port 0 over a Redis relay of its own; the database rows it reads are
    committed (the gateway reads them from its own threads)."""
    from tests.protocol.harness import running_arena

    with running_arena(tmp_path) as a:
        yield a


@pytest.fixture
def background() -> Iterator[Background]:
    from tests.protocol.harness import Background

    bg = Background()
    yield bg
    bg.close()

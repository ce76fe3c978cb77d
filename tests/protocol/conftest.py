from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from tests.protocol.harness import Arena, Background, running_arena


@pytest.fixture
def redis_url() -> str:
    if not settings.REDIS_URL:
        pytest.fail("the protocol tests need a real Redis: run them through `make test`")
    return str(settings.REDIS_URL)


@pytest.fixture
def arena(tmp_path: Path, transactional_db: None, redis_url: str) -> Iterator[Arena]:
    """A gateway on port 0 over a Redis relay of its own; the database rows it reads are
    committed (the gateway reads them from its own threads)."""
    with running_arena(tmp_path) as a:
        yield a


@pytest.fixture
def background() -> Iterator[Background]:
    bg = Background()
    yield bg
    bg.close()

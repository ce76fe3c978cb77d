"""Shared test helpers for every suite.

Nothing here touches the database: pytest-django only opens one for tests that ask
for it (the ``db`` fixture or ``django_db`` mark), so tests/referee/ stays Django-free.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def project_root() -> Path:
    return ROOT

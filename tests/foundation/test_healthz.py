"""/healthz reports every configured dependency, against the real services."""

from __future__ import annotations

import pytest
from django.test import Client, override_settings
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_healthy_with_real_postgres_and_redis(client: Client, redis_url: str) -> None:
    with override_settings(REDIS_URL=redis_url):
        response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["checks"]["database"]["ok"] is True
    assert body["checks"]["database"]["ms"] >= 0
    assert body["checks"]["redis"]["ok"] is True
    assert response["Cache-Control"].startswith("max-age=0")


def test_unreachable_redis_gives_503_naming_redis(client: Client) -> None:
    # Port 1 on loopback: nothing listens there, so the connection is refused at once.
    with override_settings(REDIS_URL="redis://127.0.0.1:1/0", HEALTHCHECK_TIMEOUT_SECONDS=0.5):
        response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "error"
    assert body["checks"]["redis"]["ok"] is False
    assert body["checks"]["redis"]["error"] == "ConnectionError"
    assert body["checks"]["database"]["ok"] is True


def test_embedded_mode_does_not_probe_redis(client: Client) -> None:
    with override_settings(REDIS_URL=None):
        response = client.get(reverse("healthz"))
    assert response.status_code == 200
    assert response.json()["checks"]["redis"] == "not configured (embedded mode)"


def test_only_safe_methods(client: Client) -> None:
    assert client.post("/healthz").status_code == 405

"""The pages that exist today answer (what `make demo` prints)."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.test import Client


@pytest.mark.django_db
def test_home_page_links_what_exists(client: Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Agent Avenue Arena" in html
    for link in ('href="/healthz"', 'href="/admin/"', 'href="/api/schema/"'):
        assert link in html


@pytest.mark.django_db
def test_admin_login_page(client: Client) -> None:
    response = client.get("/admin/", follow=True)
    assert response.status_code == 200
    assert response.redirect_chain[-1][0].startswith("/admin/login/")


@pytest.mark.django_db
def test_openapi_schema(client: Client) -> None:
    response = client.get("/api/schema/")
    assert response.status_code == 200
    assert b"Agent Avenue Arena API" in response.content


@pytest.mark.django_db
def test_no_model_change_lacks_a_migration() -> None:
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)

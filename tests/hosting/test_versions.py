"""Versions of a hosted bot through the services and the bot host's check (real sandboxes,
real PostgreSQL): numbering, parents, the check's verdict and log, one active version,
switching back, refusals."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import IntegrityError, transaction

from arena.adapters.bothost.checker import check_next
from arena.adapters.bothost.probe import check_available
from arena.adapters.bothost.sandbox import SandboxUnavailable
from arena.hosting import services
from arena.hosting.models import CodeVersion, VersionStatus
from arena.services import owned_bots

try:
    check_available()
except SandboxUnavailable as exc:  # pragma: no cover - make test installs bubblewrap
    pytest.skip(f"no sandbox here: {exc}", allow_module_level=True)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.processes]


def got(version: CodeVersion | None) -> CodeVersion:
    assert version is not None
    return version


GOOD = b"from avenue_sdk import Bot\n\n\nclass Mine(Bot):\n    version = 'v{n}'\n"
BAD = b"from avenue_sdk import Bot\n\n\nclass Mine(Bot):\n    def decide(self, r):\n        1/0\n"


@pytest.fixture
def owner():  # type: ignore[no-untyped-def]
    return get_user_model().objects.create_user("ann", password="pw-pw-pw-pw")


def test_versions_checked_activated_and_switched_back(owner) -> None:  # type: ignore[no-untyped-def]
    bot = services.do_create_hosted_bot(owner, "ann-hosted")
    assert bot.memory_controlled and bot.token_hash is None
    v1 = services.do_upload(owner, bot, "mine.py", GOOD.replace(b"{n}", b"1"), "mine:Mine")
    assert (v1.number, v1.status, v1.parent) == (1, VersionStatus.CHECKING, None)
    assert got(check_next("test-host")).pk == v1.pk
    v1.refresh_from_db()
    assert v1.status == VersionStatus.READY and v1.active, v1.check_log
    assert "played one game against random" in v1.check_log

    v2 = services.do_upload(owner, bot, "mine.py", BAD, "mine:Mine")
    assert v2.number == 2 and v2.parent_id == v1.pk
    check_next("test-host")
    v2.refresh_from_db()
    assert v2.status == VersionStatus.REJECTED and not v2.active
    assert "ZeroDivisionError" in v2.check_log
    assert got(services.active_version(bot)).pk == v1.pk
    with pytest.raises(services.HostingError, match="only a checked version plays"):
        services.do_activate(owner, bot, 2)

    v3 = services.do_upload(owner, bot, "mine.py", GOOD.replace(b"{n}", b"3"), "mine:Mine")
    call_command("runbothost", "--once")  # the command checks what waits, then exits
    v3.refresh_from_db()
    assert v3.status == VersionStatus.READY and v3.active and v3.parent_id == v1.pk
    services.do_activate(owner, bot, 1)  # switch back
    assert got(services.active_version(bot)).number == 1
    assert CodeVersion.objects.filter(bot=bot, active=True).count() == 1
    with pytest.raises(IntegrityError), transaction.atomic():
        CodeVersion.objects.filter(pk=v3.pk).update(active=True)
    assert check_next("test-host") is None


def test_refusals(owner) -> None:  # type: ignore[no-untyped-def]
    other = get_user_model().objects.create_user("bob", password="pw-pw-pw-pw")
    bot = services.do_create_hosted_bot(owner, "ann-hosted2")
    with pytest.raises(owned_bots.NotOwner):
        services.do_upload(other, bot, "mine.py", GOOD, "mine:Mine")
    with pytest.raises(services.HostingError, match="upload a .py file or a .zip"):
        services.do_upload(owner, bot, "mine.tar", GOOD, "mine:Mine")
    remote, _token = owned_bots.do_create_bot(owner, "ann-remote")
    with pytest.raises(services.HostingError, match="dials in with a token"):
        services.do_upload(owner, remote, "mine.py", GOOD, "mine:Mine")
    with pytest.raises(owned_bots.NotFound):
        services.do_activate(owner, bot, 7)
    assert not CodeVersion.objects.exists()


def test_a_lease_lets_one_host_check_and_another_take_over_late(owner) -> None:  # type: ignore[no-untyped-def]
    bot = services.do_create_hosted_bot(owner, "ann-hosted3")
    v = services.do_upload(owner, bot, "mine.py", GOOD, "mine:Mine")
    assert got(services.claim_check("host-a")).pk == v.pk
    assert services.claim_check("host-b") is None  # leased to host-a
    CodeVersion.objects.filter(pk=v.pk).update(check_lease_until=None)
    assert got(services.claim_check("host-b")).pk == v.pk
    # host-a's late verdict is not recorded: host-b holds it now
    assert services.finish_check(v.pk, "host-a", True, "late") is None
    assert services.finish_check(v.pk, "host-b", False, "rejected") is not None

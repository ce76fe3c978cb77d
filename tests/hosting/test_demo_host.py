"""The demo's bot host (issue 26 §9): where the sandbox works, ``make demo`` runs the bot
host's loop in a thread of its own process, so an upload is checked and the hosted bot
plays; the site tells a hosted bot's owner whether any bot host runs, and a hosted bot
with no version that passed its check cannot enter a league (its matches would only be
no-shows)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from arena.adapters.bothost.probe import check_available
from arena.adapters.bothost.sandbox import SandboxUnavailable
from arena.adapters.management.demo_host import start_bot_host
from arena.hosting import presence, services
from arena.hosting.models import CodeVersion, VersionStatus
from arena.services import owned_bots
from arena.services.errors import LeagueError
from arena.services.leagues import LeagueSettings, do_create_league
from tests.hosting.test_host import GOOD
from tests.protocol.harness import Arena, running_arena, wait_for

pytestmark = pytest.mark.processes

try:
    check_available()
except SandboxUnavailable as exc:  # pragma: no cover - make test installs bubblewrap
    pytest.skip(f"no sandbox here: {exc}", allow_module_level=True)


@pytest.fixture
def arena(tmp_path: Path, transactional_db: None) -> Iterator[Arena]:
    with running_arena(tmp_path) as a:
        yield a


def test_the_demos_bot_host_checks_an_upload_and_the_site_knows_it_runs(arena: Arena) -> None:
    owner = get_user_model().objects.create_user("dee", password="pw-pw-pw-pw")
    bot = services.do_create_hosted_bot(owner, "dee-hosted")
    league = do_create_league(LeagueSettings(name="Hosted League"))
    web = Client()
    web.force_login(owner)
    presence.gone(presence.running() or "")

    # no bot host: the owner is told so, and the bot may not enter yet
    page = web.get("/my/bots/dee-hosted/").content.decode()
    assert 'id="no-bot-host"' in page and "no bot host running" in page
    assert 'id="enter-blocked"' in page and 'id="enter-form"' not in page
    with pytest.raises(LeagueError, match="no version that passed its check"):
        owned_bots.do_enter_league(owner, bot, league)

    version = services.do_upload(owner, bot, "mine.py", GOOD, "mine:Mine")
    stop = threading.Event()
    said: list[str] = []
    thread, line = start_bot_host(arena.address, stop, said.append)
    try:
        assert thread is not None and line.startswith("in this process (bubblewrap"), line
        wait_for(
            lambda: CodeVersion.objects.get(pk=version.pk).status != VersionStatus.CHECKING,
            120,
            "the demo's bot host to check the upload",
        )
        assert CodeVersion.objects.get(pk=version.pk).status == VersionStatus.READY
        assert presence.running() is not None
        wait_for(lambda: "serving dee-hosted" in said, 60, "the host to serve the bot")
        page = web.get("/my/bots/dee-hosted/").content.decode()
        assert 'id="no-bot-host"' not in page and 'id="enter-form"' in page
        owned_bots.do_enter_league(owner, bot, league)  # ready: it may enter now
        assert f"checked dee-hosted v{version.number}: ready" in said
    finally:
        stop.set()
        if thread is not None:
            thread.join(60)
    assert thread is not None and not thread.is_alive()
    assert presence.running() is None  # a host that stops says so
    assert 'id="no-bot-host"' in web.get("/my/bots/dee-hosted/").content.decode()

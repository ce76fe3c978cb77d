""" "Is v2 better than v1?" (arena.adapters.bothost.versiontest) with real hosted bots in real
sandboxes: a greedy v2 against a random v1 reaches "H1 accepted" on a real Celery worker;
two random versions stop at the game budget in embedded mode; refusals; nothing rated."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone

from arena.adapters.bothost import versiontest
from arena.adapters.bothost.checker import check_next
from arena.adapters.bothost.probe import check_available
from arena.adapters.bothost.sandbox import SandboxUnavailable
from arena.hosting import services, testlease
from arena.hosting.models import CodeVersion, VersionStatus, VersionTest, VersionTestStatus
from arena.models import Bot, Match
from arena.ratings.models import LiveRating, VersionRating
from arena.services import owned_bots
from tests.leagues.conftest import Cluster, cluster, wait_for  # noqa: F401 - the fixture

try:
    check_available()
except SandboxUnavailable as exc:  # pragma: no cover - make test installs bubblewrap
    pytest.skip(f"no sandbox here: {exc}", allow_module_level=True)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True), pytest.mark.processes]

RANDOM = b"from avenue_sdk.house import RandomBot\n\n\nclass Mine(RandomBot):\n    pass\n"
GREEDY = b"from avenue_sdk.house import GreedyBot\n\n\nclass Mine(GreedyBot):\n    pass\n"


def _hosted(owner, name: str, *codes: bytes) -> Bot:  # type: ignore[no-untyped-def]
    bot = services.do_create_hosted_bot(owner, name)
    for code in codes:
        services.do_upload(owner, bot, "mine.py", code, "mine:Mine")
        version = check_next("test-host")
        assert version is not None and version.status == VersionStatus.READY, version
    return bot


@pytest.fixture
def owner():  # type: ignore[no-untyped-def]
    return get_user_model().objects.create_user("ann", password="pw-pw-pw-pw")


def test_refusals(owner) -> None:  # type: ignore[no-untyped-def]
    bot = _hosted(owner, "ann-tested", RANDOM, GREEDY)
    with pytest.raises(services.HostingError, match="against itself"):
        versiontest.do_start(owner, bot, 2, 2)
    other_owner = get_user_model().objects.create_user("bob", password="pw-pw-pw-pw")
    bobs = _hosted(other_owner, "bob-hosted", RANDOM)
    with pytest.raises(services.HostingError, match="not your bot"):
        versiontest.do_start(owner, bot, 2, 1, baseline_bot=bobs)
    with pytest.raises(owned_bots.NotOwner):
        versiontest.do_start(other_owner, bot, 2, 1)
    services.do_upload(owner, bot, "mine.py", RANDOM, "mine:Mine")  # v3: still checking
    with pytest.raises(services.HostingError, match="v3 is checking; only checked versions"):
        versiontest.do_start(owner, bot, 3, 1)
    with pytest.raises(owned_bots.NotFound, match="no version 9"):
        versiontest.do_start(owner, bot, 9, 1)
    with pytest.raises(services.HostingError, match="elo0 must be below elo1"):
        versiontest.do_start(owner, bot, 2, 1, versiontest.SprtSettings(elo0=10, elo1=5))
    with pytest.raises(services.HostingError, match="even number"):
        versiontest.do_start(owner, bot, 2, 1, versiontest.SprtSettings(max_games=7))
    v1, v2 = (CodeVersion.objects.get(bot=bot, number=n) for n in (1, 2))
    VersionTest.objects.create(bot=bot, candidate=v2, baseline=v1, pairs=[0] * 5)
    with pytest.raises(services.HostingError, match="already running"):
        versiontest.do_start(owner, bot, 2, 1)


def test_greedy_v2_beats_random_v1_on_a_worker(owner, cluster: Cluster) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    bot = _hosted(owner, "ann-improving", RANDOM, GREEDY)
    cluster.start_worker()
    test = versiontest.do_start(
        owner, bot, 2, 1, versiontest.SprtSettings(elo0=0, elo1=100, max_games=200)
    )
    seen_running = []

    def done() -> VersionTest | None:
        test.refresh_from_db()
        if test.status == VersionTestStatus.RUNNING and test.games:
            seen_running.append(test.games)
        return test if test.status != VersionTestStatus.RUNNING else None

    wait_for(done, 600, "the test's verdict", step=0.5)
    assert test.status == VersionTestStatus.H1, (versiontest.to_json(test), cluster.logs())
    shown = versiontest.progress(test)
    assert shown.llr >= shown.upper == pytest.approx(2.9444, abs=1e-4)
    assert shown.lower == pytest.approx(-2.9444, abs=1e-4)
    assert test.games == 2 * sum(test.pairs) and test.games < 200
    assert test.wins > test.losses and test.wins + test.losses == test.games
    assert test.candidate_faults == test.baseline_faults == 0
    assert 0 < shown.elo_low < shown.elo < shown.elo_high
    assert versiontest.to_json(test)["verdict"] == "H1 accepted"
    assert seen_running, "the progress was committed pair by pair"
    # unrated: no league, no match, no rating was touched
    assert not Match.objects.exists()
    assert not LiveRating.objects.exists() and not VersionRating.objects.exists()


def test_the_budget_stops_an_even_test(owner, settings) -> None:  # type: ignore[no-untyped-def]
    settings.ARENA_DISPATCHER = "arena.adapters.embedded.InProcessDispatcher"
    bot = _hosted(owner, "ann-even", RANDOM, RANDOM)
    test = versiontest.do_start(
        owner, bot, 2, 1, versiontest.SprtSettings(elo0=0, elo1=100, max_games=4)
    )
    test.refresh_from_db()  # embedded: played in this process, on commit
    assert test.status == VersionTestStatus.BUDGET, versiontest.to_json(test)
    assert test.games == 4 and sum(test.pairs) == 2
    assert versiontest.to_json(test)["verdict"] == "budget exhausted"
    shown = versiontest.progress(test)
    assert shown.lower < test.llr < shown.upper
    # a new test may start once this one has its verdict
    again = versiontest.do_start(
        owner, bot, 1, 2, versiontest.SprtSettings(elo0=0, elo1=100, max_games=2)
    )
    again.refresh_from_db()
    assert again.status == VersionTestStatus.BUDGET and again.games == 2


def _row(bot: Bot, max_games: int) -> VersionTest:
    """A running test whose task message never reached a broker (as after a restart)."""
    v1, v2 = (CodeVersion.objects.get(bot=bot, number=n) for n in (1, 2))
    return VersionTest.objects.create(
        bot=bot, candidate=v2, baseline=v1, elo0=0, elo1=100, max_games=max_games,
        pairs=[0] * 5,
    )  # fmt: skip


def test_a_second_delivery_plays_nothing_while_the_test_is_played(owner) -> None:  # type: ignore[no-untyped-def]
    bot = _hosted(owner, "ann-twice", RANDOM, RANDOM)
    test = _row(bot, max_games=2)
    assert testlease.claim(test.pk, "another-worker")
    # a second delivery of the message: claims nothing, plays nothing, sends nothing on
    assert versiontest.play(test.pk) is False
    test.refresh_from_db()
    assert test.games == 0 and test.worker == "another-worker"
    # that worker's slice ends: the next delivery plays it
    testlease.hand_over(test.pk, "another-worker")
    assert versiontest.play(test.pk) is False  # played to its verdict
    test.refresh_from_db()
    assert test.status == VersionTestStatus.BUDGET and test.games == 2
    assert test.lease_expires_at is not None  # the pair renewed this worker's lease


def test_the_reaper_sends_a_lost_test_again(owner, cluster: Cluster) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    bot = _hosted(owner, "ann-lost", RANDOM, GREEDY)
    test = _row(bot, max_games=200)
    # quiet for less than ARENA_REQUEUE_AFTER_SECONDS: still left alone
    assert testlease.reap() == []
    VersionTest.objects.filter(pk=test.pk).update(
        touched_at=timezone.now() - timedelta(seconds=settings.ARENA_REQUEUE_AFTER_SECONDS + 1)
    )
    cluster.start_worker()
    assert testlease.reap() == [test.pk]
    assert testlease.reap() == []  # sent once a quiet period, not at every run

    def done() -> VersionTest | None:
        test.refresh_from_db()
        return test if test.status != VersionTestStatus.RUNNING else None

    wait_for(done, 600, "the re-sent test's verdict", step=0.5)
    assert test.status == VersionTestStatus.H1, (versiontest.to_json(test), cluster.logs())

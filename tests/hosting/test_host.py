"""The bot host's streams (arena.adapters.bothost.host) against a real gateway on port 0 and a real
Redis relay: a hosted bot connects through the SDK client like a dial-in bot, each match
gets a fresh sandbox with the active version, a bot whose sandbox fails is charged with
its typed fault (the bot host's SeatFault) and the host goes on serving the next match;
a host that goes away is the arena's fault.

Why one file of this length: every test drives one real bot host through the same
fixtures (gateway, relay, crafted archives).
"""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from arena.adapters.bothost.checker import check_next
from arena.adapters.bothost.host import serve_bot
from arena.adapters.bothost.probe import check_available
from arena.adapters.bothost.sandbox import Limits, SandboxUnavailable
from arena.adapters.runner import HouseSeat, TimeControl
from arena.hosting import services
from tests.protocol.harness import Arena, running_arena

pytestmark = pytest.mark.processes

try:
    check_available()
except SandboxUnavailable as exc:  # pragma: no cover - make test installs bubblewrap
    pytest.skip(f"no sandbox here: {exc}", allow_module_level=True)

# a module global is the same object in every match of one sandbox, never across matches
GOOD = b"""
from avenue_sdk import Bot

SEEN = []


class Mine(Bot):
    def on_match_started(self, started):
        SEEN.append(started.match_id)
        assert len(SEEN) == 1, f"memory survived a match: {SEEN}"

    def decide(self, request):
        return len(request.legal) - 1
"""


@pytest.fixture
def arena(tmp_path: Path, transactional_db: None) -> Iterator[Arena]:
    with running_arena(tmp_path) as a:
        yield a


CRASH = b"from avenue_sdk import Bot\n\n\nclass Mine(Bot):\n    def decide(self, r):\n        1/0\n"


def test_a_hosted_bot_plays_through_the_gateway(arena: Arena) -> None:
    owner = get_user_model().objects.create_user("ann", password="pw-pw-pw-pw")
    bot = services.do_create_hosted_bot(owner, "ann-served")
    services.do_upload(owner, bot, "mine.py", GOOD, "mine:Mine")
    check_next("host-test")
    token = services.issue_host_token(bot)
    client, thread = serve_bot(
        bot.name,
        arena.address,
        token,
        lambda match_id: services.match_version_files(bot.pk, match_id),
        Limits(),
        record=lambda *fault: services.record_fault(bot.pk, *fault),
    )
    try:
        arena.wait_connected(bot.name, timeout=30)
        for seed in (1, 2):  # the second match: a fresh sandbox (the bot asserts it)
            outcome = arena.play([arena.remote(bot.name), HouseSeat("random", 3)], seed=seed)
            assert not outcome.faults, outcome.to_json()
            assert outcome.result is not None
        # each match's first request came while its sandbox was starting (a sandbox takes
        # a Python start-up, a request a few ms): the host said so, and the gateway took
        # that wait off the bot's charge (tests/hosting/test_seat_faults.py: by how much)
        assert arena.stats()["arena_waits_credited"] >= 2

        # a version that crashes: charged to its seat, the stream stays up
        # (its check would reject it; passed by hand here to see what the host does)
        v2 = services.do_upload(owner, bot, "mine.py", CRASH, "mine:Mine")
        claimed = services.claim_check("host-test")
        assert claimed is not None and claimed.pk == v2.pk
        services.finish_check(v2.pk, "host-test", True, "passed by hand for the test")
        outcome = arena.play(
            [arena.remote(bot.name), HouseSeat("random", 3)],
            seed=3,
            time_control=TimeControl(decision_ms=1_000, bank_ms=1_000),
        )
        assert [f.cause for f in outcome.faults] == ["crash"], outcome.to_json()
        (charged,) = outcome.faults
        assert "exception while playing" in charged.detail
        assert "ZeroDivisionError" not in charged.detail  # public: never the bot's stderr
        # the owner's record of it: the cause and the bot's traceback
        (fault,) = services.recent_faults(bot)
        assert fault.cause == "crash" and "ZeroDivisionError" in fault.stderr  # type: ignore[attr-defined]
        assert fault.version.number == 2  # type: ignore[attr-defined]

        services.do_activate(owner, bot, 1)  # switch back: the next match plays v1
        outcome = arena.play([arena.remote(bot.name), HouseSeat("random", 3)], seed=4)
        assert not outcome.faults, outcome.to_json()
    finally:
        client.stop()
        thread.join(30)
        client.bot.close()


def test_runbothost_checks_and_serves_until_sigterm(arena: Arena) -> None:
    """The command as a real process: checks the upload, holds the bot's stream, a match
    is played through it, SIGTERM stops it."""
    import signal
    import subprocess
    import sys

    from django.conf import settings
    from django.db import connection

    from tests.protocol.harness import ROOT, bot_env, wait_for

    owner = get_user_model().objects.create_user("cy", password="pw-pw-pw-pw")
    bot = services.do_create_hosted_bot(owner, "cy-served")
    services.do_upload(owner, bot, "mine.py", GOOD, "mine:Mine")
    db = settings.DATABASES["default"]
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    url = f"postgres://{auth}@{db['HOST']}:{db['PORT']}/{connection.settings_dict['NAME']}"
    log = arena.tmp / "bothost.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "manage.py",
                "runbothost",
                "--gateway",
                arena.address,
                "--poll",
                "0.5",
            ],
            cwd=ROOT,
            env=bot_env(DATABASE_URL=url),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for(lambda: "serving cy-served" in log.read_text(), 60, "the host to serve the bot")
        assert "checked cy-served v1: ready" in log.read_text()
        arena.wait_connected(bot.name, timeout=30)
        outcome = arena.play([arena.remote(bot.name), HouseSeat("random", 3)], seed=9)
        assert not outcome.faults, outcome.to_json()
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert proc.returncode == 0, log.read_text()


SLOW = b"""
import time
from avenue_sdk import Bot


class Mine(Bot):
    def decide(self, request):
        time.sleep(30)
        return 0
"""


def test_a_bot_host_that_goes_away_is_the_arenas_fault(arena: Arena) -> None:
    """The host's stream ends mid-match (as when the host dies or restarts): the runner
    waits out the reconnect grace with the seat's clock stopped, then raises ArenaFault
    (the caller voids and re-runs the match) instead of charging the bot."""
    from concurrent.futures import ThreadPoolExecutor

    from arena.adapters.runner.resume import ArenaFault
    from tests.protocol.harness import wait_for

    owner = get_user_model().objects.create_user("dee", password="pw-pw-pw-pw")
    bot = services.do_create_hosted_bot(owner, "dee-served")
    v1 = services.do_upload(owner, bot, "mine.py", SLOW, "mine:Mine")
    services.claim_check("host-test")
    services.finish_check(v1.pk, "host-test", True, "passed by hand: the check would time out")
    token = services.issue_host_token(bot)
    client, thread = serve_bot(
        bot.name,
        arena.address,
        token,
        lambda match_id: services.match_version_files(bot.pk, match_id),
        Limits(),
    )
    with ThreadPoolExecutor(1) as pool:
        try:
            arena.wait_connected(bot.name, timeout=30)
            future = pool.submit(
                arena.play,
                [arena.remote(bot.name), HouseSeat("random", 3)],
                seed=5,
                time_control=TimeControl(decision_ms=60_000, bank_ms=0),
                reconnect_grace_s=3.0,
            )
            wait_for(lambda: client.bot.sandboxes_up() > 0, 30, "the match's sandbox")
        finally:
            client.stop()  # the host goes away mid-decision
            thread.join(30)
            client.bot.close()
        with pytest.raises(ArenaFault, match="no fault of its own"):
            future.result(timeout=90)


# slow on a match's first attempt only ("<match>.1"): the re-run plays normally
SLOW_FIRST = b"""
import time
from avenue_sdk import Bot


class Mine(Bot):
    def decide(self, request):
        if request.match_id.endswith(".1"):
            time.sleep(60)
        return len(request.legal) - 1
"""


def _bothost(arena: Arena, log: Path, **env: str) -> subprocess.Popen[bytes]:
    """``manage.py runbothost`` as a real process, serving this test's database."""
    from django.conf import settings
    from django.db import connection

    from tests.protocol.harness import ROOT, bot_env

    db = settings.DATABASES["default"]
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    url = f"postgres://{auth}@{db['HOST']}:{db['PORT']}/{connection.settings_dict['NAME']}"
    with open(log, "w") as out:
        return subprocess.Popen(
            [sys.executable, "manage.py", "runbothost", "--gateway", arena.address]
            + ["--poll", "0.5"],
            cwd=ROOT,
            env=bot_env(DATABASE_URL=url, **env),
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def _stored(bot_pk: int, number: int, archive: bytes) -> int:
    """A version of bot ``bot_pk`` whose stored archive is ``archive`` as is, waiting for
    its check: bypassing the upload checks, as a version stored before them (or one a
    future checker bug lets through) would."""
    import hashlib

    from arena.hosting.models import CodeVersion

    return CodeVersion.objects.create(
        bot_id=bot_pk,
        number=number,
        archive=archive,
        sha256=hashlib.sha256(archive).hexdigest(),
        entry_point="mine:Mine",
        filename="mine.zip",
        size=len(archive),
    ).pk


def _zipped(names: list[str]) -> bytes:
    import io
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("mine.py", GOOD)
        for name in names:
            z.writestr(name, b"X = 1\n")
    return out.getvalue()


def test_a_bot_host_survives_versions_it_cannot_check(arena: Arena) -> None:
    """A real ``runbothost`` serving a good hosted bot while it checks stored versions
    whose archives no host can unpack (a 300-byte name, a 5,000-byte path, a file that
    is also a folder, in both orders, bytes that are no zip): the check of each raises in
    the host. The host stays up, the good bot's stream never drops and its matches are
    played through, and each bad version ends rejected with the reason in its check log
    after two attempts. Before the guard, the first such check killed the host (and with
    it every hosted bot's stream), and every replica re-claimed the version after the
    lease and died again."""
    from concurrent.futures import ThreadPoolExecutor

    from arena.hosting.models import CodeVersion, VersionStatus
    from tests.protocol.harness import wait_for

    owner = get_user_model().objects.create_user("fay", password="pw-pw-pw-pw")
    good = services.do_create_hosted_bot(owner, "fay-served")
    v1 = services.do_upload(owner, good, "mine.py", GOOD, "mine:Mine")
    services.claim_check("host-test")
    services.finish_check(v1.pk, "host-test", True, "passed by hand: not what is tested here")
    broken = services.do_create_hosted_bot(owner, "fay-broken")  # never served: no version
    log = arena.tmp / "bothost.log"
    unpacked = arena.tmp / "unpacked"  # a failed unpack leaves its folder (sandbox.unpack)
    unpacked.mkdir()
    host = _bothost(arena, log, HOSTED_CHECK_RETRY_SECONDS="1", TMPDIR=str(unpacked))

    def host_alive() -> bool:
        if host.poll() is not None:
            raise AssertionError(f"the bot host died:\n{log.read_text()[-3000:]}")
        return True

    try:
        wait_for(lambda: "serving fay-served" in log.read_text(), 60, "the host to serve")
        arena.wait_connected(good.name, timeout=60)
        # the relay hears of the stream a moment before the gateway counts it
        wait_for(lambda: arena.stats().get("connected", 0) > 0, 60, "the gateway to count it")
        connected = arena.stats()["connected"]
        crafted = {
            "n" * 300: _zipped(["n" * 300]),
            "a path of 5,000 bytes": _zipped(["/".join(["p" * 99] * 50)]),
            "x, then x/y.py": _zipped(["x", "x/y.py"]),
            "x/y.py, then x": _zipped(["x/y.py", "x"]),
            "no zip": b"PK\x03\x04 not a zip at all",
        }
        bad = [_stored(broken.pk, n, archive) for n, archive in enumerate(crafted.values(), 1)]
        with ThreadPoolExecutor(1) as pool:
            # a match while the host checks them, one after another
            playing = pool.submit(
                arena.play, [arena.remote(good.name), HouseSeat("random", 3)], seed=21
            )
            wait_for(
                lambda: (
                    host_alive()
                    and CodeVersion.objects.filter(pk__in=bad, check_attempts__gte=1).count()
                    == len(bad)
                ),
                120,
                "the host to try every bad version",
            )
            outcome = playing.result(timeout=180)
        assert not outcome.faults and outcome.result is not None, outcome.to_json()

        def all_rejected() -> bool:
            waiting = CodeVersion.objects.filter(pk__in=bad, status=VersionStatus.CHECKING)
            return host_alive() and not waiting.exists()

        wait_for(all_rejected, 180, "every bad version to be rejected")
        for pk, what in zip(bad, crafted, strict=True):
            v = CodeVersion.objects.get(pk=pk)
            assert (v.status, v.check_attempts, v.active) == ("rejected", 2, False), (what, v)
            assert v.check_log.count("the check itself failed: ") == 2, (what, v.check_log)
            assert "REJECTED: the check itself failed twice" in v.check_log, (what, v.check_log)
        said = {
            what: CodeVersion.objects.get(pk=pk).check_log.splitlines()[0]
            for pk, what in zip(bad, crafted, strict=True)
        }
        assert "OSError: [Errno 36] File name too long" in said["n" * 300], said
        assert "File name too long" in said["a path of 5,000 bytes"], said
        assert "FileExistsError" in said["x, then x/y.py"], said
        assert "FileExistsError" in said["x/y.py, then x"], said
        assert "BadZipFile" in said["no zip"], said

        # still the same host and the same stream: another match, and no reconnect
        outcome = arena.play([arena.remote(good.name), HouseSeat("random", 3)], seed=22)
        assert not outcome.faults and outcome.result is not None, outcome.to_json()
        assert host.poll() is None
        assert arena.stats()["connected"] == connected
        text = log.read_text()
        assert text.count("serving fay-served") == 1, text
        assert "failed on this host" in text and "Traceback" in text  # the host's own log
        assert services.active_version(good) is not None
        assert services.active_version(good).pk == v1.pk  # type: ignore[union-attr]
    finally:
        host.send_signal(signal.SIGTERM)
        try:
            host.wait(60)
        except subprocess.TimeoutExpired:
            host.kill()
            raise
    assert host.returncode == 0, log.read_text()[-4000:]


def test_a_bot_host_killed_mid_match_voids_it_and_the_rerun_counts(arena: Arena, settings) -> None:  # noqa: ANN001
    """SIGKILL of the bot host's process while its bot holds a decision in a league match:
    the attempt is void (queued again, no fault, no rating), never the bot's forfeit; a new
    bot host serves the bot and the re-run is played and rated."""
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection

    from arena.adapters.play.matches import play_match
    from arena.models import Match, MatchStatus
    from arena.services import leagues as league_services
    from arena.services.claims import PlayOutcome
    from arena.services.rounds import do_schedule_round
    from tests.protocol.harness import wait_for

    settings.RELAY_PREFIX = arena.prefix
    # a re-run's countdown is the league loop's business: nothing is sent to a broker here
    settings.ARENA_DISPATCHER = "arena.adapters.embedded.InProcessDispatcher"
    owner = get_user_model().objects.create_user("eve", password="pw-pw-pw-pw")
    bot = services.do_create_hosted_bot(owner, "eve-served")
    services.do_upload(owner, bot, "mine.py", SLOW_FIRST, "mine:Mine")
    league = league_services.do_create_league(
        league_services.LeagueSettings(
            name="host death", decision_ms=120_000, bank_ms=0, reconnect_grace_ms=3_000
        )
    )
    league_services.do_enter(league, bot)
    league_services.do_enter(league, league_services.do_create_house_bot("eve-house", "random"))
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    match_id = scheduled.matches[0]

    def held() -> bool:
        def pending() -> bool:
            return any(s.outstanding for s in arena.gateway.sessions if s.bot.name == bot.name)

        return arena.thread.call(pending)

    def play_in_thread() -> PlayOutcome:
        try:
            return play_match(match_id, worker="host-death-test")
        finally:
            connection.close()  # the pool thread's own

    host = _bothost(arena, arena.tmp / "bothost-1.log")
    with ThreadPoolExecutor(1) as pool:
        try:
            arena.wait_connected(bot.name, timeout=60)
            first = pool.submit(play_in_thread)
            wait_for(held, 60, "the hosted bot to hold a decision")
        finally:
            host.kill()  # SIGKILL: no goodbye, its sandboxes die with it (--die-with-parent)
            host.wait(30)
        assert first.result(timeout=120) is PlayOutcome.REQUEUED
    match = Match.objects.get(pk=match_id)
    assert match.status == MatchStatus.QUEUED and match.attempts == 1, match.error
    assert not match.rated and "ArenaFault" in match.error
    assert not match.participations.exclude(fault_cause="").exists()

    host = _bothost(arena, arena.tmp / "bothost-2.log")
    try:
        arena.wait_connected(bot.name, timeout=60)
        assert play_match(match_id, worker="host-death-test") is PlayOutcome.FINISHED
    finally:
        host.send_signal(signal.SIGTERM)
        host.wait(60)
    match = Match.objects.get(pk=match_id)
    assert match.status == MatchStatus.FINISHED and match.rated
    assert not match.participations.exclude(fault_cause="").exists()

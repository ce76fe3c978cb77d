"""A check that gives no verdict (arena.adapters.bothost.checker, services.claim_check/fail_check):
it raised (a stored archive no host can unpack, a bug, the host's own trouble), or its host
died mid-check and the lease ran out. The host goes on; the version is tried again, and
rejected for good, with the reason in its owner's check log, after two such attempts,
instead of being re-claimed (and failing one host after another) for ever.

Real PostgreSQL; the stored archives are crafted in the database, bypassing the upload
checks (as a version stored before them, or one a future checker bug lets through)."""

from __future__ import annotations

import hashlib
import io
import tempfile
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from arena.adapters.bothost import checker
from arena.adapters.bothost.checker import check_next
from arena.hosting import services
from arena.hosting.models import CodeVersion, VersionStatus
from arena.models import Bot

pytestmark = pytest.mark.django_db(transaction=True)

BOT = b"from avenue_sdk import Bot\n\n\nclass Mine(Bot):\n    pass\n"


@pytest.fixture(autouse=True)
def retry_at_once(settings) -> None:  # noqa: ANN001 - pytest-django's settings
    """A failed check may be tried again at once (the host's wait is 60 s by default)."""
    settings.HOSTED_CHECK_RETRY_SECONDS = 0


@pytest.fixture
def bot() -> Bot:
    owner = get_user_model().objects.create_user("ann", password="pw-pw-pw-pw")
    return services.do_create_hosted_bot(owner, "ann-hosted")


def stored(bot: Bot, archive: bytes, number: int = 1) -> CodeVersion:
    """A version whose stored archive is ``archive``, as is, waiting for its check."""
    return CodeVersion.objects.create(
        bot=bot,
        number=number,
        archive=archive,
        sha256=hashlib.sha256(archive).hexdigest(),
        entry_point="mine:Mine",
        filename="mine.zip",
        size=len(archive),
    )


def zipped(names: list[str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("mine.py", BOT)
        for name in names:
            z.writestr(name, b"X = 1\n")
    return out.getvalue()


def fresh(version: CodeVersion) -> CodeVersion:
    return CodeVersion.objects.get(pk=version.pk)


def test_a_check_that_raises_anything_is_tried_again_then_rejected(
    bot: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    version = services.do_upload(bot.owner, bot, "mine.py", BOT, "mine:Mine")  # type: ignore[arg-type]

    def broken(*_args: object, **_kwargs: object) -> object:
        raise RuntimeError("a bug in the check")

    monkeypatch.setattr(checker, "run_check", broken)
    first = check_next("host-a")  # does not raise
    assert first is not None and first.pk == version.pk
    v = fresh(version)
    assert (v.status, v.check_attempts, v.checker, v.active) == ("checking", 1, "", False)
    assert v.check_log == "attempt 1: the check itself failed: RuntimeError: a bug in the check"

    second = check_next("host-b")  # any host may try again
    assert second is not None and second.pk == version.pk
    v = fresh(version)
    assert (v.status, v.check_attempts, v.active) == ("rejected", 2, False)
    assert v.checked_at is not None and v.check_lease_until is None
    assert v.check_log.splitlines()[:2] == [
        "attempt 1: the check itself failed: RuntimeError: a bug in the check",
        "attempt 2: the check itself failed: RuntimeError: a bug in the check",
    ]
    assert "REJECTED: the check itself failed twice" in v.check_log
    assert check_next("host-c") is None  # never claimed again


def test_a_failed_check_waits_before_its_next_attempt(
    bot: Bot, monkeypatch: pytest.MonkeyPatch, settings
) -> None:  # noqa: ANN001 - pytest-django's settings
    settings.HOSTED_CHECK_RETRY_SECONDS = 60
    version = services.do_upload(bot.owner, bot, "mine.py", BOT, "mine:Mine")  # type: ignore[arg-type]
    monkeypatch.setattr(checker, "run_check", lambda *_a, **_k: 1 / 0)
    before = timezone.now()
    check_next("host-a")
    v = fresh(version)
    assert v.check_lease_until is not None
    assert before + timedelta(seconds=59) < v.check_lease_until
    assert check_next("host-a") is None  # not yet
    CodeVersion.objects.filter(pk=v.pk).update(check_lease_until=timezone.now())
    check_next("host-a")
    assert fresh(version).status == VersionStatus.REJECTED


@pytest.mark.parametrize(
    ("archive", "says"),
    [
        (zipped(["n" * 300]), "OSError: [Errno 36] File name too long"),
        (zipped(["/".join(["p" * 99] * 50)]), "OSError: [Errno 36] File name too long"),
        (zipped(["x", "x/y.py"]), "FileExistsError"),
        (zipped(["x/y.py", "x"]), "FileExistsError"),
        (b"not a zip at all", "BadZipFile: File is not a zip file"),
    ],
    ids=["name-300", "path-5000", "file-then-folder", "folder-then-file", "not-a-zip"],
)
def test_a_stored_archive_no_host_can_unpack_is_rejected(
    bot: Bot, archive: bytes, says: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real check (run_check unpacks before any sandbox starts): each of these raised
    out of check_next, and so out of the bot host's loop."""
    # a failed unpack leaves its half-written folder behind (sandbox.unpack): here, not in /tmp
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    version = stored(bot, archive)
    assert check_next("host-a") is not None
    v = fresh(version)
    assert (v.status, v.check_attempts) == ("checking", 1)
    assert says in v.check_log
    assert check_next("host-a") is not None
    v = fresh(version)
    assert v.status == VersionStatus.REJECTED and not v.active
    assert v.check_log.count(says) == 2 and "the check itself failed twice" in v.check_log


def test_a_lease_that_ran_out_twice_is_rejected_at_the_next_claim(bot: Bot) -> None:
    """The host died mid-check (or hung past the lease), twice: the third claim rejects it
    and takes the next waiting version instead."""
    v1 = services.do_upload(bot.owner, bot, "mine.py", BOT, "mine:Mine")  # type: ignore[arg-type]
    v2 = services.do_upload(bot.owner, bot, "mine.py", BOT + b"# 2\n", "mine:Mine")  # type: ignore[arg-type]

    def lease_runs_out() -> None:
        past = timezone.now() - timedelta(seconds=1)
        CodeVersion.objects.filter(pk=v1.pk).update(check_lease_until=past)

    claimed = services.claim_check("host-a")
    assert claimed is not None and claimed.pk == v1.pk and claimed.check_attempts == 1
    lease_runs_out()  # host-a died
    claimed = services.claim_check("host-b")
    assert claimed is not None and claimed.pk == v1.pk and claimed.check_attempts == 2
    assert fresh(v1).check_log.startswith("attempt 1: no verdict within the check's lease")
    lease_runs_out()  # host-b died too
    claimed = services.claim_check("host-c")
    assert claimed is not None and claimed.pk == v2.pk  # the next one
    v = fresh(v1)
    assert (v.status, v.check_attempts, v.active) == ("rejected", 2, False)
    assert "attempt 2: no verdict within the check's lease" in v.check_log
    assert "REJECTED: the check itself failed twice" in v.check_log
    # a verdict arriving late from a host that lost the lease is not recorded
    assert services.finish_check(v1.pk, "host-b", True, "late") is None
    assert services.fail_check(v1.pk, "host-b", "late") is None
    assert fresh(v1).status == VersionStatus.REJECTED


def test_a_host_that_died_then_a_check_that_raised(bot: Bot) -> None:
    """Either way of giving no verdict counts: one lease that ran out and one raise."""
    version = services.do_upload(bot.owner, bot, "mine.py", BOT, "mine:Mine")  # type: ignore[arg-type]
    assert services.claim_check("host-a") is not None
    CodeVersion.objects.filter(pk=version.pk).update(check_lease_until=timezone.now())
    assert services.claim_check("host-b") is not None
    failed = services.fail_check(version.pk, "host-b", "OSError: the disk is full")
    assert failed is not None and failed.status == VersionStatus.REJECTED
    lines = fresh(version).check_log.splitlines()
    assert lines[0].startswith("attempt 1: no verdict within the check's lease")
    assert lines[1] == "attempt 2: the check itself failed: OSError: the disk is full"


def test_what_the_owner_is_told() -> None:
    from django.db import OperationalError

    assert checker.owner_reason(OSError(36, "File name too long")) == (
        "OSError: [Errno 36] File name too long"
    )
    assert checker.owner_reason(KeyError()) == "KeyError"
    assert len(checker.owner_reason(ValueError("x" * 5000))) < 600
    # a database error's text may name the database's host and user: its type only
    told = checker.owner_reason(OperationalError('connection to "db.internal" user "arena"'))
    assert "db.internal" not in told and "OperationalError" in told


@pytest.mark.processes
def test_a_retry_that_gives_a_verdict_keeps_the_first_attempt_in_the_log(
    bot: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A passing trouble of one host: the next attempt plays the real check in a real
    sandbox, and the version becomes ready (and active)."""
    from arena.adapters.bothost.check import run_check
    from arena.adapters.bothost.probe import check_available
    from arena.adapters.bothost.sandbox import SandboxUnavailable

    try:
        check_available()
    except SandboxUnavailable as exc:  # pragma: no cover - make test installs bubblewrap
        pytest.skip(f"no sandbox here: {exc}")
    version = services.do_upload(bot.owner, bot, "mine.py", BOT, "mine:Mine")  # type: ignore[arg-type]
    calls: list[int] = []

    def flaky(*args: object, **kwargs: object) -> object:
        calls.append(1)
        if len(calls) == 1:
            raise OSError(28, "No space left on device")
        return run_check(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(checker, "run_check", flaky)
    check_next("host-a")
    check_next("host-b")
    v = fresh(version)
    assert (v.status, v.active, v.check_attempts) == ("ready", True, 2), v.check_log
    log = v.check_log.splitlines()
    assert (
        log[0] == "attempt 1: the check itself failed: OSError: [Errno 28] No space left on device"
    )
    assert "played one game against random" in v.check_log and log[-1] == "passed"


class _Stop(BaseException):
    """Ends the command's loop from a test (the loop catches Exception, not this)."""


def test_the_host_loop_goes_on_when_a_look_at_the_database_fails(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """What escapes check_next (claiming or recording: the database) and what fails while
    updating the served bots is logged, and the loop goes on to its next poll."""
    from django.core.management import call_command
    from django.db import OperationalError

    from arena.adapters.bothost import service
    from arena.adapters.management.commands import runbothost

    looks: list[str] = []

    def check(_name: str, _limits: object) -> None:
        looks.append("check")
        if looks.count("check") == 1:
            raise OperationalError("the database went away")
        return None

    def serve(*_args: object) -> None:
        looks.append("serve")
        if looks.count("serve") == 1:
            raise OperationalError("the database went away again")
        if looks.count("serve") == 3:
            raise _Stop

    monkeypatch.setattr(runbothost, "check_available", lambda: "test")
    monkeypatch.setattr(service, "check_next", check)
    monkeypatch.setattr(service, "_serve", serve)
    with pytest.raises(_Stop):
        call_command("runbothost", "--poll", "0")
    assert looks == ["check", "serve", "check", "serve", "check", "serve"]
    logged = [r.getMessage() for r in caplog.records if r.exc_info]
    assert any("looking for a version to check failed" in m for m in logged), logged
    assert any("updating the served bots failed" in m for m in logged), logged
    # --once (an operator's one-off run) still fails loudly
    looks.clear()
    with pytest.raises(OperationalError):
        call_command("runbothost", "--once")

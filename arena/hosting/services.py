"""Hosted bots' versions: upload, check, switch. ``check_*`` look up and refuse (raising
``HostingError``, or ``owned_bots.NotFound`` / ``NotOwner``); ``do_*`` change the database.

A version is uploaded as ``checking``; a bot host claims it (``claim_check``, a lease so
that a host that dies leaves it to another), plays the check in a sandbox and records the
verdict (``finish_check``): a passing version becomes the active one at once. A check that
ends without a verdict (it raised: ``fail_check``; or its host died and the lease ran out)
is tried again, up to ``MAX_CHECK_ATTEMPTS`` claims; then the version is rejected, with
what happened in its check log, instead of being claimed (and failing a host) for ever.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from arena.hosting.archives import Archive, UploadError, UploadLimits, read_upload
from arena.hosting.models import CodeVersion, VersionStatus
from arena.models import Bot, BotKind
from arena.notify import sources as notify
from arena.ratings import versions as rating_versions
from arena.services import bots as bot_services
from arena.services import owned_bots

if TYPE_CHECKING:
    from arena.services.owned_bots import User

#: versions one bot may keep (each holds its archive)
MAX_VERSIONS_PER_BOT = 50
#: how long a bot host may take over a check before another takes it over
CHECK_LEASE = timedelta(minutes=5)
#: claims of one version's check that may end without a verdict before it is rejected
MAX_CHECK_ATTEMPTS = 2


class HostingError(ValueError):
    """A refusal, in words for the bot's owner (the API answers 400)."""


def upload_limits() -> UploadLimits:
    return UploadLimits(**getattr(settings, "HOSTED_UPLOAD_LIMITS", {}))


@transaction.atomic
def do_create_hosted_bot(user: User, name: str) -> Bot:
    """A hosted bot owned by ``user``: no token (the bot host holds its stream)."""
    owned_bots.check_can_create(user, name)
    bot, _ = bot_services.create_bot(name, owner=user, kind=BotKind.HOSTED)  # type: ignore[arg-type]
    return bot


def check_upload(user: User, bot: Bot, filename: str, data: bytes, entry_point: str) -> Archive:
    owned_bots.check_owner(user, bot)
    if bot.kind != BotKind.HOSTED:
        raise HostingError(f"{bot.name} dials in with a token; upload code to a hosted bot")
    if CodeVersion.objects.filter(bot=bot).count() >= MAX_VERSIONS_PER_BOT:
        raise HostingError(f"{bot.name} has {MAX_VERSIONS_PER_BOT} versions, the most kept")
    try:
        return read_upload(filename, data, entry_point, upload_limits())
    except UploadError as exc:
        raise HostingError(str(exc)) from None


@transaction.atomic
def do_upload(user: User, bot: Bot, filename: str, data: bytes, entry_point: str) -> CodeVersion:
    """A new version (``checking``) whose parent is the version active now."""
    archive = check_upload(user, bot, filename, data, entry_point)
    Bot.objects.select_for_update().get(pk=bot.pk)  # numbers are given one at a time
    last = CodeVersion.objects.filter(bot=bot).aggregate(n=Max("number"))["n"] or 0
    parent = CodeVersion.objects.filter(bot=bot, active=True).first()
    return CodeVersion.objects.create(
        bot=bot,
        number=last + 1,
        parent=parent,
        archive=archive.data,
        sha256=archive.sha256,
        entry_point=archive.entry_point,
        filename=filename.rsplit("/", 1)[-1][:200],
        size=len(data),
    )


def find_version(bot: Bot, number: int) -> CodeVersion:
    version = CodeVersion.objects.filter(bot=bot, number=number).first()
    if version is None:
        raise owned_bots.NotFound(f"{bot.name} has no version {number}")
    return version


def check_activate(user: User, bot: Bot, number: int) -> CodeVersion:
    owned_bots.check_owner(user, bot)
    version = find_version(bot, number)
    if version.status != VersionStatus.READY:
        raise HostingError(f"version {number} is {version.status}; only a checked version plays")
    return version


@transaction.atomic
def do_activate(user: User, bot: Bot, number: int) -> CodeVersion:
    version = check_activate(user, bot, number)
    _activate(version)
    return version


def _activate(version: CodeVersion) -> None:
    """Inside a transaction: ``version`` becomes the active one, and the bot's live ratings
    continue from it (its own if it played before, else its parent's: ``do_switch``)."""
    previous = (
        CodeVersion.objects.filter(bot_id=version.bot_id, active=True)
        .values_list("pk", flat=True)
        .first()
    )
    rating_versions.do_switch(version.bot_id, previous, version.pk)
    CodeVersion.objects.filter(bot_id=version.bot_id, active=True).exclude(pk=version.pk).update(
        active=False
    )
    CodeVersion.objects.filter(pk=version.pk).update(active=True)
    version.active = True


def versions(bot: Bot) -> list[CodeVersion]:
    return list(CodeVersion.objects.filter(bot=bot).defer("archive").order_by("-number"))


def active_version(bot: Bot) -> CodeVersion | None:
    return CodeVersion.objects.filter(bot=bot, active=True).first()


def issue_host_token(bot: Bot) -> str:
    """A fresh token for a hosted bot, held in memory by the bot host that serves it (the
    trusted side): the bot's code never sees it. Ends any stream the previous one opened."""
    if bot.kind != BotKind.HOSTED:
        raise HostingError(f"{bot.name} is not a hosted bot")
    token = bot_services._new_token()
    Bot.objects.filter(pk=bot.pk).update(
        token_hash=bot_services.hash_token(token), token_prefix=token[: bot_services.DISPLAY_CHARS]
    )
    return token


def record_fault(bot_id: int, match_id: str, cause: str, detail: str, stderr: str) -> None:
    """Keep a sandbox's failure in a match for the bot's owner (the latest 200 per bot)."""
    from arena.hosting.models import SandboxFault

    version = CodeVersion.objects.filter(bot_id=bot_id, active=True).only("pk").first()
    SandboxFault.objects.create(
        bot_id=bot_id,
        version=version,
        match_id=match_id[:64],
        cause=cause[:32],
        detail=detail[:2000],
        stderr=stderr[-8000:],
    )
    stale = SandboxFault.objects.filter(bot_id=bot_id).order_by("-created_at")[200:]
    SandboxFault.objects.filter(pk__in=list(stale.values_list("pk", flat=True))).delete()


def recent_faults(bot: Bot, limit: int = 20) -> list[object]:
    from arena.hosting.models import SandboxFault

    return list(SandboxFault.objects.filter(bot=bot).select_related("version")[:limit])


def match_version_files(bot_id: int, match_id: str) -> tuple[dict[str, bytes], str]:
    """(files, entry point) of the version the bot plays the protocol match ``match_id``
    (``73.1``: match 73, attempt 1) with: the one its seat already names (an earlier
    attempt, or a resumed stream), else the active version, which the seat then names
    (``Participation.code_version``: the version rated for the match)."""
    from arena.hosting.archives import unpack_stored
    from arena.models import Participation

    with transaction.atomic():
        active = CodeVersion.objects.filter(bot_id=bot_id, active=True).first()
        if active is None:
            raise HostingError("the bot has no active version")
        head = match_id.split(".", 1)[0]
        version = active
        if head.isdigit():
            seats = Participation.objects.filter(match_id=int(head), bot_id=bot_id)
            seats.filter(code_version__isnull=True).update(code_version=active)
            named = seats.values_list("code_version_id", flat=True).first()
            if named is not None and named != active.pk:
                version = CodeVersion.objects.get(pk=named)
    return unpack_stored(bytes(version.archive)), version.entry_point


def served_bots() -> list[Bot]:
    """Active hosted bots with an active version: the ones a bot host holds streams for."""
    return list(
        Bot.objects.filter(kind=BotKind.HOSTED, active=True, code_versions__active=True)
        .distinct()
        .order_by("pk")
    )


def check_retry_after() -> timedelta:
    """How long a version whose check raised waits before its next attempt (so that a
    passing trouble of one host, or another host, may give it its verdict)."""
    return timedelta(seconds=getattr(settings, "HOSTED_CHECK_RETRY_SECONDS", 60))


def _add_to_log(version: CodeVersion, line: str) -> None:
    version.check_log = ((version.check_log + "\n") if version.check_log else "") + line
    version.check_log = version.check_log[-20_000:]


@transaction.atomic
def claim_check(checker: str) -> CodeVersion | None:
    """The oldest version waiting for its check (or whose checker's lease ran out), now
    leased to ``checker`` (one more of its ``check_attempts``); None when there is none.

    A version whose lease ran out holds a claim that gave no verdict (its host died or hung
    mid-check); one that has had ``MAX_CHECK_ATTEMPTS`` claims is rejected here, with the
    reason in its check log, and the next waiting version is claimed instead."""
    now = timezone.now()
    while True:
        version = (
            CodeVersion.objects.select_for_update(skip_locked=True)
            .filter(status=VersionStatus.CHECKING)
            .exclude(check_lease_until__gt=now)
            .order_by("created_at")
            .first()
        )
        if version is None:
            return None
        if version.checker and version.check_attempts:
            # claimed before and neither finished nor failed by its host (fail_check
            # clears the checker): the host stopped or died mid-check
            _add_to_log(
                version,
                f"attempt {version.check_attempts}: no verdict within the check's lease "
                f"({CHECK_LEASE.total_seconds() / 60:g} minutes): its bot host stopped or "
                "died mid-check",
            )
        if version.check_attempts >= MAX_CHECK_ATTEMPTS:
            _reject_unchecked(version, now)
            continue
        version.checker = checker[:128]
        version.check_lease_until = now + CHECK_LEASE
        version.check_attempts += 1
        version.save(update_fields=["checker", "check_lease_until", "check_attempts", "check_log"])
        return version


def _reject_unchecked(version: CodeVersion, now: datetime) -> None:
    """Inside a transaction: ``version``, whose check failed ``MAX_CHECK_ATTEMPTS`` times
    without a verdict, is rejected."""
    _add_to_log(
        version,
        f"REJECTED: the check itself failed {_times(version.check_attempts)} (it could not "
        "be played to a verdict, see above); this version will not be checked again. Upload "
        "it again, changed if the reason above points at your archive.",
    )
    version.status = VersionStatus.REJECTED
    version.checked_at = now
    version.check_lease_until = None
    version.save(update_fields=["status", "check_log", "checked_at", "check_lease_until"])
    notify.version_check(version)


def _times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


@transaction.atomic
def fail_check(version_id: int, checker: str, reason: str) -> CodeVersion | None:
    """Record that ``checker``'s check of the version ended without a verdict (the check
    raised: a stored archive no host can unpack, a bug, the host's own trouble), if it
    still holds the version: tried again after ``check_retry_after()``, or rejected once
    it has had ``MAX_CHECK_ATTEMPTS`` claims. ``reason`` is for the owner's check log."""
    version = (
        CodeVersion.objects.select_for_update()
        .filter(pk=version_id, status=VersionStatus.CHECKING, checker=checker[:128])
        .first()
    )
    if version is None:
        return None
    now = timezone.now()
    _add_to_log(
        version, f"attempt {version.check_attempts}: the check itself failed: {reason[:2000]}"
    )
    if version.check_attempts >= MAX_CHECK_ATTEMPTS:
        _reject_unchecked(version, now)
        return version
    # released: any host may try again once the wait is over
    version.checker = ""
    version.check_lease_until = now + check_retry_after()
    version.save(update_fields=["checker", "check_lease_until", "check_log"])
    return version


@transaction.atomic
def finish_check(version_id: int, checker: str, passed: bool, log: str) -> CodeVersion | None:
    """Record a check's verdict, if ``checker`` still holds the version; a passing version
    becomes active."""
    version = (
        CodeVersion.objects.select_for_update()
        .filter(pk=version_id, status=VersionStatus.CHECKING, checker=checker[:128])
        .first()
    )
    if version is None:
        return None
    version.status = VersionStatus.READY if passed else VersionStatus.REJECTED
    # what earlier attempts that gave no verdict left in the log stays above this one's
    version.check_log = ((version.check_log + "\n\n") if version.check_log else "") + log
    version.check_log = version.check_log[-20_000:]
    version.checked_at = timezone.now()
    version.check_lease_until = None
    version.save(update_fields=["status", "check_log", "checked_at", "check_lease_until"])
    if passed:
        _activate(version)
    notify.version_check(version)
    return version

""" "Is version B better than version A?": an SPRT on mirrored pairs (``VersionTest``).

The owner starts it (``check_start`` refuses, ``do_start`` records it and hands it to the
dispatch port); a worker plays it (``play``): pair after pair, both games of a pair dealt
from one secret seed with the seats swapped, each game in two fresh sandboxes (one per
version), so nothing survives from one game to the next and mirroring is safe. Every
pair's result is committed with the test's counts and LLR (``arena.ratings.sprt``), so the
page shows the test as it goes; the test stops when the LLR leaves its bounds or the game
budget runs out. Unrated: nothing here touches a league or a rating.

A sandbox that fails in a game (crash, timeout, memory, unreadable output) forfeits that
game for its version: the version's own fault, counted apart. A worker with no sandbox
at all fails the test with the reason (hosted code never runs unsandboxed).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone

from arena import dispatch
from arena.adapters.bothost.sandbox import (
    Limits,
    Sandbox,
    SandboxFault,
    SandboxUnavailable,
    discard,
    unpack,
)
from arena.adapters.bothost.seat import SandboxSeat
from arena.deals import first_team_of, new_seed
from arena.hosting import testlease
from arena.hosting.archives import unpack_stored
from arena.hosting.models import CodeVersion, VersionStatus, VersionTest, VersionTestStatus
from arena.hosting.services import HostingError, find_version
from arena.models import Bot, BotKind
from arena.notify import sources as notify
from arena.ratings import sprt
from arena.services import owned_bots
from arena.services.claims import worker_id
from avenue_sdk.local.game import play as play_game
from avenue_sdk.local.seats import Match
from avenue_sdk.protocol.timing import TimeControl
from referee import GameConfig

if TYPE_CHECKING:
    from arena.services.owned_bots import User

logger = logging.getLogger(__name__)

#: the time control of a test's games
TIME_CONTROL = TimeControl(decision_ms=5_000, bank_ms=60_000)
#: the largest game budget an owner may ask for
MAX_GAMES = 20_000
#: hypotheses beyond this many Elo say nothing a game could tell
MAX_ELO = 1000.0
#: no version or test number is larger (a larger one in a request is simply not found)
MAX_NUMBER = 2**31 - 1
#: pairs in a row the arena may fail to play (sandboxes that would not start) before the
#: test is given up as failed
MAX_ERRORS = 5


class VersionTestError(HostingError):
    """A test the owner cannot start as asked (the API answers 400 ``invalid_test``)."""


@dataclass(frozen=True)
class SprtSettings:
    elo0: float = 0.0
    elo1: float = 50.0
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int = 400


def check_start(
    user: User,
    bot: Bot,
    candidate: int,
    baseline: int,
    test: SprtSettings,
    baseline_bot: Bot | None = None,
) -> tuple[CodeVersion, CodeVersion]:
    """The two versions, or a refusal in words for the owner."""
    owned_bots.check_owner(user, bot)
    other = baseline_bot or bot
    if other.owner_id != bot.owner_id:
        raise VersionTestError(f"{other.name} is not your bot: test against your own versions")
    for b in (bot, other):
        if b.kind != BotKind.HOSTED:
            raise VersionTestError(
                f"{b.name} dials in with a token; only hosted versions are tested"
            )
    for number in (candidate, baseline):
        if not 0 < number <= MAX_NUMBER:
            raise owned_bots.NotFound(f"no version {number}")
    cand = find_version(bot, candidate)
    base = find_version(other, baseline)
    if cand.pk == base.pk:
        raise VersionTestError("a version cannot be tested against itself")
    for v in (cand, base):
        if v.status != VersionStatus.READY:
            raise VersionTestError(
                f"{v.bot.name} v{v.number} is {v.status}; only checked versions play"
            )
    if not (-MAX_ELO <= test.elo0 < test.elo1 <= MAX_ELO):
        raise VersionTestError(f"elo0 must be below elo1, both within ±{MAX_ELO:g}")
    if not (0 < test.alpha < 0.5 and 0 < test.beta < 0.5):
        raise VersionTestError("alpha and beta must be between 0 and 0.5")
    if not 2 <= test.max_games <= MAX_GAMES or test.max_games % 2:
        raise VersionTestError(f"the game budget is an even number from 2 to {MAX_GAMES}")
    if VersionTest.objects.filter(bot=bot, status=VersionTestStatus.RUNNING).exists():
        raise VersionTestError(f"a test of {bot.name} is already running; wait for its verdict")
    return cand, base


@transaction.atomic
def do_start(
    user: User,
    bot: Bot,
    candidate: int,
    baseline: int,
    test: SprtSettings | None = None,
    baseline_bot: Bot | None = None,
) -> VersionTest:
    """Record the test and hand it to the workers once this transaction commits."""
    settings = test or SprtSettings()
    Bot.objects.select_for_update().get(pk=bot.pk)  # one running test per bot
    cand, base = check_start(user, bot, candidate, baseline, settings, baseline_bot)
    row = VersionTest.objects.create(
        bot=bot,
        candidate=cand,
        baseline=base,
        elo0=settings.elo0,
        elo1=settings.elo1,
        alpha=settings.alpha,
        beta=settings.beta,
        max_games=settings.max_games,
        pairs=[0, 0, 0, 0, 0],
    )
    dispatch.enqueue_version_test(row.pk)
    return row


def tests_of(bot: Bot, limit: int = 10) -> list[VersionTest]:
    return list(VersionTest.objects.filter(bot=bot).select_related("candidate", "baseline")[:limit])


def find_test(bot: Bot, test_id: int) -> VersionTest:
    if not 0 < test_id <= MAX_NUMBER:
        raise owned_bots.NotFound(f"{bot.name} has no test {test_id}")
    row = (
        VersionTest.objects.filter(bot=bot, pk=test_id)
        .select_related("candidate", "baseline", "baseline__bot")
        .first()
    )
    if row is None:
        raise owned_bots.NotFound(f"{bot.name} has no test {test_id}")
    return row


# ---------------------------------------------------------------- playing (workers)


@dataclass(frozen=True)
class _Code:
    files: dict[str, bytes]
    entry_point: str


def _code(version: CodeVersion) -> _Code:
    return _Code(unpack_stored(bytes(version.archive)), version.entry_point)


@dataclass(frozen=True)
class GameOutcome:
    candidate_won: bool
    #: the version whose sandbox failed and forfeited the game ("" if none)
    faulty: str


class _TestSeat(SandboxSeat):
    """A sandbox seat whose sandbox may have failed to start: then it only forfeits."""

    def start(self, match: Match, seat: int) -> None:
        if self.fault is None:
            super().start(match, seat)


def _play_game(
    first: _Code, second: _Code, seed: int, match_id: str, limits: Limits
) -> tuple[bool, int | None]:
    """(seat 0 won, the faulty seat or None): one game, a fresh sandbox per seat."""
    dirs: list[str] = []
    seats: list[_TestSeat] = []
    try:
        for code in (first, second):
            d = unpack(code.files)
            dirs.append(d)
            box = Sandbox(d, code.entry_point, limits)
            seat = _TestSeat(box, f"seat{len(seats)}")
            try:
                box.start()
            except SandboxFault as exc:  # the version did not load this time: its fault
                seat.fault = exc
            seats.append(seat)
        config = GameConfig(first_team=first_team_of(seed))
        game = play_game(seats, config, seed, match_id=match_id, time_control=TIME_CONTROL)
        faulty = game.fault.seat if game.fault is not None else None
        return game.result.winner == 0, faulty
    finally:
        for seat in seats:
            seat.sandbox.close()
        for d in dirs:
            discard(d)


def play_pair(cand: _Code, base: _Code, limits: Limits, label: str) -> list[GameOutcome]:
    """Both games of a pair on one secret deal: the candidate in seat 0, then in seat 1."""
    seed = new_seed()
    out = []
    for game, (a, b) in enumerate(((cand, base), (base, cand))):
        seat0_won, faulty = _play_game(a, b, seed, f"{label}.{game}", limits)
        cand_seat = game  # game 0: seat 0; game 1: seat 1
        won = seat0_won if cand_seat == 0 else not seat0_won
        who = "" if faulty is None else ("candidate" if faulty == cand_seat else "baseline")
        out.append(GameOutcome(won, who))
    return out


def _record(test_id: int, outcome: list[GameOutcome], worker: str) -> VersionTest | None:
    """Count the pair (None: the test was taken over by another worker, whose pairs count
    instead: this one is dropped)."""
    with transaction.atomic():
        row = VersionTest.objects.select_for_update().get(pk=test_id)
        if row.status != VersionTestStatus.RUNNING:
            return row
        if not testlease.renew(row, worker):
            return None
        pairs = list(row.pairs) or [0, 0, 0, 0, 0]
        wins = sum(o.candidate_won for o in outcome)
        pairs[2 * wins] += 1  # no draws in this game: 0, 2 or 4 half-points
        row.pairs = pairs
        row.wins += wins
        row.losses += len(outcome) - wins
        row.candidate_faults += sum(o.faulty == "candidate" for o in outcome)
        row.baseline_faults += sum(o.faulty == "baseline" for o in outcome)
        row.errors = 0
        state = sprt.status(
            pairs,
            row.elo0,
            row.elo1,
            alpha=row.alpha,
            beta=row.beta,
            games=row.games,
            max_games=row.max_games,
        )
        row.llr = state.llr
        row.status = VersionTestStatus(state.verdict.value)
        if row.status != VersionTestStatus.RUNNING:
            row.finished_at = timezone.now()
            notify.version_test(row)
        row.save()
    return row


def _fail(test_id: int, error: str, *, final: bool) -> None:
    with transaction.atomic():
        row = VersionTest.objects.select_for_update().get(pk=test_id)
        if row.status != VersionTestStatus.RUNNING:
            return
        row.errors += 1
        row.error = error[:2000]
        if final or row.errors >= MAX_ERRORS:
            row.status = VersionTestStatus.FAILED
            row.finished_at = timezone.now()
            notify.version_test(row)
        row.save(update_fields=["errors", "error", "status", "finished_at"])


def play(test_id: int, *, seconds: float | None = None, limits: Limits | None = None) -> bool:
    """Play the test's pairs until its verdict, or for about ``seconds`` (then True: it
    is still running and the caller hands it on again)."""
    row = VersionTest.objects.select_related("candidate", "baseline").filter(pk=test_id).first()
    if row is None or row.status != VersionTestStatus.RUNNING:
        return False
    worker = worker_id()
    if not testlease.claim(test_id, worker):
        # another worker plays it (a second delivery of its message): nothing to do, and
        # nothing to send on (that worker does)
        logger.info("version test %d: played elsewhere; this delivery does nothing", test_id)
        return False
    cand, base = _code(row.candidate), _code(row.baseline)
    limits = limits or Limits.from_settings()
    started = time.monotonic()
    while seconds is None or time.monotonic() - started < seconds:
        label = f"test-{test_id}-{row.games // 2 + 1}"
        try:
            outcome = play_pair(cand, base, limits, label)
        except SandboxUnavailable as exc:
            _fail(test_id, f"no sandbox on this worker: {exc}", final=True)
            return False
        except Exception as exc:  # noqa: BLE001 - the arena's failure, never the bots'
            logger.exception("version test %d: a pair failed", test_id)
            _fail(test_id, f"{type(exc).__name__}: {exc}", final=False)
            row.refresh_from_db()
            if row.status != VersionTestStatus.RUNNING:
                return False
            continue
        recorded = _record(test_id, outcome, worker)
        if recorded is None:
            logger.warning("version test %d: taken over by another worker", test_id)
            return False
        row = recorded
        if row.status != VersionTestStatus.RUNNING:
            logger.info("version test %d: %s after %d games", test_id, row.status, row.games)
            return False
    testlease.hand_over(test_id, worker)
    return True


# ---------------------------------------------------------------- reading


@dataclass(frozen=True)
class Progress:
    """A test as fishtest shows one."""

    llr: float
    lower: float
    upper: float
    games: int
    pairs: list[int]
    elo: float
    elo_low: float
    elo_high: float
    verdict: str
    label: str


def progress(row: VersionTest) -> Progress:
    lower, upper = sprt.bounds(row.alpha, row.beta)
    pairs = list(row.pairs) or [0, 0, 0, 0, 0]
    est = sprt.elo_estimate(pairs)
    return Progress(
        llr=row.llr,
        lower=lower,
        upper=upper,
        games=row.games,
        pairs=pairs,
        elo=est.elo,
        elo_low=est.low,
        elo_high=est.high,
        verdict=row.status,
        label=VersionTestStatus(row.status).label,
    )


def to_json(row: VersionTest) -> dict[str, object]:
    p = progress(row)

    def finite(x: float) -> float | None:
        return round(x, 2) if abs(x) != float("inf") else None

    return {
        "id": row.pk,
        "bot": row.bot.name,
        "candidate": row.candidate.number,
        "baseline": row.baseline.number,
        "baseline_bot": row.baseline.bot.name,
        "elo0": row.elo0,
        "elo1": row.elo1,
        "alpha": row.alpha,
        "beta": row.beta,
        "max_games": row.max_games,
        "status": row.status,
        "verdict": p.label,
        "llr": round(p.llr, 4),
        "bounds": [round(p.lower, 4), round(p.upper, 4)],
        "games": p.games,
        "pairs": p.pairs,
        "wins": row.wins,
        "draws": row.draws,
        "losses": row.losses,
        "candidate_faults": row.candidate_faults,
        "baseline_faults": row.baseline_faults,
        "elo": finite(p.elo),
        "elo_interval": [finite(p.elo_low), finite(p.elo_high)],
        "error": row.error,
        "created_at": row.created_at.isoformat(),
        "finished_at": row.finished_at.isoformat() if row.finished_at else None,
    }

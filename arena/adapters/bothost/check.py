"""The upload check: the version's code loads in a real sandbox and plays one whole game
against ``random`` there. Returns the verdict and a log for the owner (never raises for
anything the bot does)."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass

from arena.adapters.bothost.sandbox import Limits, Sandbox, SandboxFault, discard, unpack
from arena.adapters.bothost.seat import SandboxSeat
from avenue_sdk.local.game import play
from avenue_sdk.local.seats import HouseSeat
from avenue_sdk.protocol.timing import TimeControl
from referee import GameConfig
from referee.seeds import house_bot_seed


@dataclass(frozen=True)
class CheckResult:
    passed: bool
    log: str
    #: the bot's fault cause when it failed ("" when it passed)
    cause: str = ""


def run_check(
    files: dict[str, bytes],
    entry_point: str,
    limits: Limits,
    *,
    decision_ms: int = 5_000,
    bank_ms: int = 60_000,
) -> CheckResult:
    lines: list[str] = []
    code_dir = unpack(files)
    sandbox = Sandbox(code_dir, entry_point, limits)
    started = time.monotonic()
    try:
        try:
            sandbox.start()
        except SandboxFault as exc:
            lines += [
                f"FAILED: the bot did not load: {exc.cause}: {exc.detail}",
                "",
                "stderr (last lines):",
                sandbox.stderr_tail(),
            ]
            return CheckResult(False, "\n".join(lines), exc.cause)
        lines.append(
            f"loaded {entry_point} in {time.monotonic() - started:.2f} s"
            + (f" (bot version {sandbox.bot_version!r})" if sandbox.bot_version else "")
        )
        seat = SandboxSeat(sandbox, "upload")
        seed = secrets.randbits(63)
        config = GameConfig()
        game = play(
            [seat, HouseSeat("random", house_bot_seed(seed, 1))],
            config,
            seed,
            match_id="upload-check",
            time_control=TimeControl(decision_ms=decision_ms, bank_ms=bank_ms),
        )
        latencies = game.latencies[0]
        if game.fault is not None and game.fault.seat == 0:
            lines += [
                f"FAILED: at decision {game.fault.seq}: {game.fault.cause.value}: "
                f"{game.fault.detail}",
                "",
                "stderr (last lines):",
                sandbox.stderr_tail(),
            ]
            return CheckResult(False, "\n".join(lines), game.fault.cause.value)
        outcome = "won" if game.result.winner == 0 else "lost"
        lines.append(
            f"played one game against random: {outcome} ({game.result.reason.value}, "
            f"{game.result.turns} turns, {len(latencies)} decisions asked"
            + (f", slowest answer {max(latencies):.0f} ms" if latencies else "")
            + ")"
        )
        tail = sandbox.stderr_tail()
        if tail:
            lines += ["", "stderr (last lines):", tail]
        lines.append("passed")
        return CheckResult(True, "\n".join(lines))
    finally:
        sandbox.close()
        discard(code_dir)

"""Many local games: seats, seeds, worker processes, a progress bar, and the report.

Game ``i`` is dealt from ``game_seed(seed, i)``; the bot under test plays team A in even
games and team B in odd ones, so both sides of the table count the same. A house bot is a
fresh instance per seat and game, seeded ``house_bot_seed(deal, seat)``: the derivations
of ``referee.seeds``, the arena's own, so game ``i`` here is the game ``manage.py playmatch
--seed`` plays as its game ``i`` with the same bots in the same seats.

A bot that is not a house bot runs in a process of its own by default, one per worker
process, holding every seat of its team on one stream as one connected client would
(``avenue_sdk.local.remote``): a Python ``module:Class`` under the SDK's client, or any
command. ``in_process`` plays a Python bot in the worker itself instead (faster; but the
bot then shares the process that holds the true game state, every hand and the deck, and
an exception in ``decide`` is a crash rather than what the client makes of it).
"""

from __future__ import annotations

import glob
import json
import os
import re
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Generator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO

from agent_avenue.v1 import arena_pb2 as pb
from avenue_sdk.local import stats
from avenue_sdk.local.game import play
from avenue_sdk.local.remote import StreamSeat, is_command
from avenue_sdk.local.seats import BotSeat, HouseSeat, Seat, is_house, load_bot_class
from avenue_sdk.protocol.timing import TimeControl
from referee import GameConfig
from referee.seeds import game_seed, house_bot_seed


@dataclass(frozen=True)
class Setup:
    bot: str
    opponent: str
    config: GameConfig
    time_control: TimeControl
    seed: int
    match_prefix: str = "local-"
    replay_dir: Path | None = None
    #: write every message the bot under test receives here (the client's transcript format)
    transcript: Path | None = None
    #: play Python bots in the worker process (fast; see the module's docstring)
    in_process: bool = False
    #: where bots in processes of their own write their output (default: a new temp dir)
    bot_log_dir: Path | None = None

    @property
    def separate(self) -> tuple[str, ...]:
        """The bots that play from processes of their own."""
        if self.in_process:
            return tuple(s for s in (self.bot, self.opponent) if not is_house(s) and is_command(s))
        return tuple(s for s in (self.bot, self.opponent) if not is_house(s))


def prepared(setup: Setup) -> Setup:
    """``setup`` with a folder for its bots' output, when a bot plays from a process."""
    if setup.separate and setup.bot_log_dir is None:
        return replace(setup, bot_log_dir=Path(tempfile.mkdtemp(prefix="avenue-play-")))
    return setup


@dataclass(frozen=True)
class Outcome:
    """One game from the side of the bot under test."""

    index: int
    team: int
    won: bool
    reason: str
    turns: int
    #: the bot's team moved first in this game
    first: bool
    #: (whose, cause, detail): whose is "bot" or "opponent"
    fault: tuple[str, str, str] | None
    latencies: tuple[float, ...]


class _Worker:
    """The seats of one process, reused game after game."""

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        self._transcript: IO[str] | None = None
        if setup.transcript is not None:
            self._transcript = open(setup.transcript, "a")  # noqa: SIM115 - the worker's life
        self._bot = None if is_house(setup.bot) else self._sdk_seat(setup.bot, self._record)
        self._opponent = None if is_house(setup.opponent) else self._sdk_seat(setup.opponent)
        self._started = time.monotonic()

    def _sdk_seat(
        self, spec: str, on_message: Callable[[pb.ArenaMessage], None] | None = None
    ) -> Seat:
        if spec not in self.setup.separate:
            return BotSeat(load_bot_class(spec), spec, on_message)
        assert self.setup.bot_log_dir is not None, "prepared(setup) makes the folder"
        log = self.setup.bot_log_dir / f"{_log_name(spec)}-{os.getpid()}.log"
        return StreamSeat(spec, log, on_message)

    def close(self) -> None:
        """Stop the bots' processes and gateways."""
        for seat in (self._bot, self._opponent):
            if isinstance(seat, StreamSeat):
                seat.close()

    def _record(self, message: pb.ArenaMessage) -> None:
        if self._transcript is None:
            return
        from google.protobuf import text_format

        at = time.monotonic() - self._started
        self._transcript.write(
            f"# {at:8.3f} s  arena -> bot\n{text_format.MessageToString(message)}\n"
        )
        self._transcript.flush()

    def _seat(self, mine: bool, deal: int, seat: int) -> Seat:
        sdk_bot = self._bot if mine else self._opponent
        if sdk_bot is not None:
            return sdk_bot
        return HouseSeat(
            self.setup.bot if mine else self.setup.opponent, house_bot_seed(deal, seat)
        )

    def game(self, index: int) -> Outcome:
        setup = self.setup
        seed = game_seed(setup.seed, index)
        team = index % 2
        config = setup.config
        seats = [self._seat(config.team_of(s) == team, seed, s) for s in range(config.seats)]
        match_id = f"{setup.match_prefix}{index + 1}"
        game = play(seats, config, seed, match_id=match_id, time_control=setup.time_control)
        if setup.replay_dir is not None:
            setup.replay_dir.mkdir(parents=True, exist_ok=True)
            (setup.replay_dir / f"{match_id}.json").write_text(game.record.dumps())
        fault = None
        if game.fault is not None:
            whose = "bot" if config.team_of(game.fault.seat) == team else "opponent"
            fault = (whose, game.fault.cause.value, game.fault.detail)
        latencies = tuple(
            x for s in range(config.seats) if config.team_of(s) == team for x in game.latencies[s]
        )
        return Outcome(
            index,
            team,
            game.result.winner == team,
            game.result.reason.value,
            game.result.turns,
            game.record.config.first_team == team,
            fault,
            latencies,
        )


_worker: _Worker | None = None


def _init(setup: Setup, worker_process: bool = False) -> None:
    global _worker
    if worker_process:
        # Ctrl-C is the parent's to handle: it stops the run and reports what was played
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker = _Worker(setup)
    if worker_process:
        from multiprocessing.util import Finalize

        Finalize(_worker, _worker.close, exitpriority=10)  # its bots go with the worker


def _play_one(index: int) -> Outcome:
    assert _worker is not None
    return _worker.game(index)


def outcomes(setup: Setup, games: int, jobs: int = 1) -> Generator[Outcome, None, None]:
    """Play ``games`` games on ``jobs`` processes; outcomes as they finish (in any order)."""
    setup = prepared(setup)
    if jobs <= 1:
        _init(setup)
        assert _worker is not None
        try:
            for i in range(games):
                yield _play_one(i)
        finally:
            _worker.close()
        return
    for spec in setup.separate:
        _preflight(setup, spec)  # a bot that cannot start says so here, not in N workers
    pool = ProcessPoolExecutor(jobs, initializer=_init, initargs=(setup, True))
    # one future per game (not map's chunks): results stream in, and on Ctrl-C only the
    # games being played are waited for
    pending = [pool.submit(_play_one, i) for i in range(games)]
    try:
        for future in as_completed(pending):
            yield future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _preflight(setup: Setup, spec: str) -> None:
    """Start the bot once and stop it; ``BotDidNotStart`` with its output if it cannot."""
    assert setup.bot_log_dir is not None
    StreamSeat(spec, setup.bot_log_dir / f"{_log_name(spec)}-check.log").close()


@dataclass
class Summary:
    bot: str
    opponent: str
    games: int = 0
    wins: int = 0
    #: team -> (games, wins) of the bot under test on that team
    by_team: dict[int, list[int]] = field(default_factory=lambda: {0: [0, 0], 1: [0, 0]})
    #: moving first (True) or second -> (games, wins)
    by_order: dict[bool, list[int]] = field(default_factory=lambda: {True: [0, 0], False: [0, 0]})
    reasons: Counter[str] = field(default_factory=Counter)
    faults: Counter[tuple[str, str]] = field(default_factory=Counter)
    fault_examples: dict[tuple[str, str], str] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)
    elapsed_s: float = 0.0
    #: stopped by Ctrl-C before every game was played
    interrupted: bool = False
    #: the bots that played from processes of their own, and the folder of their output
    separate: tuple[str, ...] = ()
    bot_log_dir: Path | None = None
    #: decisions where the bot under test's ``decide`` raised, from its process's output
    #: (its client answered them with the first legal choice, as on the arena)
    bot_errors: int = 0

    def add(self, o: Outcome) -> None:
        self.games += 1
        self.wins += o.won
        self.by_team[o.team][0] += 1
        self.by_team[o.team][1] += o.won
        self.by_order[o.first][0] += 1
        self.by_order[o.first][1] += o.won
        self.reasons[o.reason] += 1
        if o.fault is not None:
            key = (o.fault[0], o.fault[1])
            self.faults[key] += 1
            self.fault_examples.setdefault(key, f"game {o.index + 1}: {o.fault[2]}")
        self.latencies.extend(o.latencies)

    def to_json(self) -> dict[str, object]:
        low, high = stats.wilson(self.wins, self.games)
        e, e_low, e_high = stats.elo_interval(self.wins, self.games)
        return {
            "bot": self.bot,
            "opponent": self.opponent,
            "games": self.games,
            "wins": self.wins,
            "win_rate": self.wins / self.games if self.games else None,
            "wilson95": [low, high],
            "elo": [e, e_low, e_high],
            "by_team": {"AB"[t]: {"games": g, "wins": w} for t, (g, w) in self.by_team.items()},
            "by_order": {
                ("first" if first else "second"): {"games": g, "wins": w}
                for first, (g, w) in self.by_order.items()
            },
            "end_reasons": dict(self.reasons),
            "faults": [
                {
                    "whose": whose,
                    "cause": cause,
                    "count": n,
                    "example": self.fault_examples[(whose, cause)],
                }
                for (whose, cause), n in sorted(self.faults.items())
            ],
            "decisions": len(self.latencies),
            "decision_ms_mean": (sum(self.latencies) / len(self.latencies))
            if self.latencies
            else 0.0,
            "decision_ms_p99": stats.percentile(self.latencies, 0.99),
            "elapsed_s": self.elapsed_s,
            "interrupted": self.interrupted,
            "own_process": list(self.separate),
            "bot_log_dir": None if self.bot_log_dir is None else str(self.bot_log_dir),
            "bot_errors": self.bot_errors,
        }

    def report(self) -> str:
        j = self.to_json()
        n = self.games
        low, high = stats.wilson(self.wins, n)
        e, e_low, e_high = (x + 0.0 for x in stats.elo_interval(self.wins, n))
        pct = 100 * self.wins / n if n else 0.0
        lines = [
            f"{self.bot} vs {self.opponent}: {n} games in {self.elapsed_s:.1f} s"
            + (" (interrupted)" if self.interrupted else ""),
            f"  wins        {self.wins} / {n} = {pct:.1f}%   95% CI [{100 * low:.1f}%, "
            f"{100 * high:.1f}%] (Wilson)",
            f"  Elo diff    {e:+.0f}   95% CI [{e_low:+.0f}, {e_high:+.0f}]",
            "  by team     "
            + "   ".join(
                f"as {'AB'[t]}: {w}/{g}" + (f" ({100 * w / g:.1f}%)" if g else "")
                for t, (g, w) in self.by_team.items()
            ),
            "  by order    "
            + "   ".join(
                f"moving {'first' if first else 'second'}: {w}/{g}"
                + (f" ({100 * w / g:.1f}%)" if g else "")
                for first, (g, w) in self.by_order.items()
            ),
            "  end reasons " + ", ".join(f"{r} {c}" for r, c in self.reasons.most_common()),
        ]
        if self.faults:
            lines.append("  faults")
            for (whose, cause), count in sorted(self.faults.items()):
                example = self.fault_examples[(whose, cause)]
                lines.append(f"    {whose:8} {cause:16} {count:5}   e.g. {example}")
        else:
            lines.append("  faults      none")
        lines.append(
            f"  decisions   {j['decisions']} asked of {self.bot}: mean "
            f"{j['decision_ms_mean']:.2f} ms, p99 {j['decision_ms_p99']:.2f} ms"
        )
        if self.bot_errors:
            lines.append(
                f"  bot errors  {self.bot_errors} decisions raised in decide; its client "
                "answered them with the first legal choice, as on the arena"
            )
        if self.separate:
            lines.append(
                f"  processes   {' and '.join(self.separate)}: "
                f"{'each ' if len(self.separate) > 1 else ''}in a process of its own, over "
                f"gRPC; output in {self.bot_log_dir}"
            )
        elif not is_house(self.bot):
            lines.append(
                "  processes   in-process: a Python bot shared the referee's process (and "
                "could read the true game state)"
            )
        return "\n".join(lines)


class Progress:
    """A bar on a terminal, a line every tenth otherwise (logs stay short)."""

    def __init__(self, total: int, stream: IO[str] | None = None) -> None:
        self.total = total
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() and os.environ.get("TERM") != "dumb"
        self.started = time.monotonic()
        self._last_tenth = -1

    def update(self, done: int, wins: int) -> None:
        elapsed = time.monotonic() - self.started
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - done) / rate if rate > 0 else 0.0
        text = (
            f"{done}/{self.total} games, {100 * wins / max(1, done):.1f}% won, "
            f"{rate:.1f} games/s, {eta:.0f} s left"
        )
        if self.tty:
            width = 30
            filled = int(width * done / max(1, self.total))
            self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {text} ")
            if done == self.total:
                self.stream.write("\n")
            self.stream.flush()
        else:
            tenth = 10 * done // max(1, self.total)
            if tenth != self._last_tenth:
                self._last_tenth = tenth
                self.stream.write(text + "\n")
                self.stream.flush()


def run(setup: Setup, games: int, jobs: int = 1, progress: bool = True) -> Summary:
    setup = prepared(setup)
    summary = Summary(
        setup.bot, setup.opponent, separate=setup.separate, bot_log_dir=setup.bot_log_dir
    )
    bar = Progress(games) if progress else None
    started = time.monotonic()
    played = outcomes(setup, games, jobs)
    try:
        for outcome in played:
            summary.add(outcome)
            if bar is not None:
                bar.update(summary.games, summary.wins)
    except KeyboardInterrupt:
        summary.interrupted = True
    finally:
        played.close()
    summary.elapsed_s = time.monotonic() - started
    if setup.bot in setup.separate and setup.bot_log_dir is not None:
        summary.bot_errors = _errors_logged(setup.bot_log_dir, setup.bot)
    return summary


#: what the SDK's client and the starters log when ``decide`` raises
FAILED = re.compile(r"the bot failed on decision \d+")


def _log_name(spec: str) -> str:
    """The start of the name of a bot's output files (one per worker process)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", spec)[:60]


def _errors_logged(folder: Path, spec: str) -> int:
    return sum(
        len(FAILED.findall(path.read_text(errors="replace")))
        for path in folder.glob(f"{glob.escape(_log_name(spec))}-*.log")
    )


def dump(summary: Summary, path: Path) -> None:
    path.write_text(json.dumps(summary.to_json(), indent=2))

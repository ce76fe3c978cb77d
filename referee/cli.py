"""Local play without the server: ``python -m referee play | show | validate``."""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence

from referee.bots.base import HOUSE_BOTS, make_bot
from referee.config import ConfigError, GameConfig, Mode
from referee.narrate import describe
from referee.play import MatchStats, play_game, play_pairs, seat_bots
from referee.replay import ReplayError, loads, validate


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a proportion (draws do not occur in this game)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


class Progress:
    """A one-line progress bar on stderr, redrawn at most ten times a second."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.enabled = total, enabled
        self.start = self.last = time.perf_counter()

    def update(self, done: int, note: str = "") -> None:
        now = time.perf_counter()
        if not self.enabled or (now - self.last < 0.1 and done < self.total):
            return
        self.last = now
        width = 30
        filled = int(width * done / self.total)
        rate = done / max(now - self.start, 1e-9)
        bar = "#" * filled + "." * (width - filled)
        sys.stderr.write(f"\r[{bar}] {done}/{self.total} {rate:,.0f} games/s {note}  ")
        if done >= self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _config(args: argparse.Namespace, first_team: int | None = None) -> GameConfig:
    return GameConfig.for_seats(args.seats, args.mode, first_team=first_team, ruleset=args.ruleset)


def cmd_play(args: argparse.Namespace) -> int:
    names = (args.a, args.b)
    pairs = max(1, args.games // 2)
    progress = Progress(pairs * 2, enabled=not args.quiet)

    def on_game(stats: MatchStats) -> None:
        progress.update(stats.games, f"{names[0]} {stats.wins[0]}-{stats.wins[1]} {names[1]}")

    started = time.perf_counter()
    stats = play_pairs(
        names,
        range(pairs),
        seats=args.seats,
        mode=args.mode,
        ruleset=args.ruleset,
        seed=args.seed,
        on_game=on_game,
    )
    what = f"{args.mode} mode, {args.seats} seats, ruleset {args.ruleset}"
    print_summary(stats, time.perf_counter() - started, what)
    return 0


def print_summary(stats: MatchStats, elapsed: float, what: str) -> None:
    total = stats.games
    print(f"{total} games ({total // 2} mirrored pairs), {what}")
    for i, name in enumerate(stats.names):
        lo, hi = wilson(stats.wins[i], total)
        label = name if stats.names[0] != stats.names[1] else f"{name} #{i + 1}"
        print(
            f"  {label:<16} {stats.wins[i]:>6} wins {stats.wins[i] / total:6.1%}  "
            f"95% CI [{lo:.1%}, {hi:.1%}]  as team A {stats.team_wins[(i, 0)]}, "
            f"as team B {stats.team_wins[(i, 1)]}"
        )
    print("  end reasons: " + ", ".join(f"{r} {n}" for r, n in stats.reasons.most_common()))
    print(
        f"  {total / elapsed:,.1f} games/s, {stats.decisions / elapsed:,.0f} decisions/s "
        f"({elapsed:.1f} s)"
    )


def cmd_show(args: argparse.Namespace) -> int:
    config = _config(args, first_team=args.first_team)
    bots = [make_bot(args.a, args.seed), make_bot(args.b, args.seed + 1)]
    played = play_game(config, args.seed, seat_bots(config, bots))
    state = played.record.initial_state()
    print(
        f"{args.a} (team A, seats {config.teams[0]}) vs {args.b} (team B, seats {config.teams[1]})"
    )
    for event in state.events():
        print("  " + describe(event))
    final = validate(played.record)
    for event in final.events()[len(state.events()) :]:
        print("  " + describe(event))
    r = played.result
    print(f"result: team {'AB'[r.winner]} wins by {r.reason.value} after {r.turns} turns")
    if args.save:
        with open(args.save, "w", encoding="utf-8") as fh:
            json.dump(played.record.to_json(), fh, indent=1)
        print(f"replay saved to {args.save}")
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    status = 0
    for path in args.files:
        try:
            with open(path, encoding="utf-8") as fh:
                record = loads(fh.read())
            final = validate(record)
        except (OSError, ReplayError) as exc:
            print(f"{path}: INVALID: {exc}")
            status = 1
            continue
        r = final.outcome
        verdict = f"team {'AB'[r.winner]} wins by {r.reason.value}" if r else "unfinished"
        print(f"{path}: ok, {len(record.decisions)} decisions, {verdict}")
    return status


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m referee", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    bot_help = f"a house bot ({', '.join(HOUSE_BOTS)}, search:PLAYOUTS) or module:Class"

    def game_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--a", default="greedy", help=f"team A's bot: {bot_help}")
        p.add_argument("--b", default="random", help="team B's bot")
        p.add_argument("--mode", default="simple", choices=[m.value for m in Mode])
        p.add_argument("--seats", type=int, default=2, choices=(2, 3, 4))
        p.add_argument("--ruleset", default="standard")
        p.add_argument("--seed", type=int, default=1)

    play = sub.add_parser("play", help="play N games (mirrored pairs) and summarise")
    game_options(play)
    play.add_argument("-n", "--games", type=int, default=200)
    play.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    play.set_defaults(func=cmd_play)

    show = sub.add_parser("show", help="print one game turn by turn")
    game_options(show)
    show.add_argument("--first-team", type=int, choices=(0, 1), default=None)
    show.add_argument("--save", metavar="FILE", help="also write the replay JSON")
    show.set_defaults(func=cmd_show)

    check = sub.add_parser("validate", help="re-simulate replay files and check their result")
    check.add_argument("files", nargs="+")
    check.set_defaults(func=cmd_validate)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (ConfigError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130

"""``manage.py league``'s command line: its subcommands and their options (the command
itself, ``commands/league.py``, says what each does)."""

from __future__ import annotations

from django.core.management.base import CommandParser

from arena.adapters.management import faults, league_seasons


def add_league_arguments(parser: CommandParser) -> None:
    sub = parser.add_subparsers(dest="action", required=True)
    create = sub.add_parser("create", help="create a league")
    create.add_argument("name")
    create.add_argument("--mode", default="simple")
    create.add_argument("--seats", type=int, default=2)
    create.add_argument("--ruleset", default="standard")
    create.add_argument(
        "--deals",
        default="independent",
        choices=["independent", "mirrored"],
        help="independent (default): every match its own secret deal; mirrored: both "
        "games of a pair on one deck, for leagues of house bots only",
    )
    create.add_argument(
        "--format",
        default="round_robin",
        choices=["round_robin", "information"],
        help="round_robin (default): every pairing every round, for small leagues; "
        "information: each bot --games-per-bot single games a round on average against "
        "opponents close in rating, for large leagues (2 seats, independent deals)",
    )
    create.add_argument(
        "--games-per-bot",
        type=int,
        default=10,
        help="information format: games a bot plays a round on average (half to twice it)",
    )
    create.add_argument(
        "--pairs",
        type=int,
        default=1,
        help="round robin: pairs of games (teams swapped) per pairing",
    )
    create.add_argument("--k", type=float, default=24.0, help="Elo K factor")
    create.add_argument("--decision-ms", type=int, default=5_000)
    create.add_argument("--bank-ms", type=int, default=60_000)
    create.add_argument(
        "--grace-ms",
        type=int,
        default=2_000,
        help="how long a remote seat waits for its bot at the start",
    )
    create.add_argument(
        "--reconnect-grace-ms",
        type=int,
        default=30_000,
        help="how long a bot whose stream dropped mid-match may take to come back",
    )
    create.add_argument("--no-show-retries", type=int, default=3)
    create.add_argument("--no-show-window", type=int, default=300, help="seconds")
    create.add_argument(
        "--absent-wait",
        type=int,
        default=60,
        help="seconds the end of a round played here waits for absent bots",
    )
    create.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="CAUSE=ACTION",
        help="fault policy override, e.g. timeout=abort (default: forfeit)",
    )
    create.add_argument("--unrated", action="store_true")
    create.add_argument("--closed", action="store_true", help="closed for entries")
    create.add_argument("--schedule", help="'every 10m', '2h' or a cron expression")
    enter = sub.add_parser("enter", help="enter bots (house bot specs create house bots)")
    enter.add_argument("name")
    enter.add_argument("bots", nargs="+")
    withdraw = sub.add_parser("withdraw", help="withdraw a bot from future rounds")
    withdraw.add_argument("name")
    withdraw.add_argument("bot")
    sub.add_parser("list", help="list leagues")
    run = sub.add_parser("run", help="play rounds now, in this process")
    run.add_argument("name")
    run.add_argument("--rounds", type=int, default=1)
    run.add_argument("--quiet", action="store_true", help="no line per match")
    schedule = sub.add_parser("schedule", help="run the periodic job, or set a schedule")
    schedule.add_argument("name", nargs="?")
    how = schedule.add_mutually_exclusive_group()
    how.add_argument("--every", help="e.g. 10m, 2h, 1d")
    how.add_argument("--cron", help="five fields, UTC, e.g. '0 */2 * * *'")
    how.add_argument("--off", action="store_true", help="rounds start by hand only")
    for action in ("pause", "resume", "finish"):
        sub.add_parser(action, help=f"{action} a league").add_argument("name")
    recompute = sub.add_parser("recompute-ratings", help="rebuild ratings from history")
    recompute.add_argument("name")
    recompute.add_argument("--fix", action="store_true", help="write recomputed values")
    rebuild = sub.add_parser(
        "recompute-standings", help="rebuild the standings rows as shown from the results"
    )
    rebuild.add_argument("name")
    rebuild.add_argument("--fix", action="store_true", help="write recomputed values")
    fit = sub.add_parser("fit-ratings", help="batch Elo with 95%% intervals")
    fit.add_argument("name")
    fit.add_argument("--bootstrap", type=int, default=200)
    sub.add_parser("standings", help="print the standings").add_argument("name")
    faults.add_parsers(sub)  # faults, rerun
    league_seasons.add_parser(sub)  # seasons
    demo = sub.add_parser("demo", help="the demo league of house bots")
    demo.add_argument(
        "--rounds", type=int, default=2, help="play until the demo league has this many rounds"
    )
    demo.add_argument("--search-playouts", type=int, default=100)

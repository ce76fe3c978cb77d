"""``python -m avenue_sdk run mybot:MyBot --arena HOST:PORT --token TOKEN`` connects a bot to
an arena; ``python -m avenue_sdk play mybot:MyBot greedy --games 1000`` plays it locally;
``python -m avenue_sdk view REPLAY.json`` opens a replay in the site's viewer, locally."""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import secrets
import signal
import sys
from pathlib import Path

from avenue_sdk.bot import Bot
from avenue_sdk.client import Client
from avenue_sdk.protocol.timing import TimeControl


def load_bot(spec: str) -> Bot:
    """``module:Class`` (the module on sys.path, the current directory included), or a
    house bot's name (``random``, ``greedy``, ``search``: ``avenue_sdk.house``)."""
    from avenue_sdk.house import HOUSE

    if spec in HOUSE:
        return HOUSE[spec]()
    module_name, sep, attr = spec.partition(":")
    if not sep or not attr:
        raise SystemExit(f"bot {spec!r}: expected module:Class, e.g. mybot:MyBot")
    sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise SystemExit(f"cannot import {module_name!r}: {exc}") from None
    cls = getattr(module, attr, None)
    if cls is None:
        raise SystemExit(f"module {module_name!r} has no {attr!r}")
    bot = cls()
    if not isinstance(bot, Bot):
        raise SystemExit(f"{spec} is not a subclass of avenue_sdk.Bot")
    return bot


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m avenue_sdk", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="connect a bot and play until Ctrl-C")
    run.add_argument("bot", help="module:Class of the bot, e.g. mybot:MyBot")
    run.add_argument(
        "--arena",
        default=os.environ.get("AVENUE_ARENA", "127.0.0.1:50051"),
        help="gateway HOST:PORT (default: $AVENUE_ARENA or 127.0.0.1:50051)",
    )
    run.add_argument(
        "--token",
        default=os.environ.get("AVENUE_TOKEN"),
        help="the bot's token (default: $AVENUE_TOKEN)",
    )
    run.add_argument("--max-matches", type=int, default=1, help="matches to play at once")
    run.add_argument("--tls", action="store_true", help="connect with TLS")
    run.add_argument(
        "--ca-cert",
        type=Path,
        help="trust the gateway certificates this PEM file signed (e.g. a self-signed "
        "gateway's own certificate; implies --tls)",
    )
    run.add_argument("--no-reconnect", action="store_true", help="exit when the stream ends")
    run.add_argument("--log-dir", type=Path, help="write one log file per match here")
    run.add_argument("--transcript", type=Path, help="write every message to this file")
    run.add_argument("-v", "--verbose", action="store_true", help="log every decision")
    _play_parser(sub)
    view = sub.add_parser("view", help="open a replay in the site's viewer, on 127.0.0.1")
    view.add_argument("replay", type=Path, help="a replay JSON file (the arena's format)")
    view.add_argument("--port", type=int, default=0, help="port to serve on (default: any)")
    view.add_argument("--names", help="the seats' bot names, comma-separated")
    view.add_argument("--no-browser", action="store_true", help="print the URL only")
    args = parser.parse_args(argv)
    if args.command == "play":
        return _play(parser, args)
    if args.command == "view":
        from avenue_sdk.viewer.local import view as view_replay

        names = [n.strip() for n in args.names.split(",")] if args.names else None
        return view_replay(args.replay, names, args.port, not args.no_browser)
    if not args.token:
        parser.error("--token (or $AVENUE_TOKEN) is required")
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if args.ca_cert is not None and not args.ca_cert.is_file():
        parser.error(f"--ca-cert {args.ca_cert}: no such file")
    client = Client(
        load_bot(args.bot),
        args.arena,
        args.token,
        max_matches=args.max_matches,
        secure=args.tls,
        ca_cert=args.ca_cert,
        reconnect=not args.no_reconnect,
        log_dir=args.log_dir,
        transcript=args.transcript,
    )

    # Ctrl-C and SIGTERM both end the stream cleanly: stop() cancels the call, the read loop
    # ends and the process exits. (A KeyboardInterrupt raised wherever the main thread
    # happens to be, possibly deep inside gRPC, could leave the process hanging at exit.)
    def stop(signum: int, _frame: object) -> None:
        what = "interrupted" if signum == signal.SIGINT else "terminated"
        logging.getLogger("avenue_sdk").info("%s; closing the connection", what)
        client.stop()

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, stop)
    return client.run()


def _engine_line() -> str:
    """Which build of the rules engine plays the games, and how to get the compiled one."""
    import referee

    if referee.ENGINE == "compiled":
        return "engine: compiled (mypyc)"
    line = f"engine: pure Python ({referee.ENGINE_REASON})"
    if referee.ENGINE_REASON.startswith("no compiled build"):
        line += (
            "; about three times faster compiled: AVENUE_ENGINE_COMPILE=1 pip install "
            "the engine's directory (referee/; needs a C compiler)"
        )
    return line


def _play_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    tc = TimeControl()
    play = sub.add_parser(
        "play",
        help="play a bot against another locally, with no server",
        description="Play BOT against OPPONENT with no server: the bot receives the "
        "DecisionRequest messages an arena would send, under the arena's time control.",
    )
    play.add_argument(
        "bot",
        help="the bot under test: module:Class, a command in quotes that connects to "
        '$AVENUE_ARENA with $AVENUE_TOKEN (e.g. "node dist/src/main.js"), or a house bot',
    )
    play.add_argument(
        "opponent",
        help="random, greedy, search, search:PLAYOUTS (house bots), module:Class or a command",
    )
    play.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    play.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    play.add_argument("--mode", choices=("simple", "advanced"), default="simple")
    play.add_argument("--seats", type=int, choices=(2, 3, 4), default=2)
    play.add_argument("--ruleset", default="standard", help="ruleset id (default standard)")
    play.add_argument(
        "--seed",
        type=int,
        help="seed of the run; each game's deal derives from it (default: a random one, printed)",
    )
    play.add_argument(
        "--decision-ms",
        type=int,
        default=tc.decision_ms,
        help=f"time per decision, as on the arena (default {tc.decision_ms})",
    )
    play.add_argument(
        "--bank-ms",
        type=int,
        default=tc.bank_ms,
        help=f"time bank per match for decisions beyond that (default {tc.bank_ms})",
    )
    play.add_argument(
        "--in-process",
        action="store_true",
        help="play a module:Class bot in this process instead of its own (faster, but the "
        "bot shares the process holding the true game state, and an exception in decide "
        "is a crash rather than what the SDK's client makes of it)",
    )
    play.add_argument(
        "--bot-log-dir",
        type=Path,
        help="where bots in their own processes write their output (default: a new temp dir)",
    )
    play.add_argument("--replay-dir", type=Path, help="write each game's replay (JSON) here")
    play.add_argument(
        "--transcript",
        type=Path,
        help="write every message the bot under test receives to this file (--jobs 1)",
    )
    play.add_argument("--json", type=Path, help="also write the figures as JSON to this file")
    play.add_argument(
        "--match-prefix",
        default="local-",
        help="match ids are PREFIX1, PREFIX2, ... (default local-)",
    )
    play.add_argument("-q", "--quiet", action="store_true", help="no progress bar")


def _play(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from avenue_sdk.local import runner
    from avenue_sdk.local.remote import BotDidNotStart, command_for, is_command
    from avenue_sdk.local.seats import is_house, load_bot_class
    from referee import ConfigError, GameConfig

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if args.games < 1 or args.jobs < 1:
        parser.error("--games and --jobs must be at least 1")
    if args.decision_ms < 1 or args.bank_ms < 0:
        parser.error("--decision-ms must be positive and --bank-ms not negative")
    if args.transcript is not None and args.jobs != 1:
        parser.error("--transcript needs --jobs 1 (one process writes it)")
    try:
        config = GameConfig.for_seats(args.seats, args.mode, ruleset=args.ruleset)
        for spec in (args.bot, args.opponent):
            if is_house(spec):
                continue
            if is_command(spec):
                command_for(spec)  # a command line that cannot be split fails here
            elif not is_house(spec):
                load_bot_class(spec)  # fail here, clearly, not in a worker
    except (ConfigError, ValueError) as exc:
        parser.error(str(exc))
    seed = args.seed if args.seed is not None else secrets.randbits(48)
    if args.transcript is not None:
        args.transcript.write_text("")
    setup = runner.Setup(
        bot=args.bot,
        opponent=args.opponent,
        config=config,
        time_control=TimeControl(args.decision_ms, args.bank_ms),
        seed=seed,
        match_prefix=args.match_prefix,
        replay_dir=args.replay_dir,
        transcript=args.transcript,
        in_process=args.in_process,
        bot_log_dir=args.bot_log_dir,
    )
    print(
        f"{args.bot} vs {args.opponent}: {args.games} games, {args.mode} mode, "
        f"{args.seats} seats, ruleset {args.ruleset}, seed {seed}, "
        f"{args.decision_ms} ms per decision + {args.bank_ms} ms bank; {_engine_line()}",
        file=sys.stderr,
    )
    try:
        summary = runner.run(setup, args.games, args.jobs, progress=not args.quiet)
    except BotDidNotStart as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if summary.interrupted:
        print("\ninterrupted: the figures cover the games played so far", file=sys.stderr)
    print(summary.report())
    if args.json is not None:
        runner.dump(summary, args.json)
    return 130 if summary.interrupted else 0

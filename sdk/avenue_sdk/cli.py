"""``python -m avenue_sdk run mybot:MyBot --arena HOST:PORT --token TOKEN``."""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import signal
import sys
from pathlib import Path

from avenue_sdk.bot import Bot
from avenue_sdk.client import Client


def load_bot(spec: str) -> Bot:
    """``module:Class`` (the module on sys.path, the current directory included)."""
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
    args = parser.parse_args(argv)
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
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: client.stop())
    return client.run()

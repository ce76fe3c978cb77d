"""The operator's fault subcommands of ``manage.py league``:

league faults NAME [--hours H] [--window S] [--json]   faults charged, set against incidents
league rerun NAME MATCH [MATCH ...] --reason TEXT       void results, recompute, play again
league rerun NAME --suspects [--hours H] --reason TEXT  the fault report's suspects
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.core.management.base import CommandError
from django.utils import timezone

from arena.services import leagues as svc
from arena.services.faultreport import fault_report, matches_of, print_report
from arena.services.rerun import void_and_rerun

Write = Callable[[str], object]


def add_parsers(sub: Any) -> None:
    """The two subcommands, on ``league``'s subparsers."""
    faults = sub.add_parser(
        "faults",
        help="faults charged to bots by cause and time, flagged when near an arena incident",
    )
    faults.add_argument("name")
    _since_window(faults)
    faults.add_argument("--json", action="store_true", help="the report as JSON")
    rerun = sub.add_parser(
        "rerun",
        help="void finished (or void) matches, recompute the ratings, play them again",
    )
    rerun.add_argument("name")
    rerun.add_argument("matches", nargs="*", type=int, metavar="MATCH", help="match ids")
    rerun.add_argument(
        "--suspects", action="store_true",
        help="the matches `league faults` flags as suspect (charged near an arena incident)",
    )  # fmt: skip
    _since_window(rerun)
    rerun.add_argument("--reason", required=True, help="why, kept with the voided result")
    rerun.add_argument(
        "--dry-run", action="store_true", help="list what would be re-run; change nothing"
    )
    rerun.add_argument("--json", action="store_true", help="the outcome as JSON")


def _since_window(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hours", type=float, help="only matches finished this recently")
    parser.add_argument(
        "--window", type=float, help="seconds around an incident (default: the graces + 10)"
    )


def do_faults(o: dict[str, Any], write: Write) -> None:
    league = svc.get_league(o["name"])
    report = fault_report(league, since=_since(o), window_s=o["window"])
    if o["json"]:
        write(json.dumps(report.to_json(), indent=2))
    else:
        print_report(report, write)


def do_rerun(o: dict[str, Any], write: Write) -> None:
    league = svc.get_league(o["name"])
    ids = list(o["matches"])
    if o["suspects"]:
        ids += matches_of(fault_report(league, since=_since(o), window_s=o["window"]))
    elif o["hours"] is not None or o["window"] is not None:
        raise CommandError("--hours and --window choose suspects: use them with --suspects")
    if not ids:
        if o["suspects"]:
            write(f"{league.name}: no suspect matches; nothing to re-run")
            return
        raise CommandError("name the matches to re-run, or ask for --suspects")
    if o["dry_run"]:
        write(f"{league.name}: would void and re-run matches {sorted(set(ids))} (dry run)")
        return
    report = void_and_rerun(league, ids, reason=o["reason"], by="manage.py league rerun")
    if o["json"]:
        write(json.dumps(report.to_json(), indent=2))
    else:
        print_rerun(report, write)
    if report.refused and not report.rerun:
        raise CommandError(f"nothing re-run: {len(report.refused)} matches refused")


def print_rerun(report: Any, write: Write) -> None:
    """The outcome of ``void_and_rerun`` as text (the command's and the admin's)."""
    if report.rerun:
        write(
            f"{report.league}: voided and queued again {len(report.rerun)} matches "
            f"{report.rerun}; ratings recomputed ({report.fixed} stored values changed)"
        )
    for match_id, why in sorted(report.refused.items()):
        write(f"  refused match {match_id}: {why}")
    for bot, (before, after) in report.ratings.items():
        write(f"  {bot:<24} {before:.1f} -> {after:.1f} ({after - before:+.1f})")


def _since(o: dict[str, Any]) -> Any:
    return timezone.now() - timedelta(hours=o["hours"]) if o["hours"] else None

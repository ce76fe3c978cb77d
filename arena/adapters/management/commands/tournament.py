"""``manage.py tournament create|start|show|play|advance``: one-off events (knockout,
Swiss, round robin) over the league machinery (``docs/events.md``)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.adapters.play.eventplay import play_here
from arena.events import results
from arena.events.advance import do_advance, do_advance_all, do_start
from arena.events.models import Tournament, TournamentFormat
from arena.events.services import (
    EventError,
    TournamentSettings,
    do_create,
    get_tournament,
    planned_rounds,
)
from arena.models import Bot, DealMode


class Command(BaseCommand):
    help = "Tournaments: create, start, show, play (in this process), advance."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        c = sub.add_parser("create", help="a draft tournament")
        c.add_argument("name")
        c.add_argument("--format", required=True, choices=TournamentFormat.values)
        c.add_argument("--bots", required=True, help="comma-separated bot names")
        c.add_argument("--slug", default="")
        c.add_argument("--description", default="")
        c.add_argument("--rounds", type=int, default=0, help="Swiss: rounds (0: automatic)")
        c.add_argument("--games", type=int, default=2, help="games per pairing / tie")
        c.add_argument("--deals", choices=DealMode.values, default=DealMode.MIRRORED)
        c.add_argument("--rated", action="store_true", help="the games change ratings")
        c.add_argument("--seed-league", default="", help="seed by live rating in this league")
        c.add_argument("--start", action="store_true", help="start it at once")
        for name, text in (
            ("start", "seed it and write round 1 (workers play it)"),
            ("show", "its rounds, pairings and table or bracket"),
            ("play", "play it to the end in this process (embedded mode, no workers)"),
            ("advance", "write the next round if the last is over (all running events "
             "without a name)"),
        ):  # fmt: skip
            p = sub.add_parser(name, help=text)
            p.add_argument("name", nargs="?" if name == "advance" else None)

    def handle(self, *args: Any, **o: Any) -> None:
        try:
            getattr(self, f"_{o['action']}")(o)
        except EventError as exc:
            raise CommandError(str(exc)) from None

    def _create(self, o: dict[str, Any]) -> None:
        t = do_create(
            TournamentSettings(
                name=o["name"], format=o["format"], bots=o["bots"].split(","),
                slug=o["slug"], description=o["description"], rounds=o["rounds"],
                games_per_pairing=o["games"], deals=o["deals"], rated=o["rated"],
                seed_league=o["seed_league"],
            )
        )  # fmt: skip
        self.stdout.write(f"tournament {t.name} ({t.slug}): {t.format}, draft")
        if o["start"]:
            self._start({"name": t.slug})

    def _start(self, o: dict[str, Any]) -> None:
        t = get_tournament(o["name"])
        done = do_start(t)
        self.stdout.write(f"{t.name}: started, round {done.round}, {len(done.matches)} matches")

    def _advance(self, o: dict[str, Any]) -> None:
        if not o["name"]:
            for slug, what in do_advance_all().items():
                self.stdout.write(f"{slug}: {what}")
            return
        t = get_tournament(o["name"])
        done = do_advance(t.pk)
        what = (
            "finished" if done.finished else f"round {done.round}" if done.round else done.waiting
        )
        self.stdout.write(f"{t.name}: {what}")

    def _play(self, o: dict[str, Any]) -> None:
        t = get_tournament(o["name"])
        play_here(t, on_round=lambda n: self.stdout.write(f"{t.name}: playing round {n}"))
        self._show(o)

    def _show(self, o: dict[str, Any]) -> None:
        t = get_tournament(o["name"])
        names = dict(Bot.objects.values_list("pk", "name"))
        n = t.entrants.count()
        self.stdout.write(
            f"{t.name} ({t.slug}): {t.get_format_display()}, {t.status}, {n} bots, "
            f"{planned_rounds(t, n)} rounds, {t.games_per_pairing} games a pairing"
            + (f", won by {names[t.winner_id]}" if t.winner_id else "")
        )
        if t.format == TournamentFormat.KNOCKOUT:
            for ties in results.bracket(t):
                self.stdout.write(f"round {ties[0].round_number}:")
                for tie in ties:
                    self.stdout.write("  " + _tie_line(tie, names))
            self.stdout.write(f"tie-break: {results.KNOCKOUT_TIE_BREAK}")
            return
        for number, prs in results.pairing_results(t).items():
            self.stdout.write(f"round {number}:")
            for pr in prs:
                self.stdout.write(
                    f"  {names[pr.a]} {pr.wins(pr.a)}-{pr.wins(pr.b)} {names[pr.b]}"
                    + ("" if pr.over else " (playing)")
                )
            for bot in results.byes(t).get(number, []):
                self.stdout.write(f"  {names[bot]}: bye")
        self.stdout.write(f"{'#':>3} {'bot':<24} {'score':>5} {'buchholz':>8} {'SB':>6}")
        for row in results.table(t):
            self.stdout.write(
                f"{row.rank:>3} {row.name:<24} {row.score:>5g} {row.buchholz:>8g} "
                f"{row.sonneborn_berger:>6g}"
            )


def _tie_line(tie: results.Tie, names: dict[int, str]) -> str:
    a = names.get(tie.a, "?") if tie.a else "?"
    if tie.decided_by == "bye":
        return f"{a}: bye"
    b = names.get(tie.b, "?") if tie.b else "?"
    score = ""
    if tie.result is not None and tie.a and tie.b:
        score = f" {tie.result.wins(tie.a)}-{tie.result.wins(tie.b)}"
    won = f" -> {names[tie.winner]} ({tie.decided_by})" if tie.winner else ""
    return f"{a}{score} {b}{won}"


__all__ = ["Command", "Tournament"]

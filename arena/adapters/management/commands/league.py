"""``manage.py league ...``: leagues by hand (every periodic job of the workers is here too).

league create NAME [--mode advanced] [--seats 4] [--schedule 'every 30m'] ...
league create NAME --format information --games-per-bot 10   matchmaking for large leagues
league enter NAME BOT [BOT ...]       registered bots, or house bots: random, greedy, search:200
league withdraw NAME BOT
league list
league run NAME --rounds 3            play rounds now, in this process, then the standings
league schedule [NAME]                the periodic job: reap leases, start NAME's next round
league schedule NAME --every 10m | --cron '0 * * * *' | --off
league pause|resume|finish NAME
league recompute-ratings NAME [--fix]
league recompute-standings NAME [--fix]  the standings rows as shown, from the results
league fit-ratings NAME
league faults NAME [--hours H]        faults charged to bots, set against the arena's incidents
league rerun NAME MATCH... | --suspects --reason TEXT   void, recompute ratings, play again
league seasons NAME                   its season settings and running season
league seasons NAME --rounds 10 [--seconds 7d] [--start reset|carry|soft] [--soft-factor F]
    [--divisions N --division-size N --promote K] [--placement lowest|provisional]
    [--placement-games N]             seasons and divisions (merged with the stored settings)
league seasons NAME --end-now         end the running season now (once; between rounds)
league standings NAME
league demo [--rounds 2]              the demo league of house bots (make demo)
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Count

from arena.adapters.management import faults, league_lines, league_seasons
from arena.adapters.management.demo_seasons import end_due_seasons_here
from arena.adapters.management.league_args import add_league_arguments
from arena.adapters.play.roundplay import play_round_here
from arena.dispatch import dispatcher
from arena.models import (
    Bot,
    Entry,
    League,
    LeagueFormat,
    LeagueStatus,
    Round,
    RoundStatus,
)
from arena.ratings.services import fit_batch_ratings, recompute_ratings
from arena.ratings.standings import recompute_standings
from arena.services import leagues as svc
from arena.services.claims import PlayOutcome
from arena.services.rounds import do_schedule_due_rounds, do_schedule_round
from referee.bots import HOUSE_BOTS

DEMO_LEAGUE = "Demo league"
QUIET_LOGGERS = (
    "arena.services",
    "arena.adapters.runner",
    "arena.ratings.services",
    "celery.app.trace",
)


#: subcommands whose handlers are modules of their own: (options, write)
ELSEWHERE: dict[str, Callable[[dict[str, Any], Callable[[str], object]], None]] = {
    "faults": faults.do_faults,
    "rerun": faults.do_rerun,
    "seasons": league_seasons.do_seasons,
}


def _house_spec(name: str) -> bool:
    return name.partition(":")[0] in HOUSE_BOTS


class Command(BaseCommand):
    help = "Leagues: create, enter bots, run rounds, schedule, ratings and standings."

    def add_arguments(self, parser: CommandParser) -> None:
        add_league_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"].replace("-", "_")
        if options["verbosity"] < 2:
            # one line per match is printed here; the services' own INFO lines would double it
            for name in QUIET_LOGGERS:
                logging.getLogger(name).setLevel(logging.WARNING)
        try:
            if action in ELSEWHERE:
                ELSEWHERE[action](options, self.stdout.write)
            else:
                getattr(self, f"do_{action}")(options)
        except svc.LeagueError as exc:
            raise CommandError(str(exc)) from None

    # ------------------------------------------------------------------ subcommands

    def do_create(self, o: dict[str, Any]) -> None:
        policy = {}
        for item in o["fault"]:
            cause, sep, action = item.partition("=")
            if not sep:
                raise CommandError(f"--fault {item!r}: write CAUSE=ACTION, e.g. timeout=abort")
            policy[cause] = action
        settings_ = svc.LeagueSettings(
            name=o["name"],
            mode=o["mode"],
            seats=o["seats"],
            ruleset=o["ruleset"],
            deals=o["deals"],
            format=o["format"],
            games_per_bot=o["games_per_bot"],
            pairs_per_pairing=o["pairs"],
            decision_ms=o["decision_ms"],
            bank_ms=o["bank_ms"],
            fault_policy=policy,
            connect_grace_ms=o["grace_ms"],
            reconnect_grace_ms=o["reconnect_grace_ms"],
            no_show_retries=o["no_show_retries"],
            no_show_window_s=o["no_show_window"],
            absent_wait_s=o["absent_wait"],
            k_factor=o["k"],
            rated=not o["unrated"],
            open_for_entries=not o["closed"],
        )
        spec = svc.ScheduleSpec.parse(o["schedule"]) if o["schedule"] else None
        league = svc.do_create_league(settings_, spec)
        self.stdout.write(
            f"created league {league.name} ({league.slug}): {league.mode}, {league.seats} seats, "
            f"ruleset {league.ruleset} v{league.ruleset_version}, {league.get_deals_display()}, "
            f"{self._format(league)}, {spec.describe() if spec else 'rounds start by hand'}"
        )

    def do_enter(self, o: dict[str, Any]) -> None:
        league = svc.get_league(o["name"])
        for name in o["bots"]:
            # a house bot spec names its bot without the colon: search:200 -> search-200
            bot = Bot.objects.filter(name=name.replace(":", "-")).first()
            if bot is None:
                if not _house_spec(name):
                    raise CommandError(
                        f"{name!r} is neither a registered bot nor a house bot "
                        f"({', '.join(HOUSE_BOTS)}, search:PLAYOUTS)"
                    )
                bot = svc.do_create_house_bot(name.replace(":", "-"), name)
            svc.do_enter(league, bot)
            self.stdout.write(f"entered {bot.name} ({bot.kind}) in {league.name}")

    def do_withdraw(self, o: dict[str, Any]) -> None:
        league = svc.get_league(o["name"])
        bot = Bot.objects.filter(name=o["bot"]).first()
        if bot is None:
            raise CommandError(f"no bot named {o['bot']!r}")
        svc.do_withdraw(league, bot)
        self.stdout.write(f"withdrew {bot.name} from {league.name}")

    def do_list(self, o: dict[str, Any]) -> None:
        rounds = dict(
            League.objects.annotate(n=Count("rounds", distinct=True)).values_list("pk", "n")
        )
        for league in League.objects.order_by("name"):
            entries = Entry.objects.filter(league=league, active=True).count()
            spec = svc.schedule_of(league)
            self.stdout.write(
                f"{league.slug:<24} {league.status:<8} {league.mode:<8} {league.seats} seats  "
                f"{entries:>3} entries  {rounds[league.pk]:>3} rounds  {self._format(league)}  "
                f"{spec.describe() if spec else 'by hand'}"
            )

    @staticmethod
    def _format(league: League) -> str:
        if league.format == LeagueFormat.INFORMATION:
            k = league.games_per_bot
            return f"information matchmaking, {k} games per bot a round on average"
        return "round robin"

    def _progress(self, written: int, total: int) -> None:
        self.stdout.write(f"  {written}/{total} matches written")

    def do_schedule(self, o: dict[str, Any]) -> None:
        league = svc.get_league(o["name"]) if o["name"] else None
        if o["every"] or o["cron"] or o["off"]:
            if league is None:
                raise CommandError("name the league whose schedule to set")
            spec = None
            if o["every"]:
                spec = svc.ScheduleSpec.parse(o["every"])
            elif o["cron"]:
                spec = svc.ScheduleSpec.parse("cron:" + o["cron"])
            svc.do_set_schedule(league, spec)
            self.stdout.write(
                f"{league.name}: {spec.describe() if spec else 'rounds start by hand'}"
            )
            return
        report = do_schedule_due_rounds(league.pk if league else None, on_batch=self._progress)
        self.stdout.write(
            f"re-sent {len(report.reaped)} matches with expired leases, "
            f"{len(report.requeued)} lost ones; completed {len(report.completed_rounds)} rounds"
        )
        if league is not None:
            if report.scheduled is not None:
                where = (
                    "played in this process (embedded mode)"
                    if dispatcher().in_process
                    else "sent to the workers"
                )
                self.stdout.write(
                    f"{league.name}: round {report.scheduled.round.number} scheduled, "
                    f"{len(report.scheduled.matches)} matches {where}"
                )
            else:
                raise CommandError(f"{league.name}: no round scheduled: {report.refused}")

    def do_pause(self, o: dict[str, Any]) -> None:
        self._status(o, LeagueStatus.PAUSED)

    def do_resume(self, o: dict[str, Any]) -> None:
        self._status(o, LeagueStatus.ACTIVE)

    def do_finish(self, o: dict[str, Any]) -> None:
        self._status(o, LeagueStatus.FINISHED)

    def _status(self, o: dict[str, Any], status: LeagueStatus) -> None:
        league = svc.get_league(o["name"])
        svc.do_set_status(league, status)
        self.stdout.write(f"{league.name} is {status.label}")

    def do_recompute_ratings(self, o: dict[str, Any]) -> None:
        league = svc.get_league(o["name"])
        report = recompute_ratings(league.pk, fix=o["fix"])
        self.stdout.write(
            f"{league.name}: {report.matches} finished matches, {report.rated} rated, replayed"
        )
        if report.exact:
            self.stdout.write("stored ratings equal the recomputed ones exactly")
            return
        for line in report.mismatches[:50]:
            self.stdout.write(f"  {line}")
        if report.fixed:
            self.stdout.write(f"fixed {len(report.mismatches)} differences")
        else:
            raise CommandError(
                f"{len(report.mismatches)} stored values differ; --fix writes the recomputed ones"
            )

    def do_recompute_standings(self, o: dict[str, Any]) -> None:
        league = svc.get_league(o["name"])
        report = recompute_standings(league.pk, fix=o["fix"])
        self.stdout.write(
            f"{league.name}: {report.released} results out, {report.withheld} withheld "
            "(the other game of their mirrored pair is being played)"
        )
        if report.exact:
            self.stdout.write("the standings rows equal the recomputed ones exactly")
            return
        for line in report.mismatches[:50]:
            self.stdout.write(f"  {line}")
        if report.fixed:
            self.stdout.write(f"fixed {len(report.mismatches)} rows")
        else:
            raise CommandError(
                f"{len(report.mismatches)} rows differ; --fix writes the recomputed ones"
            )

    def do_fit_ratings(self, o: dict[str, Any]) -> None:
        league = svc.get_league(o["name"])
        started = time.perf_counter()
        report = fit_batch_ratings(league.pk, bootstrap=o["bootstrap"])
        self.stdout.write(
            f"{league.name}: batch fit of {report.bots} bots over {report.matches} matches, "
            f"{report.bootstrap} bootstrap replicates, {time.perf_counter() - started:.2f} s"
        )
        self.print_standings(league)

    def do_standings(self, o: dict[str, Any]) -> None:
        self.print_standings(svc.get_league(o["name"]))

    def do_run(self, o: dict[str, Any]) -> None:
        league = svc.get_league(o["name"])
        for _ in range(o["rounds"]):
            self.play_round(league, quiet=o["quiet"])
        self.print_standings(league)

    def do_demo(self, o: dict[str, Any]) -> None:
        league = self.demo_league(o["search_playouts"])
        played = Round.objects.filter(league=league).count()
        if played >= o["rounds"]:
            self.stdout.write(
                f"{league.name} has played {played} round{'s' if played != 1 else ''} already "
                f"(`manage.py league run demo --rounds 1` plays another)"
            )
        for _ in range(max(0, o["rounds"] - played)):
            self.play_round(league, quiet=False)
        self.print_standings(league)

    # ------------------------------------------------------------------ helpers
    # (also used by `manage.py demo`)

    def demo_league(self, playouts: int) -> League:
        """The demo league with its three house bots entered (created the first time)."""
        league = League.objects.filter(name=DEMO_LEAGUE).first()
        if league is None:
            league = svc.do_create_league(
                svc.LeagueSettings(
                    name=DEMO_LEAGUE,
                    slug="demo",
                    description="House bots: random, one-ply greedy, Monte Carlo search.",
                    pairs_per_pairing=2,
                )
            )
            self.stdout.write(
                f"created {league.name} (simple, 2 seats, 2 pairs per pairing, independent deals)"
            )
        for name, spec in (
            ("random", "random"),
            ("greedy", "greedy"),
            (f"search-{playouts}", f"search:{playouts}"),
        ):
            bot = svc.do_create_house_bot(name, spec)
            if not Entry.objects.filter(league=league, bot=bot, active=True).exists():
                svc.do_enter(league, bot)
                self.stdout.write(f"entered house bot {bot.name} ({spec})")
        return league

    def play_round(
        self, league: League, *, quiet: bool, should_stop: Callable[[], bool] | None = None
    ) -> bool:
        """Schedule the next round (or finish the one still playing) and play its matches
        here, exactly as a worker would (claim, run, one-transaction result), several at
        once, absent bots' last (``arena.adapters.play.roundplay``). Returns False when
        ``should_stop`` said so (the matches under way finish; the round is left playing
        and the next call finishes it)."""
        scheduled = do_schedule_round(league, enqueue=False, on_batch=self._progress)
        rnd = (
            scheduled.round
            if scheduled is not None
            else Round.objects.filter(league=league).order_by("-number").first()
        )
        assert rnd is not None
        if rnd.status == RoundStatus.SCHEDULING:
            # another process took over writing it (information format): its matches are
            # played once it is written
            raise CommandError(
                f"round {rnd.number} of {league.name} is being scheduled by another process; "
                "run this again once it is written"
            )
        total = rnd.matches.count()
        verb = "scheduled" if scheduled is not None else "still playing; finishing"
        self.stdout.write(f"round {rnd.number} of {league.name}: {verb}, {total} matches")
        started = time.perf_counter()
        done = 0

        def report(match_id: int, outcome: PlayOutcome) -> None:
            nonlocal done
            if outcome in (PlayOutcome.FINISHED, PlayOutcome.VOID):
                done += 1
                if not quiet:
                    self.stdout.write(f"  [{done:>3}/{total}] {league_lines.match_line(match_id)}")
            else:
                self.stdout.write(f"  match {match_id}: {outcome.value}")

        played = play_round_here(rnd, on_done=report, should_stop=should_stop)
        if not played.completed:
            self.stdout.write(f"round {rnd.number}: stopped after {done} matches")
            return False
        if not dispatcher().in_process:
            fit_batch_ratings(league.pk)  # in embedded mode the round's end already did
        rnd.refresh_from_db()
        self.stdout.write(
            f"round {rnd.number}: {rnd.status}, {total} matches in "
            f"{time.perf_counter() - started:.1f} s"
        )
        end_due_seasons_here(league, self.stdout)  # no beat here: the season's end, if due
        return True

    def print_standings(self, league: League) -> None:
        for line in league_lines.standings_lines(league):
            self.stdout.write(line)

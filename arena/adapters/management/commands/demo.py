"""``manage.py demo``: the whole arena in one process, as ``make demo`` runs it.

Embedded mode (no ``REDIS_URL``) keeps the relay between match runners and the gateway in
this process, so the gateway, the matches and the web site live here together:

1. check that the web and gateway ports are free (and say so clearly if one is not);
2. migrate, and create (or reuse) the ``admin`` user: a random password the first time,
   kept in ``STATE_DIR/admin-password`` (git-ignored ``var/demo/``), printed every run;
3. the demo league (house bots ``random``, ``greedy``, ``search-N``) plus ``sdk-heuristic``,
   a remote bot played by the SDK's example ``HeuristicBot`` in a separate process that
   connects to this process's gRPC gateway (its token is rotated every run);
4. serve the site and the API (threaded WSGI server) at once; a background thread plays
   the first rounds (one line per match, then the standings) and a new demo round every
   ``--every`` seconds; rounds never hold up the site (``arena.adapters.play.roundplay``);
5. make ``your-bot`` (owned by admin, in no league) with a token kept across runs in
   ``STATE_DIR/your-bot-token`` (0600), and print the one line a bot author runs to join.

Ctrl-C (or SIGTERM) stops it all: the background round stops between two matches (the
next run finishes it), the SDK bot process is terminated, the gateway shuts down gracefully.

Why one file of this length: the demo is one sequence (migrate, league, gateway,
SDK bot, site) whose start and graceful stop read best in one place.
"""

from __future__ import annotations

import logging
import os
import secrets
import signal
import subprocess
import sys
import threading
from datetime import timedelta
from pathlib import Path
from typing import Any, TextIO, cast

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import close_old_connections, connection
from django.utils import timezone

from arena import public_facts
from arena.adapters.gateway import DatabaseAuthenticator, Gateway, GatewayConfig, GatewayThread
from arena.adapters.management import demo_challenges
from arena.adapters.management.commands.league import QUIET_LOGGERS
from arena.adapters.management.commands.league import Command as LeagueCommand
from arena.adapters.management.commands.rungateway import split_address
from arena.adapters.management.demo_events import start_demo_event
from arena.adapters.management.demo_host import start_bot_host
from arena.adapters.management.demo_notify import subscribe_owner
from arena.adapters.management.demo_sdk import (
    SDK_BOT,
    sdk_summary,
    start_sdk_bot,
    stop_sdk,
    wait_connected,
)
from arena.adapters.management.demo_seasons import setup_demo_seasons
from arena.adapters.management.demo_web import ThreadedServer, check_ports, web_server
from arena.adapters.relay.local import shared_relay
from arena.models import (
    Bot,
    BotKind,
    Entry,
    League,
    LeagueStatus,
    Match,
    MatchStatus,
)
from arena.services import bots as bot_services
from arena.services import leagues as league_services

log = logging.getLogger(__name__)

ADMIN_USER = "admin"
YOUR_BOT = "your-bot"
YOUR_BOT_CLASS = "avenue_sdk.examples.random_bot:RandomBot"
#: your-bot's token, kept in the state folder (0600) so a bot left running stays connected
YOUR_BOT_TOKEN_FILE = "your-bot-token"


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


class Command(BaseCommand):
    help = (
        "The whole arena in one process (embedded mode): migrate, admin user, demo league "
        "with house bots and an SDK bot over gRPC, rounds, standings, then serve the site, "
        "the API and the gateway until Ctrl-C."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1", help="web and gateway interface")
        parser.add_argument("--port", type=int, default=8000, help="the web site's port")
        parser.add_argument(
            "--gateway-port", type=int, help="the gateway's port (default: GATEWAY_ADDRESS's)"
        )
        parser.add_argument(
            "--rounds", type=int, default=2, help="rounds to play before serving (0: none)"
        )
        parser.add_argument(
            "--every",
            type=float,
            default=120.0,
            help="seconds between the demo league's rounds while serving (0: no more rounds)",
        )
        parser.add_argument("--search-playouts", type=int, default=100)
        parser.add_argument(
            "--state-dir",
            type=Path,
            default=settings.VAR_DIR / "demo",
            help="the admin password file and the SDK bot's log (default var/demo/)",
        )
        parser.add_argument(
            "--no-sdk-bot", action="store_true", help="house bots only, no SDK bot process"
        )
        parser.add_argument(
            "--no-bot-host",
            action="store_true",
            help="run no bot host (uploads wait; by default one runs where the sandbox works)",
        )

    # ------------------------------------------------------------------ the run

    def handle(self, *args: Any, **o: Any) -> None:
        if not settings.ARENA_EMBEDDED:
            raise CommandError(
                "manage.py demo runs in embedded mode only: unset REDIS_URL. With Redis, run "
                "the processes of docker-compose.yml (web, rungateway, workers, beat)."
            )
        if hasattr(sys.stdout, "reconfigure"):
            sys.stdout.reconfigure(line_buffering=True)  # progress lines show at once in a pipe
        if o["verbosity"] < 2:
            for name in QUIET_LOGGERS:
                logging.getLogger(name).setLevel(logging.WARNING)
            # a retried claim (a no-show bot's match played again) is routine here, not
            # something a newcomer should read as a problem
            logging.getLogger("arena.services.claims").setLevel(logging.ERROR)
            # the gateway's per-connection lines (the demo says itself when its bot connects)
            logging.getLogger("arena.adapters.gateway").setLevel(logging.WARNING)
        host = o["host"]
        gw_host, gw_port = split_address(settings.GATEWAY_ADDRESS)
        gw_host = host if o["host"] != "127.0.0.1" else gw_host
        if o["gateway_port"] is not None:
            gw_port = o["gateway_port"]
        if not 0 < gw_port < 65536 or not 0 < o["port"] < 65536:
            raise CommandError("the web and gateway ports must be numbers from 1 to 65535")
        check_ports(host, o["port"], gw_host, gw_port)
        state_dir: Path = o["state_dir"]
        state_dir.mkdir(parents=True, exist_ok=True)
        # Ctrl-C and SIGTERM (docker stop, kill) stop it cleanly, also when started in the
        # background by a shell, which leaves SIGINT ignored
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, _interrupt)

        self._section("database")
        call_command("migrate", interactive=False, verbosity=0)
        self.stdout.write(f"migrated {self._database()}")
        admin_line = self._admin(state_dir / "admin-password")

        # the same output (an OutputWrapper around another adds nothing to a line ending in \n)
        league_cmd = LeagueCommand(
            stdout=cast(TextIO, self.stdout), stderr=cast(TextIO, self.stderr)
        )
        league = league_cmd.demo_league(o["search_playouts"])
        setup_demo_seasons(league, self.stdout)  # two divisions over a short season
        gateway: GatewayThread | None = None
        sdk: subprocess.Popen[bytes] | None = None
        httpd: ThreadedServer | None = None
        stop = threading.Event()
        rounds: threading.Thread | None = None
        serving: threading.Thread | None = None
        bothost: threading.Thread | None = None
        try:
            # Bind the web port now, so nobody takes it meanwhile; requests wait in the
            # backlog until the server starts (before any round plays).
            httpd = web_server(host, o["port"])
            arena = f"{gw_host}:{gw_port}"
            sdk_bot = None
            if not o["no_sdk_bot"]:
                # started before the gateway's threads exist (a clean fork); it retries
                # until the gateway listens, a moment later
                sdk_bot, sdk = start_sdk_bot(league, arena, state_dir / "sdk-bot.log", self.stdout)
            gateway = self._gateway(gw_host, gw_port)
            self._bothost_line = "none (--no-bot-host): uploads wait in 'checking'"
            if not o["no_bot_host"]:
                local = "127.0.0.1" if gw_host in ("0.0.0.0", "", "::") else gw_host
                bothost, self._bothost_line = start_bot_host(
                    f"{local}:{gateway.port}", stop, self._bot_host_says
                )
                self.stdout.write(f"bot host: {self._bothost_line}")
            if sdk is not None and sdk_bot is not None:
                wait_connected(sdk_bot, sdk, arena, state_dir / "sdk-bot.log", self.stdout)
            # the site first: rounds play in the background and never hold it up
            serving = threading.Thread(
                target=httpd.serve_forever, kwargs={"poll_interval": 0.25}, name="demo-web"
            )
            serving.start()
            token = self._your_bot(state_dir / YOUR_BOT_TOKEN_FILE)
            subscribe_owner(YOUR_BOT, ADMIN_USER, self.stdout)
            first_rounds = threading.Event()
            if o["rounds"] > 0:
                n = o["rounds"]
                self._section(f"demo league: {n} round{'s' if n != 1 else ''}")
            if o["rounds"] > 0 or o["every"] > 0:
                rounds = threading.Thread(
                    target=self._keep_playing,
                    args=(league_cmd, league, o["rounds"], o["every"], stop, first_rounds),
                    name="demo-rounds",
                    daemon=True,
                )
                rounds.start()
            else:
                first_rounds.set()
            while not first_rounds.wait(0.25):
                pass  # the site answers meanwhile
            if o["rounds"] > 0:
                league_cmd.print_standings(league)
                if sdk is not None:
                    summary = sdk_summary()
                    if summary:
                        self.stdout.write(summary)
            start_demo_event(league, stop, self.stdout.write, f"http://{host}:{o['port']}")
            self._banner(host, o["port"], arena, admin_line, token, o["every"])
            demo_challenges.start(stop, self.stdout, f"http://{host}:{o['port']}", ADMIN_USER)
            self.stdout.write("serving (Ctrl-C stops it)")
            while serving.is_alive():
                serving.join(0.5)
        except KeyboardInterrupt:
            self.stdout.write("")
            self.stdout.write("stopping (Ctrl-C again to skip waiting for the current match)")
        finally:
            stop.set()
            if httpd is not None:
                if serving is not None and serving.is_alive():
                    httpd.shutdown()
                httpd.server_close()
            if rounds is not None and rounds.is_alive():
                try:
                    rounds.join(60)
                except KeyboardInterrupt:
                    pass
            if sdk is not None:
                stop_sdk(sdk)
            if bothost is not None:
                bothost.join(30)  # its hosted bots' streams close, their sandboxes end
            if gateway is not None:
                gateway.stop()
            self.stdout.write("stopped: web server, gateway, bot host and SDK bot")

    # ------------------------------------------------------------------ steps

    def _bot_host_says(self, line: str) -> None:
        self.stdout.write(f"bot host: {line}")

    def _section(self, title: str) -> None:
        self.stdout.write(f"\n---- {title} ----")

    def _database(self) -> str:
        db = settings.DATABASES["default"]
        if db["ENGINE"].endswith("sqlite3"):
            return f"SQLite {db['NAME']}"
        return f"{db['ENGINE'].rsplit('.', 1)[-1]} {db.get('NAME', '')}"

    def _admin(self, password_file: Path) -> str:
        """Create the admin user with a random password the first time; print the stored
        password every run while it is still the admin's (a password changed since, e.g.
        in the admin, is left alone and not shown)."""
        users = get_user_model()
        user = users.objects.filter(username=ADMIN_USER).first()
        stored = password_file.read_text().strip() if password_file.exists() else ""
        if user is not None and stored and user.check_password(stored):
            return f"user {ADMIN_USER}, password {stored}"
        if user is not None:
            self.stdout.write(
                f"user {ADMIN_USER} exists with a password this command did not set: left "
                f"alone (`manage.py changepassword {ADMIN_USER}` sets another)"
            )
            return f"user {ADMIN_USER}, your own password"
        password = secrets.token_urlsafe(12)
        users.objects.create_superuser(ADMIN_USER, "", password)
        password_file.write_text(password + "\n")
        password_file.chmod(0o600)
        self.stdout.write(f"created superuser {ADMIN_USER} (password kept in {password_file})")
        return f"user {ADMIN_USER}, password {password}"

    def _gateway(self, host: str, port: int) -> GatewayThread:
        gateway = Gateway(GatewayConfig.from_settings(), shared_relay(), DatabaseAuthenticator())
        thread = GatewayThread(gateway, f"{host}:{port}")
        try:
            thread.start()
        except (OSError, TimeoutError) as exc:
            raise CommandError(f"the gateway cannot listen on {host}:{port}: {exc}") from None
        self.stdout.write(f"gateway listening on {host}:{thread.port}")
        public_facts.set_gateway_address(f"{host}:{thread.port}")  # what the site shows
        return thread

    def _your_bot(self, token_file: Path) -> str:
        """``your-bot``, owned by admin and in no league until you enter it. Only its
        token's hash is in the database, so the token is kept in ``token_file`` (0600)
        and reused while it is still the bot's: a bot left running from the last run
        stays connected. A token revoked or rotated since (on the site) gets a new one.
        Delete the file for a new token."""
        self._token_file = token_file
        stored = token_file.read_text().strip() if token_file.exists() else ""
        bot = Bot.objects.filter(name=YOUR_BOT).first()
        if bot is None:
            owner = get_user_model().objects.filter(username=ADMIN_USER).first()
            bot, token = bot_services.create_bot(YOUR_BOT, owner=owner)
            assert token is not None
        else:
            if bot.kind != BotKind.REMOTE:
                raise CommandError(f"bot {YOUR_BOT} exists but is a house bot")
            if not bot.active:
                Bot.objects.filter(pk=bot.pk).update(active=True)
            if stored and bot.token_hash == bot_services.hash_token(stored):
                return stored
            token = bot_services.rotate_token(bot)
        token_file.touch(mode=0o600)
        token_file.chmod(0o600)
        token_file.write_text(token + "\n")
        return token

    def _banner(
        self, host: str, port: int, arena: str, admin: str, token: str, every: float
    ) -> None:
        site = f"http://{host}:{port}"
        latest = (
            Match.objects.filter(status=MatchStatus.FINISHED, participations__bot__name=SDK_BOT)
            .order_by("-id")
            .values_list("id", flat=True)
            .first()
            or Match.objects.filter(status=MatchStatus.FINISHED)
            .order_by("-id")
            .values_list("id", flat=True)
            .first()
        )
        python = sys.executable
        if python.startswith(str(settings.BASE_DIR) + os.sep):
            python = os.path.relpath(python, settings.BASE_DIR)
        self._section("Agent Avenue Arena is running")
        rows = [
            ("site", f"{site}/"),
            ("replay", f"{site}/matches/{latest}/" if latest else f"{site}/matches/"),
            ("API", f"{site}/api/leagues/   (docs {site}/api/docs/)"),
            ("health", f"{site}/healthz"),
            ("admin", f"{site}/admin/   {admin}"),
            ("gateway", f"{arena}   (gRPC, where bots connect)"),
            ("hosting", f"bot host {self._bothost_line}"),
        ]
        for name, value in rows:
            self.stdout.write(f"  {name:<8}{value}")
        self.stdout.write(f"  {'engine':<8}{_engine()}")
        self.stdout.write("")
        leagues = list(
            Entry.objects.filter(bot__name=YOUR_BOT, active=True).values_list(
                "league__name", flat=True
            )
        )
        where = f"entered in {', '.join(leagues)}" if leagues else "in no league yet"
        self.stdout.write(
            f"Your bot: {YOUR_BOT} (owned by {ADMIN_USER}, {where}; enter it in a league at "
            f"{site}/my/bots/{YOUR_BOT}/ after logging in). Its token, kept across runs "
            f"in {self._token_file} (delete it for a new one):"
        )
        self.stdout.write(f"  {token}")
        self.stdout.write(
            "Join with this one line (from this folder; elsewhere first "
            f"`pip install {site}/downloads/agent-avenue-sdk.tar.gz`, then `python`, and your "
            f"own module:Class instead of {YOUR_BOT_CLASS}):"
        )
        self.stdout.write(
            f"  {python} -m avenue_sdk run {YOUR_BOT_CLASS} --arena {arena} --token {token}"
        )
        self.stdout.write("")
        if every > 0:
            self.stdout.write(f"A new round of the demo league starts every {every:g} s.")

    def _keep_playing(
        self,
        league_cmd: LeagueCommand,
        league: League,
        first: int,
        every: float,
        stop: threading.Event,
        first_done: threading.Event,
    ) -> None:
        """The demo league's rounds, in the background while the site serves: ``first``
        rounds at once (one line per match; ``first_done`` is set after them), then one
        every ``every`` s (0: none) with any bot entered from the site since, until
        ``stop``. Embedded mode has no beat and no workers: this is their part."""
        try:
            for _ in range(first):
                if stop.is_set() or not self._round(league_cmd, league, stop, quiet=False):
                    break
        finally:
            first_done.set()
        while every > 0:
            # the site's "next round" (the demo league has no beat schedule)
            public_facts.announce_next_round(league.pk, timezone.now() + timedelta(seconds=every))
            if stop.wait(every):
                break
            self._round(league_cmd, league, stop, quiet=True)

    def _round(
        self, league_cmd: LeagueCommand, league: League, stop: threading.Event, *, quiet: bool
    ) -> bool:
        try:
            close_old_connections()
            league.refresh_from_db()
            if league.status != LeagueStatus.ACTIVE:
                return True
            return league_cmd.play_round(league, quiet=quiet, should_stop=stop.is_set)
        except league_services.LeagueError as exc:
            self.stdout.write(f"no round: {exc}")
        except Exception:  # noqa: BLE001 - keep serving; the log has the details
            log.exception("demo round failed")
        finally:
            connection.close()
        return False


def _engine() -> str:
    """Which build of the rules engine this process plays with (referee._selection)."""
    import referee

    if referee.ENGINE == "compiled":
        return "compiled (mypyc)"
    return f"pure Python: {referee.ENGINE_REASON}"

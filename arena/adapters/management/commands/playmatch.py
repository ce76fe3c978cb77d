"""``manage.py playmatch SEAT SEAT [SEAT SEAT]``: play games now and print the results.

A seat is a house bot spec (``random``, ``greedy``, ``search``, ``search:400``) or the name
of a registered bot. Remote bots play through the relay: in distributed mode (REDIS_URL
set) they connect to any running gateway; in embedded mode this command starts its own
gateway on GATEWAY_ADDRESS (or ``--gateway-port``) and waits for them.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.adapters.gateway import DatabaseAuthenticator, Gateway, GatewayConfig, GatewayThread
from arena.adapters.management.commands.rungateway import split_address
from arena.adapters.relay import RelayError, RunnerRelay, runner_relay
from arena.adapters.relay.local import shared_relay
from arena.adapters.runner import HouseSeat, MatchResult, RemoteSeat, Seat, TimeControl, run_match
from arena.deals import house_bot_seed, new_seed
from arena.models import Bot, BotKind
from referee import GameConfig
from referee.bots import HOUSE_BOTS
from referee.config import ConfigError
from referee.seeds import game_seed


def _seat(spec: str, relay: RunnerRelay, seed: int) -> Seat:
    bot = Bot.objects.filter(name=spec).first()
    if bot is None:
        if spec.partition(":")[0] not in HOUSE_BOTS:
            raise CommandError(
                f"{spec!r} is neither a registered bot nor a house bot ({', '.join(HOUSE_BOTS)})"
            )
        return HouseSeat(spec, seed)
    if bot.kind == BotKind.HOUSE:
        return HouseSeat(bot.spec, seed, name=bot.name)
    if not bot.active:
        raise CommandError(f"bot {bot.name} is deactivated")
    return RemoteSeat(str(bot.pk), bot.name, relay)


class Command(BaseCommand):
    help = __doc__.splitlines()[0] if __doc__ else ""

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("seats", nargs="+", help="one bot per seat (2, 3 or 4)")
        parser.add_argument("--mode", default="simple", choices=["simple", "advanced"])
        parser.add_argument("--ruleset", default="standard")
        parser.add_argument("--games", type=int, default=1)
        parser.add_argument(
            "--seed",
            type=int,
            help="game i (from 0) is dealt from game_seed(SEED, i), as game i of `python -m "
            "avenue_sdk play --seed SEED` is (house bots seeded alike, so the same bots in the "
            "same seats play the same game); default: a fresh secret seed per game, as in a league",
        )
        parser.add_argument("--decision-ms", type=int, default=TimeControl.decision_ms)
        parser.add_argument("--bank-ms", type=int, default=TimeControl.bank_ms)
        parser.add_argument(
            "--wait", type=float, default=60.0, help="seconds to wait for remote bots to connect"
        )
        parser.add_argument(
            "--reconnect-grace",
            type=float,
            default=30.0,
            help="seconds a remote bot whose stream dropped mid-game may take to come back",
        )
        parser.add_argument("--gateway-port", type=int, help="embedded mode: the gateway's port")
        parser.add_argument("--replay-dir", type=Path, help="write each game's replay here")
        parser.add_argument("--json", action="store_true", help="print each result as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            config = GameConfig.for_seats(
                len(options["seats"]), options["mode"], ruleset=options["ruleset"]
            )
        except ConfigError as exc:
            raise CommandError(str(exc)) from None
        relay = runner_relay()
        gateway = self._embedded_gateway(options)
        try:
            for game in range(options["games"]):
                seed = new_seed() if options["seed"] is None else game_seed(options["seed"], game)
                seats = [
                    _seat(spec, relay, house_bot_seed(seed, i))
                    for i, spec in enumerate(options["seats"])
                ]
                if game == 0:
                    remote = [s.name for s in seats if s.kind == "remote"]
                    if remote:
                        self.stdout.write(
                            f"waiting up to {options['wait']:g} s for {', '.join(remote)}"
                        )
                try:
                    outcome = run_match(
                        seats,
                        config,
                        seed,
                        match_id=f"play-{uuid.uuid4().hex[:12]}",
                        time_control=TimeControl(options["decision_ms"], options["bank_ms"]),
                        connect_grace_s=options["wait"],
                        reconnect_grace_s=options["reconnect_grace"],
                    )
                except RelayError as exc:
                    raise CommandError(
                        f"game {game + 1}: the arena failed, not a bot, and the game cannot go "
                        f"on ({exc})"
                    ) from None
                self._report(game, outcome, options)
        finally:
            if gateway is not None:
                gateway.stop()
            relay.close()

    def _embedded_gateway(self, options: dict[str, Any]) -> GatewayThread | None:
        if not settings.ARENA_EMBEDDED:
            return None
        if not Bot.objects.filter(name__in=options["seats"], kind=BotKind.REMOTE).exists():
            return None
        host, port = split_address(settings.GATEWAY_ADDRESS)
        if options["gateway_port"] is not None:
            port = options["gateway_port"]
        gateway = Gateway(GatewayConfig.from_settings(), shared_relay(), DatabaseAuthenticator())
        thread = GatewayThread(gateway, f"{host}:{port}")
        bound = thread.start()
        self.stdout.write(f"gateway listening on {host}:{bound}")
        return thread

    def _report(self, game: int, outcome: MatchResult, options: dict[str, Any]) -> None:
        if options["replay_dir"] is not None:
            options["replay_dir"].mkdir(parents=True, exist_ok=True)
            path = options["replay_dir"] / f"{outcome.match_id}.json"
            path.write_text(outcome.record.dumps())
        if options["json"]:
            self.stdout.write(json.dumps(outcome.to_json()))
            return
        names = [s.name for s in outcome.seats]
        if outcome.result is None:
            what = "aborted: " + ", ".join(f"{f.bot} {f.cause.label}" for f in outcome.faults)
        else:
            r = outcome.result
            winners = ", ".join(s.name for s in outcome.seats if s.team == r.winner)
            what = f"team {'AB'[r.winner]} ({winners}) wins by {r.reason.value}"
            what += f" after {r.turns} turns"
            if outcome.faults:
                f = outcome.faults[0]
                what += f" ({f.bot}: {f.cause.label}: {f.detail})"
        self.stdout.write(f"game {game + 1} {' vs '.join(names)}: {what}")

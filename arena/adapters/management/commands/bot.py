"""``manage.py bot create|rotate|revoke|list``: bots and their tokens."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.models import Bot, BotKind
from arena.services import bots


class Command(BaseCommand):
    help = "Create bots and manage their tokens (a token is printed once and stored hashed)."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="create a bot and print its token")
        create.add_argument("name")
        create.add_argument("--owner", help="username of the bot's owner")
        create.add_argument(
            "--house", action="store_true", help="a house bot (random, greedy, search): no token"
        )
        rotate = sub.add_parser("rotate", help="print a new token; the old one stops working")
        rotate.add_argument("name")
        revoke = sub.add_parser("revoke", help="no token works for the bot until `rotate`")
        revoke.add_argument("name")
        sub.add_parser("list", help="list bots")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            getattr(self, f"do_{options['action']}")(options)
        except bots.BotError as exc:
            raise CommandError(str(exc)) from None

    def do_create(self, options: dict[str, Any]) -> None:
        owner = None
        if options["owner"]:
            try:
                owner = get_user_model().objects.get(username=options["owner"])
            except get_user_model().DoesNotExist:
                raise CommandError(f"no user named {options['owner']!r}") from None
        kind = BotKind.HOUSE if options["house"] else BotKind.REMOTE
        bot, token = bots.create_bot(options["name"], owner=owner, kind=kind)
        self.stdout.write(f"created {kind.label} bot {bot.name} (id {bot.pk})")
        if token:
            self._token(token)

    def do_rotate(self, options: dict[str, Any]) -> None:
        self._token(bots.rotate_token(bots.get_bot(options["name"])))

    def do_revoke(self, options: dict[str, Any]) -> None:
        bots.revoke_token(bots.get_bot(options["name"]))
        self.stdout.write(f"revoked the token of {options['name']}")

    def do_list(self, options: dict[str, Any]) -> None:
        for bot in Bot.objects.all():
            seen = bot.last_seen_at.isoformat(timespec="seconds") if bot.last_seen_at else "never"
            token = bot.token_prefix + "..." if bot.token_prefix else "-"
            state = "" if bot.active else " (inactive)"
            self.stdout.write(
                f"{bot.pk:>5}  {bot.name:<24} {bot.kind:<7} token {token:<14} seen {seen}{state}"
            )

    def _token(self, token: str) -> None:
        self.stdout.write("token (shown once, keep it secret):")
        self.stdout.write(token)

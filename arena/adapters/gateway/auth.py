"""Who a stream's token belongs to. Blocking calls: the gateway runs them in a thread pool,
so the event loop never waits on the database."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol, TypeVar

from django.db import close_old_connections

from arena.models import BotKind
from arena.services import bots
from arena.services.bots import BotIdentity

T = TypeVar("T")


class Authenticator(Protocol):
    def authenticate(self, token: str) -> BotIdentity | None: ...

    def hello(self, bot_id: str, protocol_version: int, bot_version: str) -> None: ...

    def seen(self, bot_id: str) -> None: ...


def _fresh_connection(fn: Callable[[], T]) -> T:
    # Gateway threads live for days: drop connections the database may have closed.
    close_old_connections()
    try:
        return fn()
    finally:
        close_old_connections()


class DatabaseAuthenticator:
    """Tokens of ``arena.models.Bot`` (hashed), through ``arena.services.bots``."""

    def authenticate(self, token: str) -> BotIdentity | None:
        bot = _fresh_connection(lambda: bots.authenticate_token(token))
        if bot is None:
            return None
        return BotIdentity(str(bot.pk), bot.name, hosted=bot.kind == BotKind.HOSTED)

    def hello(self, bot_id: str, protocol_version: int, bot_version: str) -> None:
        _fresh_connection(
            lambda: bots.record_hello(
                bot_id, protocol_version=protocol_version, bot_version=bot_version
            )
        )

    def seen(self, bot_id: str) -> None:
        _fresh_connection(lambda: bots.record_seen(bot_id))


class StaticAuthenticator:
    """A fixed token -> bot table, for benchmarks and tools that need no database."""

    def __init__(self, tokens: Mapping[str, BotIdentity]) -> None:
        self._tokens = dict(tokens)

    def authenticate(self, token: str) -> BotIdentity | None:
        return self._tokens.get(token)

    def hello(self, bot_id: str, protocol_version: int, bot_version: str) -> None:
        pass

    def seen(self, bot_id: str) -> None:
        pass

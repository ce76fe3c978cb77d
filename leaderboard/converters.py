"""URL converters that refuse what the database could not hold (no 500 on a crafted URL)."""

from __future__ import annotations

from django.urls import register_converter

from arena import names


class IdConverter:
    """A positive id that fits PostgreSQL's bigint."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


class BotNameConverter:
    """A name that keeps the bot name rule (others were never given: 404)."""

    regex = names.PATTERN

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(IdConverter, "id")
register_converter(BotNameConverter, "botname")

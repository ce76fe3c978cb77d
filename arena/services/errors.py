"""The error every league service raises for a refused request."""

from __future__ import annotations


class LeagueError(ValueError):
    """A league request refused, with a message for a person; ``field`` names the setting
    at fault when there is one (the admin shows the message beside it)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field

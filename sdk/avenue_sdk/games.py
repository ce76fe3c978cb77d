"""The arena's game database, read for analysis and imitation learning.

    from avenue_sdk import games

    for game in games.load("demo-2026-12.ndjson.gz"):          # a league page's archive
        print(game.match, game.bots, game.winner_team, game.end_reason)
        record = game.record                                      # a referee.replay Record
    for game in games.load("http://127.0.0.1:8000/api/games/?league=demo&bot=your-bot"):
        ...

``load`` takes a path (``.ndjson``, or ``.ndjson.gz``) or an ``http(s)://`` URL of the
stream (``/api/games/``) or of an archive, and yields one ``Game`` per line as it reads
(a month of a busy league need not fit in memory). ``Game.record`` re-reads the replay
with ``referee.replay.loads``; ``referee.replay.validate(game.record)`` re-simulates it
through the rules, and ``game.positions()`` walks every decision with what the deciding
seat saw (``referee.observation.observe``), the legal choices and the choice made: the
pairs an imitation learner needs. ``examples/game_stats.py`` is a short script over it.
"""

from __future__ import annotations

import gzip
import io
import json
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from referee import apply, legal_actions
from referee.actions import Action
from referee.observation import Observation, observe
from referee.replay import Record, loads


@dataclass(frozen=True)
class Game:
    """One line of the game database."""

    match: int
    league: str
    mode: str
    seats: int
    finished_at: str | None
    #: the bots' names, by seat
    bots: tuple[str, ...]
    winner_team: int | None
    end_reason: str
    turns: int | None
    #: the stored replay, as JSON
    replay: dict[str, Any] = field(repr=False)

    @property
    def record(self) -> Record:
        return loads(json.dumps(self.replay))

    def positions(self) -> Iterator[tuple[Observation, tuple[Action, ...], Action]]:
        """Every decision of the game: (what the deciding seat saw, the legal choices, the
        choice made), in order, by replaying the record through the referee."""
        record = self.record
        state = record.initial_state()
        for decision in record.decisions:
            legal = tuple(legal_actions(state))
            yield observe(state, state.actor), legal, decision.action
            state = apply(state, decision.action)


def _open(source: str | Path) -> IO[bytes]:
    text = str(source)
    if text.startswith(("http://", "https://")):
        request = urllib.request.Request(text, headers={"Accept": "application/x-ndjson"})
        raw: IO[bytes] = urllib.request.urlopen(request, timeout=60)  # noqa: S310 - a URL the user gave
    else:
        raw = open(Path(text), "rb")  # noqa: SIM115 - closed by load
    head = raw.peek(2)[:2] if isinstance(raw, io.BufferedReader) else b""
    if text.endswith(".gz") or head == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=raw)  # type: ignore[return-value]
    return raw


def load(source: str | Path) -> Iterator[Game]:
    """The games of an archive file or of the arena's stream (see the module's docstring)."""
    stream = _open(source)
    try:
        for number, line in enumerate(stream, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                yield Game(
                    match=int(row["match"]),
                    league=str(row["league"]),
                    mode=str(row["mode"]),
                    seats=int(row["seats"]),
                    finished_at=row.get("finished_at"),
                    bots=tuple(row["bots"]),
                    winner_team=row.get("winner_team"),
                    end_reason=str(row.get("end_reason") or ""),
                    turns=row.get("turns"),
                    replay=row["replay"],
                )
            except (ValueError, KeyError, TypeError) as exc:
                raise ValueError(f"{source}: line {number} is not a game ({exc})") from None
    finally:
        stream.close()

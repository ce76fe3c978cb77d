"""The game database: every finished match as one line of NDJSON, streamed with filters
(``/api/games/``) or written as a compressed archive per league and month (``manage.py
export-games``), listed with sizes and checksums on the league page (as lichess's database
is).

A line is one game: ``{"match", "league", "mode", "seats", "finished_at", "bots",
"winner_team", "end_reason", "turns", "replay"}``, where ``replay`` is the stored
``referee.replay`` record (the deck order, every decision, the result), exactly what
``/api/matches/<id>/replay/`` serves. A finished game whose mirrored partner (same deck) is
still being played is left out until the partner is over, as everywhere on the site.
``avenue_sdk.games.load`` reads both forms.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.db.models import Exists, OuterRef, TextField
from django.db.models.functions import Cast

from arena.models import League, Match, MatchReplay, MatchStatus

#: games read from the database at a time while streaming
BATCH = 200
#: statuses after which a match's game is settled (its partner may be shown)
OVER = (MatchStatus.FINISHED, MatchStatus.VOID)
#: an archive's file name: the league's slug and the month
ARCHIVE_NAME = re.compile(r"(?P<slug>[-a-zA-Z0-9_]{1,80})-(?P<month>\d{4}-\d{2})\.ndjson\.gz")
MONTH = re.compile(r"\d{4}-(0[1-9]|1[0-2])")


@dataclass(frozen=True)
class Filters:
    league: League | None = None
    #: a bot's name: only the games it played
    bot: str | None = None
    #: only matches with a larger id (a cursor: the last ``match`` read)
    after: int = 0
    #: finished in this month, "YYYY-MM" (UTC)
    month: str | None = None
    #: at most this many games (None: all)
    limit: int | None = None


def _month_range(month: str) -> tuple[datetime, datetime]:
    year, mon = int(month[:4]), int(month[5:7])
    start = datetime(year, mon, 1, tzinfo=UTC)
    end = datetime(year + (mon == 12), mon % 12 + 1, 1, tzinfo=UTC)
    return start, end


def partner_busy(via: str = "match__") -> Exists:
    """For a ``MatchReplay`` row (or, with ``via=""``, a ``Match`` row): a partner of the
    same deal not over yet (its game is withheld while one exists; the site's replay
    endpoint and TV ask the same)."""
    return Exists(
        Match.objects.filter(
            round_id=OuterRef(f"{via}round_id"),
            pairing_key=OuterRef(f"{via}pairing_key"),
            pair_index=OuterRef(f"{via}pair_index"),
            deck_seed=OuterRef(f"{via}deck_seed"),
        )
        .exclude(pk=OuterRef(f"{via}id"))
        .exclude(status__in=OVER)
    )


def lines(filters: Filters) -> Iterator[bytes]:
    """The games as NDJSON lines (bytes, each ending in a newline), by match id."""
    rows = MatchReplay.objects.filter(match__status=MatchStatus.FINISHED).annotate(
        text=Cast("record", TextField()), busy=partner_busy()
    )
    if filters.league is not None:
        rows = rows.filter(match__league=filters.league)
    if filters.bot:
        rows = rows.filter(match__participations__bot__name=filters.bot)
    if filters.month:
        start, end = _month_range(filters.month)
        rows = rows.filter(match__finished_at__gte=start, match__finished_at__lt=end)
    rows = rows.filter(busy=False).distinct()
    after, left = filters.after, filters.limit
    while left is None or left > 0:
        take = BATCH if left is None else min(BATCH, left)
        batch = list(
            rows.filter(match_id__gt=after)
            .order_by("match_id")
            .values_list(
                "match_id",
                "text",
                "match__league__slug",
                "match__league__mode",
                "match__league__seats",
                "match__finished_at",
                "match__winner_team",
                "match__end_reason",
                "match__turns",
            )[:take]
        )
        if not batch:
            return
        names = _names([row[0] for row in batch])
        for match_id, text, slug, mode, seats, finished, winner, reason, turns in batch:
            head = {
                "match": match_id,
                "league": slug,
                "mode": mode,
                "seats": seats,
                "finished_at": finished.isoformat() if finished else None,
                "bots": names.get(match_id, []),
                "winner_team": winner,
                "end_reason": reason,
                "turns": turns,
            }
            # the stored replay as it is, not parsed and written again
            yield json.dumps(head)[:-1].encode() + b', "replay": ' + text.encode() + b"}\n"
        after = batch[-1][0]
        if left is not None:
            left -= len(batch)


def _names(match_ids: list[int]) -> dict[int, list[str]]:
    from arena.models import Participation

    out: dict[int, list[str]] = {}
    for match_id, name in (
        Participation.objects.filter(match_id__in=match_ids)
        .order_by("match_id", "seat")
        .values_list("match_id", "bot__name")
    ):
        out.setdefault(match_id, []).append(name)
    return out


# --- archives


@dataclass(frozen=True)
class Archive:
    league: str
    month: str
    path: Path
    size: int
    sha256: str
    games: int

    @property
    def name(self) -> str:
        return self.path.name


def folder(league: League) -> Path:
    return Path(settings.ARENA_ARCHIVE_DIR) / league.slug


def months_with_games(league: League) -> list[str]:
    """Every month (UTC) in which a game of the league finished, oldest first."""
    found = Match.objects.filter(
        league=league, status=MatchStatus.FINISHED, finished_at__isnull=False
    ).dates("finished_at", "month")
    return [f"{d.year:04d}-{d.month:02d}" for d in found]


def write_archive(league: League, month: str) -> Archive:
    """Write (or rewrite) the league's archive of ``month``: gzipped NDJSON, then its
    ``.sha256`` (``sha256sum`` format); both appear at once (written aside, renamed)."""
    if not MONTH.fullmatch(month):
        raise ValueError(f"month {month!r}: expected YYYY-MM")
    out = folder(league)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{league.slug}-{month}.ndjson.gz"
    tmp = path.with_suffix(".gz.tmp")
    digest = hashlib.sha256()
    games = 0
    with open(tmp, "wb") as raw:
        # mtime 0: the same games give the same bytes, so the checksum says "unchanged"
        with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as gz:
            for line in lines(Filters(league=league, month=month)):
                gz.write(line)
                games += 1
    with open(tmp, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    sha = digest.hexdigest()
    side = path.with_name(path.name + ".sha256")
    side_tmp = side.with_suffix(".sha256.tmp")
    side_tmp.write_text(f"{sha}  {path.name}\n# games: {games}\n")
    os.replace(tmp, path)
    os.replace(side_tmp, side)
    return Archive(league.slug, month, path, path.stat().st_size, sha, games)


def archives(league: League) -> list[Archive]:
    """The league's archives on disk, newest month first (those with their checksum)."""
    out = []
    base = folder(league)
    if not base.is_dir():
        return []
    for path in base.glob(f"{league.slug}-*.ndjson.gz"):
        found = ARCHIVE_NAME.fullmatch(path.name)
        side = path.with_name(path.name + ".sha256")
        if found is None or found["slug"] != league.slug or not side.is_file():
            continue
        text = side.read_text().splitlines()
        sha = text[0].split()[0] if text else ""
        games = next((int(t.split(":")[1]) for t in text if t.startswith("# games:")), 0)
        out.append(Archive(league.slug, found["month"], path, path.stat().st_size, sha, games))
    return sorted(out, key=lambda a: a.month, reverse=True)


def archive_path(league: League, name: str) -> Path | None:
    """The file behind a download link, or None (a crafted name is never a path)."""
    found = ARCHIVE_NAME.fullmatch(name)
    if found is None or found["slug"] != league.slug:
        return None
    path = folder(league) / name
    return path if path.is_file() else None

"""Figures over the arena's game database: a league page's monthly archive or the stream.

    python -m avenue_sdk.examples.game_stats demo-2026-12.ndjson.gz
    python -m avenue_sdk.examples.game_stats "http://127.0.0.1:8000/api/games/?league=demo"

Prints how many games, how often the team that moved first won, the end reasons, the mean
length, each bot's record, and how often each agent was played face up: what a first look
at a month of games, or at a bot's games before imitating it, wants to know.
"""

from __future__ import annotations

import sys
from collections import Counter

from avenue_sdk import games
from referee import PlayFaceUp
from referee.actions import Play


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    n = first_won = 0
    reasons: Counter[str] = Counter()
    turns: list[int] = []
    record: dict[str, list[int]] = {}
    face_up: Counter[str] = Counter()
    for game in games.load(argv[0]):
        n += 1
        rec = game.record
        reasons[game.end_reason] += 1
        if game.turns is not None:
            turns.append(game.turns)
        if game.winner_team is not None and game.winner_team == rec.config.first_team:
            first_won += 1
        for seat, bot in enumerate(game.bots):
            won = rec.config.team_of(seat) == game.winner_team
            w, g = record.setdefault(bot, [0, 0])
            record[bot] = [w + won, g + 1]
        for d in rec.decisions:
            if isinstance(d.action, Play):
                face_up[d.action.up.name] += 1
            elif isinstance(d.action, PlayFaceUp):
                face_up[d.action.card.name] += 1
    if not n:
        print("no games")
        return 0
    print(f"{n} games; the team moving first won {100 * first_won / n:.1f}%")
    print(f"mean length {sum(turns) / max(1, len(turns)):.1f} turns")
    print("end reasons: " + ", ".join(f"{r} {c}" for r, c in reasons.most_common()))
    print("bots (games won / played):")
    for bot, (w, g) in sorted(record.items(), key=lambda kv: -kv[1][0] / kv[1][1]):
        print(f"  {bot:24} {w:5} / {g:<5} {100 * w / g:5.1f}%")
    print("played face up: " + ", ".join(f"{a} {c}" for a, c in face_up.most_common()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

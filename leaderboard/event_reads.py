"""A tournament as its page and ``/api/tournaments/<slug>/`` show it: rounds, pairings
(with their games' links), byes, and the table (Swiss, round robin) or the bracket
(knockout), by bot name. A game's winner shows once its pair is over (as the league pages
hold back a mirrored pair's first result); a pairing counts in the table once it is over.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Max
from django.urls import reverse

from arena.events import results
from arena.events.models import Tournament, TournamentFormat
from arena.events.services import planned_rounds
from arena.models import Bot, Round, RoundStatus

#: the Swiss / round-robin ranking rule, as the page states it
TABLE_RULE = (
    "match points (a pairing won: 1, level: 1/2, lost: 0; a Swiss bye: 1), then Buchholz "
    "(the opponents' points), median-Buchholz (without the best and the worst opponent), "
    "Sonneborn-Berger (the points of the opponents beaten, half of those level), games "
    "won, seed"
)


def summaries() -> list[dict[str, Any]]:
    """Every tournament, newest first, for the events list."""
    rows = list(
        Tournament.objects.select_related("winner", "league")
        .annotate(bots=Count("entrants", distinct=True))
        .order_by("-created_at")
    )
    played = dict(
        Round.objects.filter(league__tournament__in=rows)
        .values("league_id")
        .annotate(n=Max("number"))
        .values_list("league_id", "n")
    )
    return [_summary(t, t.bots, played.get(t.league_id, 0)) for t in rows]  # type: ignore[attr-defined]


def _summary(t: Tournament, bots: int, played: int) -> dict[str, Any]:
    return {
        "slug": t.slug,
        "name": t.name,
        "description": t.description,
        "format": t.format,
        "format_label": t.get_format_display(),
        "status": t.status,
        "rated": t.league.rated,
        "deals": t.league.deals,
        "games_per_pairing": t.games_per_pairing,
        "bots": bots,
        "rounds_planned": planned_rounds(t, bots),
        "rounds_played": played,
        "winner": t.winner.name if t.winner_id and t.winner else None,
        "url": reverse("leaderboard:event", args=[t.slug]),
        "api_url": reverse("api:tournament", args=[t.slug]),
        "created_at": t.created_at.isoformat(),
    }


def detail(t: Tournament) -> dict[str, Any]:
    """Everything the page and the API show of one tournament."""
    entrants = results.seeds(t)
    names = dict(Bot.objects.filter(pk__in=entrants).values_list("pk", "name"))
    rounds = {r.number: r for r in Round.objects.filter(league_id=t.league_id)}
    out = _summary(t, len(entrants), max(rounds, default=0))
    out["entrants"] = [
        {
            "bot": e.bot.name,
            "seed": e.seed,
            "seed_rating": None if e.seed_rating is None else float(e.seed_rating),
        }
        for e in sorted(entrants.values(), key=lambda e: (e.seed or 0, e.listed))
    ]
    played = results.pairing_results(t)
    byes = results.byes(t)
    out["rounds"] = [
        {
            "number": n,
            "status": rounds[n].status,
            "complete": rounds[n].status == RoundStatus.COMPLETE,
            "pairings": [_pairing(pr, names) for pr in played.get(n, [])],
            "byes": [names[b] for b in byes.get(n, [])],
        }
        for n in sorted(rounds)
    ]
    out["standings"] = None
    out["bracket"] = None
    if t.format == TournamentFormat.KNOCKOUT:
        out["rule"] = results.KNOCKOUT_TIE_BREAK
        out["bracket"] = [
            [_tie(tie, names) for tie in ties] for ties in results.bracket(t)
        ] if t.status != "draft" else []  # fmt: skip
    else:
        out["rule"] = TABLE_RULE
        out["standings"] = [
            {
                "rank": row.rank,
                "bot": row.name,
                "seed": row.seed,
                "score": row.score,
                "buchholz": row.buchholz,
                "median_buchholz": row.median_buchholz,
                "sonneborn_berger": row.sonneborn_berger,
                "games_won": row.games_won,
                "games": row.games,
                "byes": row.byes,
            }
            for row in results.table(t)
        ] if t.status != "draft" else []  # fmt: skip
    return out


def _games(pr: results.PairingResult, names: dict[int, str]) -> list[dict[str, Any]]:
    return [
        {
            "match": g.match_id,
            "url": reverse("leaderboard:match", args=[g.match_id]),
            "status": g.status,
            "winner": names[g.winner] if g.winner and pr.released(g) else None,
        }
        for g in pr.games
    ]


def _pairing(pr: results.PairingResult, names: dict[int, str]) -> dict[str, Any]:
    return {
        "a": names[pr.a],
        "b": names[pr.b],
        "a_wins": pr.shown_wins(pr.a),
        "b_wins": pr.shown_wins(pr.b),
        "over": pr.over,
        "games": _games(pr, names),
    }


def _tie(tie: results.Tie, names: dict[int, str]) -> dict[str, Any]:
    pr = tie.result
    return {
        "round": tie.round_number,
        "a": names.get(tie.a) if tie.a else None,
        "b": names.get(tie.b) if tie.b else None,
        "bye": tie.decided_by == "bye",
        "a_wins": pr.shown_wins(tie.a) if pr and tie.a else 0,
        "b_wins": pr.shown_wins(tie.b) if pr and tie.b else 0,
        "winner": names.get(tie.winner) if tie.winner else None,
        "decided_by": tie.decided_by,
        "games": _games(pr, names) if pr else [],
    }

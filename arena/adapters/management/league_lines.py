"""How ``manage.py league`` (and the demo) print a match and a league's standings."""

from __future__ import annotations

from arena.models import League, Match, MatchStatus
from arena.ratings.services import standings


def match_line(match_id: int) -> str:
    """``a vs b: b wins by REASON after N turns, b +12.0 Elo`` (or void, and why)."""
    match = Match.objects.get(pk=match_id)
    parts = list(match.participations.select_related("bot").order_by("seat"))
    teams = ["+".join(p.bot.name for p in parts if p.team == t) for t in (0, 1)]
    head = f"{teams[0]} vs {teams[1]}: "
    if match.status == MatchStatus.VOID:
        return head + f"void ({match.end_reason})"
    assert match.winner_team is not None
    winner = teams[match.winner_team]
    change = ""
    if match.rated:
        # the winner's change (the first-named bot's read as a loss when it won)
        w = next(p for p in parts if p.team == match.winner_team)
        change = f", {w.bot.name} {w.rating_change:+.1f} Elo"
    turns = f"{match.turns} turn{'' if match.turns == 1 else 's'}"
    reason = (match.end_reason or "").replace("_", " ")
    return head + f"{winner} wins by {reason} after {turns}{change}"


def standings_lines(league: League) -> list[str]:
    """The standings as a table, in the site's order: the batch fit's (bots not in a fit
    yet after, by live Elo)."""
    rows = sorted(
        standings(league),
        key=lambda r: (r.batch is None, -(r.batch.elo if r.batch else float(r.rating))),
    )
    out = [
        "",
        f"Standings of {league.name} (# follows the batch fit)",
        f"{'#':>3}  {'bot':<20} {'Elo':>7}  {'batch Elo [95%]':<22} {'rank':<7} "
        f"{'games':>5} {'W':>4} {'L':>4} {'forfeits':>8}",
    ]
    for i, s in enumerate(rows, 1):
        b = s.batch
        batch = f"{b.elo:6.0f} [{b.low:.0f}, {b.high:.0f}]" if b else "-"
        rank = f"{b.rank_low}-{b.rank_high}" if b else "-"
        out.append(
            f"{i:>3}  {s.bot:<20} {float(s.rating):7.1f}  {batch:<22} {rank:<7} "
            f"{s.games:>5} {s.wins:>4} {s.losses:>4} {s.forfeits:>8}"
        )
    return out

"""Live Elo: pure functions, no ORM (STYLE.md #11).

Team games use the mean rating of each team; every member of a team gets the same change
and the changes sum to zero across both teams, so a league's total rating is conserved.
"""

from __future__ import annotations

from collections.abc import Sequence

START = 1500.0
DEFAULT_K = 24.0


def expected_score(rating: float, opponent: float) -> float:
    """Probability that ``rating`` beats ``opponent`` under the Elo (logistic) model."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))


def elo_update(
    rating_a: float, rating_b: float, score_a: float, k: float = DEFAULT_K
) -> tuple[float, float]:
    """New ratings after one game; ``score_a`` is 1 (A won), 0 (A lost) or 0.5."""
    delta = k * (score_a - expected_score(rating_a, rating_b))
    return rating_a + delta, rating_b - delta


def team_deltas(
    team_a: Sequence[float], team_b: Sequence[float], score_a: float, k: float = DEFAULT_K
) -> tuple[list[float], list[float]]:
    """Per-member rating changes for a game between two teams (sizes 1 or 2).

    The expected score compares the teams' mean ratings; each member of A moves by ``d``
    and each member of B by ``-d * len(A) / len(B)``, so the changes sum to zero.
    """
    if not team_a or not team_b:
        raise ValueError("each team needs at least one member")
    mean_a = sum(team_a) / len(team_a)
    mean_b = sum(team_b) / len(team_b)
    d = k * (score_a - expected_score(mean_a, mean_b))
    return [d] * len(team_a), [-d * len(team_a) / len(team_b)] * len(team_b)

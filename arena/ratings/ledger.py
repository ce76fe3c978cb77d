"""Live Elo changes of one match as exact decimals (pure: no ORM).

``arena.ratings.elo.team_deltas`` gives float changes; the ledger rounds them once, to
``PLACES`` decimals, in a way that keeps them exactly zero-sum: teams of equal size get
``+d`` and ``-d``; with one player against two, the pair's per-member change is rounded and
the solo player gets exactly minus twice it. The live rating rows store these decimals, so
a league's total never drifts and replaying the ledger in order (``recompute``) gives
exactly the stored values.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_EVEN, Decimal

from arena.ratings.elo import team_deltas

PLACES = Decimal("0.0001")


class ZeroSumViolation(ArithmeticError):
    """Rating changes that do not sum to zero: a bug; nothing may be written."""


def _q(x: float) -> Decimal:
    return Decimal(repr(x)).quantize(PLACES, rounding=ROUND_HALF_EVEN)


def match_changes(
    ratings: Sequence[Decimal], teams: Sequence[int], winner: int, k: float
) -> list[Decimal]:
    """The change of each seat's rating: ``ratings[s]`` before the match, ``teams[s]`` its
    team (0 = A, 1 = B), ``winner`` the winning team."""
    seats_a = [s for s, t in enumerate(teams) if t == 0]
    seats_b = [s for s, t in enumerate(teams) if t == 1]
    da, db = team_deltas(
        [float(ratings[s]) for s in seats_a],
        [float(ratings[s]) for s in seats_b],
        1.0 if winner == 0 else 0.0,
        k,
    )
    if len(seats_a) >= len(seats_b):
        qa = _q(da[0])
        qb = -qa * len(seats_a) / len(seats_b)
    else:
        qb = _q(db[0])
        qa = -qb * len(seats_b) / len(seats_a)
    changes = [qa if t == 0 else qb for t in teams]
    check_zero_sum(changes)
    return changes


def check_zero_sum(changes: Sequence[Decimal]) -> None:
    total = sum(changes, Decimal(0))
    if total != 0:
        raise ZeroSumViolation(f"rating changes {list(map(str, changes))} sum to {total}, not 0")

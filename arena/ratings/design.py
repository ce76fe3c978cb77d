"""A league's games as the batch fit sees them: the rows of a sparse design matrix, one a
match-up, with each row's wins and games (the likelihood's sufficient statistics), and
the likelihood's gradient, Hessian and units' score variance on them.

A match-up is a pair of teams in either order: the model has no side advantage, so B
against A is A against B with the score turned (``1 - s``), and a round robin of n bots,
every pairing a pair of games with the teams swapped, is n(n-1)/2 rows for its n(n-1)
games. Distinct keys are found by a table where it is small (``compact``), not a sort.
Used by ``arena.ratings.batch``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

ELO_SCALE = 400.0 / math.log(10.0)  # logistic units -> Elo points
#: a weak Gaussian prior (sd 1000 Elo) keeps undefeated or winless players finite
PRIOR = (ELO_SCALE / 1000.0) ** 2


@dataclass(frozen=True)
class Game:
    team_a: tuple[int, ...]  # player indices 0..n-1, one or two per team
    team_b: tuple[int, ...]
    a_won: bool
    unit: int = 0  # the games of one mirrored pair share a unit id


@dataclass(frozen=True)
class Results:
    """Games as arrays: ``team_a``/``team_b`` are (games x 2) player indices, -1 = no one."""

    n: int
    team_a: np.ndarray
    team_b: np.ndarray
    a_won: np.ndarray
    unit: np.ndarray

    @classmethod
    def of(cls, n: int, games: Sequence[Game]) -> Results:
        def padded(teams: list[tuple[int, ...]]) -> np.ndarray:
            out = np.full((len(teams), 2), -1, dtype=np.int64)
            for i, team in enumerate(teams):
                out[i, : len(team)] = sorted(team)
            return out

        return cls(
            n,
            padded([g.team_a for g in games]),
            padded([g.team_b for g in games]),
            np.fromiter((g.a_won for g in games), dtype=bool, count=len(games)),
            np.fromiter((g.unit for g in games), dtype=np.int64, count=len(games)),
        )


def compact(keys: np.ndarray, space: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of ``keys`` (non-negative, below ``space``), sorted, and each
    key's index among them: ``np.unique(keys, return_inverse=True)``, by a table instead
    of a sort where the table is small."""
    if space > max(4 * len(keys), 1 << 22):
        uniq, inverse = np.unique(keys, return_inverse=True)
        return uniq, inverse.reshape(-1)
    present = np.zeros(space, dtype=bool)
    present[keys] = True
    index = np.cumsum(present) - 1
    return np.flatnonzero(present), index[keys]


class Design:
    """Distinct match-ups as rows of a sparse matrix, and each row's wins and games: the
    sufficient statistics of the likelihood, however many games a row holds (a round
    robin of n bots has n(n-1)/2 rows for its n(n-1) games). A match-up is a pair of teams
    in either order (the model has no side advantage: B against A is A against B with the
    score turned, ``1 - s``); games map to rows so that a bootstrap replicate only
    re-weights the rows."""

    def __init__(self, res: Results) -> None:
        n = res.n
        #: every row one player against one (its entries 1 and -1)
        self.single = bool(np.all(res.team_a[:, 1] < 0) and np.all(res.team_b[:, 1] < 0))
        if self.single:
            a, b = res.team_a[:, 0], res.team_b[:, 0]
            turned = a > b
            low, high = np.minimum(a, b), np.maximum(a, b)
            uniq, self.row_of_game = compact(low * n + high, n * n)
            rows = len(uniq)
            self.x = sparse.csr_matrix(
                (
                    np.tile([1.0, -1.0], rows),
                    np.stack([uniq // n, uniq % n], axis=1).ravel(),
                    np.arange(0, 2 * rows + 1, 2),
                ),
                shape=(rows, n),
            )
        else:
            turned = self._teams(res)
        self.xt = self.x.T  # a CSC view: no copy
        self._pairs: tuple[np.ndarray, ...] | None = None
        #: the outcomes' dispersion the games were weighted by (``posterior.dispersion``)
        self.dispersion = 1.0
        #: (prior precision, mode, inverse Hessian) of the last posterior the fit computed
        self.posterior: tuple[float, np.ndarray, np.ndarray, np.ndarray] | None = None
        #: the data's Hessian at the first mode and the games it was for (``posterior.dispersion``)
        self.start_data: np.ndarray | None = None
        self.start_total = 1.0
        #: (ratings, Hessian there) where a Newton run stopped on its step tolerance
        self.stopped: tuple[np.ndarray, np.ndarray] | None = None
        score = res.a_won.astype(float)  # 1, 0, or a draw's 1/2
        self.won = np.where(turned, 1.0 - score, score)  # for the row's first team
        units = res.unit - (int(res.unit.min()) if len(res.unit) else 0)
        _, self.unit_of_game = compact(units, int(units.max()) + 1 if len(units) else 1)
        self.n_units = int(self.unit_of_game.max()) + 1 if len(res.unit) else 0
        self.n = n

    def _teams(self, res: Results) -> np.ndarray:
        """The rows of a league with 2-player teams; which games were turned."""
        n = res.n
        # one integer per team (two players, -1 padded); a match-up is its two teams'
        # integers in ascending order, the game's score turned where they were not
        team_key_a = (res.team_a[:, 0] + 1) * (n + 1) + res.team_a[:, 1] + 1
        team_key_b = (res.team_b[:, 0] + 1) * (n + 1) + res.team_b[:, 1] + 1
        teams, team_of = compact(np.concatenate([team_key_a, team_key_b]), (n + 1) ** 2)
        first_team, second_team = np.split(team_of, 2)
        turned = first_team > second_team
        low = np.where(turned, second_team, first_team)
        high = np.where(turned, first_team, second_team)
        uniq, self.row_of_game = compact(low * len(teams) + high, len(teams) ** 2)
        low_key, high_key = teams[uniq // len(teams)], teams[uniq % len(teams)]
        rows_a = np.stack([low_key // (n + 1), low_key % (n + 1)], axis=1) - 1
        rows_b = np.stack([high_key // (n + 1), high_key % (n + 1)], axis=1) - 1
        size_a = (rows_a >= 0).sum(axis=1)
        size_b = (rows_b >= 0).sum(axis=1)
        r_idx, c_idx, vals = [], [], []
        for team, size, sign in ((rows_a, size_a, 1.0), (rows_b, size_b, -1.0)):
            for col in (0, 1):
                present = team[:, col] >= 0
                r_idx.append(np.nonzero(present)[0])
                c_idx.append(team[present, col])
                vals.append(sign / size[present])
        self.x = sparse.csr_matrix(
            (np.concatenate(vals), (np.concatenate(r_idx), np.concatenate(c_idx))),
            shape=(len(uniq), n),
        )
        return turned

    def counts(self, unit_weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Wins and games per row, each game weighted by its unit's bootstrap weight."""
        rows = self.x.shape[0]
        w = None if unit_weights is None else unit_weights[self.unit_of_game]
        total = np.bincount(self.row_of_game, weights=w, minlength=rows).astype(float)
        won = self.won if w is None else self.won * w
        wins = np.bincount(self.row_of_game, weights=won, minlength=rows)
        return wins, total

    def gradient(
        self, r: np.ndarray, wins: np.ndarray, total: np.ndarray, prior: float = PRIOR
    ) -> np.ndarray:
        p = sigmoid(self.x @ r)
        return np.asarray(self.xt @ (total * p - wins)) + prior * r

    def hessian(self, r: np.ndarray, total: np.ndarray, prior: float = PRIOR) -> np.ndarray:
        return self.hessian_of(total * slope(self.x @ r), prior)

    def hessian_of(self, s: np.ndarray, prior: float = PRIOR) -> np.ndarray:
        """``X' diag(s) X + prior I``, dense: the rows' products of two different entries
        added into the flat n x n array at once (``np.bincount``), mirrored, and their
        squares into the diagonal."""
        n = self.n
        if self._pairs is None:
            x = self.x
            starts, ends = x.indptr[:-1], x.indptr[1:]
            widest = int(np.max(ends - starts)) if x.shape[0] else 0
            rows, flat, vals = [], [], []
            for k in range(widest):  # the k-th and m-th non-zero entries of every row
                for m in range(k + 1, widest):
                    has = starts + m < ends
                    first, second = starts[has] + k, starts[has] + m
                    rows.append(np.nonzero(has)[0])
                    flat.append(x.indices[first] * n + x.indices[second])
                    vals.append(x.data[first] * x.data[second])
            at_row = np.repeat(np.arange(x.shape[0]), ends - starts)
            self._pairs = (
                np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64),
                np.concatenate(flat) if flat else np.zeros(0, dtype=np.int64),
                np.concatenate(vals) if vals else np.zeros(0),
                at_row, x.indices, x.data**2,
            )  # fmt: skip
        at_row, at_flat, at_val, on_row, on_col, on_val = self._pairs
        if self.single:  # rows (1, -1): no gathers
            off = np.bincount(at_flat, weights=-s, minlength=n * n).reshape(n, n)
            on = np.bincount(on_col[0::2], s, n) + np.bincount(on_col[1::2], s, n)
        else:
            off = np.bincount(at_flat, weights=s[at_row] * at_val, minlength=n * n)
            off = off.reshape(n, n)
            on = np.bincount(on_col, weights=s[on_row] * on_val, minlength=n)
        h: np.ndarray = off + off.T
        h[np.diag_indices(n)] += on + float(prior)
        return h

    def score_trace(self, r: np.ndarray) -> float:
        """``tr J``: the sum over units of their scores' squared norms at ``r``. Where every
        unit's games are on one row (a pairing's pair of games, a single game) a unit's
        score is its row times the sum of its games' residuals."""
        resid = sigmoid(self.x @ r)[self.row_of_game] - self.won
        row_of_unit = self.unit_rows()
        if row_of_unit is not None:
            e = np.bincount(self.unit_of_game, weights=resid, minlength=self.n_units)
            return float(np.sum(self.row_norms()[row_of_unit] * e**2))
        scores = self.unit_scores(r)
        return float(scores.multiply(scores).sum())

    def unit_rows(self) -> np.ndarray | None:
        """Each unit's row, if every unit's games are on one row (else None)."""
        row_of_unit = np.zeros(self.n_units, dtype=np.int64)
        row_of_unit[self.unit_of_game] = self.row_of_game
        if np.array_equal(row_of_unit[self.unit_of_game], self.row_of_game):
            return row_of_unit
        return None

    def row_norms(self) -> np.ndarray:
        """``|x_r|^2`` of every row."""
        x = self.x
        rows = np.repeat(np.arange(x.shape[0]), np.diff(x.indptr))
        return np.bincount(rows, weights=x.data**2, minlength=x.shape[0])

    def quadratic(self, m: np.ndarray) -> np.ndarray:
        """``x_r' m x_r`` of every row for a symmetric n x n ``m``."""
        if self._pairs is None:
            self.hessian_of(np.zeros(self.x.shape[0]))
        assert self._pairs is not None
        at_row, at_flat, at_val, on_row, on_col, on_val = self._pairs
        rows = self.x.shape[0]
        diagonal = np.bincount(on_row, weights=on_val * np.diag(m)[on_col], minlength=rows)
        off = np.bincount(at_row, weights=at_val * m.ravel()[at_flat], minlength=rows)
        return diagonal + 2.0 * off

    def unit_scores(self, r: np.ndarray) -> sparse.csr_matrix:
        """Each unit's score (its games' gradient of the negative log likelihood) at ``r``,
        as the rows of a sparse (units x n) matrix."""
        p = sigmoid(self.x @ r)
        x = self.x
        counts = np.diff(x.indptr)[self.row_of_game]
        games = np.repeat(np.arange(len(self.row_of_game)), counts)
        offsets = np.arange(len(games)) - np.repeat(np.cumsum(counts) - counts, counts)
        start = np.repeat(x.indptr[self.row_of_game], counts) + offsets
        resid = p[self.row_of_game] - self.won
        return sparse.csr_matrix(
            (x.data[start] * resid[games], (self.unit_of_game[games], x.indices[start])),
            shape=(self.n_units, self.n),
        )


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def slope(z: np.ndarray) -> np.ndarray:
    """``p (1 - p)`` of the logistic curve at ``z``."""
    p = sigmoid(z)
    return p * (1.0 - p)

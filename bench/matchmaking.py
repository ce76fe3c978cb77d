"""Games needed to rank a large league: the information format (arena/matchmaking.py)
beside round robin and beside the information bound, on simulated leagues of bots with
known strengths.

    .venv/bin/python bench/matchmaking.py [--bots 1000] [--games-per-bot 10]
        [--targets 0.95,0.98,0.99] [--bootstrap 50] [--seed 1] [--seeds 1] [--formats 4]

Strengths as bench/rating_fit.py models them: true Elo ~ N(1500, 200); a game between a and
b is won by a with the Elo probability. Every game is dealt independently (no mirrored
pairs), as leagues now play by default.

* information format: rounds of ``--games-per-bot`` games per bot on average, opponents
  chosen by ``information_pairings`` from the ratings the league has after the previous
  round (a point fit of all games so far; sigma from each bot's Fisher information):
  drawn within ``--spread`` standard deviations with a bot's games in proportion to its
  rank interval's width (the league's policy), the same with every bot given as many
  games (the policy before), and the nearest neighbours' best (``spread=0``);
* random opponents, same budget per round: what the policy adds over blind pairing;
* round robin: a round is every pairing once as a pair of games with the teams swapped,
  as the arena schedules it (``arena/scheduling.py``): n(n-1) games. It cannot stop mid-round,
  so its cost for any accuracy is a whole number of rounds; the accuracy it has after its
  first round is printed too;
* the information bound (bench/information_bound.py): the fewest games ANY design could
  reach each target with, every game as informative as a game can be.

Accuracy: Spearman correlation of the fitted ratings with the true strengths, the mean
width of the 95% rank intervals (the deployed fit's, drawn from its posterior;
``--bootstrap`` > 0 asks for them) and the share of bots whose true rank lies inside
theirs (a narrow interval that misses the truth is no accuracy) at the point each format
first reaches each of ``--targets``. ``--seeds`` leagues (true strengths drawn from seeds
``--seed``, ``--seed + 1``, ...), every format on each; the figures are means over the
leagues, the ratio per league is printed beside them; ratios are games over round robin's
games for the same accuracy (one round). Those targets are Spearman against the TRUE
strengths, an oracle no league has; ``--stop-widths`` adds the rule a league can use: stop
at the first round whose fit's own mean 95% rank interval is at most w places, scored
afterwards against the truth.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.matchmaking import ELO_SCALE, SPREAD, Candidate, information_pairings  # noqa: E402
from arena.ratings.batch import Results, _ranks, fit  # noqa: E402
from bench.information_bound import ALPHAS, Bound, Ideal  # noqa: E402


class League:
    """Accumulated single games between bots 0..n-1 of known strength."""

    def __init__(self, true: np.ndarray, rng: np.random.Generator) -> None:
        self.true = true
        self.rng = rng
        self.a: list[np.ndarray] = []
        self.b: list[np.ndarray] = []
        self.won: list[np.ndarray] = []

    @property
    def games(self) -> int:
        return sum(len(x) for x in self.a)

    def play(self, a: np.ndarray, b: np.ndarray) -> None:
        p = 1.0 / (1.0 + 10.0 ** ((self.true[b] - self.true[a]) / 400.0))
        self.a.append(a)
        self.b.append(b)
        self.won.append(self.rng.random(len(a)) < p)

    def results(self) -> Results:
        a, b = np.concatenate(self.a), np.concatenate(self.b)
        pad = np.full(len(a), -1)
        return Results(
            len(self.true),
            np.stack([a, pad], 1),
            np.stack([b, pad], 1),
            np.concatenate(self.won),
            np.arange(len(a)),
        )

    def fit(self, bootstrap: int = 0) -> tuple[np.ndarray, np.ndarray, float, float, float]:
        """(ratings, sigmas, spearman, mean 95% rank-interval width, the share of bots whose
        true rank lies in their 95% rank interval)."""
        res = self.results()
        f = fit(len(self.true), res, bootstrap=bootstrap, seed=1)
        a, b = res.team_a[:, 0], res.team_b[:, 0]
        p = 1.0 / (1.0 + 10.0 ** ((f.ratings[b] - f.ratings[a]) / 400.0))
        info = np.bincount(a, p * (1 - p), len(self.true)) + np.bincount(
            b, p * (1 - p), len(self.true)
        )
        sigma = ELO_SCALE / np.sqrt(np.maximum(info, 1e-3))
        rho = float(spearmanr(f.ratings, self.true).statistic)
        width = float(np.mean(f.rank_high - f.rank_low)) if bootstrap else float("nan")
        true_rank = _ranks(self.true)
        covered = (
            float(np.mean((f.rank_low <= true_rank) & (true_rank <= f.rank_high)))
            if bootstrap
            else float("nan")
        )
        return f.ratings, np.minimum(sigma, 350.0), rho, width, covered


def run_rounds(
    name: str, true: np.ndarray, k: int, targets: list[float], bootstrap: int, seed: int,
    informed: bool, max_games: int, spread: float = 0.0, even: bool = False,
    widths: Sequence[float] = (),
) -> tuple[dict[float, tuple[int, float, float, float]], float,
           dict[float, tuple[int, float, float, float]]]:  # fmt: skip
    """Play rounds until Spearman reaches every target: {target: (games, spearman, rank
    interval width, coverage) when first reached}, and the mean scheduling time of a
    round; and the league's own stopping rule: {width: the same at the first round whose
    fit's mean 95% rank interval is at most ``width`` places} (no true strengths needed)."""
    league = League(true, np.random.default_rng(seed))
    rng = random.Random(seed)
    n = len(true)
    ratings, sigma = np.full(n, 1500.0), np.full(n, 350.0)
    counts = np.zeros(n, dtype=int)
    scheduling = 0.0
    reached: dict[float, tuple[int, float, float, float]] = {}
    stopped: dict[float, tuple[int, float, float, float]] = {}
    rnd = 0
    while league.games < max_games and (len(reached) < len(targets) or len(stopped) < len(widths)):
        rnd += 1
        t0 = time.perf_counter()
        if informed:
            cands = [
                Candidate(i, float(ratings[i]), float(sigma[i]), int(counts[i])) for i in range(n)
            ]
            pairs = information_pairings(cands, k, rng, spread=spread, even=even)
        else:  # random opponents, k a bot: k random perfect matchings
            pairs = []
            for _ in range(k):
                perm = list(range(n))
                rng.shuffle(perm)
                pairs += [(perm[i], perm[i + 1]) for i in range(0, n - 1, 2)]
        scheduling += time.perf_counter() - t0
        arr = np.array(pairs)
        league.play(arr[:, 0], arr[:, 1])
        counts += np.bincount(arr.ravel(), minlength=n)
        ratings, sigma, rho, _, _ = league.fit()
        print(f"  {name:<12} round {rnd:3d}: {league.games:>9,} games  spearman {rho:.4f}",
              file=sys.stderr)  # fmt: skip
        for target in targets:
            if target not in reached and rho >= target:
                _, _, rho_b, width, covered = league.fit(bootstrap)
                reached[target] = (league.games, rho_b, width, covered)
        if len(stopped) < len(widths):
            _, _, rho_b, width, covered = league.fit(bootstrap)
            for w in widths:
                if w not in stopped and width <= w:
                    stopped[w] = (league.games, rho_b, width, covered)
    return reached, scheduling / rnd, stopped


def round_robin(true: np.ndarray, bootstrap: int, seed: int) -> tuple[int, float, float, float]:
    n = len(true)
    league = League(true, np.random.default_rng(seed))
    a, b = np.triu_indices(n, 1)
    league.play(a, b)  # every pairing a pair of games, the teams swapped, as the arena
    league.play(b, a)  # schedules a round robin (arena/scheduling.py): n(n-1) games
    _, _, rho, width, covered = league.fit(bootstrap)
    return league.games, rho, width, covered


FORMATS = (  # label, informed, spread (None: --spread), even games
    ("drawn, by width", True, None, False),
    ("drawn, even", True, None, True),
    ("nearest neighbours", True, 0.0, True),
    ("random opponents", False, 0.0, True),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--games-per-bot", type=int, default=10)
    parser.add_argument("--targets", default="0.95,0.98,0.99", help="Spearman levels to reach")
    parser.add_argument("--bootstrap", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seeds", type=int, default=1, help="leagues: --seed, --seed + 1, ...")
    parser.add_argument(
        "--spread", type=float, default=SPREAD, help="the drawn policies' spread (sigmas)"
    )
    parser.add_argument("--formats", type=int, default=len(FORMATS), help="only the first N")
    parser.add_argument(
        "--stop-widths", default="", help="mean rank-interval widths (places) to stop at"
    )
    args = parser.parse_args()
    targets = sorted(float(t) for t in args.targets.split(","))
    k = args.games_per_bot
    formats = FORMATS[: args.formats]
    rr: list[tuple[int, float, float, float]] = []
    got: dict[str, list[dict[float, tuple[int, float, float, float]]]] = {}
    sched: dict[str, list[float]] = {}
    stops: dict[str, list[dict[float, tuple[int, float, float, float]]]] = {}
    widths = sorted((float(w) for w in args.stop_widths.split(",") if w), reverse=True)
    bounds: list[dict[float, Bound]] = []
    for seed in range(args.seed, args.seed + args.seeds):
        true = np.random.default_rng(seed).normal(1500, 200, args.bots)
        t0 = time.perf_counter()
        rr.append(round_robin(true, args.bootstrap, seed))
        print(f"seed {seed}: round robin, one round: {rr[-1][0]:,} games, spearman "
              f"{rr[-1][1]:.4f} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)  # fmt: skip
        ideal = Ideal(true, seed=seed)
        bounds.append({t: ideal.bound(t) for t in targets})
        for label, informed, spread, even in formats:
            reached, sec, stopped = run_rounds(
                label, true, k, targets, args.bootstrap, seed, informed, rr[-1][0],
                args.spread if spread is None else spread, even, widths,
            )  # fmt: skip
            got.setdefault(label, []).append(reached)
            stops.setdefault(label, []).append(stopped)
            sched.setdefault(label, []).append(sec)
    _report(args, k, targets, formats, rr, got, sched, bounds)
    _report_stops(widths, formats, rr, stops)


def _report_stops(
    widths: list[float], formats: Sequence[tuple], rr: list[tuple[int, float, float, float]],
    stops: dict[str, list[dict[float, tuple[int, float, float, float]]]],
) -> None:  # fmt: skip
    """The league's own stopping rule: the first round whose mean 95% rank interval is at
    most w places (the fit's own intervals; the true strengths only score it afterwards)."""
    if not widths:
        return
    rr_games = rr[0][0]
    print(f"stopping rule a league can use: the first round whose fit's mean 95% rank "
          f"interval is <= w places; round robin: {rr_games:,} games a cycle")  # fmt: skip
    print(f"  {'w':>6} {'pairing':<20} {'games':>9} {'spearman':>9} {'rank 95% width':>15}"
          f" {'covers truth':>13} {'vs round robin':>15}")  # fmt: skip
    for w in widths:
        for label, *_ in formats:
            runs = [g[w] for g in stops[label] if w in g]
            if len(runs) < len(stops[label]):
                left = len(stops[label]) - len(runs)
                print(f"  {w:>6.0f} {label:<20} not reached within one round robin's games in "
                      f"{left} of {len(stops[label])} leagues")  # fmt: skip
                continue
            games = float(np.mean([r[0] for r in runs]))
            print(f"  {w:>6.0f} {label:<20} {games:>9,.0f} {np.mean([r[1] for r in runs]):>9.4f}"
                  f" {np.mean([r[2] for r in runs]):>15.1f} {np.mean([r[3] for r in runs]):>13.0%}"
                  f" {games / rr_games:>15.1%}")  # fmt: skip


def _report(
    args: argparse.Namespace, k: int, targets: list[float], formats: Sequence[tuple],
    rr: list[tuple[int, float, float, float]],
    got: dict[str, list[dict[float, tuple[int, float, float, float]]]],
    sched: dict[str, list[float]], bounds: list[dict[float, Bound]],
) -> None:  # fmt: skip
    rr_games = rr[0][0]
    seeds = len(rr)
    print(f"{args.bots} bots, true Elo ~ N(1500, 200), single games, {k} games per bot a round; "
          f"{seeds} league(s), seeds {args.seed}..{args.seed + seeds - 1}, figures are means "
          "over them")  # fmt: skip
    print(f"round robin: one round = {rr_games:,} games -> spearman "
          f"{np.mean([r[1] for r in rr]):.4f}, mean 95% rank interval "
          f"{np.mean([r[2] for r in rr]):.1f} places, true rank inside it for "
          f"{np.mean([r[3] for r in rr]):.0%}; it reaches any lower target only at that "
          "round's end")  # fmt: skip
    head = f"{'rank 95% width':>15} {'covers truth':>13} {'vs round robin':>15}  per league"
    print(f"  {'target':>7} {'pairing':<20} {'games':>9} {'spearman':>9} {head}")
    for target in targets:
        for label, *_ in formats:
            runs = [g[target] for g in got[label] if target in g]
            if len(runs) < seeds:
                print(f"  {target:>7} {label:<20} {'not reached within one RR round':>50} "
                      f"({seeds - len(runs)} of {seeds} leagues)")  # fmt: skip
                continue
            games = float(np.mean([r[0] for r in runs]))
            width, covered = np.mean([r[2] for r in runs]), np.mean([r[3] for r in runs])
            each = " ".join(f"{r[0] / rr_games:.1%}" for r in runs) if seeds > 1 else ""
            print(f"  {target:>7} {label:<20} {games:>9,.0f} "
                  f"{np.mean([r[1] for r in runs]):>9.4f} {width:>15.1f} "
                  f"{covered:>13.0%} {games / rr_games:>15.1%}  {each}")  # fmt: skip
        best = float(np.mean([b[target].games for b in bounds]))
        even = float(np.mean([b[target].even_games for b in bounds]))
        alphas = sorted({f"{b[target].alpha:.2g}" for b in bounds})
        print(f"  {target:>7} {'information bound':<20} {best:>9,.0f} {'':>9} {'':>15} {'':>13} "
              f"{best / rr_games:>15.1%}  (games ~ density^{'/'.join(alphas)}; even games: "
              f"{even:,.0f} = {even / rr_games:.1%})")  # fmt: skip
    ideal = [Ideal(np.random.default_rng(s).normal(1500, 200, args.bots), seed=s)
             for s in range(args.seed, args.seed + seeds)]  # fmt: skip
    tenth = rr_games / 10
    print(f"information bound at 10% of round robin ({tenth:,.0f} games, "
          f"{2 * tenth / args.bots:.1f} a bot): spearman "
          f"{np.mean([max(i.spearman(tenth, a) for a in ALPHAS) for i in ideal]):.4f} at best "
          f"({np.mean([i.spearman(tenth) for i in ideal]):.4f} with even games)")  # fmt: skip
    own = [i.bound(r[1]) for i, r in zip(ideal, rr, strict=True)]
    print(f"information bound for round robin's own spearman ({np.mean([r[1] for r in rr]):.4f}): "
          f"{np.mean([b.games for b in own]):,.0f} games = "
          f"{np.mean([b.games for b in own]) / rr_games:.1%} of its round "
          f"({np.mean([b.even_games for b in own]) / rr_games:.1%} with even games)")  # fmt: skip
    for label, informed, *_ in formats:
        if informed:
            print(f"pairing one round ({args.bots} bots x {k}), {label}: "
                  f"{np.mean(sched[label]) * 1000:.0f} ms mean")  # fmt: skip


if __name__ == "__main__":
    main()

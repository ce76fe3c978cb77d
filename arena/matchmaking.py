"""Matchmaking for large leagues: every bot a bounded number of games per round, against the
opponents whose games tell the most (pure functions, no ORM).

A round robin plays every pairing every round: n(n-1)/2 games, 499,500 for 1,000 bots. The
*information* format gives each bot a bounded number of games a round instead,
``games_per_bot`` on average, so a round costs about n x games_per_bot / 2 games and its
scheduling about n x games_per_bot x 4 x ``window`` steps.

How many: in proportion to the width of the bot's rank interval, between half and twice
``games_per_bot`` (``planned_games``): a bot in the dense middle of the league, or one
nobody knows yet, gets more than one in the settled tails, whose place a larger error
does not change (bench/matchmaking.py: Spearman 0.99 about a round earlier than with even
games; bench/information_bound.py: the same allocation is the best for an ideal league).

Whom a bot meets:

* close in rating: a game between two bots of win probability p tells ``p(1 - p)`` about
  their difference (the Fisher information of a Bradley-Terry game), largest at p = 1/2;
* uncertain ones first and most: the score weighs a pairing by the two bots' rating
  variances, so a game that can move a wide interval (or resolve two overlapping ones) is
  preferred over one between two settled bots;
* provisional bots (fewer than ``PROVISIONAL_GAMES`` games) are served first, so they get
  their games even in a round where opponents run short;
* each pair at most once a round, and a little seeded jitter, so that equal ratings do not
  make the same pairs round after round.

Whom among them: a bot's opponents are **drawn** from everyone whose rating is within
``SPREAD`` standard deviations of the bot's (its rank interval, roughly: the bots it could
still be above or below), ``4 x window`` of them sampled, one picked in proportion to its
score; the range is widened only when all of them are taken. Picking the best-scoring of
the nearest neighbours instead (``spread=0``) makes a banded comparison graph: each bot
measured against the same few neighbours, long chains between bots a few dozen places
apart, and rank intervals too narrow for the truth (bench/matchmaking.py: the 95% rank
intervals held the true rank for 68-79% of bots, against 84-87% when drawn, and the same
even games reached a Spearman of 0.98 at 11.0% of a round robin's games, against 10.2%
when drawn; means over 10 simulated leagues).
Within the drawing range p(1 - p) stays near 1/4, so drawing costs little information per
game. Sampling a fixed number of candidates keeps the cost linear in n.
"""

from __future__ import annotations

import bisect
import heapq
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

#: Elo points per unit of the logistic scale (400 / ln 10)
ELO_SCALE = 400.0 / math.log(10.0)
#: a bot with fewer rated games than this is provisional
PROVISIONAL_GAMES = 20
#: the uncertainty (one standard deviation, Elo points) of a bot nobody knows yet
UNKNOWN_SIGMA = 350.0
#: opponents are drawn from this many standard deviations of a bot's rating difference
#: (``information_pairings(spread=...)``; bench/matchmaking.py compares it with 0)
SPREAD = 2.0
#: a bot's games in a round lie between games_per_bot x FEWEST and games_per_bot x MOST
#: (``planned_games``)
FEWEST, MOST = 0.5, 2.0


@dataclass(frozen=True)
class Candidate:
    """A bot that may be paired this round, as the league knows it now."""

    entry: int
    rating: float  # Elo points (the batch fit's estimate, else the live rating)
    sigma: float  # one standard deviation of ``rating``, Elo points
    games: int  # rated games so far

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES


def sigma_of(games: int, low: float | None = None, high: float | None = None) -> float:
    """A rating's standard deviation: from its 95% interval when there is one, else from the
    number of games (each between even opponents tells at most 1/4 about it)."""
    if low is not None and high is not None and high > low:
        return (high - low) / (2 * 1.96)
    if games <= 0:
        return UNKNOWN_SIGMA
    return min(UNKNOWN_SIGMA, ELO_SCALE / math.sqrt(0.25 * games))


def win_probability(a: float, b: float) -> float:
    return 1.0 / (1.0 + 10.0 ** ((b - a) / 400.0))


def pairing_score(a: Candidate, b: Candidate) -> float:
    """What one game between ``a`` and ``b`` is worth: the Fisher information of its outcome
    about the rating difference, times the variance it can reduce."""
    p = win_probability(a.rating, b.rating)
    return p * (1.0 - p) * (a.sigma**2 + b.sigma**2)


def planned_games(candidates: Sequence[Candidate], games_per_bot: int) -> dict[int, int]:
    """Each bot's games this round, ``games_per_bot`` on average: in proportion to the width
    of its rank interval (the bots rated within 1.96 sigma of it), between
    ``games_per_bot x FEWEST`` and ``x MOST``, rounded up or down as often as the fraction
    says (by a fixed offset per entry, so that a run resuming a round it stopped midway
    plans the same games).

    Why: a bot in the dense middle of the league changes places for a smaller rating error
    than one in the tails, and the mean rank interval is smallest with a bot's games in
    proportion to the density of ratings at its own to the power 2/3, what this gives once
    the sigmas follow the games (sigma ~ 1/sqrt(games), width ~ density x sigma); it is
    also the allocation (of those bench/information_bound.py tries) with which the ideal
    league reaches a Spearman of 0.98 and 0.99 with the fewest games. A bot nobody knows
    yet has a wide interval: the most games."""
    keys = sorted(c.rating for c in candidates)
    width = [
        bisect.bisect_right(keys, c.rating + 1.96 * c.sigma)
        - bisect.bisect_left(keys, c.rating - 1.96 * c.sigma)
        for c in candidates
    ]
    high = min(games_per_bot * MOST, len(candidates) - 1.0)
    low = min(high, max(1.0, games_per_bot * FEWEST))
    scale = games_per_bot / (sum(width) / len(width))
    for _ in range(4):  # rescale so that the clamped shares still average games_per_bot
        share = [min(high, max(low, w * scale)) for w in width]
        scale *= games_per_bot * len(share) / sum(share)
    out = {}
    for c, w in zip(candidates, width, strict=True):
        x = min(high, max(low, w * scale))
        offset = (c.entry * 0.6180339887498949) % 1.0
        out[c.entry] = int(x + offset)
    return out


def information_pairings(
    candidates: Sequence[Candidate],
    games_per_bot: int,
    rng: random.Random,
    *,
    window: int = 8,
    spread: float = SPREAD,
    even: bool = False,
    taken: Iterable[tuple[int, int]] = (),
) -> list[tuple[int, int]]:
    """Pairs of entry ids for one round: each entry in at most its ``planned_games`` pairs
    (``games_per_bot`` on average; every entry ``games_per_bot`` if ``even``), in exactly
    that many whenever opponents allow (a greedy pass, then swaps for the few it left
    short), each pair at most once.

    ``spread`` > 0: opponents drawn from everyone within ``spread`` standard deviations of
    the bot's rating difference (its rating +- spread x sqrt(2) x sigma, at least its
    ``window`` neighbours), ``4 x window`` of them sampled and one picked with probability
    in proportion to its score; 0: the best-scoring of the ``window`` nearest neighbours.

    ``taken``: pairs the round has already (a scheduling run that stopped midway): they
    count against both entries' games and are not made again, so the pairs returned
    complete the round rather than double it."""
    if games_per_bot < 1 or len(candidates) < 2:
        return []
    jitter = {c.entry: rng.random() for c in candidates}
    order = sorted(candidates, key=lambda c: (c.rating, jitter[c.entry]))
    pos = {c.entry: i for i, c in enumerate(order)}
    keys = [c.rating for c in order]
    need = (
        {c.entry: games_per_bot for c in candidates}
        if even
        else planned_games(candidates, games_per_bot)
    )
    met: set[tuple[int, int]] = set()
    for a, b in taken:
        met.add((min(a, b), max(a, b)))
        for e in (a, b):
            if e in need:
                need[e] = max(0, need[e] - 1)
    pairs: list[tuple[int, int]] = []
    # who chooses first: provisional bots, then the most uncertain
    queue = [(not c.provisional, -c.sigma, jitter[c.entry], c.entry) for c in candidates]
    heapq.heapify(queue)
    by_entry = {c.entry: c for c in candidates}
    while queue:
        _, _, _, entry = heapq.heappop(queue)
        if need[entry] == 0:
            continue
        me = by_entry[entry]
        if spread > 0:
            best = _drawn_opponent(me, order, keys, pos[entry], need, met, window, spread, rng)
        else:
            best = _best_opponent(me, order, pos[entry], need, met, window, jitter)
        if best is None:
            continue  # nobody left for this bot this round
        key = (min(entry, best), max(entry, best))
        met.add(key)
        pairs.append(key)
        need[entry] -= 1
        need[best] -= 1
        if need[entry]:
            heapq.heappush(queue, (not me.provisional, -me.sigma, rng.random(), entry))
    return _complete(pairs, need, met, order, pos, by_entry, window)


def _key(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def _complete(
    pairs: list[tuple[int, int]],
    need: dict[int, int],
    met: set[tuple[int, int]],
    order: Sequence[Candidate],
    pos: dict[int, int],
    by_entry: dict[int, Candidate],
    window: int,
) -> list[tuple[int, int]]:
    """Give the bots the greedy pass left short their games where a swap allows: bots x
    and y (x itself, when it lacks two) still need a game and every opponent left is one
    they met, but a pair (u, v) of this round near x has u new to x and v new to y: (u, v)
    becomes (x, u) and (y, v), u and v keep their count. Provisional bots first. Few bots
    are short (about games_per_bot of them), each looks at the pairs of its ``window``
    neighbours (more only in small leagues), so the cost stays linear."""
    short = sorted(
        (e for e, left in need.items() if left),
        key=lambda e: (not by_entry[e].provisional, -by_entry[e].sigma),
    )
    if not short:
        return pairs
    chosen = dict.fromkeys(pairs)
    of: dict[int, set[tuple[int, int]]] = {}
    for a, b in pairs:
        of.setdefault(a, set()).add((a, b))
        of.setdefault(b, set()).add((a, b))
    limit = max(4 * window, 256)
    for x in short:
        while need[x]:
            swap = _find_swap(x, short, need, met, order, pos[x], of, window, limit)
            if swap is None:
                break
            (u, v), (y, p, q) = swap
            del chosen[(u, v)]
            met.discard((u, v))
            of[u].discard((u, v))
            of[v].discard((u, v))
            for a, b in ((x, p), (y, q)):
                k = _key(a, b)
                chosen[k] = None
                met.add(k)
                of.setdefault(a, set()).add(k)
                of.setdefault(b, set()).add(k)
            need[x] -= 1
            need[y] -= 1
    return list(chosen)


def _find_swap(
    x: int,
    short: Sequence[int],
    need: dict[int, int],
    met: set[tuple[int, int]],
    order: Sequence[Candidate],
    at: int,
    of: dict[int, set[tuple[int, int]]],
    window: int,
    limit: int,
) -> tuple[tuple[int, int], tuple[int, int, int]] | None:
    partners = [y for y in short if need[y] and (y != x or need[x] >= 2)]
    span = window
    while True:
        for i in range(max(0, at - span), min(len(order), at + span + 1)):
            for u, v in of.get(order[i].entry, ()):
                if x in (u, v):
                    continue
                for y in partners:
                    if y in (u, v):
                        continue
                    for p, q in ((u, v), (v, u)):
                        if _key(x, p) not in met and _key(y, q) not in met:
                            return (u, v), (y, p, q)
        if span >= len(order) or span >= limit:
            return None
        span *= 2


def _best_opponent(
    me: Candidate,
    order: Sequence[Candidate],
    at: int,
    need: dict[int, int],
    met: set[tuple[int, int]],
    window: int,
    jitter: dict[int, float],
) -> int | None:
    span = window
    while True:
        best: tuple[float, int] | None = None
        for i in range(max(0, at - span), min(len(order), at + span + 1)):
            other = order[i]
            if i == at or need[other.entry] == 0:
                continue
            if (min(me.entry, other.entry), max(me.entry, other.entry)) in met:
                continue
            score = pairing_score(me, other) * (1.0 + 0.05 * jitter[other.entry])
            if best is None or score > best[0]:
                best = (score, other.entry)
        if best is not None:
            return best[1]
        if span >= len(order):
            return None
        span *= 2


def _drawn_opponent(
    me: Candidate,
    order: Sequence[Candidate],
    keys: Sequence[float],
    at: int,
    need: dict[int, int],
    met: set[tuple[int, int]],
    window: int,
    spread: float,
    rng: random.Random,
) -> int | None:
    half = spread * math.sqrt(2.0) * me.sigma
    lo = min(bisect.bisect_left(keys, me.rating - half), max(0, at - window))
    hi = max(bisect.bisect_right(keys, me.rating + half), min(len(order), at + window + 1))
    draws = 4 * window
    while True:
        span: Iterable[int] = (
            range(lo, hi) if hi - lo <= draws else (rng.randrange(lo, hi) for _ in range(draws))
        )
        options: list[tuple[float, int]] = []
        for i in span:
            other = order[i]
            if i == at or need[other.entry] == 0:
                continue
            if _key(me.entry, other.entry) in met:
                continue
            options.append((pairing_score(me, other), other.entry))
        if options:
            r = rng.random() * sum(score for score, _ in options)
            for score, entry in options:
                r -= score
                if r <= 0:
                    return entry
            return options[-1][1]
        if lo == 0 and hi == len(order):
            if hi - lo <= draws:
                return None
            draws = hi - lo  # the samples missed: look at everyone once
            continue
        width = max(hi - lo, 2 * window)
        lo, hi = max(0, lo - width), min(len(order), hi + width)


def slots(
    pairs: Sequence[tuple[int, int]], taken: Iterable[tuple[int, int, int]] = ()
) -> list[int]:
    """A slot per pair such that no entry plays twice in one slot (a remote bot is never asked
    to play two matches of one slot at once): greedy, fewer than 2 x the most games of a bot.
    ``taken``: (entry, entry, slot) of the pairs the round has already."""
    used: dict[int, set[int]] = {}
    for a, b, slot in taken:
        used.setdefault(a, set()).add(slot)
        used.setdefault(b, set()).add(slot)
    out = []
    for a, b in pairs:
        busy = used.setdefault(a, set()) | used.setdefault(b, set())
        slot = next(s for s in range(len(busy) + 1) if s not in busy)
        used[a].add(slot)
        used[b].add(slot)
        out.append(slot)
    return out

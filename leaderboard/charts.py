"""Server-side SVG charts (no JavaScript, nothing loaded at run time)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from html import escape

WIDTH, HEIGHT = 640, 220
PAD_LEFT, PAD_RIGHT, PAD_TOP, PAD_BOTTOM = 48, 16, 16, 28


def _nice_step(span: float) -> float:
    for step in (5, 10, 20, 25, 50, 100, 200, 250, 500):
        if span / step <= 6:
            return float(step)
    return 1000.0


def rating_history_svg(
    points: Sequence[tuple[datetime, float]],
    *,
    title: str = "rating history",
    band: Sequence[tuple[float, float]] | None = None,
) -> str:
    """A line chart of rating over time; ``band`` (low, high per point) draws a shaded
    interval behind the line. Returns a standalone ``<svg>`` element."""
    label = escape(title)
    if not points:
        return (
            f'<svg class="chart" role="img" aria-label="{label}" viewBox="0 0 {WIDTH} 60" '
            f'xmlns="http://www.w3.org/2000/svg"><text x="{WIDTH / 2}" y="34" '
            'text-anchor="middle" class="chart-empty">no rated games yet</text></svg>'
        )
    values = [v for _, v in points]
    if band:
        values += [lo for lo, _ in band] + [hi for _, hi in band]
    lo, hi = min(values), max(values)
    if hi - lo < 20:
        lo, hi = lo - 10, hi + 10
    step = _nice_step(hi - lo)
    lo = step * (lo // step)
    hi = step * (hi // step + 1)
    times = [t.timestamp() for t, _ in points]
    t0, t1 = min(times), max(times)
    span = (t1 - t0) or 1.0
    plot_w = WIDTH - PAD_LEFT - PAD_RIGHT
    plot_h = HEIGHT - PAD_TOP - PAD_BOTTOM

    def x(t: float) -> float:
        return PAD_LEFT + (plot_w * (t - t0) / span if t1 > t0 else plot_w / 2)

    def y(v: float) -> float:
        return PAD_TOP + plot_h * (hi - v) / (hi - lo)

    parts = [
        f'<svg class="chart" role="img" aria-label="{label}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        'xmlns="http://www.w3.org/2000/svg">',
        f"<title>{label}</title>",
    ]
    tick = lo
    while tick <= hi + 1e-9:
        parts.append(
            f'<line class="grid" x1="{PAD_LEFT}" x2="{WIDTH - PAD_RIGHT}" y1="{y(tick):.1f}" '
            f'y2="{y(tick):.1f}"/><text class="axis" x="{PAD_LEFT - 6}" y="{y(tick) + 4:.1f}" '
            f'text-anchor="end">{tick:.0f}</text>'
        )
        tick += step
    if band and len(band) == len(points):
        upper = " ".join(f"{x(t):.1f},{y(h):.1f}" for t, (_, h) in zip(times, band, strict=True))
        lower = " ".join(
            f"{x(t):.1f},{y(lo_):.1f}"
            for t, (lo_, _) in reversed(list(zip(times, band, strict=True)))
        )
        parts.append(f'<polygon class="band" points="{upper} {lower}"/>')
    line = " ".join(f"{x(t):.1f},{y(v):.1f}" for t, (_, v) in zip(times, points, strict=True))
    parts.append(f'<polyline class="line" fill="none" points="{line}"/>')
    for t, (when, v) in zip(times, points, strict=True):
        parts.append(
            f'<circle class="point" cx="{x(t):.1f}" cy="{y(v):.1f}" r="2.5">'
            f"<title>{when:%Y-%m-%d %H:%M} — {v:.0f}</title></circle>"
        )
    for t, fmt in ((t0, "%Y-%m-%d"), (t1, "%Y-%m-%d %H:%M")):
        anchor = "start" if t == t0 else "end"
        when = datetime.fromtimestamp(t, points[0][0].tzinfo)
        parts.append(
            f'<text class="axis" x="{x(t):.1f}" y="{HEIGHT - 8}" text-anchor="{anchor}">'
            f"{when.strftime(fmt)}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


#: the standard error of a performance rating from one game against an equal opponent:
#: 400 / ln 10 / sqrt(p (1 - p)) with p = 1/2, i.e. about 347 Elo; after n games it is
#: this over sqrt(n)
ELO_SE_ONE_GAME = 400 / 2.302585092994046 / 0.5


def elo_band(rating: float, games: int) -> tuple[float, float]:
    """An approximate 95% interval of a rating after ``games`` games (±1.96 standard errors
    of a performance rating against even opposition): wide at first, narrowing as 1/√n."""
    half = 1.96 * ELO_SE_ONE_GAME / max(games, 1) ** 0.5
    return rating - half, rating + half


def rating_by_game_svg(
    ratings: Sequence[float], *, first_game: int = 1, title: str = "rating by game",
    band: Sequence[tuple[float, float]] | None = None, clip: tuple[float, float] | None = None,
) -> str:  # fmt: skip
    """Rating after each game, by game number (``first_game`` for the first point), with an
    interval ``band`` behind the line. ``clip`` bounds the y axis (a band from the first
    games would squash the line flat)."""
    label = escape(title)
    if not ratings:
        return rating_history_svg([], title=title)
    values = list(ratings)
    if band:
        values += [lo for lo, _ in band] + [hi for _, hi in band]
    lo, hi = min(values), max(values)
    if clip is not None:
        lo, hi = max(lo, clip[0]), min(hi, clip[1])
    if hi - lo < 20:
        lo, hi = lo - 10, hi + 10
    step = _nice_step(hi - lo)
    lo = step * (lo // step)
    hi = step * (hi // step + 1)
    n = len(ratings)
    plot_w = WIDTH - PAD_LEFT - PAD_RIGHT
    plot_h = HEIGHT - PAD_TOP - PAD_BOTTOM

    def x(i: int) -> float:
        return PAD_LEFT + (plot_w * i / (n - 1) if n > 1 else plot_w / 2)

    def y(v: float) -> float:
        return PAD_TOP + plot_h * (hi - min(max(v, lo), hi)) / (hi - lo)

    parts = [
        f'<svg class="chart" role="img" aria-label="{label}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        'xmlns="http://www.w3.org/2000/svg">',
        f"<title>{label}</title>",
    ]
    tick = lo
    while tick <= hi + 1e-9:
        parts.append(
            f'<line class="grid" x1="{PAD_LEFT}" x2="{WIDTH - PAD_RIGHT}" y1="{y(tick):.1f}" '
            f'y2="{y(tick):.1f}"/><text class="axis" x="{PAD_LEFT - 6}" y="{y(tick) + 4:.1f}" '
            f'text-anchor="end">{tick:.0f}</text>'
        )
        tick += step
    # each point's coordinates formatted once (a bot page draws up to 1,000 of them)
    xs = [f"{x(i):.1f}" for i in range(n)]
    ys = [f"{y(v):.1f}" for v in ratings]
    if band and len(band) == n:
        upper = " ".join(f"{xs[i]},{y(h):.1f}" for i, (_, h) in enumerate(band))
        lower = " ".join(f"{xs[i]},{y(lo_):.1f}" for i, (lo_, _) in reversed(list(enumerate(band))))
        parts.append(f'<polygon class="band" points="{upper} {lower}"/>')
    line = " ".join(f"{xi},{yi}" for xi, yi in zip(xs, ys, strict=True))
    parts.append(f'<polyline class="line" fill="none" points="{line}"/>')
    parts.extend(
        f'<circle class="point" cx="{xs[i]}" cy="{ys[i]}" r="2.5">'
        f"<title>game {first_game + i}: {v:.0f}</title></circle>"
        for i, v in enumerate(ratings)
    )
    for i, anchor in ((0, "start"), (n - 1, "end")):
        parts.append(
            f'<text class="axis" x="{x(i):.1f}" y="{HEIGHT - 8}" text-anchor="{anchor}">'
            f"game {first_game + i}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)

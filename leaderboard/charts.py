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

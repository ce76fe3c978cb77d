from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta

from leaderboard.charts import rating_history_svg
from leaderboard.crosstable import crosstable

SVG = "{http://www.w3.org/2000/svg}"


def test_rating_chart_is_valid_svg_with_one_point_per_game() -> None:
    start = datetime(2026, 11, 1, tzinfo=UTC)
    points = [(start + timedelta(hours=i), 1500 + 10 * i - (i % 3) * 7) for i in range(12)]
    band = [(v - 40, v + 40) for _, v in points]
    svg = rating_history_svg(points, title="bot <x> rating", band=band)
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    assert len(root.findall(f"{SVG}circle")) == 12
    line = root.find(f"{SVG}polyline")
    assert line is not None and len(line.attrib["points"].split()) == 12
    assert root.find(f"{SVG}polygon") is not None
    assert "bot &lt;x&gt; rating" in svg  # escaped
    ys = [float(p.split(",")[1]) for p in line.attrib["points"].split()]
    assert ys[-1] < ys[0], "a higher rating is drawn higher"


def test_rating_chart_without_points_says_so() -> None:
    assert "no rated games yet" in rating_history_svg([])
    ET.fromstring(rating_history_svg([(datetime(2026, 1, 1, tzinfo=UTC), 1500.0)]))


def test_crosstable_scores_and_significance() -> None:
    results = [(1, 2)] * 30 + [(2, 1)] * 2 + [(1, 3)] * 5 + [(3, 1)] * 5
    table = crosstable([1, 2, 3], results)
    assert (table[(1, 2)].wins, table[(1, 2)].games) == (30, 32)
    assert table[(1, 2)].shade == "win-strong" and table[(2, 1)].shade == "loss-strong"
    assert table[(1, 3)].shade == "even" and table[(1, 3)].score == 0.5
    assert table[(2, 3)].games == 0 and table[(2, 3)].shade == "even"

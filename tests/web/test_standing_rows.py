"""The standings table's rows written in Python (``leaderboard.standing_rows``) are the
markup the row template wrote: an established bot with a fit (one rank, a range of
ranks), a provisional house bot without one under its group's heading, a withdrawn bot
without an owner; values escaped; numbers rounded half up as ``floatformat:0`` does."""

from __future__ import annotations

from decimal import Decimal

from django.template.defaultfilters import floatformat

from arena.models import League
from arena.ratings.models import BatchRating
from leaderboard.reads.ranking import StandingRow
from leaderboard.standing_rows import _f0, standing_rows


def _row(**kw: object) -> StandingRow:
    base: dict[str, object] = {
        "rank": 1, "bot_id": 1, "bot": "alpha", "owner": "ann", "kind": "remote",
        "rating": Decimal("1512.5000"), "games": 40, "wins": 25, "losses": 15,
        "forfeits": 0, "batch": None, "provisional": False, "entered": True,
    }  # fmt: skip
    return StandingRow(**{**base, **kw})  # type: ignore[arg-type]


def _fit(elo: float, low: float, high: float) -> BatchRating:
    return BatchRating(bot_id=1, league_id=1, elo=elo, low=low, high=high, rank=1,
                       rank_low=1, rank_high=2, games=40)  # fmt: skip


def test_rows_are_the_templates_markup() -> None:
    league = League(slug="open-1", name="Open")
    rows = [
        _row(batch=_fit(1601.5, 1550.49, 1650.5), rank_low=1, rank_high=1),
        _row(rank=2, bot_id=2, bot="b.e-t_a", owner="<b>&", batch=_fit(1500.0, 1400.0, 1600.0),
             rank_low=2, rank_high=4, entered=False, forfeits=3),
        _row(rank=None, bot_id=3, bot="gamma", owner="", kind="house",
             rating=Decimal("1499.4999"), games=3, wins=1, losses=2, provisional=True),
    ]  # fmt: skip
    html = standing_rows(league, rows, 20, grouped=True)
    assert html == (
        '<tr class="">\n'
        '      <td class="num">1</td>\n'
        '      <td><a href="/bots/alpha/?league=open-1">alpha</a></td>\n'
        "      <td>ann</td>\n"
        '      <td class="num">1513</td>\n'
        '      <td class="num">1602 <span class="interval">[1550, 1651]</span></td>\n'
        '      <td class="num">1</td>\n'
        '      <td class="num">40</td>\n'
        '      <td class="num">25</td>\n'
        '      <td class="num">15</td>\n'
        '      <td class="num">0</td>\n'
        "    </tr>\n"
        "\n"
        '<tr class="withdrawn" title="no longer entered">\n'
        '      <td class="num">2</td>\n'
        '      <td><a href="/bots/b.e-t_a/?league=open-1">b.e-t_a</a></td>\n'
        "      <td>&lt;b&gt;&amp;</td>\n"
        '      <td class="num">1513</td>\n'
        '      <td class="num">1500 <span class="interval">[1400, 1600]</span></td>\n'
        '      <td class="num">2–4</td>\n'
        '      <td class="num">40</td>\n'
        '      <td class="num">25</td>\n'
        '      <td class="num">15</td>\n'
        '      <td class="num">3</td>\n'
        "    </tr>\n"
        "\n"
        '<tr class="group"><th colspan="10">Provisional: fewer than 20 games, not ranked yet'
        "</th></tr>\n"
        '<tr class=" provisional">\n'
        '      <td class="num"><span class="muted" title="provisional: not ranked yet">—</span>'
        "</td>\n"
        '      <td><a href="/bots/gamma/?league=open-1">gamma</a> <span class="prov"'
        ' title="provisional: 3 of 20 games">P</span> <span class="tag">house</span></td>\n'
        "      <td>—</td>\n"
        '      <td class="num">1499</td>\n'
        '      <td class="num">—</td>\n'
        '      <td class="num">—</td>\n'
        '      <td class="num">3</td>\n'
        '      <td class="num">1</td>\n'
        '      <td class="num">2</td>\n'
        '      <td class="num">0</td>\n'
        "    </tr>\n"
    )
    # sorted by another column: no heading
    assert "Provisional:" not in standing_rows(league, rows, 20, grouped=False)


def test_no_rows_say_so() -> None:
    html = standing_rows(League(slug="x", name="X"), [], 20, grouped=True)
    assert html == (
        '<tr><td colspan="10" class="muted">No bot is rated in this league yet.</td></tr>'
    )


def test_numbers_round_as_floatformat_does() -> None:
    values: list[Decimal | float] = [
        Decimal("1500.5000"), Decimal("1499.5000"), Decimal("-0.4000"), Decimal("-2.5000"),
        1500.5, 1499.5, -0.4, -0.5, 2.675, 1e12, 0.0, float("inf"),
    ]  # fmt: skip
    assert [_f0(v) for v in values] == [str(floatformat(v, 0)) for v in values]

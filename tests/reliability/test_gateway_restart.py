"""A gateway that stops or dies is the arena's fault, never a bot's.

Real processes: a redis-server of the test's own, two gateways (``manage.py rungateway``),
a Celery worker (``--pool threads``), 8 SDK bots in two processes (4 on each gateway, each
answer after 100 ms so that games last), a 2-seat league of them (56 matches a round, up
to 8 at once). While a round plays: ``kill -9`` one gateway with matches in flight and
start it again, then ``SIGTERM`` the other (it drains) and start it again 3 s later, longer
than the league's connect grace (2 s), while matches start. The bots come back within the
league's reconnect grace (30 s) and their games go on; the matches that started meanwhile
waited for them.

Afterwards every match is finished, none played more than twice, no bot was charged
with anything, the ratings equal a full recompute (so nothing the faults did moved them),
and the bots saw their matches resumed.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.leagues.conftest import database_url
from tests.reliability.loadrig import summary
from tests.reliability.restartrig import CFG, RestartRig

pytestmark = [
    pytest.mark.services,
    pytest.mark.slow,
    pytest.mark.faults,
    pytest.mark.processes,
    pytest.mark.serial,
]


@pytest.fixture
def rig(transactional_db: None, settings, tmp_path: Path) -> Iterator[RestartRig]:  # noqa: ANN001
    if shutil.which("redis-server") is None:
        pytest.fail("this test starts its own redis-server: install redis-server")
    settings.ARENA_REQUEUE_AFTER_SECONDS = CFG.requeue_after_seconds
    lines: list[str] = []
    r = RestartRig(tmp_path, database_url(), CFG, say=lines.append)
    try:
        yield r
    finally:
        r.close()
        print("\n".join(lines))


def test_gateways_killed_and_drained_mid_match_cost_no_bot_anything(rig: RestartRig) -> None:
    rig.setup_league()
    out = rig.play()
    report = summary(out, CFG) + f"\nmatches the bots saw resumed: {rig.resumed()}"
    print(report)
    assert len(out.events) == 2, report
    assert out.problems == [], report  # all finished, rated once, ratings == a recompute
    assert out.matches >= 56 and out.finished == out.matches, report
    assert out.bot_faults == {}, report  # no forfeit, no fault charged to any bot
    assert all(attempts <= 2 for _, attempts in out.rerun), report  # re-run once at most
    assert rig.resumed() > 0, "no bot saw a match resumed: the faults hit nothing"

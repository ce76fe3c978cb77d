"""`manage.py demo` (what `make demo` runs) plays its small Swiss among the house bots
after the Demo league's first round, in one process on SQLite, and the site shows it."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.test_first_run import READY, ROOT, Output, _env, _free_port, _get

pytestmark = [pytest.mark.processes, pytest.mark.slow]


def test_the_demo_plays_a_swiss_the_site_shows(tmp_path: Path) -> None:
    web, gateway = _free_port(), _free_port()
    stderr = (tmp_path / "demo.stderr").open("w")
    demo = subprocess.Popen(
        [sys.executable, "manage.py", "demo", "--port", str(web), "--gateway-port",
         str(gateway), "--rounds", "1", "--search-playouts", "5", "--every", "3600",
         "--no-sdk-bot", "--no-bot-host", "--state-dir", str(tmp_path / "state")],
        cwd=ROOT, env=_env(tmp_path), stdout=subprocess.PIPE, stderr=stderr, text=True,
    )  # fmt: skip
    out = Output(demo)
    site = f"http://127.0.0.1:{web}"
    try:
        out.wait_for(READY, time.monotonic() + 120)
        assert f"demo event: Demo Swiss (running), {site}/events/demo-swiss/" in out.text
        status, page = _get(f"{site}/events/")
        assert status == 200 and "Demo Swiss" in page
        out.wait_for("demo event: Demo Swiss finished, won by", time.monotonic() + 240)
        status, body = _get(f"{site}/api/tournaments/demo-swiss/")
        event = json.loads(body)
        assert status == 200 and event["status"] == "finished"
        assert [r["number"] for r in event["rounds"]] == [1, 2, 3]
        assert all(len(r["pairings"]) == 2 and len(r["byes"]) == 1 for r in event["rounds"])
        assert len({r["byes"][0] for r in event["rounds"]}) == 3
        met = [frozenset((p["a"], p["b"])) for r in event["rounds"] for p in r["pairings"]]
        assert len(set(met)) == 6
        assert event["winner"] == event["standings"][0]["bot"]
        status, page = _get(f"{site}/events/demo-swiss/")
        assert status == 200 and "Buchholz" in page and event["winner"] in page
        # the event's league stays out of the league list
        leagues = [x["slug"] for x in json.loads(_get(f"{site}/api/leagues/")[1])]
        assert leagues == ["demo"]
    finally:
        if demo.poll() is None:
            demo.send_signal(signal.SIGINT)
        try:
            code = demo.wait(30)
        finally:
            if demo.poll() is None:
                demo.kill()
            stderr.close()
    assert code == 0, out.text
    assert "Traceback" not in (tmp_path / "demo.stderr").read_text()

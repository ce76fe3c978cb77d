"""The demo's challenge as its visitor meets it (issue 25 §6): `manage.py demo` (embedded
mode, a fresh SQLite file, the SDK bot in a process of its own over gRPC) says how to send
one; logged in as the printed admin, the bot page's Challenge form sends your-greedy
against sdk-heuristic, the answer is the first game's page, and the demo's own loop plays
the three games (there is no worker), which the API then shows finished."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from tests.test_first_run import READY, ROOT, Output, _env, _free_port

pytestmark = [pytest.mark.processes, pytest.mark.slow]


def _csrf(html: str) -> str:
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert found, html[:2000]
    return found.group(1)


def test_the_demo_visitor_sends_a_challenge_from_the_site(tmp_path: Path) -> None:
    web, gateway = _free_port(), _free_port()
    demo = subprocess.Popen(
        [sys.executable, "manage.py", "demo", "--port", str(web), "--gateway-port",
         str(gateway), "--rounds", "0", "--every", "0", "--no-bot-host",
         "--state-dir", str(tmp_path / "state")],
        cwd=ROOT, env=_env(tmp_path), stdout=subprocess.PIPE,
        stderr=(tmp_path / "demo.stderr").open("w"), text=True,
    )  # fmt: skip
    out = Output(demo)
    site = f"http://127.0.0.1:{web}"
    try:
        out.wait_for(READY, time.monotonic() + 60)
        assert f"open {site}/bots/sdk-heuristic/" in out.text, out.text
        password = re.search(r"user admin, password (\S+)", out.text)
        assert password, out.text
        s = requests.Session()
        login = s.get(f"{site}/accounts/login/", timeout=10)
        s.post(
            f"{site}/accounts/login/",
            data={"username": "admin", "password": password.group(1),
                  "csrfmiddlewaretoken": _csrf(login.text)},
            headers={"Referer": site}, timeout=10,
        )  # fmt: skip
        page = s.get(f"{site}/bots/sdk-heuristic/", timeout=10)
        assert 'id="challenge-form"' in page.text and '<option value="your-greedy">' in page.text
        sent = s.post(
            f"{site}/challenges/new/",
            data={"bot": "your-greedy", "opponent": "sdk-heuristic", "games": "3",
                  "csrfmiddlewaretoken": _csrf(page.text)},
            headers={"Referer": site}, timeout=30,
        )  # fmt: skip
        assert sent.status_code == 200 and re.search(r"/matches/\d+/$", sent.url), sent.url
        assert "Challenge sent" in sent.text and 'id="challenge-box"' in sent.text
        deadline = time.monotonic() + 90
        while True:
            state = s.get(f"{site}/api/challenges/", timeout=10).json()["challenges"][0]
            if state["status"] == "finished" or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert state["status"] == "finished", state
        assert sum(state["score"]) == 3 and state["opponent"] == "sdk-heuristic"
        replay = s.get(f"{site}/api/matches/{state['matches'][0]['id']}/replay/", timeout=10)
        assert replay.status_code == 200
    finally:
        if demo.poll() is None:
            demo.send_signal(signal.SIGINT)
        try:
            demo.wait(30)
        finally:
            if demo.poll() is None:
                demo.kill()

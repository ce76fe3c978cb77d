"""The first run: `manage.py demo` (what `make demo` runs) as a user meets it.

One process on a fresh SQLite file, no Redis: it migrates, makes the admin user, plays the
demo league with the SDK's example bot as a separate process over gRPC, then serves the
site, the API and the gateway, and prints a fresh token with the line that joins a bot.
Ctrl-C (SIGINT) stops all of it, the SDK bot's process included.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import shlex
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import IO

import pytest

pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parent.parent
READY = "serving (Ctrl-C stops it)"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(tmp_path: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL", "GATEWAY_ADDRESS")
        and not k.startswith(("CELERY", "ARENA_"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        PYTHONPATH=str(ROOT),
        PYTHONUNBUFFERED="1",
        DATABASE_URL=f"sqlite:///{tmp_path / 'first-run.sqlite3'}",
    )
    return env


class Output:
    """A process's output (stdout unless ``stream`` says), read line by line in a thread."""

    def __init__(self, proc: subprocess.Popen[str], stream: IO[str] | None = None) -> None:
        self.lines: list[str] = []
        self._proc = proc
        self._stream = stream or proc.stdout
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        assert self._stream is not None
        for line in self._stream:
            self.lines.append(line.rstrip("\n"))

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def wait_for(self, needle: str, deadline: float) -> None:
        while needle not in self.text:
            if self._proc.poll() is not None:
                self._thread.join(2)
                pytest.fail(f"exited with {self._proc.returncode} before {needle!r}:\n{self.text}")
            if time.monotonic() > deadline:
                pytest.fail(f"no {needle!r} in time:\n{self.text}")
            time.sleep(0.1)


def _get(url: str, opener: urllib.request.OpenerDirector | None = None) -> tuple[int, str]:
    with (opener or urllib.request.build_opener()).open(url, timeout=10) as resp:
        return resp.status, resp.read().decode()


def _admin_login(site: str, password: str) -> str:
    """Log in to /admin/ as the printed user; returns the admin index page."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    _get(f"{site}/admin/login/", opener)
    csrf = next(c.value for c in jar if c.name == "csrftoken")
    data = urllib.parse.urlencode(
        {"username": "admin", "password": password, "csrfmiddlewaretoken": csrf,
         "next": "/admin/"}
    ).encode()  # fmt: skip
    request = urllib.request.Request(f"{site}/admin/login/", data=data, headers={"Referer": site})
    with opener.open(request, timeout=10) as resp:
        return str(resp.read().decode())


@pytest.mark.slow
def test_demo_runs_everything_in_one_process_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    started = time.monotonic()
    web, gateway = _free_port(), _free_port()
    state = tmp_path / "state"
    stderr = (tmp_path / "demo.stderr").open("w")
    demo = subprocess.Popen(
        [sys.executable, "manage.py", "demo", "--port", str(web), "--gateway-port",
         str(gateway), "--rounds", "1", "--search-playouts", "10", "--every", "3600",
         "--state-dir", str(state)],
        cwd=ROOT, env=_env(tmp_path), stdout=subprocess.PIPE, stderr=stderr, text=True,
    )  # fmt: skip
    out = Output(demo)
    joiner: subprocess.Popen[str] | None = None
    try:
        out.wait_for(READY, started + 40)
        text = out.text
        site = f"http://127.0.0.1:{web}"

        # the first run's steps, with progress
        assert "created superuser admin" in text
        assert "created Demo league" in text
        assert "entered remote bot sdk-heuristic in Demo league" in text
        assert "sdk-heuristic connected to the gateway" in text
        assert "round 1 of Demo league: scheduled, 8 matches" in text  # two divisions of 2
        assert "[  8/8]" in text and "round 1: complete" in text
        assert "Standings of Demo league" in text
        match = re.search(r"started \(pid (\d+),", text)
        assert match, text
        sdk_pid = int(match.group(1))

        # the URLs answer
        assert f"site    {site}/" in text and f"gateway 127.0.0.1:{gateway}" in text
        # the sandbox works here: the demo runs a bot host, so uploads are checked
        assert "hosting bot host in this process (bubblewrap" in text, text
        assert _get(f"{site}/")[0] == 200
        status, body = _get(f"{site}/healthz")
        assert status == 200 and json.loads(body)["status"] == "ok"
        assert _get(f"{site}/api/leagues/demo/standings/")[0] == 200
        replay = re.search(rf"replay  ({re.escape(site)}/matches/\d+/)", text)
        assert replay, text
        assert _get(replay.group(1))[0] == 200

        # the printed admin login works
        password = re.search(r"user admin, password (\S+)", text)
        assert password, text
        assert "Site administration" in _admin_login(site, password.group(1))
        assert (state / "admin-password").read_text().strip() == password.group(1)

        # the SDK bot played its matches over gRPC: the gateway timed its decisions
        db = sqlite3.connect(tmp_path / "first-run.sqlite3")
        played, timed = db.execute(
            "SELECT COUNT(*), SUM(p.decisions > 0 AND p.latency_mean_ms > 0) "
            "FROM arena_participation p JOIN arena_bot b ON b.id = p.bot_id "
            "JOIN arena_match m ON m.id = p.match_id "
            "WHERE b.name = 'sdk-heuristic' AND m.status = 'finished'"
        ).fetchone()
        assert played == 4 and timed == 4  # its division of 2: one opponent, 2 pairs
        assert "sdk-heuristic played 4 matches over gRPC" in text

        # the printed token and line join your-bot (in no league: nothing to play)
        join = [line.strip() for line in out.lines if "-m avenue_sdk run" in line]
        assert len(join) == 2, text  # the SDK bot's (token in $AVENUE_TOKEN) and yours
        argv = shlex.split(join[1])
        assert argv[:4] == [".venv/bin/python", "-m", "avenue_sdk", "run"] or argv[1:4] == [
            "-m", "avenue_sdk", "run"]  # fmt: skip
        assert f"127.0.0.1:{gateway}" in argv and argv[-2] == "--token"
        joiner = subprocess.Popen(
            [sys.executable, *argv[1:], "--no-reconnect"],
            cwd=ROOT, env=_env(tmp_path), stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        said = Output(joiner, joiner.stderr)
        said.wait_for("connected as your-bot", time.monotonic() + 15)
        entries = db.execute(
            "SELECT COUNT(*) FROM arena_entry e JOIN arena_bot b ON b.id = e.bot_id "
            "WHERE b.name = 'your-bot'"
        ).fetchone()[0]
        assert entries == 0
        db.close()
        joiner.send_signal(signal.SIGINT)
        joiner.wait(10)
    finally:
        if joiner is not None and joiner.poll() is None:
            joiner.kill()
        # Ctrl-C: everything stops
        if demo.poll() is None:
            demo.send_signal(signal.SIGINT)
        try:
            code = demo.wait(20)
        finally:
            if demo.poll() is None:
                demo.kill()
            stderr.close()
    assert code == 0, out.text
    out.wait_for("stopped: web server, gateway, bot host and SDK bot", time.monotonic() + 2)
    with pytest.raises(ProcessLookupError):
        os.kill(sdk_pid, 0)  # the SDK bot is gone (waited for, so not even a zombie)
    for port in (web, gateway):
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT is fine
            s.bind(("127.0.0.1", port))  # nothing listens there any more
    assert "Traceback" not in (tmp_path / "demo.stderr").read_text()

    # your-bot's token is kept (0600) for the next run
    token_file = state / "your-bot-token"
    assert token_file.read_text().strip() == argv[-1]
    assert token_file.stat().st_mode & 0o777 == 0o600

    # a second run reuses it all: same admin password, no new league or bots, the same
    # your-bot token. your-bot is entered in the Demo league (as the README suggests) and
    # not running: the site answers while its round plays, its matches wait at the end
    # of the round (5 s here), then it forfeits them as a no-show
    entered = subprocess.run(
        [sys.executable, "manage.py", "league", "enter", "demo", "your-bot"],
        cwd=ROOT, env=_env(tmp_path), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert entered.returncode == 0, entered.stderr
    db = sqlite3.connect(tmp_path / "first-run.sqlite3")
    db.execute("UPDATE arena_league SET absent_wait_s = 5 WHERE slug = 'demo'")
    db.commit()
    again = subprocess.Popen(
        [sys.executable, "manage.py", "demo", "--port", str(web), "--gateway-port",
         str(gateway), "--rounds", "1", "--every", "0", "--search-playouts", "10",
         "--state-dir", str(state)],
        cwd=ROOT, env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        text=True,
    )  # fmt: skip
    second = Output(again)
    try:
        second.wait_for("round 2 of Demo league: scheduled", time.monotonic() + 60)
        # the round is playing (it waits for your-bot at its end): the site answers
        assert _get(f"{site}/")[0] == 200
        assert _get(f"{site}/leagues/demo/")[0] == 200
        assert "Standings of Demo league" not in second.text.split("round 2 of Demo")[1]
        second.wait_for(READY, time.monotonic() + 120)
    finally:
        again.send_signal(signal.SIGINT)
        assert again.wait(20) == 0
    assert f"user admin, password {password.group(1)}" in second.text
    for made in ("created superuser", "created Demo", "entered house bot", "entered remote"):
        assert made not in second.text
    tokens = re.findall(r"--token (aat_\S+)", second.text)
    assert tokens == [argv[-1]], second.text
    assert "round 2: complete" in second.text
    forfeits = db.execute(
        "SELECT COUNT(*), SUM(p.fault_cause = 'no_show') FROM arena_participation p "
        "JOIN arena_bot b ON b.id = p.bot_id JOIN arena_match m ON m.id = p.match_id "
        "WHERE b.name = 'your-bot' AND m.status = 'finished'"
    ).fetchone()
    db.close()
    assert forfeits[0] > 0 and forfeits[0] == forfeits[1], forfeits


def test_demo_says_clearly_when_a_port_is_taken(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        run = subprocess.run(
            [sys.executable, "manage.py", "demo", "--port", str(port), "--gateway-port",
             str(_free_port()), "--state-dir", str(tmp_path / "state")],
            cwd=ROOT, env=_env(tmp_path), capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert run.returncode == 1
    assert f"web port {port} on 127.0.0.1 is already in use" in run.stderr
    assert "make demo PORT=" in run.stderr
    assert "Traceback" not in run.stderr
    assert not (tmp_path / "first-run.sqlite3").exists()  # nothing was done

"""Embedded mode, as a bot author meets it: `manage.py bot create`, then `manage.py
playmatch` (its own gateway, the in-process relay, no Redis), then the SDK's command line."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.protocol.harness import ROOT, bot_env
from tests.protocol.test_distributed import django_env

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.processes]


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_quick_start_in_embedded_mode(tmp_path: Path) -> None:
    env = django_env("unused")
    del env["REDIS_URL"]  # embedded mode
    created = manage(env, "bot", "create", "mybot")
    assert created.returncode == 0, created.stderr
    token = created.stdout.strip().splitlines()[-1]
    assert token.startswith("aat_")
    listed = manage(env, "bot", "list")
    assert "mybot" in listed.stdout and token not in listed.stdout  # only the prefix shows

    bot_file = tmp_path / "mybot.py"
    bot_file.write_text(
        "import random\n"
        "from avenue_sdk import Bot\n\n"
        "class MyBot(Bot):\n"
        "    def decide(self, request):\n"
        "        return random.randrange(len(request.legal))\n"
    )
    play = subprocess.Popen(
        [sys.executable, "manage.py", "playmatch", "mybot", "greedy", "--games", "2"]
        + ["--gateway-port", "0", "--wait", "30", "--replay-dir", str(tmp_path / "replays")],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    bot = None
    try:
        assert play.stdout is not None
        line = play.stdout.readline()
        found = re.search(r"gateway listening on [\d.]+:(\d+)", line)
        assert found, line
        bot = subprocess.Popen(
            [sys.executable, "-m", "avenue_sdk", "run", "mybot:MyBot"]
            + ["--arena", f"127.0.0.1:{found.group(1)}", "--token", token],
            cwd=tmp_path,
            env=bot_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        out, _ = play.communicate(timeout=60)
    finally:
        for proc in (play, bot):
            if proc is not None and proc.poll() is None:
                proc.kill()
    assert play.returncode == 0, out
    games = [ln for ln in out.splitlines() if ln.startswith("game ")]
    assert len(games) == 2 and all("wins by" in g for g in games), out
    assert "FORFEIT" not in out.upper()
    assert len(list((tmp_path / "replays").glob("*.json"))) == 2

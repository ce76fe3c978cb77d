"""``python -m avenue_sdk view REPLAY.json``: a real process serving the viewer on
127.0.0.1, and a clear error for a file that is not a replay."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from referee import GameConfig
from referee.bots import make_bot
from referee.play import play_game

pytestmark = pytest.mark.processes

DEADLINE_S = 60


def test_view_serves_the_replay_in_the_viewer(tmp_path: Path) -> None:
    record = play_game(GameConfig.for_seats(2, "advanced"), 5,
                       [make_bot("greedy", 5), make_bot("random", 6)]).record  # fmt: skip
    path = tmp_path / "game.json"
    path.write_text(record.dumps())
    proc = subprocess.Popen(
        [sys.executable, "-m", "avenue_sdk", "view", str(path), "--no-browser", "--names", "g,r"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # the command prints its URL first, then serves
        found = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
        assert found, line
        url = found.group(1)
        page = urllib.request.urlopen(url, timeout=DEADLINE_S).read().decode()
        assert "/static/viewer/viewer.js" in page and 'id="viewer"' in page
        js = urllib.request.urlopen(url + "static/viewer/viewer.js", timeout=DEADLINE_S).read()
        shipped = (
            Path(__file__).resolve().parents[2] / "sdk/avenue_sdk/viewer/static/viewer/viewer.js"
        )
        assert js == shipped.read_bytes()
        data = json.loads(
            urllib.request.urlopen(url + "frames?perspective=seat:0", timeout=DEADLINE_S).read()
        )
        assert data["seat_names"] == ["g", "r"] and len(data["frames"]) == len(record.decisions) + 1
        assert (
            data["frames"][0]["seats"][0]["hand"] and data["frames"][0]["seats"][1]["hand"] is None
        )
    finally:
        proc.terminate()
        proc.wait(DEADLINE_S)


def test_view_refuses_what_is_not_a_replay(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": 1, "config": {}}')
    run = subprocess.run(
        [sys.executable, "-m", "avenue_sdk", "view", str(bad), "--no-browser"],
        capture_output=True, text=True, timeout=DEADLINE_S,
    )  # fmt: skip
    assert run.returncode == 2
    assert "not a replay this engine can play back" in run.stderr and "Traceback" not in run.stderr
    missing = subprocess.run(
        [sys.executable, "-m", "avenue_sdk", "view", str(tmp_path / "nope.json"), "--no-browser"],
        capture_output=True, text=True, timeout=DEADLINE_S,
    )  # fmt: skip
    assert missing.returncode == 2 and "not a JSON file" in missing.stderr

"""The TypeScript starter (starters/typescript/) as a real node process against a real
gateway on port 0, its matches run by the real match runner over the Redis relay.

The starter is installed with ``npm ci`` from its committed lockfile (skipped while
node_modules was installed from the same lockfile) and built with its own ``tsc``. Where
node or npm is missing, the tests fail saying what to install: a skip would hide a
check that never ran."""

from __future__ import annotations

import hashlib
import re
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from arena.adapters.gateway import GatewayConfig
from arena.adapters.runner import FaultCause, HouseSeat, MatchResult, MatchStatus, TimeControl
from arena.models import Bot
from referee import EndReason, GameConfig
from referee.replay import validate
from tests.protocol.harness import (
    Arena,
    Background,
    BotProcess,
    bot_env,
    running_arena,
    wait_for,
)

pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parents[2]
STARTER = ROOT / "starters" / "typescript"
#: written into node_modules after a successful ``npm ci``: the lockfile it came from
STAMP = STARTER / "node_modules" / ".installed-from-lockfile.sha256"
INSTALL_HELP = (
    "The TypeScript starter's tests need Node.js 18.3 or newer and npm on PATH. Install them "
    "(Debian/Ubuntu: `apt-get install nodejs npm`; elsewhere: https://nodejs.org/), then run "
    "`make test` again."
)
#: util.parseArgs, which the starter uses, came with Node 18.3
NODE_MIN = (18, 3)


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"`{name}` was not found on PATH. {INSTALL_HELP}", pytrace=False)
    return path


def _run(argv: list[str], what: str, timeout: float) -> None:
    try:
        done = subprocess.run(
            argv, cwd=STARTER, capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{what} did not finish within {timeout:g} s", pytrace=False)
    if done.returncode != 0:
        pytest.fail(
            f"{what} failed (exit {done.returncode}):\n{done.stdout}\n{done.stderr}", pytrace=False
        )


@pytest.fixture(scope="module")
def starter() -> list[str]:
    """The command that runs the built starter: ``node dist/src/main.js``."""
    node, npm = _tool("node"), _tool("npm")
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=False)
    found = re.match(r"v(\d+)\.(\d+)\.", version.stdout.strip())
    if found is None or (int(found.group(1)), int(found.group(2))) < NODE_MIN:
        pytest.fail(
            f"node {version.stdout.strip() or '(unknown version)'} is too old. {INSTALL_HELP}",
            pytrace=False,
        )
    digest = hashlib.sha256((STARTER / "package-lock.json").read_bytes()).hexdigest()
    if not STAMP.exists() or STAMP.read_text().strip() != digest:
        _run(
            [npm, "ci", "--prefer-offline", "--no-audit", "--no-fund"],
            "npm ci in starters/typescript",
            600,
        )
        STAMP.write_text(digest + "\n")
    _run([npm, "run", "--silent", "build"], "npm run build in starters/typescript", 300)
    return [node, str(STARTER / "dist" / "src" / "main.js")]


@pytest.fixture
def arena(tmp_path: Path, transactional_db: None) -> Iterator[Arena]:
    if not settings.REDIS_URL:
        pytest.fail(
            "these tests need a real Redis: set REDIS_URL (as `make test` does: redis://127.0.0.1:6379/0)"
        )
    with running_arena(tmp_path) as a:
        yield a


def ts_bot(
    arena: Arena,
    starter: list[str],
    name: str,
    *args: str,
    token: str | None = None,
    wait: bool = True,
    via_env: bool = False,
) -> BotProcess:
    """Run the starter as bot ``name`` (created unless ``token`` is given), logging
    every decision; the address and token as flags, or ``via_env`` as AVENUE_ARENA and
    AVENUE_TOKEN."""
    if token is None:
        _, token = arena.bot(name)
    log = arena.tmp / f"{name}.log"
    where = ["--arena", arena.address, "--token", token]
    env = bot_env(AVENUE_ARENA=arena.address, AVENUE_TOKEN=token) if via_env else bot_env()
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [*starter, *([] if via_env else where), "--verbose", *args],
            cwd=STARTER,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )
    process = BotProcess(name, proc, log)
    arena.processes.append(process)
    if wait:
        arena.wait_connected(name, timeout=60)
    return process


def answers(process: BotProcess, match_id: str) -> list[tuple[int, int, int]]:
    """(seq, index, legal count) of every answer the bot logged in the match."""
    pattern = rf"match {re.escape(match_id)} #(\d+) \w+: choice (\d+) of (\d+) "
    return [tuple(map(int, m)) for m in re.findall(pattern, process.output())]  # type: ignore[misc]


def asked(outcome: MatchResult, seats: set[int]) -> int:
    """Decisions of ``seats`` that the runner asked (the rest had one legal option)."""
    return sum(1 for d in outcome.record.decisions if d.seat in seats and d.latency_ms is not None)


def assert_clean_finish(outcome: MatchResult, process: BotProcess, seats: set[int]) -> None:
    # MatchEnded is sent as the runner returns, and the bot logs each answer just after
    # sending it: once it has logged the end, every answer of the match is in its log.
    for seat in seats:
        wait_logged(process, f"match {outcome.match_id} ended, seat {seat}: ")
    output = process.output()
    assert outcome.status == MatchStatus.FINISHED, output
    assert not outcome.faults, (outcome.faults, output)
    assert outcome.result is not None and outcome.result.reason is not EndReason.FORFEIT
    assert validate(outcome.record).over  # the replay re-simulates to the same end
    reports = [r for r in outcome.seats if r.seat in seats]
    assert all(r.fault is None and r.decisions > 0 for r in reports), reports
    logged = answers(process, outcome.match_id)
    assert len(logged) == asked(outcome, seats) == sum(r.decisions for r in reports), output
    assert outcome.drops.stale == outcome.drops.foreign == 0


def wait_logged(process: BotProcess, text: str, timeout: float = 30) -> None:
    wait_for(lambda: text in process.output(), timeout, f"{process.name} to log {text!r}")


@pytest.mark.parametrize(
    ("bot", "mode"), [("heuristic", "simple"), ("random", "advanced"), ("first", "advanced")]
)
def test_a_full_match_against_a_house_bot(
    arena: Arena, starter: list[str], bot: str, mode: str
) -> None:
    process = ts_bot(arena, starter, f"ts-{bot}", "--bot", bot, "--seed", "7")
    outcome = arena.play(
        [arena.remote(f"ts-{bot}"), HouseSeat("greedy", 3)],
        GameConfig.for_seats(2, mode),
        seed=5,
        time_control=TimeControl(decision_ms=10_000, bank_ms=30_000),
    )
    assert_clean_finish(outcome, process, {0})
    logged = answers(process, outcome.match_id)
    assert all(0 <= index < legal for _, index, legal in logged)
    if bot == "first":
        # Every answer is index 0, the value a zero-dropping encoder would lose: none of
        # them was read as "no choice" (MALFORMED_ACTION).
        assert {index for _, index, _ in logged} == {0}
    row = Bot.objects.get(name=f"ts-{bot}")
    assert row.protocol_version == 1 and row.bot_version == f"ts-{bot}-1"
    # SIGTERM ends it cleanly: the stream is closed and the process exits 0.
    process.proc.send_signal(signal.SIGTERM)
    assert process.proc.wait(30) == 0, process.output()
    assert "SIGTERM: closing the connection" in process.output()
    wait_for(lambda: not arena.relay.is_connected(arena.bot_id(f"ts-{bot}")), 30, "disconnect")


def test_two_seats_of_a_team_match_on_one_stream(arena: Arena, starter: list[str]) -> None:
    process = ts_bot(arena, starter, "ts-team", "--bot", "heuristic", "--max-matches", "2")
    wait_logged(process, "up to 2 matches at once")
    seats = [
        arena.remote("ts-team"),
        HouseSeat("greedy", 1),
        arena.remote("ts-team"),
        HouseSeat("random", 2),
    ]
    outcome = arena.play(
        seats,
        GameConfig.for_seats(4, "advanced"),
        seed=11,
        time_control=TimeControl(decision_ms=10_000, bank_ms=30_000),
    )
    assert_clean_finish(outcome, process, {0, 2})
    assert process.output().count(f"match {outcome.match_id} started: seat") == 2
    assert process.stop() == 0, process.output()  # SIGINT


@pytest.mark.parametrize(("asked", "granted"), [(0, 1), (99, 16)])
def test_welcome_states_the_default_limits(
    tmp_path: Path, transactional_db: None, starter: list[str], asked: int, granted: int
) -> None:
    """A gateway with its default settings, as docs/protocol.md states them: a ping every
    10 s; Hello.max_concurrent_matches 0 counts as 1, and the value is capped at 16."""
    if not settings.REDIS_URL:
        pytest.fail(
            "these tests need a real Redis: set REDIS_URL (as `make test` does: redis://127.0.0.1:6379/0)"
        )
    with running_arena(tmp_path, GatewayConfig.from_settings()) as arena:
        process = ts_bot(arena, starter, f"ts-wants-{asked}", "--max-matches", str(asked))
        wait_logged(process, f"up to {granted} matches at once, heartbeat every 10 s")


def test_it_reconnects_when_the_gateway_comes_back(
    tmp_path: Path, transactional_db: None, starter: list[str]
) -> None:
    """The gateway stops (``shutting_down``, UNAVAILABLE): the bot, given its address and
    token in AVENUE_ARENA / AVENUE_TOKEN, retries with backoff until a gateway listens on
    that address again, then plays there."""
    if not settings.REDIS_URL:
        pytest.fail(
            "these tests need a real Redis: set REDIS_URL (as `make test` does: redis://127.0.0.1:6379/0)"
        )
    with running_arena(tmp_path / "first") as first:
        (tmp_path / "first").mkdir()
        process = ts_bot(first, starter, "ts-again", "--bot", "random", via_env=True)
        first.processes.remove(process)  # it must outlive this gateway
        port = first.port
    try:
        wait_logged(process, "reconnecting in", 60)
        with running_arena(tmp_path, port=port) as second:
            second.processes.append(process)
            second.wait_connected("ts-again", timeout=60)
            outcome = second.play([second.remote("ts-again"), HouseSeat("random", 1)], seed=3)
            assert_clean_finish(outcome, process, {0})
    finally:
        process.stop()
    assert process.proc.returncode == 0, process.output()


def test_a_newer_stream_supersedes_it_and_gets_the_old_streams_match_end(
    arena: Arena, starter: list[str], tmp_path: Path
) -> None:
    """The old process stops for good (exit 2); the match it was in ends with its
    DISCONNECT, and that MatchEnded goes to the new stream, which never saw the match
    start (docs/protocol.md, match ids)."""
    bot, token = arena.bot("ts-twin")
    old = ts_bot(arena, starter, "ts-twin", "--bot", "random", token=token)
    marker = tmp_path / "sleeper-deciding"
    arena.sdk_bot(
        "sleeper",
        "tests.protocol.testbots:SleepyBot",
        env={"AVENUE_TEST_SLEEP": "1.0", "AVENUE_TEST_MARKER": str(marker)},
    )
    background = Background()
    try:
        future = background.run(
            arena.play,
            [arena.remote("ts-twin"), arena.remote("sleeper")],
            time_control=TimeControl(decision_ms=10_000, bank_ms=30_000),
        )
        wait_for(marker.exists, 60, "the match to be under way")
        (tmp_path / "new").mkdir()
        new_log = tmp_path / "new" / "ts-twin.log"
        with open(new_log, "w") as out:
            proc = subprocess.Popen(
                [*starter, "--arena", arena.address, "--token", token, "--bot", "random"],
                cwd=STARTER,
                env=bot_env(),
                stdout=out,
                stderr=subprocess.STDOUT,
                text=True,
            )
        new = BotProcess("ts-twin (new)", proc, new_log)
        arena.processes.append(new)
        outcome = future.result(timeout=60)
    finally:
        background.close()
    assert [(f.seat, f.cause) for f in outcome.faults] == [(0, FaultCause.DISCONNECT)]
    assert old.proc.wait(30) == 2, old.output()
    assert "another connection of this bot took over" in old.output()
    wait_logged(new, f"match {outcome.match_id} ended, seat 0 (started on an earlier stream): ")
    assert f"match {outcome.match_id} started" not in new.output()
    assert arena.relay.is_connected(str(bot.pk)), new.output()


def test_a_gateway_restart_mid_match_resumes_it_where_it_was(
    arena: Arena, starter: list[str], tmp_path: Path
) -> None:
    """The gateway drains under a match in progress and a new one starts on its port: the
    starter keeps the match across streams, is told it goes on (``resumed``, with the
    grace on the wire), and the same game finishes with no fault and no second start."""
    from tests.protocol.test_resume import _restart_gateway

    process = ts_bot(arena, starter, "ts-resume", "--bot", "random")
    marker = tmp_path / "sleeper-deciding"
    arena.sdk_bot(
        "sleeper",
        "tests.protocol.testbots:SleepyBot",
        env={"AVENUE_TEST_SLEEP": "0.5", "AVENUE_TEST_MARKER": str(marker)},
    )
    background = Background()
    try:
        future = background.run(
            arena.play,
            [arena.remote("ts-resume"), arena.remote("sleeper")],
            time_control=TimeControl(decision_ms=20_000, bank_ms=0),
            reconnect_grace_s=30,
        )
        wait_for(marker.exists, 60, "the match to be under way")
        _restart_gateway(arena)
        outcome = future.result(timeout=120)
    finally:
        background.close()
    match = outcome.match_id
    wait_logged(process, f"match {match} ended, seat 0: ")
    log = process.output()
    assert outcome.status == MatchStatus.FINISHED and not outcome.faults, (outcome.faults, log)
    assert validate(outcome.record).over
    assert log.count(f"match {match} started: seat 0") == 1, log
    assert log.count(f"match {match} resumed: seat 0, on a new stream") == 1, log
    assert "(started on an earlier stream)" not in log and "forgetting it" not in log, log
    assert {r.bot for r in outcome.resumes} == {"ts-resume", "sleeper"}, outcome.resumes


def test_it_plays_in_the_sdks_local_arena(starter: list[str], tmp_path: Path) -> None:
    """``python -m avenue_sdk play "node dist/src/main.js" greedy``: the SDK's local arena
    starts a gateway of its own, hands the command its address and token (AVENUE_ARENA,
    AVENUE_TOKEN) and plays it as it plays a Python bot, with the same report."""
    import json
    import shlex
    import sys

    command = shlex.join([*starter, "--bot", "heuristic"])
    figures = tmp_path / "s.json"
    out = subprocess.run(
        [sys.executable, "-m", "avenue_sdk", "play", command, "greedy", "--games", "6",
         "--seed", "5", "--mode", "advanced", "--json", str(figures), "-q",
         "--bot-log-dir", str(tmp_path / "logs")],
        cwd=STARTER, env=bot_env(), capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    s = json.loads(figures.read_text())
    assert s["games"] == 6 and not s["faults"], s
    assert s["own_process"] == [command] and s["decisions"] > 20, s
    assert f"{command} vs greedy: 6 games in" in out.stdout
    assert "in a process of its own, over gRPC" in out.stdout
    log = "".join(p.read_text() for p in (tmp_path / "logs").glob("*.log"))
    assert "connected as" in log and "ended, seat" in log, log


def test_a_refused_token_stops_it_with_a_clear_message(arena: Arena, starter: list[str]) -> None:
    process = ts_bot(arena, starter, "ts-refused", token="aat_not-a-real-token", wait=False)
    try:
        code = process.proc.wait(60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the bot kept going with a bad token:\n{process.output()}")
    assert code == 2, process.output()
    assert "refused the bot (UNAUTHENTICATED)" in process.output()
    assert "reconnecting" not in process.output()


def test_the_starters_own_unit_tests_pass(starter: list[str]) -> None:
    """``npm test`` without its build step (the fixture built dist/): node's test runner
    over starters/typescript/test/ (the heuristic's choices, and a zero choice_index
    encoded through the real proto-loader setup)."""
    done = subprocess.run(
        [starter[0], "--test", "dist/test/"],
        cwd=STARTER,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    passed = re.search(r"^# pass (\d+)$", done.stdout, re.MULTILINE)
    assert passed is not None and int(passed.group(1)) >= 7, done.stdout
    assert re.search(r"^# fail 0$", done.stdout, re.MULTILINE), done.stdout

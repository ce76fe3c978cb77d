"""The Go starter (starters/go/) as a real compiled process against a real gateway on port
0, its matches run by the real match runner over the Redis relay.

The starter is built offline with its own ``build.sh`` (Go in GOPATH mode against Debian's
grpc-go and protobuf-go sources under /usr/share/gocode), into a folder of the test
session's own. Its generated protocol code is checked in: a test regenerates it with
Debian's protoc and fails on any difference. Where Go, the libraries or protoc are missing,
the tests fail saying what to install (``bash scripts/ensure_go.sh``, which ``make test``
runs): a skip would hide a check that never ran."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from arena.adapters.gateway import GatewayConfig
from arena.adapters.runner import FaultCause, HouseSeat, MatchStatus, TimeControl
from arena.models import Bot
from referee import GameConfig
from referee.replay import validate
from tests.protocol.harness import (
    Arena,
    Background,
    BotProcess,
    bot_env,
    running_arena,
    wait_for,
)
from tests.starters.test_typescript import answers, assert_clean_finish, wait_logged

pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parents[2]
STARTER = ROOT / "starters" / "go"
GOCODE = Path("/usr/share/gocode/src")
PACKAGES = (
    "golang-go golang-google-grpc-dev golang-google-protobuf-dev "
    "golang-github-golang-protobuf-1-5-dev protoc-gen-go protoc-gen-go-grpc protobuf-compiler"
)
INSTALL_HELP = (
    "The Go starter's tests need Go 1.19 or newer, Debian's grpc-go and protobuf-go sources "
    f"under {GOCODE} and protoc with its Go plugins. Install them with "
    "`bash scripts/ensure_go.sh` (as root; `make test` runs it) or "
    f"`apt-get install {PACKAGES}`, then run `make test` again."
)
GO_MIN = (1, 19)
GENERATED = ("arena.pb.go", "arena_grpc.pb.go")
#: a comment, to the end of its line: protoc-gen-go copies the .proto's comments and the
#: generators' versions into the code, and neither changes what the code does
COMMENT = re.compile(r"\s*//.*$")


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"`{name}` was not found on PATH. {INSTALL_HELP}", pytrace=False)
    return path


def _run(argv: list[str], what: str, timeout: float) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(
            argv,
            cwd=STARTER,
            env=bot_env(),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{what} did not finish within {timeout:g} s", pytrace=False)
    if done.returncode != 0:
        pytest.fail(
            f"{what} failed (exit {done.returncode}):\n{done.stdout}\n{done.stderr}", pytrace=False
        )
    return done


@pytest.fixture(scope="module")
def go() -> str:
    go = _tool("go")
    version = subprocess.run([go, "version"], capture_output=True, text=True, check=False)
    found = re.search(r"\bgo(\d+)\.(\d+)", version.stdout)
    if found is None or (int(found.group(1)), int(found.group(2))) < GO_MIN:
        pytest.fail(
            f"{version.stdout.strip() or 'go (unknown version)'} is too old. {INSTALL_HELP}",
            pytrace=False,
        )
    for library in ("google.golang.org/grpc", "google.golang.org/protobuf"):
        if not (GOCODE / library).is_dir():
            pytest.fail(f"{GOCODE / library} is missing. {INSTALL_HELP}", pytrace=False)
    # grpc-go's codec goes through github.com/golang/protobuf: 1.3 cannot marshal today's
    # generated messages (the starter would refuse to start); 1.4 and newer can
    if not (GOCODE / "github.com/golang/protobuf/proto/registry.go").is_file():
        pytest.fail(
            f"{GOCODE}/github.com/golang/protobuf is missing or older than 1.4. {INSTALL_HELP}",
            pytrace=False,
        )
    return go


@pytest.fixture(scope="module")
def starter(go: str, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The command that runs the built starter (a binary of this test session's own, so
    that parallel sessions never overwrite each other's)."""
    binary = tmp_path_factory.mktemp("go-starter") / "avenue-bot"
    _run(["bash", "build.sh", "build", str(binary)], "bash build.sh in starters/go", 600)
    return [str(binary)]


def _need_redis() -> None:
    if not settings.REDIS_URL:
        pytest.fail(
            "these tests need a real Redis: set REDIS_URL (as `make test` does: redis://127.0.0.1:6379/0)"
        )


@pytest.fixture
def arena(tmp_path: Path, transactional_db: None) -> Iterator[Arena]:
    _need_redis()
    with running_arena(tmp_path) as a:
        yield a


def go_bot(
    arena: Arena,
    starter: list[str],
    name: str,
    *args: str,
    token: str | None = None,
    wait: bool = True,
    via_env: bool = False,
    log: Path | None = None,
) -> BotProcess:
    """Run the starter as bot ``name`` (created unless ``token`` is given), logging every
    decision; the address and token as flags, or ``via_env`` as AVENUE_ARENA and
    AVENUE_TOKEN."""
    if token is None:
        _, token = arena.bot(name)
    log = log or arena.tmp / f"{name}.log"
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


@pytest.mark.parametrize(
    ("bot", "mode"), [("heuristic", "simple"), ("random", "advanced"), ("first", "advanced")]
)
def test_a_full_match_against_a_house_bot(
    arena: Arena, starter: list[str], bot: str, mode: str
) -> None:
    process = go_bot(arena, starter, f"go-{bot}", "--bot", bot, "--seed", "7")
    outcome = arena.play(
        [arena.remote(f"go-{bot}"), HouseSeat("greedy", 3)],
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
    row = Bot.objects.get(name=f"go-{bot}")
    assert row.protocol_version == 1 and row.bot_version == f"go-{bot}-1"
    # SIGTERM ends it cleanly: the stream is closed and the process exits 0.
    process.proc.send_signal(signal.SIGTERM)
    assert process.proc.wait(30) == 0, process.output()
    assert "SIGTERM: closing the connection" in process.output()
    wait_for(lambda: not arena.relay.is_connected(arena.bot_id(f"go-{bot}")), 30, "disconnect")


def test_two_seats_of_a_team_match_on_one_stream(arena: Arena, starter: list[str]) -> None:
    process = go_bot(arena, starter, "go-team", "--bot", "heuristic", "--max-matches", "2")
    wait_logged(process, "up to 2 matches at once")
    seats = [
        arena.remote("go-team"),
        HouseSeat("greedy", 1),
        arena.remote("go-team"),
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
    assert "SIGINT: closing the connection" in process.output()


@pytest.mark.parametrize(("asked", "granted"), [(0, 1), (99, 16)])
def test_welcome_states_the_default_limits(
    tmp_path: Path, transactional_db: None, starter: list[str], asked: int, granted: int
) -> None:
    """A gateway with its default settings, as docs/protocol.md states them: a ping every
    10 s; Hello.max_concurrent_matches 0 counts as 1, and the value is capped at 16."""
    _need_redis()
    with running_arena(tmp_path, GatewayConfig.from_settings()) as arena:
        process = go_bot(arena, starter, f"go-wants-{asked}", "--max-matches", str(asked))
        wait_logged(process, f"up to {granted} matches at once, heartbeat every 10 s")


def test_it_reconnects_when_the_gateway_comes_back(
    tmp_path: Path, transactional_db: None, starter: list[str]
) -> None:
    """The gateway stops (``shutting_down``, UNAVAILABLE): the bot, given its address and
    token in AVENUE_ARENA / AVENUE_TOKEN, retries with backoff until a gateway listens on
    that address again, then plays there."""
    _need_redis()
    with running_arena(tmp_path / "first") as first:
        (tmp_path / "first").mkdir()
        process = go_bot(first, starter, "go-again", "--bot", "random", via_env=True)
        first.processes.remove(process)  # it must outlive this gateway
        port = first.port
    try:
        wait_logged(process, "reconnecting in", 60)
        with running_arena(tmp_path, port=port) as second:
            second.processes.append(process)
            second.wait_connected("go-again", timeout=60)
            outcome = second.play([second.remote("go-again"), HouseSeat("random", 1)], seed=3)
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
    bot, token = arena.bot("go-twin")
    old = go_bot(arena, starter, "go-twin", "--bot", "random", token=token)
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
            [arena.remote("go-twin"), arena.remote("sleeper")],
            time_control=TimeControl(decision_ms=10_000, bank_ms=30_000),
        )
        wait_for(marker.exists, 60, "the match to be under way")
        (tmp_path / "new").mkdir()
        new = go_bot(
            arena,
            starter,
            "go-twin",
            "--bot",
            "random",
            token=token,
            wait=False,
            log=tmp_path / "new" / "go-twin.log",
        )
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

    process = go_bot(arena, starter, "go-resume", "--bot", "random")
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
            [arena.remote("go-resume"), arena.remote("sleeper")],
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
    assert {r.bot for r in outcome.resumes} == {"go-resume", "sleeper"}, outcome.resumes


def test_it_plays_in_the_sdks_local_arena(starter: list[str], tmp_path: Path) -> None:
    """``python -m avenue_sdk play "./avenue-bot" greedy``: the SDK's local arena starts a
    gateway of its own, hands the command its address and token (AVENUE_ARENA,
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
    process = go_bot(arena, starter, "go-refused", token="aat_not-a-real-token", wait=False)
    try:
        code = process.proc.wait(60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the bot kept going with a bad token:\n{process.output()}")
    assert code == 2, process.output()
    assert "refused the bot (UNAUTHENTICATED)" in process.output()
    assert "reconnecting" not in process.output()


def test_bad_flags_exit_64_with_the_usage(starter: list[str]) -> None:
    done = subprocess.run(
        [*starter, "--bot", "nope", "--token", "x"],
        env=bot_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 64, done.stdout + done.stderr
    assert 'unknown bot "nope"' in done.stderr and "usage: avenue-bot" in done.stderr


def test_the_starters_own_unit_tests_pass_and_the_code_is_vetted(go: str) -> None:
    """``go test`` over starters/go/ (the heuristic's choices, a zero choice_index on the
    wire, the client's history and answer checks), ``go vet``, and ``gofmt -l``."""
    done = _run(["bash", "build.sh", "test", "-v"], "go test in starters/go", 600)
    passed = re.findall(r"^--- PASS: ", done.stdout, re.MULTILINE)
    assert len(passed) >= 12 and "--- FAIL" not in done.stdout, done.stdout
    _run(["bash", "build.sh", "vet"], "go vet in starters/go", 600)
    gofmt = os.path.join(os.path.dirname(os.path.realpath(go)), "gofmt")
    unformatted = _run([gofmt, "-l", "."], "gofmt -l in starters/go", 120).stdout.split()
    assert unformatted == [], f"not gofmt-formatted: {unformatted}"


def _generated(folder: Path) -> dict[str, list[str]]:
    """Each generated file's code without its comments (the embedded descriptor carries
    no comments: a comment-only change to the .proto changes no code)."""
    code = {}
    for name in GENERATED:
        lines = (COMMENT.sub("", line) for line in (folder / name).read_text().splitlines())
        code[name] = [line for line in lines if line.strip()]
    return code


def test_checked_in_generated_code_matches_proto(go: str, tmp_path: Path) -> None:
    """starters/go/arena*.pb.go are what protoc makes of proto/ today, comments aside (the
    .proto's own, and the generators' versions): regenerate them with ``make proto`` or
    ``bash starters/go/gen_proto.sh``."""
    for tool in ("protoc", "protoc-gen-go", "protoc-gen-go-grpc"):
        _tool(tool)
    _run(["bash", "gen_proto.sh", str(tmp_path)], "gen_proto.sh in starters/go", 120)
    fresh, checked_in = _generated(tmp_path), _generated(STARTER)
    differ = sorted(name for name in GENERATED if fresh[name] != checked_in[name])
    assert not differ, (
        f"The Go starter's generated protocol code is out of date with proto/ ({differ}): "
        "run `make proto` (or `bash starters/go/gen_proto.sh`) and commit the result"
    )

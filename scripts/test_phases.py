"""``make test``'s lint and pytest phases, the serial one beside the others (docs/testing.md).

    python scripts/test_phases.py [--jobs auto] [--reports var/test-reports] [-- PYTEST_ARGS...]

The serial tests (``-m serial``: fault and load tests, sandbox limits) spend most of their
time waiting for processes they killed or started, so they run one at a time in a pytest of
their own **beside** lint, the parallel phase and the pure-engine referee phase, on services
of their own:

* PostgreSQL database ``<name>_serial`` (pytest-django's test database ``test_<name>_serial``);
* the Redis server's last database (the parallel phase's workers use ``N``, ``N+1``, ... of
  REDIS_URL's ``N``; tests/conftest.py stops the run if one would be the same);
* the upper half of the sandbox uids (the parallel phase splits the lower half).

Every phase runs even when one before it failed; the exit status is 1 if any failed (or
collected no test), and the phases that did are listed. Ctrl-C stops the serial phase too.
Reads DATABASE_URL and REDIS_URL (``make test`` exports them); MAKE names the make that runs
the lint targets.
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path

import redis

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.lanes import SANDBOX_UIDS, worker_redis_url  # noqa: E402

VENV_BIN = Path(sys.executable).parent
PYTEST = str(VENV_BIN / "pytest")
NO_TESTS = 5  # pytest's exit code when it collected nothing


def section(title: str) -> None:
    print(f"\n==== {title} ====", flush=True)


def serial_database_url(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    name = parts.path.strip("/") or "postgres"
    return urllib.parse.urlunsplit(parts._replace(path=f"/{name}_serial"))


def serial_redis_url(url: str) -> str:
    """REDIS_URL moved to the server's last database."""
    client = redis.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=3)
    try:
        config: dict[str, str] = client.config_get("databases")  # type: ignore[assignment]
        databases = int(config.get("databases", 16))
        current = int(client.connection_pool.connection_kwargs.get("db", 0))
    finally:
        client.close()
    return worker_redis_url(url, databases - 1 - current)


class Phases:
    def __init__(self, reports: Path, pytest_args: list[str]) -> None:
        self.reports = reports
        self.pytest_args = pytest_args
        self.failed: list[str] = []
        self.times: list[tuple[str, float]] = []

    def outcome(
        self, name: str, rc: int, started: float, pytest: bool = True, ended: float | None = None
    ) -> None:
        self.times.append((name, (ended or time.monotonic()) - started))
        if pytest and rc == NO_TESTS:
            print(
                "ERROR: pytest collected no tests (exit code 5); "
                "a suite that runs nothing is a failure."
            )
        if rc != 0:
            self.failed.append(f"{name}: exit code {rc}")

    def run(self, name: str, argv: list[str], env: dict[str, str], pytest: bool = True) -> None:
        section(name)
        started = time.monotonic()
        rc = subprocess.call(argv, env=env)
        self.outcome(name, rc, started, pytest)

    def pytest(self, *args: str) -> list[str]:
        return [PYTEST, *args, *self.pytest_args]


def stop(process: subprocess.Popen[bytes]) -> None:
    """Ctrl-C for the serial pytest (its own session: the terminal's does not reach it), so
    that its fixtures stop what they started; SIGKILL to the whole session after 60 s."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGINT)
    try:
        process.wait(60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", default="auto", help="pytest-xdist workers (-n)")
    parser.add_argument("--reports", type=Path, default=ROOT / "var" / "test-reports")
    parser.add_argument("pytest_args", nargs="*", help="after --: added to every pytest run")
    args = parser.parse_args()
    reports: Path = args.reports
    reports.mkdir(parents=True, exist_ok=True)
    phases = Phases(reports, args.pytest_args)
    xdist = ["-n", args.jobs, "--dist", "worksteal"]

    import referee

    base = {**os.environ, "AVENUE_ENGINE_EXPECT": referee.ENGINE}
    low, high = SANDBOX_UIDS
    middle = (low + high + 1) // 2
    serial_env = {
        **base,
        "DATABASE_URL": serial_database_url(os.environ["DATABASE_URL"]),
        "REDIS_URL": serial_redis_url(os.environ["REDIS_URL"]),
        "HOSTED_UID_FIRST": str(middle),
        "HOSTED_UID_LAST": str(high),
    }
    parallel_env = {
        **base,
        "HOSTED_UID_FIRST": str(low),
        "HOSTED_UID_LAST": str(middle - 1),
        "ARENA_TEST_SERIAL_REDIS_URL": serial_env["REDIS_URL"],
    }
    check = [sys.executable, str(ROOT / "scripts" / "check_services.py"), "--create-database"]
    if subprocess.call(check, env=serial_env, stdout=subprocess.DEVNULL) != 0:
        subprocess.call(check, env=serial_env)  # again, to show what is missing
        return 1

    serial_log = reports / "serial.log"
    serial_name = "serial (-m serial: one test at a time, beside the other phases)"
    section(f"pytest: {serial_name}")
    print(
        f"started now on {serial_env['DATABASE_URL']} and {serial_env['REDIS_URL']}, sandbox "
        f"uids {middle}..{high}; its output goes to {serial_log} and is shown when it ends",
        flush=True,
    )
    serial_started = time.monotonic()
    with serial_log.open("wb") as log:
        serial = subprocess.Popen(
            phases.pytest(
                "-m", "serial", "-p", "no:cacheprovider", f"--junitxml={reports}/serial.xml"
            ),
            env=serial_env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    # when it ended, for the list of phase times (it is waited for after the others)
    serial_ended: list[float] = []

    def watch() -> None:
        serial.wait()
        serial_ended.append(time.monotonic())

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        make = os.environ.get("MAKE", "make")
        phases.run(
            "lint: ruff, mypy, the import contract",
            [*shlex.split(make), "--no-print-directory", "ruff", "mypy", "imports"],
            base,
            pytest=False,
        )
        phases.run(
            f"pytest: parallel ({args.jobs} workers: every test not marked serial)",
            phases.pytest(*xdist, "-m", "not serial", f"--junitxml={reports}/parallel.xml"),
            parallel_env,
        )
        phases.run(
            "pytest: referee tests on the pure Python engine (AVENUE_ENGINE=pure)",
            phases.pytest(
                "-p",
                "no:django",
                "-p",
                "no:cacheprovider",
                *xdist,
                f"--junitxml={reports}/referee-pure.xml",
                # its tests start each engine themselves, whatever this run's: played once
                "--ignore=tests/referee/test_compiled.py",
                "tests/referee",
            ),
            {**parallel_env, "AVENUE_ENGINE": "pure", "AVENUE_ENGINE_EXPECT": "pure"},
        )
        if serial.poll() is None:
            print(
                f"\n(waiting for the serial phase, {time.monotonic() - serial_started:.0f} s in)",
                flush=True,
            )
        rc = serial.wait()
    finally:
        stop(serial)
    section(f"pytest: {serial_name}: its output ({serial_log})")
    sys.stdout.flush()
    sys.stdout.buffer.write(serial_log.read_bytes())
    watcher.join(5)
    phases.outcome(serial_name, rc, serial_started, ended=min(serial_ended, default=None))

    section("slowest tests")
    xmls = [reports / f"{n}.xml" for n in ("parallel", "serial", "referee-pure")]
    subprocess.call(
        [
            sys.executable,
            str(ROOT / "scripts" / "slowest_tests.py"),
            "-n",
            "20",
            *[str(x) for x in xmls if x.exists()],
        ]
    )
    section("phases")
    for name, seconds in phases.times:
        print(f"  {seconds:6.0f} s  {name}")
    if phases.failed:
        (reports / "failed").write_text("".join(f"{f}\n" for f in phases.failed))
        print("\nFAILED:")
        for failure in phases.failed:
            print(f"  {failure}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Shared test helpers for every suite.

Nothing here touches the database: pytest-django only opens one for tests that ask
for it (the ``db`` fixture or ``django_db`` mark), so tests/referee/ stays Django-free.

Two things happen before Django reads its settings (docs/testing.md):

* under pytest-xdist, each worker gets services of its own: Redis database ``N + i`` for
  worker ``gw<i>`` when REDIS_URL names database ``N`` (pytest-django already gives each
  worker a test database of its own, ``test_<name>_gw<i>``), and a slice of the sandbox
  uids (HOSTED_UID_FIRST..HOSTED_UID_LAST). Set in ``os.environ``, so that every process a
  test starts (Celery workers, gateways, bot hosts, bots) inherits them;
* a test that starts a process (anything through ``subprocess``, ``os.fork``,
  ``multiprocessing``, ``os.posix_spawn``, ``os.system``) must be marked ``processes``:
  ``make check`` leaves those out, and one that starts a process unmarked fails.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.lanes import SANDBOX_UIDS, worker_redis_url

ROOT = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------- services per xdist worker


def _xdist_worker() -> tuple[int, int] | None:
    """(index, count) of this xdist worker; None outside xdist (or in its controller)."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not name.startswith("gw"):
        return None
    return int(name[2:]), int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1)


def _isolate_worker() -> None:
    worker = _xdist_worker()
    if worker is None:
        return
    index, count = worker
    if os.environ.get("REDIS_URL"):
        os.environ["REDIS_URL"] = worker_redis_url(os.environ["REDIS_URL"], index)
    # a slice each of the range the run was given (make test gives this phase half of them)
    low = int(os.environ.get("HOSTED_UID_FIRST") or SANDBOX_UIDS[0])
    high = int(os.environ.get("HOSTED_UID_LAST") or SANDBOX_UIDS[1])
    size = (high - low + 1) // count
    os.environ["HOSTED_UID_FIRST"] = str(low + index * size)
    os.environ["HOSTED_UID_LAST"] = str(low + (index + 1) * size - 1)


def _settings_loaded() -> bool:
    conf = sys.modules.get("django.conf")
    return conf is not None and conf.settings.configured


# Before Django reads its settings: pytest-django reads them first thing when it finds
# DJANGO_SETTINGS_MODULE (ini or environment), before any conftest, so pyproject.toml names
# none and this conftest sets it; Django is set up at pytest_configure (below).
if _xdist_worker() is not None and _settings_loaded():
    raise pytest.UsageError(
        "DJANGO_SETTINGS_MODULE is set in the environment: unset it for the test suite "
        "(tests/conftest.py sets it once each xdist worker has services of its own)."
    )
_isolate_worker()
_SETTINGS_SET_HERE = "DJANGO_SETTINGS_MODULE" not in os.environ
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_setupnodes(config: pytest.Config, specs: list[Any]) -> None:
    """The workers about to start must read their settings after this conftest (above), not
    inherit DJANGO_SETTINGS_MODULE from this controller."""
    if _SETTINGS_SET_HERE:
        os.environ.pop("DJANGO_SETTINGS_MODULE", None)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if config.pluginmanager.hasplugin("django"):
        # loaded here, pytest-django's pytest_configure (trylast) then sets Django up
        from django.conf import settings

        _no_idle_limit_here(settings.DATABASES["default"])
    _check_worker_redis(config)


def _no_idle_limit_here(database: Any) -> None:
    """The suite's own connection holds each test's transaction open while the test waits
    for the processes it started (a gateway, a worker, a fault's 15 s): no idle limit for
    it. The processes it starts read the settings themselves and keep the deployed limit
    (DATABASE_IDLE_TRANSACTION_SECONDS)."""
    options = database.get("OPTIONS", {})
    if "options" in options:
        options["options"] = re.sub(
            r"idle_in_transaction_session_timeout=\d+",
            "idle_in_transaction_session_timeout=0",
            options["options"],
        )


def _check_worker_redis(config: pytest.Config) -> None:
    """In the controller of a run (xdist's, or the one process of a run without it): every
    worker's Redis database must exist, and none may be the one the serial phase of
    ``make test`` uses beside this run (ARENA_TEST_SERIAL_REDIS_URL, scripts/test_phases.py)."""
    url = os.environ.get("REDIS_URL")
    if not url or _xdist_worker() is not None:
        return
    workers = len(getattr(config.option, "tx", None) or [])
    urls = [worker_redis_url(url, index) for index in range(max(workers, 1))]
    serial = os.environ.get("ARENA_TEST_SERIAL_REDIS_URL")
    if serial in urls:
        raise pytest.UsageError(
            f"REDIS_URL={url}: {len(urls)} worker(s) use databases {url} and on, and one of "
            f"them is {serial}, the serial phase's (the server's last database). Name a "
            f"lower database in REDIS_URL, or run fewer workers (-n)."
        )
    if workers < 2:
        return
    import redis

    for worker_url in urls:
        client = redis.Redis.from_url(worker_url, socket_connect_timeout=3, socket_timeout=3)
        try:
            client.ping()
        except redis.ResponseError as exc:
            raise pytest.UsageError(
                f"REDIS_URL={url}: {workers} xdist workers use databases {url} and on, one "
                f"each; {worker_url} is refused ({exc}). Name a lower database in "
                f"REDIS_URL, or run fewer workers (-n)."
            ) from None
        except redis.RedisError:
            return  # not reachable at all: the tests that need Redis say so
        finally:
            client.close()


# ---------------------------------------------------------------- tests that start processes

_item_lock = threading.Lock()
#: the test running now (setup, call, teardown) and the processes it started
_running: pytest.Item | None = None
_started: list[str] = []


def _note(what: Callable[[], str]) -> None:
    with _item_lock:
        if _running is not None:
            _started.append(what())


def _describe(argv: Any) -> str:
    if isinstance(argv, (str, bytes, os.PathLike)):
        return os.fsdecode(argv)[:120]
    try:
        return " ".join(os.fsdecode(a) for a in argv)[:120]
    except TypeError:
        return repr(argv)[:120]


def _watch_process_starts() -> None:
    """Wrap every way this process starts another, to note it against the running test."""
    execute_child = subprocess.Popen._execute_child  # type: ignore[attr-defined]

    def _execute_child(self: subprocess.Popen[Any], args: Any, *rest: Any, **kw: Any) -> Any:
        _note(lambda: _describe(args))
        return execute_child(self, args, *rest, **kw)

    subprocess.Popen._execute_child = _execute_child  # type: ignore[attr-defined]

    def wrap(module: Any, name: str, describe: Callable[..., str]) -> None:
        original = getattr(module, name, None)
        if original is None:
            return

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            _note(lambda: describe(*args, **kwargs))
            return original(*args, **kwargs)

        setattr(module, name, wrapper)

    wrap(os, "fork", lambda: "os.fork()")
    wrap(os, "forkpty", lambda: "os.forkpty()")
    wrap(os, "system", lambda command: _describe(command))
    wrap(os, "posix_spawn", lambda path, argv, *a, **k: _describe(argv))
    wrap(os, "posix_spawnp", lambda path, argv, *a, **k: _describe(argv))
    import multiprocessing.util

    wrap(multiprocessing.util, "spawnv_passfds", lambda path, args, *a: _describe(args))


_watch_process_starts()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    global _running
    with _item_lock:
        _running = item
        _started.clear()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if call.when == "setup":
        return report
    with _item_lock:
        started, _started[:] = list(_started), []
        if call.when == "teardown":
            global _running
            _running = None
    if not started:
        return report
    report.user_properties.append(("processes_started", len(started)))
    if item.get_closest_marker("processes") is None and report.outcome != "failed":
        shown = "\n  ".join(dict.fromkeys(started))
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} started {len(started)} process(es) but is not marked "
            f"`processes` (@pytest.mark.processes, or pytestmark in its module; "
            f"docs/testing.md):\n  {shown}"
        )
    return report


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def project_root() -> Path:
    return ROOT


@pytest.fixture(scope="session", autouse=True)
def leave_redis_as_found() -> Iterator[None]:
    """Leave the suite's Redis database as the run found it: the keys the run made (Celery's
    results and bindings, relay keys of gateways, caches) are deleted when it ends.

    Set up first and so torn down last, after every worker, gateway and bot of the run has
    stopped. Keys that were there before the run are never touched."""
    url = os.environ.get("REDIS_URL")
    if not url:
        yield
        return
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=10, socket_timeout=30)
    try:
        before = set(client.scan_iter(count=1000))
    except redis.RedisError:
        # make test checked Redis first; a run without it has nothing of ours to clean
        yield
        return
    try:
        yield
    finally:
        try:
            made = [k for k in client.scan_iter(count=1000) if k not in before]
            for i in range(0, len(made), 500):
                client.delete(*made[i : i + 500])
        except redis.RedisError as exc:
            print(f"\nleft Redis keys behind: {exc}")
        finally:
            client.close()

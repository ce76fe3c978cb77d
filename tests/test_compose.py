"""docker-compose.yml only names entry points that exist in this repository.

Docker cannot run on the CI machine, so instead of starting the stack this checks,
per service, that its command resolves: a management command Django knows, a
module exposing a Celery app, a module exposing a WSGI application.
"""

from __future__ import annotations

import importlib
import shlex
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import redis
import yaml
from celery import Celery
from django.core.management import get_commands
from django.utils.module_loading import import_string

pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "docker-compose.yml"

# Commands that compose already names but a later issue implements. Strict xfail: the
# moment the command exists this turns red, and its entry here must be removed.
PENDING_COMMANDS: dict[str, str] = {}


def _compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text())


def _argv(service: dict[str, Any]) -> list[str]:
    command = service["command"]
    return shlex.split(command) if isinstance(command, str) else [str(a) for a in command]


def _option(argv: list[str], *names: str) -> str | None:
    for i, arg in enumerate(argv):
        for name in names:
            if arg == name and i + 1 < len(argv):
                return argv[i + 1]
            if arg.startswith(name + "="):
                return arg.split("=", 1)[1]
    return None


def _check_manage_py(argv: list[str]) -> None:
    assert argv[:2] == ["python", "manage.py"] and len(argv) > 2, argv
    name = argv[2]
    assert (ROOT / "manage.py").is_file()
    assert name in get_commands(), f"`manage.py {name}` is not a management command"


def _check_celery(argv: list[str]) -> None:
    app_name = _option(argv, "-A", "--app")
    assert app_name, f"celery command without -A: {argv}"
    module = importlib.import_module(app_name)
    app = getattr(module, "app", None) or getattr(module, "celery", None)
    assert isinstance(app, Celery), f"module {app_name} exposes no Celery app"
    scheduler = _option(argv, "--scheduler", "-S")
    if scheduler:
        import_string(scheduler.replace(":", "."))


def _check_gunicorn(argv: list[str]) -> None:
    target = next(a for a in argv[1:] if not a.startswith("-"))
    module_name, _, attr = target.partition(":")
    module = importlib.import_module(module_name)
    application = getattr(module, attr or "application", None)
    assert callable(application), f"{target} exposes no WSGI application"


def _check_redis_server(argv: list[str]) -> None:
    """Redis itself starts with these options (on a socket in a folder of its own)."""
    with tempfile.TemporaryDirectory() as folder:
        sock = f"{folder}/redis.sock"
        proc = subprocess.Popen(
            [*argv, "--port", "0", "--unixsocket", sock, "--dir", folder, "--daemonize", "no"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 30
            while True:
                assert proc.poll() is None, f"redis-server refused {argv}: {proc.stdout.read()}"  # type: ignore[union-attr]
                client = redis.Redis(unix_socket_path=sock, socket_connect_timeout=1)
                try:
                    if client.ping():
                        break
                except redis.RedisError:
                    pass
                finally:
                    client.close()
                assert time.monotonic() < deadline, "redis-server did not answer within 30 s"
                time.sleep(0.1)
        finally:
            proc.terminate()
            proc.wait(30)


CHECKERS: dict[str, Callable[[list[str]], None]] = {
    "redis-server": _check_redis_server,
    "python": _check_manage_py,
    "celery": _check_celery,
    "gunicorn": _check_gunicorn,
}


def _service_params() -> list[Any]:
    params = []
    for name, service in _compose()["services"].items():
        if "command" not in service:
            continue
        argv = _argv(service)
        marks = []
        if argv[:2] == ["python", "manage.py"] and argv[2:3] and argv[2] in PENDING_COMMANDS:
            marks.append(pytest.mark.xfail(strict=True, reason=PENDING_COMMANDS[argv[2]]))
        params.append(pytest.param(name, argv, id=name, marks=marks))
    return params


@pytest.mark.parametrize(("service", "argv"), _service_params())
def test_service_command_names_an_existing_entry_point(service: str, argv: list[str]) -> None:
    checker = CHECKERS.get(argv[0])
    assert checker is not None, f"{service}: no check known for command {argv[0]!r}"
    checker(argv)


def test_expected_services_are_defined() -> None:
    services = _compose()["services"]
    assert {"postgres", "redis", "web", "gateway", "worker", "beat"} <= set(services)
    assert services["postgres"]["image"].startswith("postgres:16")
    assert services["redis"]["image"].startswith("redis:7")


def test_every_service_has_an_image_or_the_dockerfile() -> None:
    for name, service in _compose()["services"].items():
        build = service.get("build")
        if build is None:
            assert "image" in service, f"{name} has neither image nor build"
            continue
        context = ROOT / (build if isinstance(build, str) else build.get("context", "."))
        dockerfile = "Dockerfile"
        if isinstance(build, dict):
            dockerfile = build.get("dockerfile", dockerfile)
        assert (context / dockerfile).is_file(), f"{name} builds from missing {dockerfile}"


def test_app_services_get_the_settings_they_need() -> None:
    for name, service in _compose()["services"].items():
        if "build" not in service:
            continue
        env = service.get("environment", {})
        for var in ("SECRET_KEY", "DATABASE_URL", "REDIS_URL", "DEBUG", "ALLOWED_HOSTS"):
            assert var in env, f"{name} lacks {var}"
        assert str(env["DEBUG"]) == "0"


def test_long_running_services_have_healthchecks() -> None:
    services = _compose()["services"]
    for name in ("postgres", "redis", "web", "gateway", "worker"):
        assert "healthcheck" in services[name], f"{name} has no healthcheck"

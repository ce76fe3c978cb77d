"""Real processes, real sockets: a gateway on port 0, bots as subprocesses, Redis relays
under a key prefix of their own, runners in threads."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis
from django.conf import settings

from arena.adapters.gateway import DatabaseAuthenticator, Gateway, GatewayConfig, GatewayThread
from arena.adapters.relay.base import RunnerRelay
from arena.adapters.relay.redis import RedisGatewayRelay, RedisRunnerRelay
from arena.adapters.relay.redis_gateway import DirectConfig
from arena.adapters.runner import MatchResult, RemoteSeat, Seat, TimeControl, run_match
from arena.models import Bot
from arena.services.bots import create_bot
from referee import GameConfig

ROOT = Path(__file__).resolve().parents[2]
RAWBOT = Path(__file__).with_name("rawbot.py")
#: a gateway that notices silence fast, so broken streams end within a test's time
FAST = GatewayConfig(heartbeat_s=0.5, heartbeat_timeout_s=3.0, shutdown_grace_s=1.0)


def new_prefix() -> str:
    return f"test-relay-{uuid.uuid4().hex[:10]}"


def clear_prefix(prefix: str) -> None:
    client = redis.Redis.from_url(str(settings.REDIS_URL))
    try:
        keys = list(client.scan_iter(f"{prefix}:*"))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


def bot_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AVENUE_")}
    env["PYTHONPATH"] = str(ROOT)
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


@dataclass
class BotProcess:
    name: str
    proc: subprocess.Popen[str]
    log: Path

    def output(self) -> str:
        return self.log.read_text() if self.log.exists() else ""

    def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(30)

    def stop(self) -> int | None:
        """Ctrl-C, as a person stops a bot: it must exit by itself (a generous deadline for a
        busy machine; past it the bot is killed and the test sees -9)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(30)
        return self.proc.returncode


@dataclass
class Arena:
    """One gateway (in a thread of the test process) and a runner relay, over Redis."""

    port: int
    prefix: str
    gateway: Gateway
    thread: GatewayThread
    relay: RunnerRelay
    tmp: Path
    processes: list[BotProcess] = field(default_factory=list)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def bot(self, name: str) -> tuple[Bot, str]:
        bot, token = create_bot(name)
        assert token is not None
        return bot, token

    def sdk_bot(
        self,
        name: str,
        spec: str,
        *,
        token: str | None = None,
        args: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
        wait: bool = True,
    ) -> BotProcess:
        """Create bot ``name`` (unless ``token`` is given) and run ``spec`` with the SDK."""
        if token is None:
            _, token = self.bot(name)
        argv = [sys.executable, "-m", "avenue_sdk", "run", spec, "--arena", self.address]
        return self._spawn(name, [*argv, "--token", token, *args], env, wait)

    def raw_bot(
        self,
        name: str,
        mode: str,
        *,
        token: str | None = None,
        args: tuple[str, ...] = (),
        wait: bool = True,
    ) -> BotProcess:
        if token is None:
            _, token = self.bot(name)
        argv = [sys.executable, str(RAWBOT), "--arena", self.address, "--token", token]
        return self._spawn(name, [*argv, "--mode", mode, *args], None, wait)

    def _spawn(
        self, name: str, argv: list[str], env: dict[str, str] | None, wait: bool
    ) -> BotProcess:
        log = self.tmp / f"{name}.log"
        with open(log, "w") as out:
            proc = subprocess.Popen(
                argv,
                cwd=ROOT,
                env=bot_env(**(env or {})),
                stdout=out,
                stderr=subprocess.STDOUT,
                text=True,
            )
        process = BotProcess(name, proc, log)
        self.processes.append(process)
        if wait:
            self.wait_connected(name)
        return process

    def bot_id(self, name: str) -> str:
        return str(Bot.objects.get(name=name).pk)

    def wait_connected(self, name: str, timeout: float = 15.0) -> None:
        bot_id = self.bot_id(name)
        wait_for(lambda: self.relay.is_connected(bot_id), timeout, f"{name} to connect")

    def remote(self, name: str) -> RemoteSeat:
        return RemoteSeat(self.bot_id(name), name, self.relay)

    def play(
        self,
        seats: list[Seat],
        config: GameConfig | None = None,
        seed: int = 1,
        *,
        time_control: TimeControl | None = None,
        match_id: str | None = None,
        **kwargs: Any,
    ) -> MatchResult:
        return run_match(
            seats,
            config or GameConfig.for_seats(len(seats)),
            seed,
            match_id=match_id or f"m-{uuid.uuid4().hex[:8]}",
            time_control=time_control or TimeControl(decision_ms=5_000, bank_ms=5_000),
            **kwargs,
        )

    def stats(self) -> dict[str, int]:
        return self.thread.call(lambda: dict(self.gateway.stats))


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(0.02)


def finished(process: BotProcess, timeout: float = 15.0) -> str:
    """Wait for a bot process to exit on its own; its output."""
    try:
        process.proc.wait(timeout)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"{process.name} is still running:\n{process.output()}") from None
    return process.output()


def lane() -> DirectConfig:
    """A gateway's direct lane as deployed (arena.adapters.relay.direct), on a free local port."""
    return DirectConfig("127.0.0.1:0", str(settings.SECRET_KEY))


@contextmanager
def running_arena(
    tmp: Path, config: GatewayConfig = FAST, port: int = 0, *, direct: bool = True
) -> Iterator[Arena]:
    """A gateway on a thread and a runner relay, as deployed: the gateway opens a direct
    lane and the runner uses it (``direct`` False: every message through Redis)."""
    prefix = new_prefix()
    url = str(settings.REDIS_URL)
    relay_of_gateway = RedisGatewayRelay(url, prefix, direct=lane() if direct else None)
    gateway = Gateway(config, relay_of_gateway, DatabaseAuthenticator())
    thread = GatewayThread(gateway, f"127.0.0.1:{port}")
    port = thread.start()
    relay = RedisRunnerRelay(url, prefix)
    arena = Arena(port, prefix, gateway, thread, relay, tmp)
    try:
        yield arena
    finally:
        for process in arena.processes:
            process.stop()
        thread.stop()
        relay.close()
        clear_prefix(prefix)


class Background:
    """Run callables in threads; ``result()`` with a timeout so nothing hangs a test."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(8)

    def run(self, fn: Callable[..., MatchResult], *args: Any, **kwargs: Any) -> Future[MatchResult]:
        return self._pool.submit(fn, *args, **kwargs)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

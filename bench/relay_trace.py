"""Where a decision's round trip goes: the whole path of ``bench/relay_latency.py``, with
every step of each decision stamped in the process that takes it.

    .venv/bin/python bench/relay_trace.py [--decisions 3000]

The runner (this process), the gateway and the two SDK bots note ``time.perf_counter()``
(``CLOCK_MONOTONIC``: one clock for every process of the machine) at the steps below; the
gateway and the bots are started through this file's ``--role``, which patches those steps
before running them as ``relay_latency.py`` does. A decision is the chain of its steps in
time order (one decision at a time is in flight). Prints the median of each span over all
decisions: which of the runner's, the gateway's, the bot's code and the hops between them
takes what. Each stamp costs a few hundred nanoseconds; asserts nothing.

    built (runner: the request built)  -> sent (written to the lane)
    -> lane in (gateway: the delivery parsed) -> stamped (gateway: written to the stream)
    -> bot in (SDK: the request read) -> answered (SDK: the answer made)
    -> read (gateway: the answer read) -> lane out (gateway: the answer on the lane)
    -> pulled (runner: the lane readable) -> checked (runner: the answer checked)
"""

from __future__ import annotations

import argparse
import atexit
import os
import pickle
import runpy
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
STEPS = ["built", "sent", "lane in", "stamped", "bot in", "answered", "read", "lane out"]
STEPS += ["pulled", "checked"]
#: (step, seq, when)
Stamp = tuple[str, int, float]
STAMPS: list[Stamp] = []
now = time.perf_counter


def _patch_gateway() -> None:
    from arena.adapters.gateway import messages, session
    from arena.adapters.relay import laneserver, redis_gateway

    relay = redis_gateway.RedisGatewayRelay
    lane_delivery = relay._lane_delivery

    def on_lane(self: Any, lane: Any, frame: Any) -> None:
        if frame.delivery.kind.name == "REQUEST":
            STAMPS.append(("lane in", frame.delivery.seq, now()))
        lane_delivery(self, lane, frame)

    stamp = session.Session.stamp

    def stamped(self: Any, item: Any) -> bytes:
        if not isinstance(item, bytes):
            STAMPS.append(("stamped", item.key[1], now()))
        return stamp(self, item)

    on_message = messages.BotMessages._on_message

    async def read(self: Any, s: Any, message: Any) -> None:
        if not isinstance(message, tuple) and message.WhichOneof("kind") == "action":
            STAMPS.append(("read", message.action.seq, now()))
        await on_message(self, s, message)

    inbound = laneserver.LaneWriter.inbound

    def lane_out(self: Any, message: Any) -> None:
        STAMPS.append(("lane out", message.seq, now()))
        inbound(self, message)

    relay._lane_delivery = on_lane  # type: ignore[method-assign]
    session.Session.stamp = stamped  # type: ignore[method-assign]
    messages.BotMessages._on_message = read  # type: ignore[method-assign,assignment]
    laneserver.LaneWriter.inbound = lane_out  # type: ignore[method-assign,assignment]


def _patch_bot() -> None:
    from avenue_sdk import client

    handle = client.Client._handle

    def handled(self: Any, message: Any, send_soon: Any, kind: str | None = None) -> Any:
        if message.WhichOneof("kind") == "decision_request":
            STAMPS.append(("bot in", message.decision_request.seq, now()))
        reply = handle(self, message, send_soon, kind)
        if reply is not None and reply.WhichOneof("kind") == "action":
            STAMPS.append(("answered", reply.action.seq, now()))
        return reply

    client.Client._handle = handled  # type: ignore[method-assign]


def _dump(path: str) -> None:
    Path(path).write_bytes(pickle.dumps(STAMPS))


def run_role(role: str, out: str, argv: list[str]) -> None:
    """Run ``argv`` (a script, or ``-m module``) with the steps of ``role`` stamped."""
    atexit.register(_dump, out)
    if role == "bot":
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        sys.argv = argv[1:]
        sys.path.insert(0, ".")
        _patch_bot()
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return
    import django

    sys.path.insert(0, str(HERE))
    sys.argv = argv
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    _patch_gateway()
    runpy.run_path(argv[0], run_name="__main__")


def main() -> int:
    if sys.argv[1:2] == ["--role"]:  # --role gateway|bot --out FILE, then what to run
        run_role(sys.argv[2], sys.argv[4], sys.argv[5:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=3000)
    args = parser.parse_args()

    sys.path.insert(0, str(HERE))
    import relay_floor
    import relay_latency

    import arena.adapters.relay.direct as direct

    tmp = Path(tempfile.mkdtemp(prefix="relay-trace-"))
    spawn, popen = relay_floor.spawn, subprocess.Popen
    outs: dict[str, int] = {}

    def traced(argv: list[str], env: dict[str, str] | None = None) -> Any:
        out = str(tmp / "gateway.pkl")
        outs[out] = 0
        return spawn([__file__, "--role", "gateway", "--out", out, *argv], env)

    def traced_bot(args: list[str], *a: Any, **kw: Any) -> Any:
        if "avenue_sdk" not in args:
            return popen(args, *a, **kw)
        out = str(tmp / f"bot{len(outs)}.pkl")
        outs[out] = len(outs)
        return popen([args[0], __file__, "--role", "bot", "--out", out, *args[1:]], *a, **kw)

    relay_latency.spawn = lambda argv, env=None: (lambda p: (p[0], p[1][0]))(traced(argv, env))
    relay_latency.subprocess.Popen = traced_bot  # type: ignore[misc]
    whole = relay_latency.WholePath()
    relay_latency.subprocess.Popen = popen  # type: ignore[misc]
    seat = type(whole.seats[True][0])
    current = [0]
    request, read = seat._request, seat._read

    def built(self: Any, ctx: Any, ask: Any, spent: float, resent: bool) -> Any:
        current[0] = ask.seq
        delivery = request(self, ctx, ask, spent, resent)
        STAMPS.append(("built", ask.seq, now()))
        return delivery

    def checked(self: Any, inbound: Any, ask: Any, latency: float) -> Any:
        answer = read(self, inbound, ask, latency)
        STAMPS.append(("checked", ask.seq, now()))
        return answer

    send, pull = direct.Lane.send, direct.Lane.pull

    def sent(self: Any, data: bytes) -> None:
        send(self, data)
        STAMPS.append(("sent", current[0], now()))

    def pulled(self: Any) -> None:
        STAMPS.append(("pulled", current[0], now()))
        pull(self)

    seat._request, seat._read = built, checked  # type: ignore[method-assign]
    direct.Lane.send, direct.Lane.pull = sent, pulled  # type: ignore[method-assign]
    try:
        whole.play(300)
        del STAMPS[:]
        walls, charged = whole.play(args.decisions)
    finally:
        whole.close()
    stamps = list(STAMPS)
    for out in outs:
        stamps += pickle.loads(Path(out).read_bytes())
    chains = _chains(sorted(stamps, key=lambda s: s[2]))
    print(
        f"{len(chains)} decisions traced; the runner's wait p50 {statistics.median(walls):.3f} ms, "
        f"charged to the bot p50 {statistics.median(charged):.3f} ms (both with the stamps)"
    )
    print(f"{'span':<24}{'p50 us':>9}{'mean us':>9}")
    for a, b in zip(STEPS, STEPS[1:], strict=False):
        spans = [(c[b] - c[a]) * 1e6 for c in chains]
        print(
            f"{a + ' -> ' + b:<24}{statistics.median(spans):>9.1f}{statistics.fmean(spans):>9.1f}"
        )
    whole_spans = [(c["checked"] - c["built"]) * 1e6 for c in chains]
    print(f"{'built -> checked':<24}{statistics.median(whole_spans):>9.1f}")
    return 0


def _chains(stamps: list[Stamp]) -> list[dict[str, float]]:
    """Each decision's steps (one decision is in flight at a time): from a ``built`` on,
    the first stamp of each step with its seq (``pulled``: the first after ``lane out``)."""
    chains: list[dict[str, float]] = []
    chain: dict[str, float] | None = None
    seq = -1
    for step, s, at in stamps:
        if step == "built":
            chain, seq = {"built": at}, s
            chains.append(chain)
        elif chain is not None and s == seq and step not in chain:
            if step != "pulled" or "lane out" in chain:
                chain[step] = at
    return [c for c in chains if all(step in c for step in STEPS)]


if __name__ == "__main__":
    sys.exit(main())

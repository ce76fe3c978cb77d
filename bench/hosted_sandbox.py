"""Hosted bots in bubblewrap sandboxes, measured on this machine (issue 13):

1. start-up: time from spawning a sandbox to the bot's hello (median, p90 of N);
2. idle: how many loaded sandboxes one host holds, and the memory each costs
   (resident set of the sandbox's processes, read from /proc);
3. decision round trip of the same bot, hosted (framed pipes into its sandbox) beside the
   SDK's in-process seat of the local arena (``BotSeat``) in the same run: median and p90
   per decision over whole games against ``random``;
4. matches at once: K sandboxes each playing one game at the same time, games per second;
5. what a bot flooding its stderr costs the host: the host process's CPU (all its threads,
   from getrusage) over ``--flood-seconds`` while one sandbox floods, beside the same
   window with one idle sandbox, in % of a core.

(3) compares the sandbox's pipe path with the SDK's in-process path; a hosted bot beside a
dial-in bot on one gateway, the bot host's idle streams and its matches at once are
``bench/hosted_host.py``.

    sudo .venv/bin/python bench/hosted_sandbox.py [--starts 20] [--idle 40] [--games 20]
"""

from __future__ import annotations

import argparse
import os
import resource
import secrets
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from arena.adapters.bothost import probe  # noqa: E402
from arena.adapters.bothost import sandbox as sb  # noqa: E402
from arena.adapters.bothost.seat import SandboxSeat  # noqa: E402
from avenue_sdk.local.game import play  # noqa: E402
from avenue_sdk.local.seats import BotSeat, HouseSeat, Seat  # noqa: E402
from avenue_sdk.protocol.timing import TimeControl  # noqa: E402
from referee import GameConfig  # noqa: E402

BOT = b"""
from avenue_sdk import Bot


class Bench(Bot):
    def decide(self, request):
        return len(request.legal) // 2
"""


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def rss_kib(uid: int) -> int:
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if os.stat(f"/proc/{pid}").st_uid != uid:
                continue
            for line in open(f"/proc/{pid}/status"):
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


class Started(sb.Sandbox):
    """A sandbox of its own code directory (each is handed to its sandbox's uid alone)."""

    def close(self) -> None:
        super().close()
        sb.discard(self.code_dir)


def started(files: dict[str, bytes] | None = None, entry: str = "bench:Bench") -> Started:
    box = Started(sb.unpack(files or {"bench.py": BOT}), entry, sb.Limits())
    box.start()
    return box


FLOOD = b"""
import os, threading
from avenue_sdk import Bot


def flood():
    line = b"x" * 4095 + b"\\n"
    while True:
        os.write(2, line)


class Flood(Bot):
    def __init__(self):
        threading.Thread(target=flood, daemon=True).start()
"""


def host_cpu_percent(box: sb.Sandbox, seconds: float) -> float:
    """The host process's CPU over ``seconds`` beside ``box``, in % of one core."""
    before = resource.getrusage(resource.RUSAGE_SELF)
    t = time.perf_counter()
    time.sleep(seconds)
    after = resource.getrusage(resource.RUSAGE_SELF)
    spent = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return 100 * spent / (time.perf_counter() - t)


def game(seat: Seat) -> list[float]:
    seed = secrets.randbits(63)
    g = play(
        [seat, HouseSeat("random", seed + 1)],
        GameConfig(),
        seed,
        match_id="bench",
        time_control=TimeControl(),
    )
    assert g.fault is None, g.fault
    return list(g.latencies[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--idle", type=int, default=40)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--at-once", default="1,2,4,8")
    parser.add_argument("--flood-seconds", type=float, default=5.0)
    args = parser.parse_args()
    print(probe.check_available(), f"on {os.cpu_count()} cores")
    code_dir = sb.unpack({"bench.py": BOT})
    try:
        # 1. start-up
        times = []
        for _ in range(args.starts):
            t = time.perf_counter()
            box = started()
            times.append((time.perf_counter() - t) * 1000)
            box.close()
        print(
            f"start-up to hello: median {statistics.median(times):.0f} ms, "
            f"p90 {pct(times, 0.9):.0f} ms (n={len(times)})"
        )

        # 2. idle sandboxes held at once
        boxes = []
        t = time.perf_counter()
        for _ in range(args.idle):
            boxes.append(started())
        spent = time.perf_counter() - t
        per = [rss_kib(b.uid) for b in boxes]
        print(
            f"idle: {len(boxes)} loaded sandboxes held at once (started in {spent:.1f} s); "
            f"resident memory per sandbox median {statistics.median(per) / 1024:.1f} MiB, "
            f"total {sum(per) / 1024:.0f} MiB"
        )
        for b in boxes:
            b.close()

        # 3. decision round trip, hosted vs in-process, interleaved in the same run
        from avenue_sdk.local.seats import load_bot_class  # noqa: PLC0415

        sys.path.insert(0, code_dir)
        inproc: list[float] = []
        hosted: list[float] = []
        for _ in range(args.games):
            inproc += game(BotSeat(load_bot_class("bench:Bench"), "inproc"))
            box = started()
            try:
                hosted += game(SandboxSeat(box, "hosted"))
            finally:
                box.close()
        mi, mh = statistics.median(inproc), statistics.median(hosted)
        print(
            f"decision round trip over {args.games} games each "
            "(statistic: median and p90 per decision):"
        )
        print(
            f"  in-process SDK seat : median {mi:.3f} ms, p90 {pct(inproc, 0.9):.3f} ms "
            f"(n={len(inproc)})"
        )
        print(
            f"  hosted (sandbox)    : median {mh:.3f} ms, p90 {pct(hosted, 0.9):.3f} ms "
            f"(n={len(hosted)}); ratio of medians {mh / mi:.1f}x"
        )

        # 4. matches at once
        for k in (int(x) for x in args.at_once.split(",")):

            def one(_: int) -> None:
                box = started()
                try:
                    game(SandboxSeat(box, "hosted"))
                finally:
                    box.close()

            t = time.perf_counter()
            with ThreadPoolExecutor(k) as pool:
                list(pool.map(one, range(k * 2)))
            spent = time.perf_counter() - t
            print(
                f"  {k:2d} at once: {k * 2} games (sandbox start included) in {spent:.1f} s, "
                f"{k * 2 / spent:.1f} games/s"
            )

        # 5. a stderr flood's cost to the host, beside an idle sandbox in the same run
        for label, files, entry in (
            ("idle sandbox       ", None, "bench:Bench"),
            ("flooding its stderr", {"flood.py": FLOOD}, "flood:Flood"),
        ):
            box = started(files, entry)
            try:
                cost = host_cpu_percent(box, args.flood_seconds)
            finally:
                box.close()
            print(
                f"  host CPU beside one {label}: {cost:.1f}% of a core over "
                f"{args.flood_seconds:g} s (stderr read {box.stderr_read:,} bytes)"
            )
    finally:
        sb.discard(code_dir)


if __name__ == "__main__":
    main()

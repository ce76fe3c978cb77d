"""Limits per sandbox, not per process (issue 22 §3): 32 children allocating or spinning
together meet the sandbox's one memory or CPU limit, as that bot's typed fault, with the
kernel's cgroup where the host has one and with the host's own measure where it has not;
a bot flooding its stderr is read at a bounded rate; a bot slow to load is charged for its
own start-up and a start-up past its first decision's allowance is its fault, never the
arena's."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import replace

import pytest

from agent_avenue.v1 import arena_pb2 as pb
from arena.adapters.bothost import cgroups
from arena.adapters.bothost import sandbox as sb
from arena.adapters.bothost.host import SandboxedBot, _NoAnswer
from arena.adapters.bothost.sandbox import Sandbox, discard, unpack
from tests.hosting.hostile import LIMITS, check, contained, hostile, require_sandbox

pytestmark = [pytest.mark.processes, pytest.mark.serial]

require_sandbox()


def _usable(mode: str) -> bool:
    try:
        cgroups.Groups(mode)
    except cgroups.CgroupUnavailable:
        return False
    return True


#: the host's ways of limiting a sandbox as a whole that this machine offers
MODES = [m for m in ("v2", "v1") if _usable(m)] + ["measure"]


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each way the host can limit a whole sandbox, in turn."""
    monkeypatch.setattr(cgroups, "_groups", cgroups.Groups(request.param))
    yield request.param


#: 32 children that each take ``MB`` MiB (touched, so resident) and then spin, while the
#: parent waits for all of them to say so and would then answer
CHILDREN = """
ready_r, ready_w = os.pipe()
for _ in range(32):
    if os.fork() == 0:
        hog = bytearray({mb} << 20)
        for i in range(0, len(hog), 4096):
            hog[i] = 1
        os.write(ready_w, b"x")
        while True:
            pass
got = 0
while got < 32:
    got += len(os.read(ready_r, 32))
print("ESCAPED all 32 children hold", 32 * {mb}, "MiB", file=sys.stderr)
"""


def test_32_children_share_one_memory_limit(mode: str) -> None:
    # each child alone is far under the limit; all of them together are twice over it
    limits = replace(LIMITS, address_space=512 << 20, processes=48, cpu_seconds=60)
    result = check(hostile(CHILDREN.format(mb=32)), limits, decision_ms=60_000, bank_ms=0)
    contained(result, "memory", "its processes together used more than 0.5 GiB")


SPINNERS = """
for _ in range(32):
    if os.fork() == 0:
        while True:
            pass
time.sleep(40)
print("ESCAPED 32 children spun for 40 s", file=sys.stderr)
"""


def test_32_spinning_children_share_one_cpu_limit(mode: str) -> None:
    # each child alone stays under its CPU rlimit (3 s) for a long while on 2 cores
    limits = replace(LIMITS, cpu_seconds=3, processes=48)
    result = check(hostile(SPINNERS), limits, decision_ms=60_000, bank_ms=0)
    contained(result, "timeout", "CPU limit: 3 s of CPU time for all its processes")


def test_the_cgroup_holds_the_sandbox_to_its_cores() -> None:
    if "v1" not in MODES and "v2" not in MODES:
        pytest.skip("no cgroup on this host: the host measures, and cannot cap cores")
    groups = cgroups.Groups("auto")
    group = groups.make("sandbox-quota-probe", 0, cgroups.Quota(1 << 30, 32, 0.5))
    try:
        if isinstance(group, cgroups.GroupV2):
            assert (group.path / "cpu.max").read_text().split() == ["50000", "100000"]
        else:
            assert isinstance(group, cgroups.GroupV1)
            assert (group.dirs["cpu"] / "cpu.cfs_quota_us").read_text().strip() == "50000"
            assert (group.dirs["pids"] / "pids.max").read_text().strip() == "32"
            limit = int((group.dirs["memory"] / "memory.limit_in_bytes").read_text())
            assert limit == 1 << 30
    finally:
        group.remove()


def test_other_sandboxes_are_unaffected_by_a_hog() -> None:
    limits = replace(LIMITS, address_space=512 << 20, processes=48, cpu_seconds=60)
    good = {"mine.py": b"from avenue_sdk import Bot\n\n\nclass Mine(Bot):\n    pass\n"}
    results: dict[str, object] = {}

    def run(name: str, files: dict[str, bytes]) -> None:
        results[name] = check(files, limits, decision_ms=60_000, bank_ms=0)

    hog = threading.Thread(target=run, args=("hog", hostile(CHILDREN.format(mb=32))))
    hog.start()
    run("good", good)
    hog.join(120)
    assert results["good"].passed, results["good"].log  # type: ignore[attr-defined]
    contained(results["hog"], "memory", "together")  # type: ignore[arg-type]


FLOOD = """
import threading

def flood():
    line = b"x" * 4095 + b"\\n"
    while True:
        os.write(2, line)

threading.Thread(target=flood, daemon=True).start()
"""


def test_a_stderr_flood_is_read_at_a_bounded_rate() -> None:
    code_dir = unpack(hostile("pass", init=FLOOD))
    box = Sandbox(code_dir, "mine:Mine", LIMITS)
    try:
        began = time.monotonic()
        box.start()
        request = pb.DecisionRequest(match_id="m", seq=1, decision_ms=5000)
        request.legal.add()
        # the bot answers while it floods: its writes block on its pipe, its answers do not
        for seq in range(1, 4):
            request.seq = seq
            box.ask(pb.ArenaMessage(decision_request=request).SerializeToString(), 30)
            time.sleep(1)  # a match's pace: the flood goes on meanwhile
        elapsed = time.monotonic() - began
        bound = sb.STDERR_BURST + sb.STDERR_RATE * elapsed + (64 << 10)
        assert 0 < box.stderr_read <= bound, (box.stderr_read, bound)
        assert box.stderr_tail(1).startswith("xxxx")
    finally:
        box.close()
        discard(code_dir)


SLOW_LOAD = "time.sleep({s})"


def _request(match_id: str, decision_ms: int, bank_ms: int) -> pb.DecisionRequest:
    request = pb.DecisionRequest(match_id=match_id, seq=1, decision_ms=decision_ms, bank_ms=bank_ms)
    request.legal.add()
    return request


def _bot(files: dict[str, bytes]) -> SandboxedBot:
    return SandboxedBot("slow", lambda match_id: (files, "mine:Mine"), LIMITS)


def test_a_slow_start_up_is_the_bots_own_time() -> None:
    """A bot that takes 4 s to import plays: its first answer comes, and the host credits
    only the sandbox's own setup (well under the bot's 4 s) to the arena."""
    bot = _bot(hostile("pass", init=SLOW_LOAD.format(s=4)))
    try:
        received = time.monotonic()
        bot.on_match_started(pb.MatchStarted(match_id="slow.1"))
        action = bot.answer(_request("slow.1", 30_000, 30_000), received)
        total = time.monotonic() - received
        assert action.seq == 1
        assert total >= 4
        assert action.arena_wait_us / 1e6 < total - 3.5, (action.arena_wait_us, total)
    finally:
        bot.close()


def test_a_start_up_past_the_first_allowance_is_the_bots_fault_not_the_arenas() -> None:
    bot = _bot(hostile("pass", init=SLOW_LOAD.format(s=60)))
    try:
        received = time.monotonic()
        bot.on_match_started(pb.MatchStarted(match_id="slow.1"))
        with pytest.raises(_NoAnswer) as failed:
            bot.answer(_request("slow.1", 1_000, 2_000), received)
        assert failed.value.fault.cause.value == "timeout"
        detail = failed.value.fault.detail
        assert "did not load within its first decision's allowance (3 s)" in detail
        # one deadline: the answer came at the allowance, not at any other limit
        assert time.monotonic() - received < 3 + 10
    finally:
        bot.close()

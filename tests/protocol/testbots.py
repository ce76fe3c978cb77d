"""SDK bots the protocol tests run as subprocesses (``tests.protocol.testbots:Name``).
They read their instructions from environment variables."""

from __future__ import annotations

import asyncio
import json
import os
import random
import struct
import threading
import time
from pathlib import Path

from agent_avenue.v1 import arena_pb2 as pb
from avenue_sdk import Bot


class SleepyBot(Bot):
    """Touches $AVENUE_TEST_MARKER at its first decision, then sleeps $AVENUE_TEST_SLEEP
    seconds before each answer."""

    def __init__(self) -> None:
        self.sleep = float(os.environ.get("AVENUE_TEST_SLEEP", "0"))
        self.marker = os.environ.get("AVENUE_TEST_MARKER")

    def decide(self, request: pb.DecisionRequest) -> int:
        if self.marker:
            Path(self.marker).touch()
        time.sleep(self.sleep)
        return 0


class RecordingBot(Bot):
    """Random choices; appends to $AVENUE_TEST_RECORD every message as it came off the
    wire (tag W) and every request as the bot saw it, history merged (tag M)."""

    def __init__(self) -> None:
        self.rng = random.Random(os.environ.get("AVENUE_TEST_SEED", "1"))
        self.out = open(os.environ["AVENUE_TEST_RECORD"], "ab")  # noqa: SIM115
        self.lock = threading.Lock()

    def _write(self, tag: bytes, data: bytes) -> None:
        with self.lock:
            self.out.write(tag + struct.pack(">I", len(data)) + data)
            self.out.flush()

    def on_message(self, message: pb.ArenaMessage) -> None:
        self._write(b"W", message.SerializeToString())

    def decide(self, request: pb.DecisionRequest) -> int:
        self._write(b"M", request.SerializeToString())
        return self.rng.randrange(len(request.legal))


def read_records(path: Path) -> list[tuple[str, bytes]]:
    data = path.read_bytes() if path.exists() else b""
    out, i = [], 0
    while i < len(data):
        tag = data[i : i + 1].decode()
        (n,) = struct.unpack(">I", data[i + 1 : i + 5])
        out.append((tag, data[i + 5 : i + 5 + n]))
        i += 5 + n
    return out


class CrashingHouseBot:
    """An in-process bot (``make_bot`` spec ``tests.protocol.testbots:CrashingHouseBot``)
    that fails at its first decision."""

    name = "crasher"

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def act(self, obs: object, legal: object) -> object:
        raise RuntimeError("boom")


class CheatingHouseBot:
    """Answers with an action that is never legal."""

    name = "cheater"

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def act(self, obs: object, legal: object) -> object:
        return "take every card"


class SlowHouseBot:
    """Takes 40 ms per decision, then plays the first legal action."""

    name = "slow"

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def act(self, obs: object, legal: list[object]) -> object:
        time.sleep(0.04)
        return legal[0]


class SeedSpy:
    """Notes the seed it is made with (``SeedSpy.seen``), then plays the first legal action:
    what a house bot could learn of its own randomness."""

    name = "spy"
    seen: list[int] = []

    def __init__(self, seed: int) -> None:
        SeedSpy.seen.append(seed)

    def act(self, obs: object, legal: list[object]) -> object:
        return legal[0]


class HandMemoryBot(Bot):
    """A bot that remembers deals: at its first decision of each match it notes its hand
    and the public Black Market (advanced mode) in $AVENUE_TEST_RECORD (JSON lines). When
    a later match opens on a market it has seen, it takes the deal for a repeat and
    predicts that its opponent holds the hand it held then: under mirrored pairs, the
    opponent of game 2 sits where this bot sat in game 1."""

    def __init__(self) -> None:
        self.rng = random.Random(os.environ.get("AVENUE_TEST_SEED", "1"))
        self.path = os.environ["AVENUE_TEST_RECORD"]
        self.seen: set[str] = set()
        self.by_market: dict[tuple[int, ...], list[list[list[int]]]] = {}
        self.lock = threading.Lock()

    def decide(self, request: pb.DecisionRequest) -> int:
        with self.lock:
            if request.match_id not in self.seen:
                self.seen.add(request.match_id)
                self._note(request)
        return self.rng.randrange(len(request.legal))

    def _note(self, request: pb.DecisionRequest) -> None:
        obs = request.observation
        hand = sorted([c.agent, c.count] for c in obs.hand if c.count)
        market = tuple(obs.market)
        earlier = self.by_market.get(market)
        line = {
            "match_id": request.match_id,
            "seat": request.seat,
            "turn": obs.turn,
            "hand": hand,
            "market": list(market),
            "predicted_opponent_hand": earlier[-1] if earlier else None,
        }
        self.by_market.setdefault(market, []).append(hand)
        with open(self.path, "a") as out:
            out.write(json.dumps(line) + "\n")


class PausingBot(RecordingBot):
    """A ``RecordingBot`` that, at its $AVENUE_TEST_PAUSE_AT-th decision, writes that
    decision's seq to $AVENUE_TEST_MARKER and sleeps $AVENUE_TEST_SLEEP seconds before it
    answers: the moment for a test to drop its stream. Once per marker: a bot started
    again with the same marker does not pause."""

    def __init__(self) -> None:
        super().__init__()
        self.pause_at = int(os.environ.get("AVENUE_TEST_PAUSE_AT", "3"))
        self.sleep = float(os.environ.get("AVENUE_TEST_SLEEP", "60"))
        self.marker = Path(os.environ["AVENUE_TEST_MARKER"])
        self.decisions = 0

    def decide(self, request: pb.DecisionRequest) -> int:
        self.decisions += 1
        if self.decisions == self.pause_at and not self.marker.exists():
            self.marker.write_text(str(request.seq))
            time.sleep(self.sleep)
        return super().decide(request)


class OwnLoopBot(Bot):
    """Decides through an event loop of its own, as a bot calling an async library from a
    synchronous ``decide`` does: ``asyncio.run`` on every decision. Appends each choice it
    made to $AVENUE_TEST_RECORD (one per line)."""

    def __init__(self) -> None:
        self.rng = random.Random(7)
        self.record = os.environ["AVENUE_TEST_RECORD"]

    async def _think(self, legal: int) -> int:
        await asyncio.sleep(0)
        return self.rng.randrange(legal)

    def decide(self, request: pb.DecisionRequest) -> int:
        choice = asyncio.run(self._think(len(request.legal)))
        with open(self.record, "a") as out:
            out.write(f"{request.match_id} {request.seq} {choice}\n")
        return choice


class NoticeBot(Bot):
    """Appends every notice its ``on_notice`` gets to $AVENUE_TEST_NOTICES as a JSON line
    (kind, text, event id, time, ``notice_data``). At its first decision it touches
    $AVENUE_TEST_MARKER (if set) and answers only once $AVENUE_TEST_GO exists (60 s at
    most): a decision the test holds in flight."""

    def __init__(self) -> None:
        self.path = os.environ["AVENUE_TEST_NOTICES"]
        self.marker = os.environ.get("AVENUE_TEST_MARKER")
        self.go = os.environ.get("AVENUE_TEST_GO")
        self.held = False

    def on_notice(self, notice: pb.Notice) -> None:
        from avenue_sdk import notice_data

        line = {
            "kind": notice.kind,
            "text": notice.text,
            "event_id": notice.event_id,
            "created_at_ms": notice.created_at_ms,
            "data": notice_data(notice),
        }
        with open(self.path, "a") as out:
            out.write(json.dumps(line) + "\n")

    def decide(self, request: pb.DecisionRequest) -> int:
        if self.marker and self.go and not self.held:
            self.held = True
            Path(self.marker).touch()
            deadline = time.monotonic() + 60
            while not Path(self.go).exists() and time.monotonic() < deadline:
                time.sleep(0.02)
        return 0

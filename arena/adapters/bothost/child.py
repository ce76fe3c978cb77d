"""The program a sandbox runs: loads the uploaded bot and answers over its pipes.

Runs inside the sandbox (``arena.adapters.bothost.sandbox``) as ``python -S -B child.py
module:Class``, with the bot's code in ``/bot`` and the SDK on ``PYTHONPATH``: it must import
nothing but the standard library and the SDK (never Django or the server, which are not in
there).

Before anything of the bot's runs it joins a new, empty session keyring (the one keyring
call the seccomp filter lets through; it exits with ``EXIT_SETUP`` if that fails, and the
host treats the sandbox as not set up).

The protocol is the bot protocol's own messages in frames (4-byte big-endian length, then
the bytes): the host writes ``ArenaMessage`` frames to stdin; the child writes
``BotMessage`` frames to the stdout it was started with: first an empty frame, when the
sandbox is up and the bot's code is about to load (what comes before is the arena's time,
what comes after the bot's), then a ``hello`` once the bot's class is loaded, then an
``action`` per ``decision_request``. The bot's own ``print``s go
to stderr (fd 1 is pointed there before the bot is imported), so they cannot corrupt the
protocol. Any exception of the bot ends the process with its traceback on stderr and an
exit status that says what it was (``EXIT_*`` below): the host types the fault from it
(``arena.adapters.bothost.faults``). The bot could fake a status (it runs in this process), but only
to mislabel its own fault: every one of them is the bot's.
"""

from __future__ import annotations

import ctypes
import errno
import importlib
import os
import platform
import struct
import sys
import traceback
from typing import BinaryIO

HEADER = struct.Struct(">I")
#: exit statuses: the bot did not load; raised while playing; ran out of memory (a
#: MemoryError: its address-space limit); was refused a process or thread (its limit)
EXIT_LOAD = 3
EXIT_CRASH = 4
EXIT_MEMORY = 5
EXIT_PROCESSES = 6
#: the sandbox could not isolate itself (the keyring): not the bot's doing
EXIT_SETUP = 7
#: keyctl's system call number, per machine
KEYCTL = {"x86_64": 250, "aarch64": 219}
#: a frame larger than this from the host is a broken host, not a bot's problem
MAX_FRAME = 8 << 20


def read_frame(stream: BinaryIO) -> bytes | None:
    head = stream.read(HEADER.size)
    if len(head) < HEADER.size:
        return None
    (size,) = HEADER.unpack(head)
    if size > MAX_FRAME:
        raise ValueError(f"frame of {size} bytes")
    data = stream.read(size)
    if len(data) < size:
        return None
    return data


def write_frame(stream: BinaryIO, data: bytes) -> None:
    stream.write(HEADER.pack(len(data)) + data)
    stream.flush()


def exit_status(exc: BaseException, otherwise: int) -> int:
    """The status for the bot's exception ``exc`` (or one it was raised from)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, MemoryError):
            return EXIT_MEMORY
        if isinstance(current, BlockingIOError) and current.errno == errno.EAGAIN:
            return EXIT_PROCESSES  # fork() over RLIMIT_NPROC (the sandbox has no sockets)
        if isinstance(current, RuntimeError) and "can't start new thread" in str(current):
            return EXIT_PROCESSES
        current = current.__cause__ or current.__context__
    return otherwise


def join_new_session_keyring() -> str:
    """Join a new anonymous session keyring ("" when done, else why not)."""
    number = KEYCTL.get(platform.machine())
    if number is None:
        return f"no keyctl number known for {platform.machine()}"
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(number, 1, None) < 0:  # KEYCTL_JOIN_SESSION_KEYRING, no name
        return f"keyctl(JOIN_SESSION_KEYRING): {os.strerror(ctypes.get_errno())}"
    return ""


def main(argv: list[str]) -> int:
    if len(argv) != 2 or ":" not in argv[1]:
        print("usage: child.py module:Class", file=sys.stderr)
        return 2
    # the protocol's ends, kept apart from anything the bot may print
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    inp = os.fdopen(os.dup(0), "rb", buffering=0)
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    sys.stdout = sys.stderr
    refused = join_new_session_keyring()
    if refused:
        print(f"the sandbox cannot isolate its keyring: {refused}", file=sys.stderr)
        return EXIT_SETUP
    write_frame(out, b"")  # up: what follows is the bot's own loading

    from agent_avenue.v1 import arena_pb2 as pb
    from avenue_sdk.bot import Bot
    from avenue_sdk.session import Histories, action_for

    module_name, _, attr = argv[1].partition(":")
    try:
        module = importlib.import_module(module_name)
        cls = getattr(module, attr, None)
        if not isinstance(cls, type) or not issubclass(cls, Bot):
            print(f"{argv[1]} is not a subclass of avenue_sdk.Bot", file=sys.stderr)
            return EXIT_LOAD
        bot = cls()
    except BaseException as exc:  # noqa: BLE001 - anything the bot's import does is its failure
        traceback.print_exc()
        return exit_status(exc, EXIT_LOAD)
    version = str(getattr(bot, "version", "") or "")[:100]
    write_frame(
        out,
        pb.BotMessage(hello=pb.Hello(protocol_version=1, bot_version=version)).SerializeToString(),
    )

    histories = Histories()
    while True:
        data = read_frame(inp)
        if data is None:
            return 0
        message = pb.ArenaMessage.FromString(data)
        kind = message.WhichOneof("kind")
        try:
            bot.on_message(message)
            if kind == "decision_request":
                request = message.decision_request
                histories.complete(request)
                action = action_for(request, bot.decide(request))
                write_frame(out, pb.BotMessage(action=action).SerializeToString())
            elif kind == "match_started":
                bot.on_match_started(message.match_started)
            elif kind == "match_ended":
                histories.forget(message.match_ended.match_id, message.match_ended.seat)
                bot.on_match_ended(message.match_ended)
        except BaseException as exc:  # noqa: BLE001 - the bot's exception is its crash
            traceback.print_exc()
            return exit_status(exc, EXIT_CRASH)


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""Direct lanes: a runner writes a decision straight to the gateway that holds the bot.

On the Redis relay alone a decision crosses Redis twice (the request's ``PUBLISH``, the
answer's ``RPUSH`` and ``BLPOP``): two more processes to wake on its way. A gateway that
opens a lane (``RELAY_DIRECT_BIND``) listens on a TCP port of its own and writes its
address into its bots' presence entries (``"direct"``). A runner that finds it there
connects once per match and gateway, and from then on writes the match's deliveries for
that bot to the lane; the gateway answers on the lane too. Redis stays the authority on
who holds a bot (presence, supersede, revocation) and the way of every message when a lane
is missing, refused or broken:

* a delivery names the stream it is for (``conn``, from the presence entry). A gateway
  that does not hold that stream of the bot any more says so (*miss*, or a refused *ack*)
  and the runner sends that delivery through Redis instead, as before;
* the gateway answers a match on the lane when the runner asks it to (``r``, "reply
  here": every remote bot of the match is on a lane), else through the match's inbox; a
  delivery of the match that comes through Redis, or the lane's end, sends its answers
  back to the inbox;
* a lane that breaks is dropped by both sides; what was on its way is what a lost
  ``PUBLISH`` would have lost, and the runner's reconnect watch (``arena.adapters.runner.resume``)
  finds the bot again.

This module is the runner's side of a lane (``Lane``, synchronous); the frames are in
``arena.adapters.relay.frames``, the gateway's listener in ``arena.adapters.relay.laneserver``.
"""

from __future__ import annotations

import select
import socket

from arena.adapters.relay.frames import (
    VERSION,
    Frame,
    LaneError,
    frame,
    parse,
    proof,
    split_address,
    split_frames,
)

#: seconds a runner waits to connect and for the gateway's hello
CONNECT_TIMEOUT = 2.0


class Lane:
    """A runner's connection to one gateway's lane (synchronous, one thread at a time)."""

    def __init__(self, address: str, gateway_id: str, prefix: str, secret: str) -> None:
        self.address = address
        self.gateway_id = gateway_id
        self._buf = bytearray()
        host, port = split_address(address)
        try:
            sock = socket.create_connection((host, port), timeout=CONNECT_TIMEOUT)
        except OSError as exc:
            raise LaneError(f"cannot connect to {address}: {exc}") from exc
        self._sock = sock
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.sendall(frame({"t": "h", "v": VERSION, "p": prefix, "a": proof(secret, prefix)}))
            replies = self.read(CONNECT_TIMEOUT)
            if not replies:
                raise LaneError(f"no hello from the gateway at {address}")
            tag, (header, _) = replies[0]
            if tag != "j" or header.get("t") != "h" or header.get("g") != gateway_id:
                raise LaneError(
                    f"{address} is not the lane of gateway {gateway_id} (it said {header})"
                )
            sock.setblocking(False)
        except BaseException:
            self.close()
            raise

    def fileno(self) -> int:
        return self._sock.fileno()

    def send(self, data: bytes) -> None:
        view = memoryview(data)
        try:
            while view:
                try:
                    view = view[self._sock.send(view) :]
                except (BlockingIOError, InterruptedError):
                    writable = select.poll()
                    writable.register(self._sock.fileno(), select.POLLOUT)
                    if not writable.poll(CONNECT_TIMEOUT * 1000):
                        raise LaneError(
                            f"lane to {self.address}: the gateway reads nothing"
                        ) from None
        except OSError as exc:
            raise LaneError(f"lane to {self.address} broke: {exc}") from exc

    def frames(self) -> list[Frame]:
        """The whole frames read so far."""
        out: list[Frame] = []
        try:
            for body in split_frames(self._buf):
                out.append(parse(body))
        except LaneError as exc:
            raise LaneError(f"lane to {self.address}: {exc}") from exc
        except ValueError as exc:
            raise LaneError(f"lane to {self.address}: unreadable frame ({exc})") from exc
        return out

    def pull(self) -> None:
        """Read what the socket holds now (never blocks). Raises LaneError on its end."""
        while True:
            try:
                data = self._sock.recv(65536)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                raise LaneError(f"lane to {self.address} broke: {exc}") from exc
            if not data:
                raise LaneError(f"the gateway at {self.address} closed the lane")
            self._buf += data
            if len(data) < 65536:
                return

    def read(self, timeout: float) -> list[Frame]:
        """Frames that arrive within ``timeout`` seconds (blocking mode, the hello)."""
        self._sock.settimeout(timeout)
        while not (got := self.frames()):
            try:
                data = self._sock.recv(65536)
            except TimeoutError:
                return []
            except OSError as exc:
                raise LaneError(f"lane to {self.address} broke: {exc}") from exc
            if not data:
                raise LaneError(f"the gateway at {self.address} closed the lane")
            self._buf += data
        return got

    def close(self) -> None:
        try:
            self._sock.close()
        except OSError:
            pass


def wait_readable(lanes: list[Lane], timeout: float) -> list[Lane]:
    """The lanes with something to read (or that closed) within ``timeout`` seconds.
    ``poll``, not ``select``: a worker playing a thousand matches holds file descriptors
    past ``select``'s 1,024."""
    if not lanes:
        return []
    poller = select.poll()
    by_fd = {}
    for lane in lanes:
        fd = lane.fileno()
        by_fd[fd] = lane
        poller.register(fd, select.POLLIN)
    events = poller.poll(max(0.0, timeout) * 1000)
    return [by_fd[fd] for fd, _ in events]

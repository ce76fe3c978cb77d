"""A TCP forwarder the fault tests can cut: the network between two real processes.

``TcpCut(target_port)`` listens on a port of its own and forwards each connection to the
target. ``cut()`` resets every connection it carries and closes its listener, so new
connections are refused: what clients see of a server restarting (PostgreSQL) or of a
network cable pulled from a machine (a bot's connection to its gateway). ``restore()``
listens again on the same port. Nothing is faked on either side: the bytes are the real
protocol's, the processes are the real ones.
"""

from __future__ import annotations

import errno
import random
import socket
import struct
import threading
import time
from pathlib import Path

#: how long ``restore`` waits for its port to be free again (a client's own connection
#: may hold it for a moment: see ``_free_port``)
RESTORE_WAIT_S = 60.0


class TcpCut:
    def __init__(self, target_port: int, target_host: str = "127.0.0.1") -> None:
        self.target = (target_host, target_port)
        self._lock = threading.Lock()
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._listener: socket.socket | None = None
        self.port = _free_port()
        self.restore()

    # ------------------------------------------------------------ faults

    def cut(self) -> int:
        """Reset every connection and refuse new ones; how many connections were cut."""
        with self._lock:
            listener, self._listener = self._listener, None
            pairs, self._pairs = self._pairs, []
        if listener is not None:
            listener.close()
        for a, b in pairs:
            for s in (a, b):
                try:  # RST, not FIN: a cut is not a goodbye
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    # close() alone does not reset a socket that a pump thread is blocked
                    # reading: that recv holds the socket open, and the server would keep
                    # the session (and its locks) as if nothing happened. Shutting the read
                    # side wakes the recv without sending anything; the close then resets.
                    s.shutdown(socket.SHUT_RD)
                except OSError:
                    pass
                s.close()
        return len(pairs)

    def restore(self) -> None:
        """Listen again (on the same port)."""
        deadline = time.monotonic() + RESTORE_WAIT_S
        while True:
            listener = socket.socket()
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                listener.bind(("127.0.0.1", self.port))
                break
            except OSError as exc:
                listener.close()
                if exc.errno != errno.EADDRINUSE or time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        listener.listen(512)
        with self._lock:
            self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def close(self) -> None:
        self.cut()

    @property
    def connections(self) -> int:
        with self._lock:
            return len(self._pairs)

    # ------------------------------------------------------------ forwarding

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # cut or closed
            try:
                upstream = socket.create_connection(self.target, timeout=10)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            for s in (client, upstream):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                if self._listener is not listener:  # cut meanwhile
                    client.close()
                    upstream.close()
                    return
                self._pairs.append((client, upstream))
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
            with self._lock:
                self._pairs = [p for p in self._pairs if src not in p]


def _free_port() -> int:
    """A free port *below* the kernel's ephemeral range. A port the kernel handed out
    (``bind(0)``) is one it also hands to outgoing connections: while the listener is
    cut, a client's connection elsewhere may take it as its own local port, and the
    listener could not come back (seen in CI under load)."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    rng = random.Random()
    for _ in range(200):
        port = rng.randrange(max(1024, low // 2), low)
        probe = socket.socket()
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
            return port
        except OSError:
            continue
        finally:
            probe.close()
    raise OSError("no free port below the ephemeral range")

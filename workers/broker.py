"""kombu's Redis transport, mended so that a worker outlives its broker.

The settings name it (``CELERY_BROKER_TRANSPORT = "workers.broker:Transport"``) for a
``redis://`` or ``rediss://`` broker; it is kombu's own transport but for two things.

**The channel close that killed workers** (kombu 5.7.0, the newest release; celery 5.7.0).
When the consumer loses the broker (Redis killed, restarted, unreachable) with messages
delivered and unacknowledged (tasks running or waiting in the worker's buffer, ``acks_late``)
and a ``BRPOP`` in flight, Celery cleans up in two passes:
``Connection.collect()`` first, whose close of the default channel fails on that ``BRPOP``
and leaves the channel open but empties the transport's ``client``; then
``Connection.close()``, whose close of the same channel restores the unacknowledged messages
through a new pool, whose parameters ``Channel._connparams`` reads off ``client``:
``AttributeError: 'NoneType' object has no attribute 'hostname'``. That is no connection
error, so it escaped ``ignore_errors`` and the consumer: ``Unrecoverable error``, and the
worker process exited (tests/reliability/test_broker_crash.py shows it). Here a channel whose
transport lost its ``client`` raises a connection error instead, as it would had it tried
Redis (which is down at that moment anyway): the consumer goes on to reconnect. Likewise
the ack of a task that ends after the loss, on the old channel (whose transport is gone by
then: ``AttributeError`` again, out of the hub's loop): it is left to the restore below.

**What the worker held when the broker went away.** Those messages cannot be restored while
Redis is down, and kombu does not try again: they stay in Redis's ``unacked`` hash until its
visibility timeout (an hour) puts them back in the queue. Here their delivery tags are kept
in this process, and the first channel that connects again (Redis is back) restores them
to the queue's head. Some are of tasks still running: a second delivery of a match that is
running or done is a no-op (its claim), as is a version test's or a reaper's run.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

import redis
from kombu.transport import redis as kombu_redis
from kombu.transport import virtual as kombu_virtual

logger = logging.getLogger(__name__)

__all__ = ["Channel", "QoS", "Transport", "pending_restores"]

#: (broker identity, delivery tag) of messages a lost connection could not restore
_unrestored: set[tuple[str, str]] = set()
_lock = threading.Lock()


def _identity(conninfo: Any) -> str:
    """Which broker a kombu ``Connection`` points at (without its password)."""
    try:
        return str(conninfo.as_uri())
    except Exception:  # noqa: BLE001 - only a key: any stable text will do
        return repr(conninfo)


def pending_restores() -> int:
    """Messages waiting to be restored once the broker is back (for the tests)."""
    with _lock:
        return len(_unrestored)


class QoS(kombu_redis.QoS):
    def restore_unacked(self, client: Any = None) -> None:
        try:
            super().restore_unacked(client)
        except self.channel.connection_errors as exc:
            tags = list(self._delivered)
            self._delivered.clear()
            broker = self.channel.broker_identity
            with _lock:
                _unrestored.update((broker, str(tag)) for tag in tags)
            logger.warning(
                "broker unreachable (%s): %d unacknowledged messages are restored when it is back",
                exc,
                len(tags),
            )

    def _lost(self) -> bool:
        transport = self.channel.connection
        return transport is None or transport.client is None

    def ack(self, delivery_tag: Any) -> None:
        if self._lost():
            # a task that ended after its channel's connection was lost: the message is
            # among those restored once the broker is back, and its second delivery finds
            # its work done
            logger.info("broker connection lost: the ack of %s waits for the restore", delivery_tag)
            kombu_virtual.QoS.ack(self, delivery_tag)
            return
        super().ack(delivery_tag)

    def reject(self, delivery_tag: Any, requeue: bool = False) -> None:
        if self._lost():
            kombu_virtual.QoS.ack(self, delivery_tag)  # restored with the others
            return
        super().reject(delivery_tag, requeue=requeue)


class Channel(kombu_redis.Channel):
    QoS = QoS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # before super(): it pings Redis, and a channel that cannot is never made
        self.broker_identity = _identity(args[0].client if args else kwargs["connection"].client)
        super().__init__(*args, **kwargs)
        self._restore_unrestored()

    def _connparams(self, asynchronous: bool = False) -> dict[str, Any]:
        if self.connection is None or self.connection.client is None:
            # the lost connection's cleanup emptied it before this channel's close
            raise redis.ConnectionError("the broker connection is closed")
        params: dict[str, Any] = super()._connparams(asynchronous=asynchronous)
        return params

    def _restore_unrestored(self) -> None:
        """Put back in the queue what a lost connection held (this channel reached Redis)."""
        with _lock:
            mine = [tag for broker, tag in _unrestored if broker == self.broker_identity]
        if not mine or not self.ack_emulation:
            return
        done = 0
        try:
            for tag in mine:
                self.qos.restore_by_tag(tag, leftmost=True)
                with _lock:
                    _unrestored.discard((self.broker_identity, tag))
                done += 1
        except self.connection_errors as exc:
            logger.warning("broker: %d messages still to restore (%s)", len(mine) - done, exc)
        logger.warning(
            "broker back: restored %d messages unacknowledged when its connection was lost", done
        )


class Transport(kombu_redis.Transport):
    Channel = Channel

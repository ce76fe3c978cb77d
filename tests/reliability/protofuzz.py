"""Hypothesis strategies built from the protocol's message types, and a raw gRPC stream
that sends bytes as they are (identity serializers), for fuzzing the gateway.

``messages(pb.Action)`` draws any ``Action`` the wire format can carry: every field of the
descriptor, oneofs with at most one member set, enums with values outside the ``.proto``
(proto3 enums are open), huge integers and, now and then, huge or odd strings. Nothing
here knows the gateway's rules; the tests state them.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import DecodeError, Message
from google.protobuf.message_factory import GetMessageClass
from hypothesis import strategies as st

from agent_avenue.v1 import arena_pb2 as pb

METHOD = "/agent_avenue.v1.BotArena/Connect"

# ---------------------------------------------------------------- strategies

_INT_RANGES = {
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
}

#: strings a careless server mishandles: NUL (PostgreSQL refuses it in text), control
#: characters, markup, SQL, format specifiers, right-to-left marks, astral planes
NASTY_STRINGS = [
    "",
    "\x00",
    "bot\x00version",
    "'; DROP TABLE arena_bot; --",
    "<script>alert(1)</script>",
    "%s%s%n{0}{__class__}",
    "\u202e\u200b\ufeff",
    "𝔄𝔤𝔢𝔫𝔱 🃏",
    "\r\n\t\x7f\x1b[2J",
]


def text(max_size: int = 40) -> st.SearchStrategy[str]:
    """Short text of any code point protobuf can carry (no surrogates), nasty strings,
    and now and then a huge one."""
    return st.one_of(
        st.text(st.characters(codec="utf-8"), max_size=max_size),  # no lone surrogates
        st.sampled_from(NASTY_STRINGS),
        st.integers(1_000, 30_000).map(lambda n: "x" * n),
    )


def _scalar(f: FieldDescriptor) -> st.SearchStrategy[Any]:
    if f.type in _INT_RANGES:
        low, high = _INT_RANGES[f.type]
        return st.one_of(st.integers(low, high), st.sampled_from([low, high, 0, 1]))
    if f.type == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if f.type == FieldDescriptor.TYPE_STRING:
        return text()
    if f.type == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=64)
    if f.type == FieldDescriptor.TYPE_ENUM:
        known = [v.number for v in f.enum_type.values]
        return st.one_of(st.sampled_from(known), st.integers(-(2**31), 2**31 - 1))
    if f.type in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return st.floats(width=32 if f.type == FieldDescriptor.TYPE_FLOAT else 64)
    raise TypeError(f"no strategy for field {f.full_name} of type {f.type}")


def _value(f: FieldDescriptor, depth: int) -> st.SearchStrategy[Any]:
    if f.type == FieldDescriptor.TYPE_MESSAGE:
        one: st.SearchStrategy[Any] = _message(f.message_type, depth + 1)
    else:
        one = _scalar(f)
    if f.is_repeated:
        return st.lists(one, max_size=3)
    return one


def _as_kwarg(name: str) -> Callable[[Any], dict[str, Any]]:
    return lambda value: {name: value}


def _message(descriptor: Descriptor, depth: int) -> st.SearchStrategy[Message]:
    cls = GetMessageClass(descriptor)
    if depth > 4:
        return st.just(cls())
    plain = [f for f in descriptor.fields if f.containing_oneof is None]
    oneofs = list(descriptor.oneofs)
    optional = {f.name: _value(f, depth) for f in plain}
    # one member of each oneof (a proto3 `optional` is a oneof of one), or none
    choices = [
        st.one_of(st.just({}), *(_value(f, depth).map(_as_kwarg(f.name)) for f in o.fields))
        for o in oneofs
    ]

    @st.composite
    def build(draw: st.DrawFn) -> Message:
        kwargs: dict[str, Any] = draw(st.fixed_dictionaries({}, optional=optional))
        for choice in choices:
            kwargs.update(draw(choice))
        return cls(**kwargs)

    return build()


def messages(cls: type[Message]) -> st.SearchStrategy[Message]:
    """Any message of type ``cls`` (nested messages to a few levels)."""
    return _message(cls.DESCRIPTOR, 0)


def bot_messages(
    kinds: Iterable[str] = ("hello", "ping", "pong", "action"),
) -> st.SearchStrategy[pb.BotMessage]:
    """BotMessages with exactly one of ``kinds`` set, every field of it random."""
    fields = {f.name: f for f in pb.BotMessage.DESCRIPTOR.fields}
    return st.one_of(
        *(_message(fields[k].message_type, 1).map(_as_kwarg(k)).map(_bot_message) for k in kinds)
    )


def _bot_message(kwargs: dict[str, Any]) -> pb.BotMessage:
    return pb.BotMessage(**kwargs)


def truncated(data: st.SearchStrategy[bytes]) -> st.SearchStrategy[bytes]:
    """A prefix of a serialized message, cut anywhere before its end."""
    return data.filter(lambda b: len(b) > 1).flatmap(
        lambda b: st.integers(1, len(b) - 1).map(lambda n: b[:n])
    )


def serialized_bot_messages() -> st.SearchStrategy[bytes]:
    return bot_messages().map(lambda m: m.SerializeToString())


def frames() -> st.SearchStrategy[bytes]:
    """What a hostile bot may put in one stream frame (below the size limit): random
    bytes, truncated messages, well-formed messages of every kind, an empty message."""
    return st.one_of(
        st.binary(max_size=200),
        truncated(serialized_bot_messages()),
        serialized_bot_messages(),
        st.just(b""),
    )


def parse(data: bytes) -> pb.BotMessage | None:
    try:
        return pb.BotMessage.FromString(data)
    except DecodeError:
        return None


# ---------------------------------------------------------------- a raw stream


def _identity(data: bytes) -> bytes:
    return data


@dataclass
class Exchange:
    """One stream, seen from the bot: every message the arena sent and how it ended."""

    replies: list[pb.ArenaMessage]
    status: grpc.StatusCode
    details: str
    seconds: float

    def kinds(self) -> list[str]:
        return [str(m.WhichOneof("kind")) for m in self.replies]

    def without_pings(self) -> list[pb.ArenaMessage]:
        """The replies less the arena's own heartbeat pings (they come on a timer)."""
        return [m for m in self.replies if m.WhichOneof("kind") != "ping"]

    def errors(self) -> list[str]:
        return [m.error.code for m in self.replies if m.WhichOneof("kind") == "error"]


class RawChannel:
    """A channel to the gateway that sends frames as raw bytes and reads raw replies."""

    def __init__(self, address: str) -> None:
        self.channel = grpc.insecure_channel(
            address, options=[("grpc.max_send_message_length", 16 * 1024 * 1024)]
        )
        self.connect = self.channel.stream_stream(
            METHOD, request_serializer=_identity, response_deserializer=_identity
        )

    def close(self) -> None:
        self.channel.close()

    def exchange(
        self,
        frames: Iterable[bytes],
        token: str | None,
        *,
        timeout: float = 10.0,
        metadata: list[tuple[str, str]] | None = None,
    ) -> Exchange:
        """Send ``frames``, half-close, read every reply until the status."""
        if metadata is None:
            metadata = [] if token is None else [("authorization", f"Bearer {token}")]
        started = time.monotonic()
        call = self.connect(iter(list(frames)), metadata=metadata, timeout=timeout)
        replies: list[pb.ArenaMessage] = []
        try:
            for raw in call:
                # every reply must be a well-formed ArenaMessage (raises otherwise)
                replies.append(pb.ArenaMessage.FromString(raw))
            status, details = call.code(), call.details() or ""
        except grpc.RpcError as exc:
            status, details = exc.code(), exc.details() or ""  # type: ignore[attr-defined]
        return Exchange(replies, status, details, time.monotonic() - started)

    def open(self, token: str, *, timeout: float = 30.0) -> LiveStream:
        return LiveStream(self, token, timeout)


@dataclass
class LiveStream:
    """A stream kept open: frames are sent as the test decides, replies read in a thread."""

    raw: RawChannel
    token: str
    timeout: float
    outbox: queue.SimpleQueue[bytes | None] = field(default_factory=queue.SimpleQueue)
    replies: queue.SimpleQueue[pb.ArenaMessage | None] = field(default_factory=queue.SimpleQueue)
    status: grpc.StatusCode | None = None
    details: str = ""

    def __post_init__(self) -> None:
        self._call = self.raw.connect(
            iter(self.outbox.get, None),
            metadata=[("authorization", f"Bearer {self.token}")],
            timeout=self.timeout,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        try:
            for raw in self._call:
                self.replies.put(pb.ArenaMessage.FromString(raw))
            self.status, self.details = self._call.code(), self._call.details() or ""
        except grpc.RpcError as exc:
            self.status, self.details = exc.code(), exc.details() or ""  # type: ignore[attr-defined]
        finally:
            self.replies.put(None)

    def send(self, data: bytes) -> None:
        self.outbox.put(data)

    def next(self, timeout: float = 10.0) -> pb.ArenaMessage | None:
        """The next reply (None once the stream has ended); raises if none comes in time."""
        try:
            return self.replies.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no message from the arena within {timeout:g} s") from None

    def close(self, timeout: float = 10.0) -> None:
        """Half-close and wait for the status."""
        self.outbox.put(None)
        self._reader.join(timeout)
        if self._reader.is_alive():
            self._call.cancel()
            raise AssertionError(f"the stream did not end within {timeout:g} s of half-closing")

    def cancel(self) -> None:
        """End the stream from the bot's side at once (a test that failed half-way)."""
        self._call.cancel()
        self._reader.join(10)

    def drain(self) -> Iterator[pb.ArenaMessage]:
        while True:
            try:
                msg = self.replies.get_nowait()
            except queue.Empty:
                return
            if msg is None:
                return
            yield msg

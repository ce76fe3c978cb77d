from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BotMessage(_message.Message):
    __slots__ = ("hello", "ping", "pong")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    PING_FIELD_NUMBER: _ClassVar[int]
    PONG_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    ping: Ping
    pong: Pong
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., ping: _Optional[_Union[Ping, _Mapping]] = ..., pong: _Optional[_Union[Pong, _Mapping]] = ...) -> None: ...

class ArenaMessage(_message.Message):
    __slots__ = ("welcome", "error", "ping", "pong")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    PING_FIELD_NUMBER: _ClassVar[int]
    PONG_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    error: Error
    ping: Ping
    pong: Pong
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., error: _Optional[_Union[Error, _Mapping]] = ..., ping: _Optional[_Union[Ping, _Mapping]] = ..., pong: _Optional[_Union[Pong, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("protocol_version", "bot_version", "max_concurrent_matches")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    BOT_VERSION_FIELD_NUMBER: _ClassVar[int]
    MAX_CONCURRENT_MATCHES_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    bot_version: str
    max_concurrent_matches: int
    def __init__(self, protocol_version: _Optional[int] = ..., bot_version: _Optional[str] = ..., max_concurrent_matches: _Optional[int] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("bot_id", "bot_name")
    BOT_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    bot_id: str
    bot_name: str
    def __init__(self, bot_id: _Optional[str] = ..., bot_name: _Optional[str] = ...) -> None: ...

class Error(_message.Message):
    __slots__ = ("code", "message")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: str
    message: str
    def __init__(self, code: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class Ping(_message.Message):
    __slots__ = ("nonce",)
    NONCE_FIELD_NUMBER: _ClassVar[int]
    nonce: int
    def __init__(self, nonce: _Optional[int] = ...) -> None: ...

class Pong(_message.Message):
    __slots__ = ("nonce",)
    NONCE_FIELD_NUMBER: _ClassVar[int]
    nonce: int
    def __init__(self, nonce: _Optional[int] = ...) -> None: ...

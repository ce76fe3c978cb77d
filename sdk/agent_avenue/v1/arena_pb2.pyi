from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Agent(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    AGENT_UNSPECIFIED: _ClassVar[Agent]
    AGENT_DOUBLE_AGENT: _ClassVar[Agent]
    AGENT_ENFORCER: _ClassVar[Agent]
    AGENT_CODEBREAKER: _ClassVar[Agent]
    AGENT_SABOTEUR: _ClassVar[Agent]
    AGENT_DAREDEVIL: _ClassVar[Agent]
    AGENT_SENTINEL: _ClassVar[Agent]
    AGENT_SIDEKICK: _ClassVar[Agent]
    AGENT_MOLE: _ClassVar[Agent]

class BlackMarketCard(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BLACK_MARKET_CARD_UNSPECIFIED: _ClassVar[BlackMarketCard]
    BLACK_MARKET_CARD_LEADER_OF_THE_PACK: _ClassVar[BlackMarketCard]
    BLACK_MARKET_CARD_MASTERPLAN: _ClassVar[BlackMarketCard]
    BLACK_MARKET_CARD_SECURITY_SYSTEM: _ClassVar[BlackMarketCard]
    BLACK_MARKET_CARD_GETAWAY_CAR: _ClassVar[BlackMarketCard]
    BLACK_MARKET_CARD_LOOKOUT: _ClassVar[BlackMarketCard]
    BLACK_MARKET_CARD_SUPERCOMPUTER: _ClassVar[BlackMarketCard]
    BLACK_MARKET_CARD_DISTRACTION_DEVICE: _ClassVar[BlackMarketCard]
    BLACK_MARKET_CARD_EVIL_TWIN: _ClassVar[BlackMarketCard]
    BLACK_MARKET_CARD_SURVEILLANCE_VAN: _ClassVar[BlackMarketCard]
    BLACK_MARKET_CARD_SMOKE_SCREEN: _ClassVar[BlackMarketCard]
    BLACK_MARKET_CARD_OUTPOST: _ClassVar[BlackMarketCard]
    BLACK_MARKET_CARD_SECRET_RECRUIT: _ClassVar[BlackMarketCard]
    BLACK_MARKET_CARD_DOUBLE_TROUBLE: _ClassVar[BlackMarketCard]
    BLACK_MARKET_CARD_SPYCATION: _ClassVar[BlackMarketCard]
    BLACK_MARKET_CARD_MIND_CONTROL: _ClassVar[BlackMarketCard]

class Mode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MODE_UNSPECIFIED: _ClassVar[Mode]
    MODE_SIMPLE: _ClassVar[Mode]
    MODE_ADVANCED: _ClassVar[Mode]

class DecisionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DECISION_KIND_UNSPECIFIED: _ClassVar[DecisionKind]
    DECISION_KIND_DISCARD: _ClassVar[DecisionKind]
    DECISION_KIND_PLAY: _ClassVar[DecisionKind]
    DECISION_KIND_NAME_FACE_UP: _ClassVar[DecisionKind]
    DECISION_KIND_PLAY_FACE_UP: _ClassVar[DecisionKind]
    DECISION_KIND_PLAY_FACE_DOWN: _ClassVar[DecisionKind]
    DECISION_KIND_RECRUIT: _ClassVar[DecisionKind]
    DECISION_KIND_BLACK_MARKET: _ClassVar[DecisionKind]
    DECISION_KIND_SECRET_RECRUIT: _ClassVar[DecisionKind]
    DECISION_KIND_DOUBLE_TROUBLE: _ClassVar[DecisionKind]
    DECISION_KIND_SPYCATION: _ClassVar[DecisionKind]
    DECISION_KIND_MIND_CONTROL: _ClassVar[DecisionKind]
    DECISION_KIND_RECALL: _ClassVar[DecisionKind]

class Side(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SIDE_UNSPECIFIED: _ClassVar[Side]
    SIDE_FACE_UP: _ClassVar[Side]
    SIDE_FACE_DOWN: _ClassVar[Side]

class EndReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    END_REASON_UNSPECIFIED: _ClassVar[EndReason]
    END_REASON_CATCH: _ClassVar[EndReason]
    END_REASON_THREE_CODEBREAKERS: _ClassVar[EndReason]
    END_REASON_THREE_DAREDEVILS: _ClassVar[EndReason]
    END_REASON_LEADER_OF_THE_PACK: _ClassVar[EndReason]
    END_REASON_MASTERPLAN: _ClassVar[EndReason]
    END_REASON_SECURITY_SYSTEM: _ClassVar[EndReason]
    END_REASON_HOME_SPACE: _ClassVar[EndReason]
    END_REASON_OUT_OF_CARDS: _ClassVar[EndReason]
    END_REASON_FORFEIT: _ClassVar[EndReason]

class EventKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EVENT_KIND_UNSPECIFIED: _ClassVar[EventKind]
    EVENT_KIND_TURN_STARTED: _ClassVar[EventKind]
    EVENT_KIND_DISCARDED: _ClassVar[EventKind]
    EVENT_KIND_NAMED_FACE_UP: _ClassVar[EventKind]
    EVENT_KIND_PLAYED_FACE_UP: _ClassVar[EventKind]
    EVENT_KIND_PLAYED_FACE_DOWN: _ClassVar[EventKind]
    EVENT_KIND_DREW: _ClassVar[EventKind]
    EVENT_KIND_CHOSE: _ClassVar[EventKind]
    EVENT_KIND_RECRUITED: _ClassVar[EventKind]
    EVENT_KIND_MOVED: _ClassVar[EventKind]
    EVENT_KIND_MARKET_TAKEN: _ClassVar[EventKind]
    EVENT_KIND_MARKET_REVEALED: _ClassVar[EventKind]
    EVENT_KIND_EFFECT_IGNORED: _ClassVar[EventKind]
    EVENT_KIND_RETRIEVED: _ClassVar[EventKind]
    EVENT_KIND_STOLEN: _ClassVar[EventKind]
    EVENT_KIND_SHOWN_PAIR: _ClassVar[EventKind]
    EVENT_KIND_GAME_ENDED: _ClassVar[EventKind]

class BoardEffect(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BOARD_EFFECT_UNSPECIFIED: _ClassVar[BoardEffect]
    BOARD_EFFECT_HOME_BONUS: _ClassVar[BoardEffect]
    BOARD_EFFECT_RECALL: _ClassVar[BoardEffect]

class FaultCause(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FAULT_CAUSE_UNSPECIFIED: _ClassVar[FaultCause]
    FAULT_CAUSE_TIMEOUT: _ClassVar[FaultCause]
    FAULT_CAUSE_DISCONNECT: _ClassVar[FaultCause]
    FAULT_CAUSE_ILLEGAL_ACTION: _ClassVar[FaultCause]
    FAULT_CAUSE_MALFORMED_ACTION: _ClassVar[FaultCause]
    FAULT_CAUSE_NO_SHOW: _ClassVar[FaultCause]
    FAULT_CAUSE_CRASH: _ClassVar[FaultCause]
    FAULT_CAUSE_MESSAGE_TOO_LARGE: _ClassVar[FaultCause]
    FAULT_CAUSE_MEMORY: _ClassVar[FaultCause]
    FAULT_CAUSE_INVALID_OUTPUT: _ClassVar[FaultCause]
    FAULT_CAUSE_PROCESS_LIMIT: _ClassVar[FaultCause]

class MatchOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MATCH_OUTCOME_UNSPECIFIED: _ClassVar[MatchOutcome]
    MATCH_OUTCOME_WIN: _ClassVar[MatchOutcome]
    MATCH_OUTCOME_LOSS: _ClassVar[MatchOutcome]
    MATCH_OUTCOME_ABORTED: _ClassVar[MatchOutcome]
AGENT_UNSPECIFIED: Agent
AGENT_DOUBLE_AGENT: Agent
AGENT_ENFORCER: Agent
AGENT_CODEBREAKER: Agent
AGENT_SABOTEUR: Agent
AGENT_DAREDEVIL: Agent
AGENT_SENTINEL: Agent
AGENT_SIDEKICK: Agent
AGENT_MOLE: Agent
BLACK_MARKET_CARD_UNSPECIFIED: BlackMarketCard
BLACK_MARKET_CARD_LEADER_OF_THE_PACK: BlackMarketCard
BLACK_MARKET_CARD_MASTERPLAN: BlackMarketCard
BLACK_MARKET_CARD_SECURITY_SYSTEM: BlackMarketCard
BLACK_MARKET_CARD_GETAWAY_CAR: BlackMarketCard
BLACK_MARKET_CARD_LOOKOUT: BlackMarketCard
BLACK_MARKET_CARD_SUPERCOMPUTER: BlackMarketCard
BLACK_MARKET_CARD_DISTRACTION_DEVICE: BlackMarketCard
BLACK_MARKET_CARD_EVIL_TWIN: BlackMarketCard
BLACK_MARKET_CARD_SURVEILLANCE_VAN: BlackMarketCard
BLACK_MARKET_CARD_SMOKE_SCREEN: BlackMarketCard
BLACK_MARKET_CARD_OUTPOST: BlackMarketCard
BLACK_MARKET_CARD_SECRET_RECRUIT: BlackMarketCard
BLACK_MARKET_CARD_DOUBLE_TROUBLE: BlackMarketCard
BLACK_MARKET_CARD_SPYCATION: BlackMarketCard
BLACK_MARKET_CARD_MIND_CONTROL: BlackMarketCard
MODE_UNSPECIFIED: Mode
MODE_SIMPLE: Mode
MODE_ADVANCED: Mode
DECISION_KIND_UNSPECIFIED: DecisionKind
DECISION_KIND_DISCARD: DecisionKind
DECISION_KIND_PLAY: DecisionKind
DECISION_KIND_NAME_FACE_UP: DecisionKind
DECISION_KIND_PLAY_FACE_UP: DecisionKind
DECISION_KIND_PLAY_FACE_DOWN: DecisionKind
DECISION_KIND_RECRUIT: DecisionKind
DECISION_KIND_BLACK_MARKET: DecisionKind
DECISION_KIND_SECRET_RECRUIT: DecisionKind
DECISION_KIND_DOUBLE_TROUBLE: DecisionKind
DECISION_KIND_SPYCATION: DecisionKind
DECISION_KIND_MIND_CONTROL: DecisionKind
DECISION_KIND_RECALL: DecisionKind
SIDE_UNSPECIFIED: Side
SIDE_FACE_UP: Side
SIDE_FACE_DOWN: Side
END_REASON_UNSPECIFIED: EndReason
END_REASON_CATCH: EndReason
END_REASON_THREE_CODEBREAKERS: EndReason
END_REASON_THREE_DAREDEVILS: EndReason
END_REASON_LEADER_OF_THE_PACK: EndReason
END_REASON_MASTERPLAN: EndReason
END_REASON_SECURITY_SYSTEM: EndReason
END_REASON_HOME_SPACE: EndReason
END_REASON_OUT_OF_CARDS: EndReason
END_REASON_FORFEIT: EndReason
EVENT_KIND_UNSPECIFIED: EventKind
EVENT_KIND_TURN_STARTED: EventKind
EVENT_KIND_DISCARDED: EventKind
EVENT_KIND_NAMED_FACE_UP: EventKind
EVENT_KIND_PLAYED_FACE_UP: EventKind
EVENT_KIND_PLAYED_FACE_DOWN: EventKind
EVENT_KIND_DREW: EventKind
EVENT_KIND_CHOSE: EventKind
EVENT_KIND_RECRUITED: EventKind
EVENT_KIND_MOVED: EventKind
EVENT_KIND_MARKET_TAKEN: EventKind
EVENT_KIND_MARKET_REVEALED: EventKind
EVENT_KIND_EFFECT_IGNORED: EventKind
EVENT_KIND_RETRIEVED: EventKind
EVENT_KIND_STOLEN: EventKind
EVENT_KIND_SHOWN_PAIR: EventKind
EVENT_KIND_GAME_ENDED: EventKind
BOARD_EFFECT_UNSPECIFIED: BoardEffect
BOARD_EFFECT_HOME_BONUS: BoardEffect
BOARD_EFFECT_RECALL: BoardEffect
FAULT_CAUSE_UNSPECIFIED: FaultCause
FAULT_CAUSE_TIMEOUT: FaultCause
FAULT_CAUSE_DISCONNECT: FaultCause
FAULT_CAUSE_ILLEGAL_ACTION: FaultCause
FAULT_CAUSE_MALFORMED_ACTION: FaultCause
FAULT_CAUSE_NO_SHOW: FaultCause
FAULT_CAUSE_CRASH: FaultCause
FAULT_CAUSE_MESSAGE_TOO_LARGE: FaultCause
FAULT_CAUSE_MEMORY: FaultCause
FAULT_CAUSE_INVALID_OUTPUT: FaultCause
FAULT_CAUSE_PROCESS_LIMIT: FaultCause
MATCH_OUTCOME_UNSPECIFIED: MatchOutcome
MATCH_OUTCOME_WIN: MatchOutcome
MATCH_OUTCOME_LOSS: MatchOutcome
MATCH_OUTCOME_ABORTED: MatchOutcome

class BotMessage(_message.Message):
    __slots__ = ("hello", "ping", "pong", "action", "seat_fault", "host_failure")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    PING_FIELD_NUMBER: _ClassVar[int]
    PONG_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FAULT_FIELD_NUMBER: _ClassVar[int]
    HOST_FAILURE_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    ping: Ping
    pong: Pong
    action: Action
    seat_fault: SeatFault
    host_failure: HostFailure
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., ping: _Optional[_Union[Ping, _Mapping]] = ..., pong: _Optional[_Union[Pong, _Mapping]] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., seat_fault: _Optional[_Union[SeatFault, _Mapping]] = ..., host_failure: _Optional[_Union[HostFailure, _Mapping]] = ...) -> None: ...

class ArenaMessage(_message.Message):
    __slots__ = ("welcome", "error", "ping", "pong", "match_started", "decision_request", "match_ended", "notice")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    PING_FIELD_NUMBER: _ClassVar[int]
    PONG_FIELD_NUMBER: _ClassVar[int]
    MATCH_STARTED_FIELD_NUMBER: _ClassVar[int]
    DECISION_REQUEST_FIELD_NUMBER: _ClassVar[int]
    MATCH_ENDED_FIELD_NUMBER: _ClassVar[int]
    NOTICE_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    error: Error
    ping: Ping
    pong: Pong
    match_started: MatchStarted
    decision_request: DecisionRequest
    match_ended: MatchEnded
    notice: Notice
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., error: _Optional[_Union[Error, _Mapping]] = ..., ping: _Optional[_Union[Ping, _Mapping]] = ..., pong: _Optional[_Union[Pong, _Mapping]] = ..., match_started: _Optional[_Union[MatchStarted, _Mapping]] = ..., decision_request: _Optional[_Union[DecisionRequest, _Mapping]] = ..., match_ended: _Optional[_Union[MatchEnded, _Mapping]] = ..., notice: _Optional[_Union[Notice, _Mapping]] = ...) -> None: ...

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
    __slots__ = ("bot_id", "bot_name", "limits")
    BOT_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    bot_id: str
    bot_name: str
    limits: Limits
    def __init__(self, bot_id: _Optional[str] = ..., bot_name: _Optional[str] = ..., limits: _Optional[_Union[Limits, _Mapping]] = ...) -> None: ...

class Limits(_message.Message):
    __slots__ = ("protocol_version", "max_concurrent_matches", "max_message_bytes", "rate_limit_per_second", "rate_limit_burst", "heartbeat_interval_ms", "heartbeat_timeout_ms")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    MAX_CONCURRENT_MATCHES_FIELD_NUMBER: _ClassVar[int]
    MAX_MESSAGE_BYTES_FIELD_NUMBER: _ClassVar[int]
    RATE_LIMIT_PER_SECOND_FIELD_NUMBER: _ClassVar[int]
    RATE_LIMIT_BURST_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_INTERVAL_MS_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    max_concurrent_matches: int
    max_message_bytes: int
    rate_limit_per_second: int
    rate_limit_burst: int
    heartbeat_interval_ms: int
    heartbeat_timeout_ms: int
    def __init__(self, protocol_version: _Optional[int] = ..., max_concurrent_matches: _Optional[int] = ..., max_message_bytes: _Optional[int] = ..., rate_limit_per_second: _Optional[int] = ..., rate_limit_burst: _Optional[int] = ..., heartbeat_interval_ms: _Optional[int] = ..., heartbeat_timeout_ms: _Optional[int] = ...) -> None: ...

class Error(_message.Message):
    __slots__ = ("code", "message", "match_id", "seq")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    code: str
    message: str
    match_id: str
    seq: int
    def __init__(self, code: _Optional[str] = ..., message: _Optional[str] = ..., match_id: _Optional[str] = ..., seq: _Optional[int] = ...) -> None: ...

class Notice(_message.Message):
    __slots__ = ("event_id", "kind", "text", "data_json", "created_at_ms")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    kind: str
    text: str
    data_json: str
    created_at_ms: int
    def __init__(self, event_id: _Optional[str] = ..., kind: _Optional[str] = ..., text: _Optional[str] = ..., data_json: _Optional[str] = ..., created_at_ms: _Optional[int] = ...) -> None: ...

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

class MatchStarted(_message.Message):
    __slots__ = ("match_id", "seat", "team", "config", "players", "time_control", "resumed", "reconnect_grace_ms")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    RESUMED_FIELD_NUMBER: _ClassVar[int]
    RECONNECT_GRACE_MS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    team: int
    config: MatchConfig
    players: _containers.RepeatedCompositeFieldContainer[Player]
    time_control: TimeControl
    resumed: bool
    reconnect_grace_ms: int
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., team: _Optional[int] = ..., config: _Optional[_Union[MatchConfig, _Mapping]] = ..., players: _Optional[_Iterable[_Union[Player, _Mapping]]] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., resumed: _Optional[bool] = ..., reconnect_grace_ms: _Optional[int] = ...) -> None: ...

class MatchConfig(_message.Message):
    __slots__ = ("mode", "ruleset", "ruleset_version", "teams", "first_team")
    MODE_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    RULESET_VERSION_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    FIRST_TEAM_FIELD_NUMBER: _ClassVar[int]
    mode: Mode
    ruleset: str
    ruleset_version: int
    teams: _containers.RepeatedCompositeFieldContainer[TeamSeats]
    first_team: int
    def __init__(self, mode: _Optional[_Union[Mode, str]] = ..., ruleset: _Optional[str] = ..., ruleset_version: _Optional[int] = ..., teams: _Optional[_Iterable[_Union[TeamSeats, _Mapping]]] = ..., first_team: _Optional[int] = ...) -> None: ...

class TeamSeats(_message.Message):
    __slots__ = ("seats",)
    SEATS_FIELD_NUMBER: _ClassVar[int]
    seats: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seats: _Optional[_Iterable[int]] = ...) -> None: ...

class Player(_message.Message):
    __slots__ = ("seat", "team", "name")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    seat: int
    team: int
    name: str
    def __init__(self, seat: _Optional[int] = ..., team: _Optional[int] = ..., name: _Optional[str] = ...) -> None: ...

class TimeControl(_message.Message):
    __slots__ = ("decision_ms", "bank_ms")
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    decision_ms: int
    bank_ms: int
    def __init__(self, decision_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("match_id", "seq", "kind", "seat", "observation", "legal", "decision_ms", "bank_ms", "previous_latency_ms", "resent")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_LATENCY_MS_FIELD_NUMBER: _ClassVar[int]
    RESENT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seq: int
    kind: DecisionKind
    seat: int
    observation: Observation
    legal: _containers.RepeatedCompositeFieldContainer[Choice]
    decision_ms: int
    bank_ms: int
    previous_latency_ms: float
    resent: bool
    def __init__(self, match_id: _Optional[str] = ..., seq: _Optional[int] = ..., kind: _Optional[_Union[DecisionKind, str]] = ..., seat: _Optional[int] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ..., legal: _Optional[_Iterable[_Union[Choice, _Mapping]]] = ..., decision_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ..., previous_latency_ms: _Optional[float] = ..., resent: _Optional[bool] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("match_id", "seq", "choice_index", "choice", "arena_wait_us")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    CHOICE_INDEX_FIELD_NUMBER: _ClassVar[int]
    CHOICE_FIELD_NUMBER: _ClassVar[int]
    ARENA_WAIT_US_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seq: int
    choice_index: int
    choice: Choice
    arena_wait_us: int
    def __init__(self, match_id: _Optional[str] = ..., seq: _Optional[int] = ..., choice_index: _Optional[int] = ..., choice: _Optional[_Union[Choice, _Mapping]] = ..., arena_wait_us: _Optional[int] = ...) -> None: ...

class MatchEnded(_message.Message):
    __slots__ = ("match_id", "seat", "outcome", "winner_team", "reason", "fault", "fault_seat", "turns", "replay_id", "message")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    WINNER_TEAM_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    FAULT_FIELD_NUMBER: _ClassVar[int]
    FAULT_SEAT_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    REPLAY_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    outcome: MatchOutcome
    winner_team: int
    reason: EndReason
    fault: FaultCause
    fault_seat: int
    turns: int
    replay_id: str
    message: str
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., outcome: _Optional[_Union[MatchOutcome, str]] = ..., winner_team: _Optional[int] = ..., reason: _Optional[_Union[EndReason, str]] = ..., fault: _Optional[_Union[FaultCause, str]] = ..., fault_seat: _Optional[int] = ..., turns: _Optional[int] = ..., replay_id: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class SeatFault(_message.Message):
    __slots__ = ("match_id", "seq", "cause", "detail")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    CAUSE_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seq: int
    cause: FaultCause
    detail: str
    def __init__(self, match_id: _Optional[str] = ..., seq: _Optional[int] = ..., cause: _Optional[_Union[FaultCause, str]] = ..., detail: _Optional[str] = ...) -> None: ...

class HostFailure(_message.Message):
    __slots__ = ("match_id", "seq", "detail")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seq: int
    detail: str
    def __init__(self, match_id: _Optional[str] = ..., seq: _Optional[int] = ..., detail: _Optional[str] = ...) -> None: ...

class Choice(_message.Message):
    __slots__ = ("stop_discarding", "discard", "play", "name_face_up", "play_face_up", "play_face_down", "recruit", "take_black_market", "choose_agent", "retrieve")
    class StopDiscarding(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Discard(_message.Message):
        __slots__ = ("card",)
        CARD_FIELD_NUMBER: _ClassVar[int]
        card: Agent
        def __init__(self, card: _Optional[_Union[Agent, str]] = ...) -> None: ...
    class Play(_message.Message):
        __slots__ = ("face_up", "face_down")
        FACE_UP_FIELD_NUMBER: _ClassVar[int]
        FACE_DOWN_FIELD_NUMBER: _ClassVar[int]
        face_up: Agent
        face_down: Agent
        def __init__(self, face_up: _Optional[_Union[Agent, str]] = ..., face_down: _Optional[_Union[Agent, str]] = ...) -> None: ...
    class NameFaceUp(_message.Message):
        __slots__ = ("seat",)
        SEAT_FIELD_NUMBER: _ClassVar[int]
        seat: int
        def __init__(self, seat: _Optional[int] = ...) -> None: ...
    class PlayFaceUp(_message.Message):
        __slots__ = ("card",)
        CARD_FIELD_NUMBER: _ClassVar[int]
        card: Agent
        def __init__(self, card: _Optional[_Union[Agent, str]] = ...) -> None: ...
    class PlayFaceDown(_message.Message):
        __slots__ = ("card",)
        CARD_FIELD_NUMBER: _ClassVar[int]
        card: Agent
        def __init__(self, card: _Optional[_Union[Agent, str]] = ...) -> None: ...
    class Recruit(_message.Message):
        __slots__ = ("side",)
        SIDE_FIELD_NUMBER: _ClassVar[int]
        side: Side
        def __init__(self, side: _Optional[_Union[Side, str]] = ...) -> None: ...
    class TakeBlackMarket(_message.Message):
        __slots__ = ("card", "taker")
        CARD_FIELD_NUMBER: _ClassVar[int]
        TAKER_FIELD_NUMBER: _ClassVar[int]
        card: BlackMarketCard
        taker: int
        def __init__(self, card: _Optional[_Union[BlackMarketCard, str]] = ..., taker: _Optional[int] = ...) -> None: ...
    class ChooseAgent(_message.Message):
        __slots__ = ("card",)
        CARD_FIELD_NUMBER: _ClassVar[int]
        card: Agent
        def __init__(self, card: _Optional[_Union[Agent, str]] = ...) -> None: ...
    class Retrieve(_message.Message):
        __slots__ = ("card", "recruit")
        CARD_FIELD_NUMBER: _ClassVar[int]
        RECRUIT_FIELD_NUMBER: _ClassVar[int]
        card: Agent
        recruit: bool
        def __init__(self, card: _Optional[_Union[Agent, str]] = ..., recruit: _Optional[bool] = ...) -> None: ...
    STOP_DISCARDING_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    NAME_FACE_UP_FIELD_NUMBER: _ClassVar[int]
    PLAY_FACE_UP_FIELD_NUMBER: _ClassVar[int]
    PLAY_FACE_DOWN_FIELD_NUMBER: _ClassVar[int]
    RECRUIT_FIELD_NUMBER: _ClassVar[int]
    TAKE_BLACK_MARKET_FIELD_NUMBER: _ClassVar[int]
    CHOOSE_AGENT_FIELD_NUMBER: _ClassVar[int]
    RETRIEVE_FIELD_NUMBER: _ClassVar[int]
    stop_discarding: Choice.StopDiscarding
    discard: Choice.Discard
    play: Choice.Play
    name_face_up: Choice.NameFaceUp
    play_face_up: Choice.PlayFaceUp
    play_face_down: Choice.PlayFaceDown
    recruit: Choice.Recruit
    take_black_market: Choice.TakeBlackMarket
    choose_agent: Choice.ChooseAgent
    retrieve: Choice.Retrieve
    def __init__(self, stop_discarding: _Optional[_Union[Choice.StopDiscarding, _Mapping]] = ..., discard: _Optional[_Union[Choice.Discard, _Mapping]] = ..., play: _Optional[_Union[Choice.Play, _Mapping]] = ..., name_face_up: _Optional[_Union[Choice.NameFaceUp, _Mapping]] = ..., play_face_up: _Optional[_Union[Choice.PlayFaceUp, _Mapping]] = ..., play_face_down: _Optional[_Union[Choice.PlayFaceDown, _Mapping]] = ..., recruit: _Optional[_Union[Choice.Recruit, _Mapping]] = ..., take_black_market: _Optional[_Union[Choice.TakeBlackMarket, _Mapping]] = ..., choose_agent: _Optional[_Union[Choice.ChooseAgent, _Mapping]] = ..., retrieve: _Optional[_Union[Choice.Retrieve, _Mapping]] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("config", "seat", "team", "turn", "active_team", "decision", "actor", "captains", "face_up_seat", "hand", "discards", "my_face_down", "seats", "teams", "gap", "deck_size", "offer_up", "face_down_offered", "market", "bm_deck_size", "bm_discard", "pending_landings", "history", "history_start")
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_TEAM_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    CAPTAINS_FIELD_NUMBER: _ClassVar[int]
    FACE_UP_SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    DISCARDS_FIELD_NUMBER: _ClassVar[int]
    MY_FACE_DOWN_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    GAP_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    OFFER_UP_FIELD_NUMBER: _ClassVar[int]
    FACE_DOWN_OFFERED_FIELD_NUMBER: _ClassVar[int]
    MARKET_FIELD_NUMBER: _ClassVar[int]
    BM_DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    BM_DISCARD_FIELD_NUMBER: _ClassVar[int]
    PENDING_LANDINGS_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    HISTORY_START_FIELD_NUMBER: _ClassVar[int]
    config: MatchConfig
    seat: int
    team: int
    turn: int
    active_team: int
    decision: DecisionKind
    actor: int
    captains: _containers.RepeatedScalarFieldContainer[int]
    face_up_seat: int
    hand: _containers.RepeatedCompositeFieldContainer[CardCount]
    discards: _containers.RepeatedCompositeFieldContainer[CardCount]
    my_face_down: Agent
    seats: _containers.RepeatedCompositeFieldContainer[SeatInfo]
    teams: _containers.RepeatedCompositeFieldContainer[TeamInfo]
    gap: int
    deck_size: int
    offer_up: Agent
    face_down_offered: bool
    market: _containers.RepeatedScalarFieldContainer[BlackMarketCard]
    bm_deck_size: int
    bm_discard: _containers.RepeatedScalarFieldContainer[BlackMarketCard]
    pending_landings: _containers.RepeatedCompositeFieldContainer[Landing]
    history: _containers.RepeatedCompositeFieldContainer[Event]
    history_start: int
    def __init__(self, config: _Optional[_Union[MatchConfig, _Mapping]] = ..., seat: _Optional[int] = ..., team: _Optional[int] = ..., turn: _Optional[int] = ..., active_team: _Optional[int] = ..., decision: _Optional[_Union[DecisionKind, str]] = ..., actor: _Optional[int] = ..., captains: _Optional[_Iterable[int]] = ..., face_up_seat: _Optional[int] = ..., hand: _Optional[_Iterable[_Union[CardCount, _Mapping]]] = ..., discards: _Optional[_Iterable[_Union[CardCount, _Mapping]]] = ..., my_face_down: _Optional[_Union[Agent, str]] = ..., seats: _Optional[_Iterable[_Union[SeatInfo, _Mapping]]] = ..., teams: _Optional[_Iterable[_Union[TeamInfo, _Mapping]]] = ..., gap: _Optional[int] = ..., deck_size: _Optional[int] = ..., offer_up: _Optional[_Union[Agent, str]] = ..., face_down_offered: _Optional[bool] = ..., market: _Optional[_Iterable[_Union[BlackMarketCard, str]]] = ..., bm_deck_size: _Optional[int] = ..., bm_discard: _Optional[_Iterable[_Union[BlackMarketCard, str]]] = ..., pending_landings: _Optional[_Iterable[_Union[Landing, _Mapping]]] = ..., history: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., history_start: _Optional[int] = ...) -> None: ...

class CardCount(_message.Message):
    __slots__ = ("agent", "count")
    AGENT_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    agent: Agent
    count: int
    def __init__(self, agent: _Optional[_Union[Agent, str]] = ..., count: _Optional[int] = ...) -> None: ...

class SeatInfo(_message.Message):
    __slots__ = ("seat", "team", "hand_size", "discards_used", "discards_left")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    DISCARDS_USED_FIELD_NUMBER: _ClassVar[int]
    DISCARDS_LEFT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    team: int
    hand_size: int
    discards_used: int
    discards_left: int
    def __init__(self, seat: _Optional[int] = ..., team: _Optional[int] = ..., hand_size: _Optional[int] = ..., discards_used: _Optional[int] = ..., discards_left: _Optional[int] = ...) -> None: ...

class TeamInfo(_message.Message):
    __slots__ = ("team", "in_play", "position", "ongoing", "effects_used")
    TEAM_FIELD_NUMBER: _ClassVar[int]
    IN_PLAY_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    ONGOING_FIELD_NUMBER: _ClassVar[int]
    EFFECTS_USED_FIELD_NUMBER: _ClassVar[int]
    team: int
    in_play: _containers.RepeatedCompositeFieldContainer[CardCount]
    position: int
    ongoing: _containers.RepeatedScalarFieldContainer[BlackMarketCard]
    effects_used: _containers.RepeatedScalarFieldContainer[BoardEffect]
    def __init__(self, team: _Optional[int] = ..., in_play: _Optional[_Iterable[_Union[CardCount, _Mapping]]] = ..., position: _Optional[int] = ..., ongoing: _Optional[_Iterable[_Union[BlackMarketCard, str]]] = ..., effects_used: _Optional[_Iterable[_Union[BoardEffect, str]]] = ...) -> None: ...

class Landing(_message.Message):
    __slots__ = ("team", "space")
    TEAM_FIELD_NUMBER: _ClassVar[int]
    SPACE_FIELD_NUMBER: _ClassVar[int]
    team: int
    space: int
    def __init__(self, team: _Optional[int] = ..., space: _Optional[int] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("kind", "team", "seat", "agent", "black_market", "amount", "space", "side", "reason")
    KIND_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AGENT_FIELD_NUMBER: _ClassVar[int]
    BLACK_MARKET_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    SPACE_FIELD_NUMBER: _ClassVar[int]
    SIDE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    kind: EventKind
    team: int
    seat: int
    agent: Agent
    black_market: BlackMarketCard
    amount: int
    space: int
    side: Side
    reason: EndReason
    def __init__(self, kind: _Optional[_Union[EventKind, str]] = ..., team: _Optional[int] = ..., seat: _Optional[int] = ..., agent: _Optional[_Union[Agent, str]] = ..., black_market: _Optional[_Union[BlackMarketCard, str]] = ..., amount: _Optional[int] = ..., space: _Optional[int] = ..., side: _Optional[_Union[Side, str]] = ..., reason: _Optional[_Union[EndReason, str]] = ...) -> None: ...

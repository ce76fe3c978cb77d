"""Decisions a seat is asked to make (rules section 6) and the actions that answer them.

Actions are small frozen values. The engine hands out interned instances from
``legal_actions``; an action built elsewhere (a replay, a bot over the wire) compares equal
to the interned one, so either may be applied.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final

from referee.cards import Agent, BlackMarket, FastEnum


class Decision(FastEnum):
    DISCARD = "discard"
    PLAY = "play"
    NAME_FACE_UP = "name_face_up"
    PLAY_FACE_UP = "play_face_up"
    PLAY_FACE_DOWN = "play_face_down"
    RECRUIT = "recruit"
    BLACK_MARKET = "black_market"
    SECRET_RECRUIT = "secret_recruit"
    DOUBLE_TROUBLE = "double_trouble"
    SPYCATION = "spycation"
    MIND_CONTROL = "mind_control"
    RECALL = "recall"


class Side(FastEnum):
    FACE_UP = "face_up"
    FACE_DOWN = "face_down"


class IllegalAction(ValueError):
    """An action that is not legal in the state it was applied to."""


class Action:
    """Base of every action; ``kind`` names it in JSON."""

    __slots__ = ()
    kind: ClassVar[str]

    def to_json(self) -> dict[str, object]:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class StopDiscarding(Action):
    kind: ClassVar[str] = "stop_discarding"

    def to_json(self) -> dict[str, object]:
        return {"type": self.kind}

    def describe(self) -> str:
        return "stop discarding"


@dataclass(frozen=True, slots=True)
class Discard(Action):
    card: Agent
    kind: ClassVar[str] = "discard"

    def to_json(self) -> dict[str, object]:
        return {"type": self.kind, "card": self.card.name}

    def describe(self) -> str:
        return f"discard {self.card.name}"


@dataclass(frozen=True, slots=True)
class Play(Action):
    up: Agent
    down: Agent
    kind: ClassVar[str] = "play"

    def to_json(self) -> dict[str, object]:
        return {"type": self.kind, "up": self.up.name, "down": self.down.name}

    def describe(self) -> str:
        return f"play {self.up.name} face up, {self.down.name} face down"


@dataclass(frozen=True, slots=True)
class NameFaceUp(Action):
    seat: int
    kind: ClassVar[str] = "name_face_up"

    def to_json(self) -> dict[str, object]:
        return {"type": self.kind, "seat": self.seat}

    def describe(self) -> str:
        return f"seat {self.seat} plays face up"


@dataclass(frozen=True, slots=True)
class PlayFaceUp(Action):
    card: Agent
    kind: ClassVar[str] = "play_face_up"

    def to_json(self) -> dict[str, object]:
        return {"type": self.kind, "card": self.card.name}

    def describe(self) -> str:
        return f"play {self.card.name} face up"


@dataclass(frozen=True, slots=True)
class PlayFaceDown(Action):
    card: Agent
    kind: ClassVar[str] = "play_face_down"

    def to_json(self) -> dict[str, object]:
        return {"type": self.kind, "card": self.card.name}

    def describe(self) -> str:
        return f"play {self.card.name} face down"


@dataclass(frozen=True, slots=True)
class Recruit(Action):
    side: Side
    kind: ClassVar[str] = "recruit"

    def to_json(self) -> dict[str, object]:
        return {"type": self.kind, "side": self.side.value}

    def describe(self) -> str:
        return f"recruit the {self.side.value.replace('_', '-')} card"


@dataclass(frozen=True, slots=True)
class TakeBlackMarket(Action):
    card: BlackMarket
    taker: int
    kind: ClassVar[str] = "take_black_market"

    def to_json(self) -> dict[str, object]:
        return {"type": self.kind, "card": self.card.name, "taker": self.taker}

    def describe(self) -> str:
        return f"seat {self.taker} takes {self.card.name}"


@dataclass(frozen=True, slots=True)
class ChooseAgent(Action):
    """Secret Recruit, Double Trouble and Mind Control: which agent id."""

    card: Agent
    kind: ClassVar[str] = "choose_agent"

    def to_json(self) -> dict[str, object]:
        return {"type": self.kind, "card": self.card.name}

    def describe(self) -> str:
        return f"choose {self.card.name}"


@dataclass(frozen=True, slots=True)
class Retrieve(Action):
    """Spycation and recall spaces: which agent back to hand, and recruit it at once?"""

    card: Agent
    recruit: bool
    kind: ClassVar[str] = "retrieve"

    def to_json(self) -> dict[str, object]:
        return {"type": self.kind, "card": self.card.name, "recruit": self.recruit}

    def describe(self) -> str:
        then = " and recruit it at once" if self.recruit else ""
        return f"take {self.card.name} back to hand{then}"


ACTION_TYPES: Final[dict[str, type[Action]]] = {
    cls.kind: cls
    for cls in (
        StopDiscarding,
        Discard,
        Play,
        NameFaceUp,
        PlayFaceUp,
        PlayFaceDown,
        Recruit,
        TakeBlackMarket,
        ChooseAgent,
        Retrieve,
    )
}

_FIELD_PARSERS: Final = {
    "card": None,  # Agent or BlackMarket, chosen by action type below
    "up": Agent.__getitem__,
    "down": Agent.__getitem__,
    "seat": int,
    "taker": int,
    "side": Side,
    "recruit": bool,
}


def action_from_json(data: object) -> Action:
    """Parse ``{"type": ..., field: value}``; raises ``IllegalAction`` with the reason."""
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise IllegalAction(f"an action is an object with a 'type', not {data!r}")
    cls = ACTION_TYPES.get(data["type"])
    if cls is None:
        raise IllegalAction(f"unknown action type {data['type']!r}; known: {sorted(ACTION_TYPES)}")
    kwargs: dict[str, object] = {}
    for name in cls.__dataclass_fields__:  # type: ignore[attr-defined]
        if name == "kind":
            continue
        if name not in data:
            raise IllegalAction(f"action {cls.kind!r} needs the field {name!r}")
        raw = data[name]
        try:
            if name == "card":
                enum_cls = BlackMarket if cls is TakeBlackMarket else Agent
                kwargs[name] = enum_cls[str(raw)]
            elif name == "recruit":
                if not isinstance(raw, bool):
                    raise TypeError("expected true or false")
                kwargs[name] = raw
            elif name in ("seat", "taker"):
                if isinstance(raw, bool) or not isinstance(raw, int):
                    raise TypeError("expected a seat number")
                kwargs[name] = raw
            else:
                parser = _FIELD_PARSERS[name]
                assert parser is not None
                kwargs[name] = parser(raw)
        except (KeyError, ValueError, TypeError) as exc:
            raise IllegalAction(f"action {cls.kind!r}: bad {name} {raw!r} ({exc})") from None
    return cls(**kwargs)

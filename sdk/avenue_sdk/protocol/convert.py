"""Referee values <-> protocol messages: the one place they are translated, for the arena
server and the SDK's local arena alike (the server imports this module from the SDK).

Enum tables are built by name (``Agent.ENFORCER`` <-> ``AGENT_ENFORCER``) and checked to be
complete at import, so a card or decision added to the referee without its protocol
counterpart fails loudly here instead of turning into UNSPECIFIED on the wire.

Outgoing messages are returned serialized (``bytes`` of an ``ArenaMessage``): the relay
carries them as they are and the gateway writes them to the stream without parsing them.

Why one file of this length: the referee <-> protobuf mapping is one table of
message kinds, each way, and is read (and checked) as one.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import TypeVar

from agent_avenue.v1 import arena_pb2 as pb
from avenue_sdk.protocol.faults import FaultCause
from referee import (
    Action,
    Agent,
    BlackMarket,
    ChooseAgent,
    Decision,
    Discard,
    EndReason,
    EventKind,
    GameConfig,
    Mode,
    NameFaceUp,
    Play,
    PlayFaceDown,
    PlayFaceUp,
    Recruit,
    Retrieve,
    Side,
    StopDiscarding,
    TakeBlackMarket,
)
from referee.engine import GameResult
from referee.observation import Observation, SeatInfo
from referee.state import Event

#: the protocol version this server speaks, and the range it accepts from bots
PROTOCOL_VERSION = 1
SUPPORTED_VERSIONS = range(1, 2)

E = TypeVar("E", bound=enum.Enum)


class AnswerError(ValueError):
    """A bot's Action that cannot be applied; ``cause`` says whose fault type it is."""

    def __init__(self, cause: FaultCause, message: str) -> None:
        super().__init__(message)
        self.cause = cause


def _table(members: Iterable[E], pb_enum: object, prefix: str, key: str) -> dict[E, int]:
    """referee member -> protocol number, by ``name`` or upper-cased ``value``."""
    out: dict[E, int] = {}
    for m in members:
        label = m.name if key == "name" else str(m.value).upper()
        out[m] = pb_enum.Value(f"{prefix}_{label}")  # type: ignore[attr-defined]
    known = set(pb_enum.values()) - {0}  # type: ignore[attr-defined]
    if set(out.values()) != known:
        raise RuntimeError(f"{prefix}: the protocol and the referee disagree on the members")
    return out


def _inverse(table: Mapping[E, int]) -> dict[int, E]:
    return {v: k for k, v in table.items()}


AGENT = _table(Agent, pb.Agent, "AGENT", "name")
AGENT_FROM = _inverse(AGENT)
BLACK_MARKET = _table(BlackMarket, pb.BlackMarketCard, "BLACK_MARKET_CARD", "name")
BLACK_MARKET_FROM = _inverse(BLACK_MARKET)
DECISION = _table(Decision, pb.DecisionKind, "DECISION_KIND", "value")
DECISION_FROM = _inverse(DECISION)
SIDE = _table(Side, pb.Side, "SIDE", "value")
SIDE_FROM = _inverse(SIDE)
MODE = _table(Mode, pb.Mode, "MODE", "value")
END_REASON = _table(EndReason, pb.EndReason, "END_REASON", "value")
EVENT_KIND = _table(EventKind, pb.EventKind, "EVENT_KIND", "value")
FAULT_CAUSE = _table(FaultCause, pb.FaultCause, "FAULT_CAUSE", "value")
FAULT_CAUSE_FROM = _inverse(FAULT_CAUSE)
#: summary-board effects are named by strings in the referee's state
BOARD_EFFECT = {"home_bonus": pb.BOARD_EFFECT_HOME_BONUS, "recall": pb.BOARD_EFFECT_RECALL}


# --- choices ---------------------------------------------------------------------------------


def choice(action: Action) -> pb.Choice:
    """The protocol form of one legal action."""
    match action:
        case StopDiscarding():
            return pb.Choice(stop_discarding=pb.Choice.StopDiscarding())
        case Discard(card=card):
            return pb.Choice(discard=pb.Choice.Discard(card=AGENT[card]))
        case Play(up=up, down=down):
            return pb.Choice(play=pb.Choice.Play(face_up=AGENT[up], face_down=AGENT[down]))
        case NameFaceUp(seat=seat):
            return pb.Choice(name_face_up=pb.Choice.NameFaceUp(seat=seat))
        case PlayFaceUp(card=card):
            return pb.Choice(play_face_up=pb.Choice.PlayFaceUp(card=AGENT[card]))
        case PlayFaceDown(card=card):
            return pb.Choice(play_face_down=pb.Choice.PlayFaceDown(card=AGENT[card]))
        case Recruit(side=side):
            return pb.Choice(recruit=pb.Choice.Recruit(side=SIDE[side]))
        case TakeBlackMarket(card=card, taker=taker):
            return pb.Choice(
                take_black_market=pb.Choice.TakeBlackMarket(card=BLACK_MARKET[card], taker=taker)
            )
        case ChooseAgent(card=card):
            return pb.Choice(choose_agent=pb.Choice.ChooseAgent(card=AGENT[card]))
        case Retrieve(card=card, recruit=recruit):
            return pb.Choice(retrieve=pb.Choice.Retrieve(card=AGENT[card], recruit=recruit))
    raise TypeError(f"no protocol form for {action!r}")


def _agent(number: int) -> Agent:
    try:
        return AGENT_FROM[number]
    except KeyError:
        raise ValueError(f"{number} is not an agent card") from None


def action_of(msg: pb.Choice) -> Action:
    """The referee action a Choice names; ``ValueError`` when it names none."""
    kind = msg.WhichOneof("kind")
    if kind == "stop_discarding":
        return StopDiscarding()
    if kind == "discard":
        return Discard(_agent(msg.discard.card))
    if kind == "play":
        return Play(_agent(msg.play.face_up), _agent(msg.play.face_down))
    if kind == "name_face_up":
        return NameFaceUp(msg.name_face_up.seat)
    if kind == "play_face_up":
        return PlayFaceUp(_agent(msg.play_face_up.card))
    if kind == "play_face_down":
        return PlayFaceDown(_agent(msg.play_face_down.card))
    if kind == "recruit":
        if msg.recruit.side not in SIDE_FROM:
            raise ValueError(f"{msg.recruit.side} is not a side")
        return Recruit(SIDE_FROM[msg.recruit.side])
    if kind == "take_black_market":
        card = BLACK_MARKET_FROM.get(msg.take_black_market.card)
        if card is None:
            raise ValueError(f"{msg.take_black_market.card} is not a Black Market card")
        return TakeBlackMarket(card, msg.take_black_market.taker)
    if kind == "choose_agent":
        return ChooseAgent(_agent(msg.choose_agent.card))
    if kind == "retrieve":
        return Retrieve(_agent(msg.retrieve.card), msg.retrieve.recruit)
    raise ValueError("the choice names no action")


def read_answer(msg: pb.Action, legal: Sequence[Action]) -> Action:
    """The legal action a bot's answer picks, or ``AnswerError`` saying whose fault."""
    named: Action | None = None
    if msg.HasField("choice"):
        try:
            named = action_of(msg.choice)
        except ValueError as exc:
            raise AnswerError(FaultCause.MALFORMED_ACTION, f"unreadable choice: {exc}") from None
    if msg.HasField("choice_index"):
        index = msg.choice_index
        if index >= len(legal):
            raise AnswerError(
                FaultCause.ILLEGAL_ACTION,
                f"choice_index {index} is out of range: there are {len(legal)} legal choices",
            )
        picked = legal[index]
        if named is not None and named != picked:
            raise AnswerError(
                FaultCause.MALFORMED_ACTION,
                f"choice_index {index} is {picked.describe()!r} but the choice says "
                f"{named.describe()!r}",
            )
        return picked
    if named is None:
        raise AnswerError(FaultCause.MALFORMED_ACTION, "the action has no choice_index or choice")
    for candidate in legal:
        if candidate == named:
            return candidate
    raise AnswerError(FaultCause.ILLEGAL_ACTION, f"{named.describe()!r} is not legal now")


# --- observations ----------------------------------------------------------------------------


def match_config(config: GameConfig, first_team: int) -> pb.MatchConfig:
    return pb.MatchConfig(
        mode=MODE[config.mode],
        ruleset=config.ruleset,
        ruleset_version=config.rules.version,
        teams=[pb.TeamSeats(seats=team) for team in config.teams],
        first_team=first_team,
    )


@functools.lru_cache(maxsize=256)
def _config_bytes(config: GameConfig, first_team: int) -> bytes:
    """A match's configuration, serialized once: every request of the match carries it."""
    return match_config(config, first_team).SerializeToString()


#: protocol number of each agent, indexed like the referee's count vectors
_AGENT_NUMBERS = tuple(AGENT[a] for a in Agent)


def _counts(counts: Sequence[int]) -> list[pb.CardCount]:
    return [pb.CardCount(agent=_AGENT_NUMBERS[a], count=n) for a, n in enumerate(counts) if n]


def event(e: Event) -> pb.Event:
    msg = pb.Event(kind=EVENT_KIND[e.kind], amount=e.amount)
    if e.team >= 0:
        msg.team = e.team
    if e.seat >= 0:
        msg.seat = e.seat
    if e.agent is not None:
        msg.agent = AGENT[e.agent]
    if e.bm is not None:
        msg.black_market = BLACK_MARKET[e.bm]
    if e.space >= 0:
        msg.space = e.space
    if e.side is not None:
        msg.side = SIDE[e.side]
    if e.reason is not None:
        msg.reason = END_REASON[e.reason]
    return msg


def fill_observation(
    msg: pb.Observation, obs: Observation, first_team: int, history_start: int = 0
) -> None:
    """Write a seat's observation into ``msg``, with the events from ``history_start`` on."""
    if obs.seat is None or obs.team is None or obs.hand is None or obs.discards is None:
        raise ValueError("bots are only ever sent a seat's observation, not a spectator's")
    if obs.decision is None:
        raise ValueError("a finished game asks no decision")
    msg.config.MergeFromString(_config_bytes(obs.config, first_team))
    msg.seat = obs.seat
    msg.team = obs.team
    msg.turn = obs.turn
    msg.active_team = obs.active
    msg.decision = DECISION[obs.decision]
    msg.actor = obs.actor
    msg.captains.extend(obs.captains)
    msg.face_up_seat = obs.face_up_seat
    if obs.my_face_down is not None:
        msg.my_face_down = AGENT[obs.my_face_down]
    msg.gap = obs.gap
    msg.deck_size = obs.deck_size
    if obs.offer_up is not None:
        msg.offer_up = AGENT[obs.offer_up]
    msg.face_down_offered = obs.face_down_offered
    msg.market.extend(BLACK_MARKET[c] for c in obs.market)
    msg.bm_deck_size = obs.bm_deck_size
    msg.bm_discard.extend(BLACK_MARKET[c] for c in obs.bm_discard)
    for task in obs.pending_landings:
        msg.pending_landings.add(team=task.team, space=task.space)
    msg.history_start = history_start
    # the repeated fields, each entry serialized once (the same few recur across requests)
    parts = [_hand_entries(obs.hand), _discard_entries(obs.discards)]
    parts += [_seat_entry(s) for s in obs.seats]
    parts += [
        _team_entry(t, obs.positions[t], obs.in_play[t], obs.ongoing[t], obs.effects_used[t])
        for t in (0, 1)
    ]
    parts += map(_history_entry, obs.history[history_start:])
    msg.MergeFromString(b"".join(parts))


@functools.lru_cache(maxsize=4096)
def _hand_entries(counts: tuple[int, ...]) -> bytes:
    return pb.Observation(hand=_counts(counts)).SerializeToString()


@functools.lru_cache(maxsize=4096)
def _discard_entries(counts: tuple[int, ...]) -> bytes:
    return pb.Observation(discards=_counts(counts)).SerializeToString()


@functools.lru_cache(maxsize=4096)
def _seat_entry(s: SeatInfo) -> bytes:
    seat = pb.SeatInfo(
        seat=s.seat,
        team=s.team,
        hand_size=s.hand_size,
        discards_used=s.discards_used,
        discards_left=s.discards_left,
    )
    return pb.Observation(seats=[seat]).SerializeToString()


@functools.lru_cache(maxsize=4096)
def _team_entry(
    team: int,
    position: int,
    in_play: tuple[int, ...],
    ongoing: frozenset[BlackMarket],
    effects_used: frozenset[str],
) -> bytes:
    t = pb.TeamInfo(team=team, position=position, in_play=_counts(in_play))
    if ongoing:
        t.ongoing.extend(sorted(BLACK_MARKET[c] for c in ongoing))
    if effects_used:
        t.effects_used.extend(sorted(BOARD_EFFECT[name] for name in effects_used))
    return pb.Observation(teams=[t]).SerializeToString()


# A request's events and legal choices are merged in as serialized repeated-field entries,
# each made once (actions are interned, events recur across requests): one parse of a few
# hundred bytes instead of a message built and copied per entry. The message (and so its
# serialization) is the same.


@functools.lru_cache(maxsize=4096)
def _history_entry(e: Event) -> bytes:
    """``e`` as an entry of ``Observation.history``, serialized."""
    return pb.Observation(history=[event(e)]).SerializeToString()


@functools.lru_cache(maxsize=4096)
def _legal_entry(action: Action) -> bytes:
    """``action`` as an entry of ``DecisionRequest.legal``, serialized."""
    return pb.DecisionRequest(legal=[choice(action)]).SerializeToString()


# --- messages the runner sends ---------------------------------------------------------------


def decision_request(
    *,
    match_id: str,
    seq: int,
    obs: Observation,
    first_team: int,
    legal: Sequence[Action],
    history_start: int,
    decision_ms: int,
    bank_ms: int,
    previous_latency_ms: float | None,
    resent: bool = False,
) -> bytes:
    msg = pb.ArenaMessage()
    req = msg.decision_request
    assert obs.decision is not None and obs.seat is not None
    req.match_id = match_id
    req.seq = seq
    req.kind = DECISION[obs.decision]
    req.seat = obs.seat
    fill_observation(req.observation, obs, first_team, history_start)
    req.MergeFromString(b"".join(map(_legal_entry, legal)))
    req.decision_ms = decision_ms
    req.bank_ms = bank_ms
    req.previous_latency_ms = previous_latency_ms or 0.0
    req.resent = resent
    return msg.SerializeToString()


def match_started(
    *,
    match_id: str,
    seat: int,
    config: GameConfig,
    first_team: int,
    names: Sequence[str],
    decision_ms: int,
    bank_ms: int,
    resumed: bool = False,
    reconnect_grace_ms: int = 0,
) -> bytes:
    return pb.ArenaMessage(
        match_started=pb.MatchStarted(
            match_id=match_id,
            seat=seat,
            team=config.team_of(seat),
            config=match_config(config, first_team),
            players=[
                pb.Player(seat=s, team=config.team_of(s), name=name) for s, name in enumerate(names)
            ],
            time_control=pb.TimeControl(decision_ms=decision_ms, bank_ms=bank_ms),
            resumed=resumed,
            reconnect_grace_ms=reconnect_grace_ms,
        )
    ).SerializeToString()


def match_ended(
    *,
    match_id: str,
    seat: int,
    team: int,
    result: GameResult | None,
    fault_cause: str | None,
    fault_seat: int | None,
    replay_id: str,
    message: str,
) -> bytes:
    msg = pb.MatchEnded(match_id=match_id, seat=seat, replay_id=replay_id, message=message)
    if result is None:
        msg.outcome = pb.MATCH_OUTCOME_ABORTED
    else:
        msg.outcome = pb.MATCH_OUTCOME_WIN if result.winner == team else pb.MATCH_OUTCOME_LOSS
        msg.winner_team = result.winner
        msg.reason = END_REASON[result.reason]
        msg.turns = result.turns
    if fault_cause is not None:
        # a cause's value: the server passes its own (database) enum of the same values
        msg.fault = FAULT_CAUSE[FaultCause(getattr(fault_cause, "value", fault_cause))]
    if fault_seat is not None:
        msg.fault_seat = fault_seat
    return pb.ArenaMessage(match_ended=msg).SerializeToString()

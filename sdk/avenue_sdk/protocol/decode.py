"""Protocol messages -> referee values: what a bot can rebuild from a ``DecisionRequest``.

The inverse of ``convert.fill_observation``: ``observation_of(request.observation)`` is the
referee's ``Observation`` of the asking seat (its history included), so that the referee's
house bots and the forward model (``avenue_sdk.sim``) can work from what the bot was sent
and nothing else. ``legal_of(request)`` are the legal choices as referee actions, in the
request's order (index ``i`` of one is index ``i`` of the other).
"""

from __future__ import annotations

from collections.abc import Iterable

from agent_avenue.v1 import arena_pb2 as pb
from avenue_sdk.protocol import convert
from referee import Action, Agent, BlackMarket, Event, GameConfig, Mode
from referee.cards import N_AGENTS, Counts
from referee.config import ConfigError
from referee.observation import Observation, SeatInfo
from referee.state import Task

_MODE_FROM = {n: m for m, n in convert.MODE.items()}
_END_REASON_FROM = {n: r for r, n in convert.END_REASON.items()}
_EVENT_KIND_FROM = {n: k for k, n in convert.EVENT_KIND.items()}
_BOARD_EFFECT_FROM = {n: name for name, n in convert.BOARD_EFFECT.items()}


def config_of(msg: pb.MatchConfig) -> GameConfig:
    """The referee configuration a match announces; ``ConfigError`` for one it cannot play
    (a mode or ruleset this engine does not know)."""
    mode = _MODE_FROM.get(msg.mode)
    if mode is None:
        raise ConfigError(f"mode {msg.mode} is not one this engine knows")
    teams = tuple(tuple(int(s) for s in team.seats) for team in msg.teams)
    if len(teams) != 2:
        raise ConfigError("a match has exactly two teams")
    return GameConfig(Mode(mode), (teams[0], teams[1]), int(msg.first_team), msg.ruleset)


def _counts(items: Iterable[pb.CardCount]) -> Counts:
    out = [0] * N_AGENTS
    for item in items:
        out[convert.AGENT_FROM[item.agent]] += item.count
    return tuple(out)


def _agent(number: int) -> Agent | None:
    return convert.AGENT_FROM.get(number)


def _bm(numbers: Iterable[int]) -> tuple[BlackMarket, ...]:
    return tuple(convert.BLACK_MARKET_FROM[n] for n in numbers)


def event_of(msg: pb.Event) -> Event:
    return Event(
        _EVENT_KIND_FROM[msg.kind],
        team=msg.team if msg.HasField("team") else -1,
        seat=msg.seat if msg.HasField("seat") else -1,
        agent=_agent(msg.agent),
        bm=convert.BLACK_MARKET_FROM.get(msg.black_market),
        amount=msg.amount,
        space=msg.space if msg.HasField("space") else -1,
        side=convert.SIDE_FROM.get(msg.side),
        reason=_END_REASON_FROM.get(msg.reason),
    )


def observation_of(msg: pb.Observation, *, history: bool = True) -> Observation:
    """The asking seat's referee ``Observation`` (``history=False`` skips the events, which
    neither determinization nor the house bots read)."""
    teams = sorted(msg.teams, key=lambda t: t.team)
    if len(teams) != 2:
        raise ValueError("an observation describes exactly two teams")
    in_play = (_counts(teams[0].in_play), _counts(teams[1].in_play))
    ongoing = (frozenset(_bm(teams[0].ongoing)), frozenset(_bm(teams[1].ongoing)))
    effects = tuple(frozenset(_BOARD_EFFECT_FROM[n] for n in team.effects_used) for team in teams)
    captains = tuple(msg.captains)
    return Observation(
        config=config_of(msg.config),
        seat=msg.seat,
        team=msg.team,
        turn=msg.turn,
        active=msg.active_team,
        decision=convert.DECISION_FROM[msg.decision],
        actor=msg.actor,
        captains=(captains[0], captains[1]),
        face_up_seat=msg.face_up_seat,
        hand=_counts(msg.hand),
        discards=_counts(msg.discards),
        my_face_down=_agent(msg.my_face_down),
        seats=tuple(
            SeatInfo(s.seat, s.team, s.hand_size, s.discards_used, s.discards_left)
            for s in msg.seats
        ),
        in_play=in_play,
        positions=(teams[0].position, teams[1].position),
        gap=msg.gap,
        deck_size=msg.deck_size,
        offer_up=_agent(msg.offer_up),
        face_down_offered=msg.face_down_offered,
        market=_bm(msg.market),
        bm_deck_size=msg.bm_deck_size,
        bm_discard=_bm(msg.bm_discard),
        ongoing=ongoing,
        pending_landings=tuple(Task(t.team, t.space) for t in msg.pending_landings),
        effects_used=(effects[0], effects[1]),
        history=tuple(event_of(e) for e in msg.history) if history else (),
        outcome=None,
    )


def legal_of(request: pb.DecisionRequest) -> tuple[Action, ...]:
    """The request's legal choices as referee actions, in the same order."""
    return tuple(convert.action_of(c) for c in request.legal)


__all__ = ["config_of", "event_of", "legal_of", "observation_of"]

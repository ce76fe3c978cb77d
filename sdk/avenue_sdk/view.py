"""Small helpers to read protocol messages (no dependency beyond the generated code).

hand(request.observation)            -> {"ENFORCER": 2, "MOLE": 1}
describe(request.legal[i])           -> "play ENFORCER face up, MOLE face down"
observation_dict(request.observation) -> the referee's JSON shape of an observation
"""

from __future__ import annotations

from collections.abc import Iterable

from agent_avenue.v1 import arena_pb2 as pb


def _name(enum: object, number: int, prefix: str) -> str:
    return str(enum.Name(number))[len(prefix) :]  # type: ignore[attr-defined]


def agent_name(number: int) -> str:
    """``pb.AGENT_ENFORCER`` -> ``"ENFORCER"``."""
    return _name(pb.Agent, number, "AGENT_")


def black_market_name(number: int) -> str:
    return _name(pb.BlackMarketCard, number, "BLACK_MARKET_CARD_")


def decision_name(number: int) -> str:
    """``pb.DECISION_KIND_PLAY`` -> ``"play"``."""
    return _name(pb.DecisionKind, number, "DECISION_KIND_").lower()


def counts(entries: Iterable[pb.CardCount]) -> dict[str, int]:
    return {agent_name(c.agent): c.count for c in entries if c.count}


def hand(obs: pb.Observation) -> dict[str, int]:
    return counts(obs.hand)


def hand_cards(obs: pb.Observation) -> list[str]:
    """The hand as a list of card names, one entry per card, in card order."""
    return [agent_name(c.agent) for c in obs.hand for _ in range(c.count)]


def describe(choice: pb.Choice) -> str:
    """A choice in words, as the referee describes its actions."""
    kind = choice.WhichOneof("kind")
    if kind == "stop_discarding":
        return "stop discarding"
    if kind == "discard":
        return f"discard {agent_name(choice.discard.card)}"
    if kind == "play":
        up, down = agent_name(choice.play.face_up), agent_name(choice.play.face_down)
        return f"play {up} face up, {down} face down"
    if kind == "name_face_up":
        return f"seat {choice.name_face_up.seat} plays face up"
    if kind == "play_face_up":
        return f"play {agent_name(choice.play_face_up.card)} face up"
    if kind == "play_face_down":
        return f"play {agent_name(choice.play_face_down.card)} face down"
    if kind == "recruit":
        side = _name(pb.Side, choice.recruit.side, "SIDE_").lower().replace("_", "-")
        return f"recruit the {side} card"
    if kind == "take_black_market":
        t = choice.take_black_market
        return f"seat {t.taker} takes {black_market_name(t.card)}"
    if kind == "choose_agent":
        return f"choose {agent_name(choice.choose_agent.card)}"
    if kind == "retrieve":
        then = " and recruit it at once" if choice.retrieve.recruit else ""
        return f"take {agent_name(choice.retrieve.card)} back to hand{then}"
    return "nothing"


def event_dict(e: pb.Event) -> dict[str, object]:
    out: dict[str, object] = {"kind": _name(pb.EventKind, e.kind, "EVENT_KIND_").lower()}
    if e.HasField("team"):
        out["team"] = e.team
    if e.HasField("seat"):
        out["seat"] = e.seat
    if e.agent:
        out["agent"] = agent_name(e.agent)
    if e.black_market:
        out["black_market"] = black_market_name(e.black_market)
    if e.kind in (pb.EVENT_KIND_MOVED, pb.EVENT_KIND_DREW, pb.EVENT_KIND_RECRUITED):
        out["amount"] = e.amount
    if e.HasField("space"):
        out["space"] = e.space
    if e.side:
        out["side"] = _name(pb.Side, e.side, "SIDE_").lower()
    if e.reason:
        out["reason"] = _name(pb.EndReason, e.reason, "END_REASON_").lower()
    return out


def observation_dict(obs: pb.Observation) -> dict[str, object]:
    """The observation in the shape of the referee's ``Observation.to_json()`` (the
    history as far as this message holds it: the SDK hands bots the whole of it)."""
    return {
        "seat": obs.seat,
        "team": obs.team,
        "turn": obs.turn,
        "active_team": obs.active_team,
        "decision": decision_name(obs.decision) if obs.decision else None,
        "actor": obs.actor,
        "captains": list(obs.captains),
        "face_up_seat": obs.face_up_seat,
        "hand": counts(obs.hand),
        "discards": counts(obs.discards),
        "my_face_down": agent_name(obs.my_face_down) if obs.my_face_down else None,
        "seats": [
            {
                "seat": s.seat,
                "team": s.team,
                "hand_size": s.hand_size,
                "discards_used": s.discards_used,
                "discards_left": s.discards_left,
            }
            for s in obs.seats
        ],
        "in_play": [counts(t.in_play) for t in obs.teams],
        "positions": [t.position for t in obs.teams],
        "gap": obs.gap,
        "deck_size": obs.deck_size,
        "offer_up": agent_name(obs.offer_up) if obs.offer_up else None,
        "face_down_offered": obs.face_down_offered,
        "market": [black_market_name(c) for c in obs.market],
        "bm_deck_size": obs.bm_deck_size,
        "bm_discard": [black_market_name(c) for c in obs.bm_discard],
        "ongoing": [sorted(black_market_name(c) for c in t.ongoing) for t in obs.teams],
        "pending_landings": [{"team": p.team, "space": p.space} for p in obs.pending_landings],
        "history": [event_dict(e) for e in obs.history],
        "outcome": None,
    }

"""Plain-English lines for events, shared by the command line and the replay viewer."""

from __future__ import annotations

from referee.cards import title
from referee.state import Event, EventKind

TEAM_NAMES = ("A", "B")


def describe(event: Event) -> str:
    k = event.kind
    team = TEAM_NAMES[event.team] if event.team >= 0 else "?"
    agent = title(event.agent) if event.agent is not None else ""
    bm = title(event.bm) if event.bm is not None else ""
    seat = f"seat {event.seat}"
    if k is EventKind.TURN_STARTED:
        return f"— team {team}'s turn —"
    if k is EventKind.DISCARDED:
        return f"{seat} discards a card face down"
    if k is EventKind.NAMED_FACE_UP:
        return f"team {team}'s captain names {seat} to play face up"
    if k is EventKind.PLAYED_FACE_UP:
        return f"{seat} plays {agent} face up"
    if k is EventKind.PLAYED_FACE_DOWN:
        return f"{seat} plays a card face down"
    if k is EventKind.DREW:
        return f"{seat} draws {event.amount}"
    if k is EventKind.CHOSE:
        side = event.side.value.replace("_", "-") if event.side else "?"
        return f"team {team} recruits the {side} card; the face-down card was {agent}"
    if k is EventKind.RECRUITED:
        return f"team {team} recruits {agent} (copy {event.amount} in play)"
    if k is EventKind.MOVED:
        return f"team {team} moves {event.amount:+d} to space {event.space}"
    if k is EventKind.MARKET_TAKEN:
        return f"team {team} ({seat}) takes {bm} from the Black Market"
    if k is EventKind.MARKET_REVEALED:
        return f"{bm} is revealed in the Black Market"
    if k is EventKind.EFFECT_IGNORED:
        return f"{bm} cannot be carried out for team {team}"
    if k is EventKind.RETRIEVED:
        return f"team {team} ({seat}) takes {agent} back from play into hand"
    if k is EventKind.STOLEN:
        return f"team {team} ({seat}) takes {agent} from the opponents' play area into hand"
    if k is EventKind.SHOWN_PAIR:
        return f"{seat} shows two {agent} cards"
    if k is EventKind.GAME_ENDED:
        reason = event.reason.value.replace("_", " ") if event.reason else "?"
        return f"team {team} wins ({reason})"
    return k.value

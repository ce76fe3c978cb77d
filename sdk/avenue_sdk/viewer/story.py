"""The viewer's words: event lines as one perspective knows them, a one-line summary of each
turn with the bots' names, and an end that says whose condition won.

The referee's events are public (``referee.narrate``); what a seat also knows (its own
face-down card, what it discarded and drew) is read from the states around the event, and
only for the seats the perspective may see. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.cards import START_GAP, Agent, Counts, cards_of, title
from referee.narrate import describe
from referee.state import EndReason, Event, EventKind, State

TEAMS = ("A", "B")


def _names(cards: Sequence[Agent]) -> str:
    return " and ".join(title(c) for c in cards)


def _minus(a: Counts, b: Counts) -> Counts:
    return tuple(x - y for x, y in zip(a, b, strict=True))


def private_lines(
    before: State, after: State, events: Sequence[Event], visible: set[int], names: list[str]
) -> list[str]:
    """``describe`` for each event, with what the seats in ``visible`` know added: their own
    discards, face-down plays and draws (read from the state change)."""
    out = []
    for e in events:
        text = describe(e)
        s = e.seat
        if s >= 0:
            text = text.replace(f"seat {s} ", f"seat {s} ({names[s]}) ", 1)
        if s in visible:
            who = names[s]
            if e.kind is EventKind.DISCARDED:
                gone = cards_of(_minus(after.discards[s], before.discards[s]))
                if gone:
                    text = f"seat {s} ({who}) discards {_names(gone)} face down"
            elif e.kind is EventKind.PLAYED_FACE_DOWN and after.offer_down is not None:
                text = f"seat {s} ({who}) plays {title(after.offer_down)} face down"
            elif e.kind is EventKind.DREW:
                drawn = _drawn(before, after, events, s)
                if drawn is not None and len(drawn) == e.amount:
                    text = f"seat {s} ({who}) draws {_names(drawn)}"
        out.append(text)
    return out


def _drawn(
    before: State, after: State, events: Sequence[Event], seat: int
) -> tuple[Agent, ...] | None:
    """The cards ``seat`` drew in one step: its hand's change with what left it added back
    (played, discarded) and what came back from play taken out."""
    delta = list(_minus(after.hands[seat], before.hands[seat]))
    discarded = _minus(after.discards[seat], before.discards[seat])
    delta = [d + x for d, x in zip(delta, discarded, strict=True)]
    for e in events:
        if e.seat != seat:
            continue
        if e.kind is EventKind.PLAYED_FACE_DOWN and after.offer_down is not None:
            delta[after.offer_down] += 1
        elif e.agent is None:
            continue
        elif e.kind is EventKind.PLAYED_FACE_UP:
            delta[e.agent] += 1
        elif e.kind in (EventKind.RETRIEVED, EventKind.STOLEN):
            delta[e.agent] -= 1
    if any(d < 0 for d in delta):
        return None
    return cards_of(tuple(delta))


def team_name(team: int, teams: Sequence[Sequence[int]], names: list[str]) -> str:
    return " & ".join(names[s] for s in teams[team])


class TurnSummary:
    """Collects one turn's events into a sentence, e.g. "search-100 offered a Daredevil face
    up and a hidden card; greedy took the hidden card: a Sentinel; greedy +2 to space 10"."""

    def __init__(self, teams: Sequence[Sequence[int]], names: list[str]) -> None:
        self.teams, self.names = teams, names
        self.parts: list[str] = []
        self.done = ""  # the last completed turn's summary
        self.offer_up: str | None = None
        self.up_card: Agent | None = None
        self.discards: dict[int, int] = {}

    def team(self, t: int) -> str:
        return team_name(t, self.teams, self.names)

    def add(self, e: Event) -> None:
        k, names = e.kind, self.names
        if k is EventKind.TURN_STARTED:
            self.done = self.text() or self.done
            self.parts, self.discards, self.offer_up, self.up_card = [], {}, None, None
        elif k is EventKind.PLAYED_FACE_UP and e.agent is not None:
            self.up_card = e.agent
            self.offer_up = f"{names[e.seat]} offered {_article(title(e.agent))} face up"
        elif k is EventKind.PLAYED_FACE_DOWN:
            up = self.offer_up or f"{names[e.seat]} offered"
            self.parts.append(f"{up} and a hidden card")
            self.offer_up = None
        elif k is EventKind.CHOSE and e.agent is not None and e.side is not None:
            # the event's agent is the face-down card, revealed whichever side was taken
            hidden = _article(title(e.agent))
            if e.side.value == "face_down" or self.up_card is None:
                self.parts.append(f"{self.team(e.team)} took the hidden card: {hidden}")
            else:
                self.parts.append(
                    f"{self.team(e.team)} took the face-up {title(self.up_card)}"
                    f" (the hidden card was {hidden})"
                )
        elif k is EventKind.MOVED and e.amount:
            self.parts.append(f"{self.team(e.team)} {e.amount:+d} to space {e.space}")
        elif k is EventKind.DISCARDED:
            self.discards[e.seat] = self.discards.get(e.seat, 0) + 1
        elif k is EventKind.MARKET_TAKEN and e.bm is not None:
            self.parts.append(f"{self.team(e.team)} took {title(e.bm)}")
        elif k is EventKind.STOLEN and e.agent is not None:
            self.parts.append(f"{self.team(e.team)} took the opponents' {title(e.agent)}")
        elif k is EventKind.RETRIEVED and e.agent is not None:
            self.parts.append(f"{self.team(e.team)} took {title(e.agent)} back")
        elif k is EventKind.GAME_ENDED:
            self.parts.append(f"{self.team(e.team)} wins")

    def text(self) -> str:
        discards = [
            f"{self.names[s]} discarded {n} card{'s' if n > 1 else ''}"
            for s, n in self.discards.items()
        ]
        return "; ".join([*discards, *self.parts, *([self.offer_up] if self.offer_up else [])])

    def now(self) -> str:
        """The current turn so far, or the turn that just ended when this one has no event
        yet (a recruit and the next turn's start come in the same step)."""
        return self.text() or self.done


def _article(word: str) -> str:
    return f"an {word}" if word[0] in "AEIOU" else f"a {word}"


_REASONS = {
    EndReason.CATCH: "{w} caught {l}'s meeple",
    EndReason.CODEBREAKERS: "{w} has its third Codebreaker in play",
    EndReason.DAREDEVILS: "{l} drew its third Daredevil",
    EndReason.LEADER_OF_THE_PACK: "{w} has three Daredevils in play with Leader of the Pack",
    EndReason.MASTERPLAN: "{w} has seven different agents in play (Masterplan)",
    EndReason.SECURITY_SYSTEM: "{l}'s meeple stands on {w}'s home space (Security System)",
    EndReason.HOME_SPACE: "{w} reached its home space",
}


def ending(state: State, names: list[str]) -> str | None:
    """Whose condition won, in words, and the tie-break when there was one."""
    out = state.outcome
    if out is None:
        return None
    teams = state.config.teams
    w, lo = out.winner, 1 - out.winner
    wn = f"team {TEAMS[w]} ({team_name(w, teams, names)})"
    ln = f"team {TEAMS[lo]} ({team_name(lo, teams, names)})"
    if out.reason is EndReason.FORFEIT:
        seat = out.forfeit_seat
        return f"seat {seat} ({names[seat]}) forfeited: {wn} wins"
    if out.reason is EndReason.OUT_OF_CARDS:
        text = (
            f"the deck ran out and the next player held fewer than 2 cards; "
            f"the team closer to catching wins (gap {state.gap}): {wn} wins"
        )
        if out.tiebreak or state.gap == START_GAP:
            text += f". Neither was closer (gap {START_GAP}), so the active team won the tie"
        return text
    text = f"{_REASONS.get(out.reason, out.reason.value).format(w=wn, l=ln)}: {wn} wins"
    if out.tiebreak:
        text += (
            f". Both teams met an end condition this turn; the active team, "
            f"team {TEAMS[state.active]}, wins the tie"
        )
    return text

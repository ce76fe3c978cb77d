"""Pictures of a table from one seat's view, for ``AvenueEnv.render`` and for debugging.

``ansi(obs)`` is a multi-line text (no escape codes): the board with both meeples, each
team's play area and ongoing Black Market cards, the seat's hand, the offer, the Black
Market and the last events. ``rgb(obs)`` is the same table as an ``HxWx3`` uint8 image drawn
with numpy (no lettering): see ``RGB_LEGEND``. Both take a ``referee.observation.Observation``
(what one seat may know), so a picture never shows another seat's hidden cards; an SDK bot
can draw its request too: ``ansi(avenue_sdk.protocol.decode.observation_of(request.observation))``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from referee.cards import AGENTS, BOARD_SIZE, CORNERS, HOMES, RECALL_SPACES, BlackMarket, title
from referee.config import Mode
from referee.narrate import TEAM_NAMES, describe
from referee.observation import Observation

_ROW = BOARD_SIZE // 2  # the loop drawn as two rows: 0..6 left to right, then 7..13 back


def _cells(space: int) -> tuple[int, int]:
    """(row, column) of a board space in the two-row drawing of the loop."""
    return (0, space) if space < _ROW else (1, BOARD_SIZE - 1 - space)


def _special(obs: Observation) -> dict[int, str]:
    marks: dict[int, str] = {}
    if obs.config.mode is Mode.ADVANCED:
        marks.update(dict.fromkeys(CORNERS, "$"))
    if obs.config.ruleset == "summary-board":
        marks.update(dict.fromkeys(RECALL_SPACES, "R"))
    return marks


def _counts(counts: Sequence[int] | None) -> str:
    if counts is None:
        return "?"
    pairs = zip(AGENTS, counts, strict=True)
    parts = [f"{title(a)} x{n}" if n > 1 else title(a) for a, n in pairs if n]
    return ", ".join(parts) or "-"


def _cards(cards: Iterable[BlackMarket]) -> str:
    return ", ".join(title(c) for c in sorted(cards)) or "-"


def _board(obs: Observation) -> list[str]:
    marks = _special(obs)
    rows: list[list[str]] = [[""] * _ROW, [""] * _ROW]
    for space in range(BOARD_SIZE):
        who = "".join(TEAM_NAMES[t] for t in (0, 1) if obs.positions[t] == space)
        home = "h" if space in HOMES else " "
        r, c = _cells(space)
        rows[r][c] = f"[{who:<2}{home}{marks.get(space, ' ')}]"
    top = (" " + "".join(f"{s:^6} " for s in range(_ROW))).rstrip()
    bottom = (" " + "".join(f"{BOARD_SIZE - 1 - c:^6} " for c in range(_ROW))).rstrip()
    return [top, " " + " ".join(rows[0]), " " + " ".join(rows[1]), bottom]


def ansi(obs: Observation, events: int = 8) -> str:
    """The table as text, from ``obs``'s seat (a spectator's view shows no hand)."""
    cfg = obs.config
    head = f"Agent Avenue - {cfg.mode.value}, {cfg.seats} seats, ruleset {cfg.ruleset}"
    if obs.outcome is not None:
        status = (
            f"game over: team {TEAM_NAMES[obs.outcome.winner]} wins ({obs.outcome.reason.value})"
        )
    else:
        decision = obs.decision.value if obs.decision else "-"
        status = (
            f"turn {obs.turn}, team {TEAM_NAMES[obs.active]}'s turn; "
            f"seat {obs.actor} (team {TEAM_NAMES[cfg.team_of(obs.actor)]}) decides: {decision}"
        )
    gap_a = obs.gap
    lines = [head, status, ""]
    lines.append(
        "board (clockwise 0..13; A, B = the teams' meeples; h = a home: A's 0, B's 7"
        + (", $ = Black Market space" if cfg.mode is Mode.ADVANCED else "")
        + (", R = recall space" if cfg.ruleset == "summary-board" else "")
        + ")"
    )
    lines += _board(obs)
    lines.append(
        f" meeple A on {obs.positions[0]}, B on {obs.positions[1]}: A needs {gap_a} spaces "
        f"to catch B, B needs {BOARD_SIZE - gap_a} to catch A"
    )
    lines.append("")
    for team in (0, 1):
        seats = ", ".join(str(s.seat) for s in obs.seats if s.team == team)
        lines.append(
            f"team {TEAM_NAMES[team]} (seats {seats}) in play: {_counts(obs.in_play[team])}"
            f"; ongoing: {_cards(obs.ongoing[team])}"
        )
    lines.append(
        "seats: "
        + " | ".join(
            f"{s.seat} ({TEAM_NAMES[s.team]}) {s.hand_size} in hand, "
            f"{s.discards_left} discards left"
            for s in obs.seats
        )
    )
    if obs.seat is not None:
        lines.append(
            f"seat {obs.seat}'s hand: {_counts(obs.hand)}; discarded: {_counts(obs.discards)}"
        )
    if obs.offer_up is not None or obs.face_down_offered:
        up = title(obs.offer_up) if obs.offer_up is not None else "-"
        down = "yes" if obs.face_down_offered else "no"
        if obs.my_face_down is not None:
            down = f"yes (yours: {title(obs.my_face_down)})"
        lines.append(f"offer: face up {up}; a face-down card: {down}")
    else:
        lines.append("offer: none")
    lines.append(f"agent deck: {obs.deck_size} cards")
    if cfg.mode is Mode.ADVANCED:
        lines.append(
            f"Black Market: {_cards(obs.market)} (deck {obs.bm_deck_size}; "
            f"discard: {_cards(obs.bm_discard)})"
        )
    if events > 0:
        lines.append("last events:")
        lines += [f"  {describe(e)}" for e in obs.history[-events:]] or ["  -"]
    return "\n".join(lines) + "\n"


# --- the image ----------------------------------------------------------------------------

#: colour of each agent (``referee.Agent`` order), of each team's meeple, of the board
AGENT_COLOURS = np.array(
    [
        (140, 140, 140),  # DOUBLE_AGENT
        (200, 60, 40),  # ENFORCER
        (60, 160, 70),  # CODEBREAKER
        (150, 90, 180),  # SABOTEUR
        (230, 150, 30),  # DAREDEVIL
        (40, 120, 200),  # SENTINEL
        (240, 220, 60),  # SIDEKICK
        (110, 70, 40),  # MOLE
    ],
    dtype=np.uint8,
)
TEAM_COLOURS = np.array([(30, 90, 230), (220, 40, 60)], dtype=np.uint8)
_BG, _SPACE, _CORNER, _RECALL = (24, 26, 32), (70, 74, 84), (160, 130, 40), (60, 120, 120)
_CELL, _GAP, _PAD = 40, 4, 8
WIDTH = _PAD * 2 + _ROW * (_CELL + _GAP) - _GAP
HEIGHT = 312

RGB_LEGEND = f"""rgb(obs) is {HEIGHT} x {WIDTH} x 3 (uint8), top to bottom:
- a strip in the colour of the team whose turn it is (the winner's once over), and under
  it a notch for the seat deciding (seat i at x = 8 + 20 i), in that seat's team colour
- the board: spaces 0..6 left to right, then 7..13 right to left below; homes outlined in
  the team's colour, Black Market corners gold (advanced), recall spaces teal (summary-board);
  team A's meeple blue, B's red (left / right halves when on one space)
- team A's play area, then team B's: one column per agent (AGENT_COLOURS), a block per copy
- the seat's hand the same way; then the offer: its face-up card, and a grey block for a
  face-down card (in the card's colour when it is the seat's own)
- the Black Market: 15 squares per row for the market, team A's and B's ongoing cards
- the agent deck as a bar (38 cards wide at most), and the gap as a bar from the centre
"""


def _rect(img: np.ndarray, y: int, x: int, h: int, w: int, colour: object) -> None:
    img[max(y, 0) : max(y + h, 0), max(x, 0) : max(x + w, 0)] = colour


def _disc(img: np.ndarray, cy: int, cx: int, r: int, colour: object, half: int = 0) -> None:
    yy, xx = np.ogrid[: img.shape[0], : img.shape[1]]
    inside = (yy - cy) ** 2 + (xx - cx) ** 2 <= r * r
    if half:
        inside &= (xx < cx) if half < 0 else (xx >= cx)
    img[inside] = colour


def _area(img: np.ndarray, y: int, counts: Sequence[int] | None) -> None:
    """One column per agent, one block per copy (up to 6 drawn)."""
    for a in range(len(AGENT_COLOURS)):
        x = _PAD + a * 38
        _rect(img, y + 27, x, 1, 34, (90, 90, 90))
        for k in range(min(counts[a] if counts is not None else 0, 6)):
            _rect(
                img,
                y + 22 - 4 * k,
                x,
                4,
                34,
                AGENT_COLOURS[a] if k % 2 == 0 else AGENT_COLOURS[a] * 0.8,
            )
        if counts is None:
            _rect(img, y + 18, x, 8, 34, (50, 50, 50))


def rgb(obs: Observation) -> np.ndarray:
    """The table as an image (see ``RGB_LEGEND``)."""
    img = np.empty((HEIGHT, WIDTH, 3), dtype=np.uint8)
    img[:] = _BG
    if obs.outcome is not None:
        _rect(img, 0, 0, 6, WIDTH, TEAM_COLOURS[obs.outcome.winner])
    else:
        _rect(img, 0, 0, 6, WIDTH, TEAM_COLOURS[obs.active])
        if obs.actor >= 0:
            tx = _PAD + obs.actor * 20
            _rect(img, 6, tx, 4, 16, TEAM_COLOURS[obs.config.team_of(obs.actor)])
    marks = _special(obs)
    top = 14
    for space in range(BOARD_SIZE):
        r, c = _cells(space)
        y, x = top + r * (_CELL + _GAP), _PAD + c * (_CELL + _GAP)
        colour = {"$": _CORNER, "R": _RECALL}.get(marks.get(space, ""), _SPACE)
        if space in HOMES:
            _rect(img, y - 2, x - 2, _CELL + 4, _CELL + 4, TEAM_COLOURS[HOMES.index(space)])
        _rect(img, y, x, _CELL, _CELL, colour)
        here = [t for t in (0, 1) if obs.positions[t] == space]
        for t in here:
            half = 0 if len(here) == 1 else (-1 if t == 0 else 1)
            _disc(img, y + _CELL // 2, x + _CELL // 2, 14, TEAM_COLOURS[t], half)
    y = top + 2 * (_CELL + _GAP) + 4
    for team in (0, 1):
        _rect(img, y, 0, 28, 4, TEAM_COLOURS[team])
        _area(img, y, obs.in_play[team])
        y += 32
    _area(img, y, obs.hand)  # the seat's hand (a grey row for a spectator)
    y += 34
    if obs.offer_up is not None:
        _rect(img, y, _PAD, 20, 34, AGENT_COLOURS[int(obs.offer_up)])
    if obs.face_down_offered:
        down = (
            AGENT_COLOURS[int(obs.my_face_down)]
            if obs.my_face_down is not None
            else (120, 120, 120)
        )
        _rect(img, y, _PAD + 40, 20, 34, (200, 200, 200))
        _rect(img, y + 2, _PAD + 42, 16, 30, down)
    y += 26
    for row in (set(obs.market), obs.ongoing[0], obs.ongoing[1]):
        for i in range(15):
            lit = any(int(c) == i for c in row)
            _rect(img, y, _PAD + i * 20, 14, 16, (200, 170, 60) if lit else (50, 50, 56))
        y += 18
    _rect(img, y + 2, _PAD, 8, min(obs.deck_size, 38) * 8, (180, 180, 180))
    y += 14
    mid, gap = WIDTH // 2, max(-7, min(7, obs.gap - 7))  # < 0: A closer to catching B
    _rect(img, y, min(mid, mid + gap * 10), 8, abs(gap) * 10 + 1, TEAM_COLOURS[0 if gap < 0 else 1])
    return img

"""The ``Bot`` base class bot authors subclass.

Override ``decide(request)`` to answer every decision in one place, or the method named
after each decision kind (``play``, ``recruit``, ...); both receive the
``agent_avenue.v1.DecisionRequest`` and return an index into ``request.legal`` (or one of
its ``Choice`` messages). Decisions a bot does not handle get ``default(request)``: the
first legal choice.

The SDK has already put the match's whole public history into
``request.observation.history`` (on the wire only the new events travel).
"""

from __future__ import annotations

import json
import logging
from typing import Any, TypeAlias

from agent_avenue.v1 import arena_pb2 as pb

log = logging.getLogger("avenue_sdk")

#: DecisionKind -> the Bot method that answers it
METHODS: dict[int, str] = {
    pb.DECISION_KIND_DISCARD: "discard",
    pb.DECISION_KIND_PLAY: "play",
    pb.DECISION_KIND_NAME_FACE_UP: "name_face_up",
    pb.DECISION_KIND_PLAY_FACE_UP: "play_face_up",
    pb.DECISION_KIND_PLAY_FACE_DOWN: "play_face_down",
    pb.DECISION_KIND_RECRUIT: "recruit",
    pb.DECISION_KIND_BLACK_MARKET: "black_market",
    pb.DECISION_KIND_SECRET_RECRUIT: "secret_recruit",
    pb.DECISION_KIND_DOUBLE_TROUBLE: "double_trouble",
    pb.DECISION_KIND_SPYCATION: "spycation",
    pb.DECISION_KIND_MIND_CONTROL: "mind_control",
    pb.DECISION_KIND_RECALL: "recall",
}

#: what a decision method returns: an index into ``request.legal``, or one of its choices
Answer: TypeAlias = int | pb.Choice


class Bot:
    #: sent in Hello and shown on the bot's page
    version: str = "0"

    def decide(self, request: pb.DecisionRequest) -> Answer:
        """Answer one decision; by default, the method named after its kind."""
        method = getattr(self, METHODS.get(request.kind, "default"))
        return method(request)  # type: ignore[no-any-return]

    def default(self, request: pb.DecisionRequest) -> Answer:
        return 0

    # One method per decision kind (rules section 6); each defaults to ``default``.

    def discard(self, request: pb.DecisionRequest) -> Answer:
        """Discard a hand card and draw one, or ``stop_discarding`` and play."""
        return self.default(request)

    def play(self, request: pb.DecisionRequest) -> Answer:
        """Two-player play: one card face up, one face down."""
        return self.default(request)

    def name_face_up(self, request: pb.DecisionRequest) -> Answer:
        """Team captain: which teammate plays face up."""
        return self.default(request)

    def play_face_up(self, request: pb.DecisionRequest) -> Answer:
        return self.default(request)

    def play_face_down(self, request: pb.DecisionRequest) -> Answer:
        return self.default(request)

    def recruit(self, request: pb.DecisionRequest) -> Answer:
        """Take the face-up card or the hidden face-down one."""
        return self.default(request)

    def black_market(self, request: pb.DecisionRequest) -> Answer:
        return self.default(request)

    def secret_recruit(self, request: pb.DecisionRequest) -> Answer:
        return self.default(request)

    def double_trouble(self, request: pb.DecisionRequest) -> Answer:
        return self.default(request)

    def spycation(self, request: pb.DecisionRequest) -> Answer:
        return self.default(request)

    def mind_control(self, request: pb.DecisionRequest) -> Answer:
        return self.default(request)

    def recall(self, request: pb.DecisionRequest) -> Answer:
        return self.default(request)

    # Notifications; override as needed.

    def on_welcome(self, welcome: pb.Welcome) -> None:
        """The arena accepted the connection."""

    def on_match_started(self, started: pb.MatchStarted) -> None:
        """A match begins (once per seat the bot holds in it)."""

    def on_match_ended(self, ended: pb.MatchEnded) -> None:
        """A match is over (once per seat)."""

    def on_notice(self, notice: pb.Notice) -> None:
        """Something the bot's owner is told of, while the bot is connected: ``kind``
        ("challenge", "season_ended", "forfeit"; ignore kinds you do not know), ``text``
        (one line), ``notice_data(notice)`` (its fields), ``event_id``, ``created_at_ms``.
        Called on the stream's event loop: return quickly. Logs it at INFO by default."""
        log.info("notice %s: %s (event %s)", notice.kind, notice.text, notice.event_id)

    def on_message(self, message: pb.ArenaMessage) -> None:
        """Every message from the arena, before it is handled (for recording, debugging).
        Called on the stream's event loop: return quickly."""


def notice_data(notice: pb.Notice) -> dict[str, Any]:
    """A notice's fields (its ``data_json``); {} when they are not a JSON object."""
    try:
        data = json.loads(notice.data_json or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}

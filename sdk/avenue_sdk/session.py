"""What the SDK does with each message, whoever carries it: the arena client over gRPC and
the local arena in-process both go through here, so a bot sees the same thing either way.

``Histories`` puts a match's whole public history back into each request (the wire only
carries the events since the seat's previous request); ``action_for`` turns a bot's answer
into the ``Action`` it sends; ``check_engine`` warns once when a match is played under a
ruleset (or version) other than the local engine's, whose simulations would then be wrong.
"""

from __future__ import annotations

import logging

from agent_avenue.v1 import arena_pb2 as pb
from avenue_sdk.bot import Answer
from referee.config import RULESETS

log = logging.getLogger("avenue_sdk")

_warned: set[tuple[str, int]] = set()


def check_engine(config: pb.MatchConfig) -> bool:
    """True when the local engine knows the match's ruleset at its version; else warns (once
    per ruleset and version) and returns False."""
    local = RULESETS.get(config.ruleset)
    if local is not None and local.version == config.ruleset_version:
        return True
    key = (config.ruleset, config.ruleset_version)
    if key not in _warned:
        _warned.add(key)
        have = (
            f"version {local.version}"
            if local is not None
            else f"no such ruleset (it knows {', '.join(sorted(RULESETS))})"
        )
        log.warning(
            "this match plays ruleset %r version %d but the local engine (agent-avenue-engine) "
            "has %s: avenue_sdk.sim and the house bots may simulate the wrong rules; "
            "upgrade the SDK and engine to the arena's",
            config.ruleset,
            config.ruleset_version,
            have,
        )
    return False


class Histories:
    """Per (match, seat): the events known so far, kept serialized (bytes merge much faster
    than copying messages one by one)."""

    def __init__(self) -> None:
        self._known: dict[tuple[str, int], tuple[int, bytes]] = {}

    def clear(self) -> None:
        self._known.clear()

    def forget(self, match_id: str, seat: int) -> None:
        self._known.pop((match_id, seat), None)

    def complete(self, request: pb.DecisionRequest) -> None:
        """Put the match's whole history into ``request`` (in place)."""
        obs = request.observation
        key = (request.match_id, request.seat)
        count, known = self._known.get(key, (0, b"")) if obs.history_start else (0, b"")
        if obs.history_start != count:
            log.warning(
                "match %s: the request's history starts at event %d but %d are known; "
                "the bot sees a history with a gap",
                request.match_id,
                obs.history_start,
                count,
            )
        known += pb.Observation(history=obs.history).SerializeToString()
        self._known[key] = (count + len(obs.history), known)
        del obs.history[:]
        obs.MergeFromString(known)
        obs.history_start = 0


def action_for(
    request: pb.DecisionRequest, answer: Answer, action: pb.Action | None = None
) -> pb.Action:
    """The ``Action`` answering ``request``: both the index and the choice it names;
    written into ``action`` if given (an empty one, e.g. a ``BotMessage``'s)."""
    if action is None:
        action = pb.Action()
    action.match_id = request.match_id
    action.seq = request.seq
    if isinstance(answer, pb.Choice):
        action.choice.CopyFrom(answer)
        for i, legal in enumerate(request.legal):
            if legal == answer:
                action.choice_index = i
                break
    else:
        action.choice_index = int(answer)
        if 0 <= answer < len(request.legal):
            action.choice.CopyFrom(request.legal[answer])
    return action

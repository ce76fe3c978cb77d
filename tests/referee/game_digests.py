"""Play seeded random games and print one digest per configuration, as JSON on stdout.

    python -I tests/referee/game_digests.py GAMES

A digest covers each game's replay record (decks, every decision, the result), its public
event log, the observation of the acting seat at every decision and every final state.
test_compiled.py runs this file under the pure-Python engine and the compiled one (``-I``:
the ``referee`` imported is the interpreter's installed one, never this checkout's
source) and compares; it also holds the digests today's engine printed, so that a faster
engine that plays differently is caught.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys

from referee import GameConfig, apply, engine, legal_actions, new_game
from referee.observation import observe
from referee.replay import Recorder
from referee.state import State

CONFIGS = {
    "simple-2": GameConfig.for_seats(2, "simple"),
    "advanced-2": GameConfig.for_seats(2, "advanced"),
    "simple-4": GameConfig.for_seats(4, "simple"),
    "advanced-4": GameConfig.for_seats(4, "advanced"),
    "advanced-3": GameConfig.for_seats(3, "advanced"),
    "summary-board-2": GameConfig.for_seats(2, "advanced", ruleset="summary-board"),
}


def canonical(state: State) -> str:
    """Every field but the config and the rule lists (whose repr holds addresses); sets
    sorted, since a set of strings iterates in an order that changes with the hash seed."""
    fields: list[object] = []
    for value in state[1:-1]:
        if isinstance(value, tuple) and value and isinstance(value[0], frozenset):
            fields.append(tuple(sorted(p) for p in value if isinstance(p, frozenset)))
        else:
            fields.append(value)
    return repr(fields)


def digest(config: GameConfig, games: int) -> str:
    h = hashlib.sha256()
    rng = random.Random(2026)
    for seed in range(games):
        state = new_game(config, seed)
        rec = Recorder(state)
        while state.decision is not None:
            legal = legal_actions(state)
            h.update(json.dumps(observe(state, state.actor).to_json(), sort_keys=True).encode())
            action = legal[int(rng.random() * len(legal))]
            rec.add(state, action)
            state = apply(state, action)
        h.update(rec.finish(state).dumps().encode())
        h.update(json.dumps([e.to_json() for e in state.events()]).encode())
        h.update(canonical(state).encode())
    return h.hexdigest()


def main() -> None:
    games = int(sys.argv[1])
    out = {name: digest(config, games) for name, config in CONFIGS.items()}
    print(json.dumps({"engine": engine.__file__, "digests": out}))


if __name__ == "__main__":
    main()

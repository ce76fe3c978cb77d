"""The ``Bot`` interface and how bots are named on the command line."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Protocol

from referee.actions import Action
from referee.observation import Observation


class Bot(Protocol):
    """Chooses one of ``legal`` from what its seat may know."""

    name: str

    def act(self, obs: Observation, legal: Sequence[Action]) -> Action: ...


def _house() -> dict[str, Callable[[int], Bot]]:
    from referee.bots.greedy import GreedyBot
    from referee.bots.random_bot import RandomBot
    from referee.bots.search import SearchBot

    return {"random": RandomBot, "greedy": GreedyBot, "search": SearchBot}


HOUSE_BOTS = ("random", "greedy", "search")


def make_bot(spec: str, seed: int) -> Bot:
    """A house bot by name (``random``, ``greedy``, ``search``, ``search:400``) or a bot
    class by module path (``mybots.clever:CleverBot``), constructed with ``seed``."""
    name, _, arg = spec.partition(":") if ":" in spec and "." not in spec else (spec, "", "")
    house = _house()
    if name in house:
        if name == "search" and arg:
            from referee.bots.search import SearchBot

            return SearchBot(seed, playouts=int(arg))
        return house[name](seed)
    return load_bot(spec)(seed)


def load_bot(path: str) -> Callable[[int], Bot]:
    """``package.module:ClassName`` -> the class (called with a seed)."""
    module_name, sep, attr = path.partition(":")
    if not sep:
        raise ValueError(
            f"unknown bot {path!r}: use one of {', '.join(HOUSE_BOTS)} or module.path:ClassName"
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"cannot import {module_name!r} for bot {path!r}: {exc}") from None
    cls = getattr(module, attr, None)
    if cls is None:
        raise ValueError(f"module {module_name!r} has no {attr!r}")
    return cls  # type: ignore[no-any-return]

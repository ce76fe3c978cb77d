"""The seeds every path derives from a game's seed, in one place: the arena's workers, its
``playmatch`` command, the bot host's check and the SDK's local arena all call these, so one
seed gives one game wherever it is played (house bots included).

* ``game_seed(run_seed, i)``: the deal of game ``i`` of a run given ``--seed run_seed``
  (``python -m avenue_sdk play`` and ``manage.py playmatch`` alike). Independent across
  games: game 2 is not game 1's deal shifted by one.
* ``house_bot_seed(deal, seat)``: the RNG seed of the house bot in ``seat`` of the game dealt
  from ``deal``. A house bot is one instance per seat, even where a team holds two seats.
  Keyed blake2b, one-way: a bot that learnt a house bot's RNG seed (or replayed its
  choices) learns nothing about the deal. ``deal * 8 + seat`` would have given it away.

Standard library only, like the rest of the referee.
"""

from __future__ import annotations

import hashlib


def derive(seed: int, label: bytes, *parts: int) -> bytes:
    """16 bytes from ``seed`` for ``label`` and ``parts``: blake2b keyed with the seed, so
    without it outputs are unpredictable and say nothing about it (nor about each other)."""
    key = seed.to_bytes((max(seed.bit_length(), 1) + 7) // 8, "big")
    if len(key) > 64:
        raise ValueError("a game seed has at most 512 bits")
    h = hashlib.blake2b(key=key, digest_size=16, person=b"agent-avenue")
    h.update(label)
    for part in parts:
        h.update(b":" + str(part).encode())
    return h.digest()


def house_bot_seed(deal: int, seat: int) -> int:
    """The RNG seed of the house bot in ``seat`` of the game dealt from ``deal`` (64 bits;
    the same on a re-run, so a replayed attempt plays the same game)."""
    return int.from_bytes(derive(deal, b"house-bot", seat)[:8], "big")


def game_seed(run_seed: int, index: int) -> int:
    """The deal of game ``index`` (from 0) of a run seeded ``run_seed`` (62 bits)."""
    digest = hashlib.sha256(f"avenue-local:{run_seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 2

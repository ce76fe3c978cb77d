"""Deals no bot can know: where a match's seed comes from and what may be derived from it.

* Every match gets its own seed from ``secrets`` (``SEED_BITS`` bits), drawn when its round
  is scheduled and stored with the match only. Nothing public goes into it (no league
  seed, round number or entry id), so the public code and every released replay say
  nothing about the next deal.
* The team that plays first is a one-way function of the seed (``first_team_of``), so it
  says nothing about the deck either.
* A house bot's own randomness is a one-way derivation of the seed, its seat and a label
  (``house_bot_seed``): a bot that learnt its RNG seed (or a replay of its choices) learns
  nothing about the deal. ``deck_seed * 8 + seat`` would have given the deck away.
* **Independent deals** are the default for every league. **Mirrored pairs** (both games
  of a pair on one deck, teams swapped) are a league option allowed only when every entry
  is a bot whose memory the arena controls (``Bot.memory_controlled``): a bot that
  remembers game 1 of a mirrored pair starts game 2 knowing its opponent's whole hand (its
  own game-1 hand) and the order of the deck, and the arena cannot wipe a dial-in bot's
  memory.

Pure functions, no ORM: the scheduler, the match service and the tests share them.
"""

from __future__ import annotations

import hashlib
import secrets

#: bits of a match seed; at least 128, so that no one can search the seeds offline
SEED_BITS = 128
#: digits of the largest seed in base 10 (the database column's precision)
SEED_DIGITS = len(str(2**SEED_BITS - 1))

#: why a league with dial-in bots cannot play mirrored pairs (shown as it is)
MIRRORED_REFUSAL = (
    "mirrored pairs need every entry to be a bot whose memory the arena controls (house "
    "bots): both games of a pair are dealt from one deck with the teams swapped, so a bot "
    "that remembers game 1 starts game 2 knowing its opponent's hand and the deck order"
)


def new_seed() -> int:
    """A fresh match seed: ``SEED_BITS`` bits from the operating system's CSPRNG."""
    return secrets.randbits(SEED_BITS)


def _derive(seed: int, label: bytes, *parts: int) -> bytes:
    # blake2b keyed with the seed: without the seed, outputs are unpredictable and say
    # nothing about it (nor about each other)
    key = seed.to_bytes((max(seed.bit_length(), 1) + 7) // 8, "big")
    if len(key) > 64:
        raise ValueError("a match seed has at most 512 bits")
    h = hashlib.blake2b(key=key, digest_size=16, person=b"agent-avenue")
    h.update(label)
    for part in parts:
        h.update(b":" + str(part).encode())
    return h.digest()


def first_team_of(seed: int) -> int:
    """The team (0 = A, 1 = B) that plays first in the game dealt from ``seed``."""
    return _derive(seed, b"first-team")[0] & 1


def house_bot_seed(seed: int, seat: int) -> int:
    """The RNG seed of the house bot in ``seat`` of the match dealt from ``seed`` (64 bits;
    the same on a re-run of the match, so a replayed attempt plays the same game)."""
    return int.from_bytes(_derive(seed, b"house-bot", seat)[:8], "big")

"""Deals no bot can know: where a match's seed comes from and what may be derived from it.

* Every match gets its own seed from ``secrets`` (``SEED_BITS`` bits), drawn when its round
  is scheduled and stored with the match only. Nothing public goes into it (no league
  seed, round number or entry id), so the public code and every released replay say
  nothing about the next deal.
* The team that plays first is a one-way function of the seed (``first_team_of``), so it
  says nothing about the deck either.
* A house bot's own randomness is a one-way derivation of the seed, its seat and a label
  (``house_bot_seed``, from ``referee.seeds``, which every path uses): a bot that learnt
  its RNG seed (or a replay of its choices) learns nothing about the deal
  (``deck_seed * 8 + seat`` would have given the deck away).
* **Independent deals** are the default for every league. **Mirrored pairs** (both games
  of a pair on one deck, teams swapped) are a league option allowed only when every entry
  is a bot whose memory the arena controls (``Bot.memory_controlled``): a bot that
  remembers game 1 of a mirrored pair starts game 2 knowing its opponent's whole hand (its
  own game-1 hand) and the order of the deck, and the arena cannot wipe a dial-in bot's
  memory.

Pure functions, no ORM: the scheduler, the match service and the tests share them.
"""

from __future__ import annotations

import secrets

from referee.seeds import derive, house_bot_seed

__all__ = [
    "MIRRORED_REFUSAL",
    "SEED_BITS",
    "SEED_DIGITS",
    "first_team_of",
    "house_bot_seed",
    "new_seed",
]

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


def first_team_of(seed: int) -> int:
    """The team (0 = A, 1 = B) that plays first in the game dealt from ``seed``."""
    return derive(seed, b"first-team")[0] & 1

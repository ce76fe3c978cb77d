"""Tournaments: one-off events (knockout, Swiss, round robin) for a list of bots, played
by the league machinery (each event owns a hidden league whose rounds its pairing policy
fills). ``docs/events.md`` says how they run."""

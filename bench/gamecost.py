"""What a match's game costs by itself: its seats and configuration replayed in this
process, timed in CPU, for the benches that subtract it from a whole path
(``orchestration.py``, ``embedded_overhead.py``)."""

from __future__ import annotations

import statistics
import time

from arena.adapters.play.matches import game_config
from arena.adapters.runner import HouseSeat, TimeControl, run_match
from arena.deals import house_bot_seed
from arena.services.results import Played


def game_cpu(match_ids: list[int]) -> float:
    """The mean CPU seconds of these matches' games, replayed one after the other in this
    process: the seats and configuration ``play_match`` gives the runner (house bots)."""
    cpu = []
    for match_id in match_ids:
        played = Played.load(match_id)
        match, parts, league = played.match, played.parts, played.match.league
        assert all(p.bot.kind == "house" for p in parts)
        seats = [
            HouseSeat(p.bot.spec, house_bot_seed(match.deck_seed, p.seat), name=p.bot.name)
            for p in parts
        ]
        config = game_config(league, match, parts)
        t0 = time.thread_time()
        run_match(
            seats,
            config,
            match.deck_seed,
            match_id=f"replay-{match.pk}",
            time_control=TimeControl(league.decision_ms, league.bank_ms),
        )
        cpu.append(time.thread_time() - t0)
    return statistics.fmean(cpu)

"""Playing whole games between bots in-process (command line, benchmarks, house matches)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from referee.bots.base import Bot, make_bot
from referee.config import GameConfig
from referee.engine import GameResult, apply, legal_actions, new_game, result
from referee.observation import observe
from referee.replay import Record, Recorder


@dataclass(frozen=True)
class Played:
    record: Record
    result: GameResult
    decisions: int


def play_game(
    config: GameConfig, seed: int, bots: Sequence[Bot], *, deck_seed: int | None = None
) -> Played:
    """Play one game; ``bots[s]`` answers for seat ``s``. A decision with one legal option is
    taken without asking the bot (rules section 6); the record still holds it.

    ``deck_seed`` deals from another seed's deck (mirrored pairs share one deck)."""
    if len(bots) != config.seats:
        raise ValueError(f"{config.seats} seats need {config.seats} bots, got {len(bots)}")
    state = new_game(config, seed if deck_seed is None else deck_seed)
    recorder = Recorder(state)
    decisions = 0
    while state.decision is not None:
        legal = legal_actions(state)
        if len(legal) == 1:
            action = legal[0]
        else:
            action = bots[state.actor].act(observe(state, state.actor), legal)
        recorder.add(state, action)
        state = apply(state, action)
        decisions += 1
    final = result(state)
    assert final is not None
    return Played(recorder.finish(state), final, decisions)


def seat_bots(config: GameConfig, team_bots: Sequence[Bot]) -> list[Bot]:
    """Seat s plays for the bot of its team."""
    return [team_bots[config.team_of(s)] for s in range(config.seats)]


@dataclass
class MatchStats:
    """Results of bot ``names[0]`` against ``names[1]`` over mirrored pairs of games."""

    names: tuple[str, str]
    games: int = 0
    wins: list[int] = field(default_factory=lambda: [0, 0])
    #: (bot index, team it won as) -> wins
    team_wins: Counter[tuple[int, int]] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)
    decisions: int = 0

    def merge(self, other: MatchStats) -> None:
        self.games += other.games
        self.wins = [a + b for a, b in zip(self.wins, other.wins, strict=True)]
        self.team_wins.update(other.team_wins)
        self.reasons.update(other.reasons)
        self.decisions += other.decisions


def play_pairs(
    names: tuple[str, str],
    pairs: range,
    *,
    seats: int = 2,
    mode: str = "simple",
    ruleset: str = "standard",
    seed: int = 1,
    on_game: Callable[[MatchStats], None] | None = None,
) -> MatchStats:
    """Mirrored pairs: both games of a pair share the deck and the first team; the bots
    swap teams, so the deal's luck cancels out (rules section 9)."""
    stats = MatchStats(names)
    for pair in pairs:
        deck_seed = seed + pair
        config = GameConfig.for_seats(seats, mode, first_team=pair % 2, ruleset=ruleset)
        for swap in (0, 1):
            game_seed = deck_seed * 2 + swap
            team_bots = (make_bot(names[swap], game_seed), make_bot(names[1 - swap], game_seed + 1))
            played = play_game(config, game_seed, seat_bots(config, team_bots), deck_seed=deck_seed)
            winner = (swap + played.result.winner) % 2  # index into names
            stats.games += 1
            stats.wins[winner] += 1
            stats.team_wins[(winner, played.result.winner)] += 1
            stats.reasons[played.result.reason.value] += 1
            stats.decisions += played.decisions
            if on_game is not None:
                on_game(stats)
    return stats

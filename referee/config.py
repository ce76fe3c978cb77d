"""Match configuration and rulesets (rules sections 8, 9 and 10.2).

A ruleset is data: an id, a version that changes whenever its behaviour changes, and the
named phases it adds to the turn. The engine compiles (mode, ruleset) into one list of
phases per hook; nothing else in the engine asks which variant it is playing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from referee.cards import FastEnum


class Mode(FastEnum):
    SIMPLE = "simple"
    ADVANCED = "advanced"


class ConfigError(ValueError):
    """A match configuration the referee refuses."""


@dataclass(frozen=True)
class Ruleset:
    id: str
    version: int
    description: str
    #: triggers run each time a meeple stops after moving (all fire together, one move)
    after_move: tuple[str, ...]
    #: effects of stopping on a special space, resolved in the Black Market step
    landings: tuple[str, ...]
    #: End-step conditions, in the order their reasons are reported
    end_checks: tuple[str, ...]
    #: ongoing cards that change the move of a recruited agent
    recruit_modifiers: tuple[str, ...] = ()


#: phases every game has, and those the advanced board adds
BASE_PHASES: Final = Ruleset(
    id="base",
    version=1,
    description="simple mode",
    after_move=(),
    landings=(),
    end_checks=("catch", "three_codebreakers", "three_daredevils"),
)
ADVANCED_PHASES: Final = Ruleset(
    id="advanced",
    version=1,
    description="advanced mode: the Black Market",
    after_move=("getaway_car",),
    landings=("black_market",),
    end_checks=("masterplan", "security_system"),
    recruit_modifiers=("lookout", "supercomputer", "distraction_device", "evil_twin"),
)

RULESETS: Final = {
    r.id: r
    for r in (
        Ruleset(
            id="standard",
            version=1,
            description="the published board (rules sections 1-9)",
            after_move=(),
            landings=(),
            end_checks=(),
        ),
        Ruleset(
            id="summary-board",
            version=1,
            description="the French summary's board: home +3, home win, recall spaces 3 and 10",
            after_move=("home_bonus",),
            landings=("recall",),
            end_checks=("home_space",),
        ),
    )
}
DEFAULT_RULESET: Final = "standard"


def default_teams(seats: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Seats alternate around the table: 2 -> A0 B1, 3 -> A0 B1 A2, 4 -> A0 B1 A2 B3."""
    if seats not in (2, 3, 4):
        raise ConfigError(f"a match has 2, 3 or 4 seats, not {seats}")
    team_a = tuple(range(0, seats, 2))
    team_b = tuple(range(1, seats, 2))
    return team_a, team_b


@dataclass(frozen=True)
class GameConfig:
    mode: Mode = Mode.SIMPLE
    #: seats of team A and team B; teammate 0 of a team is its lower seat
    teams: tuple[tuple[int, ...], tuple[int, ...]] = ((0,), (1,))
    #: the team that plays first; None draws it from the seed
    first_team: int | None = None
    ruleset: str = DEFAULT_RULESET
    #: derived once in __post_init__, read on every turn; kept out of init, eq, hash and
    #: repr. A field, not a ClassVar: a ClassVar on a dataclass breaks the compiled build.
    discard_limits: tuple[int, ...] = field(default=(), init=False, repr=False, compare=False)
    #: ``teams`` again, typed as a tuple of any length: the compiled build keeps a 2-tuple
    #: field unboxed and builds a new tuple for every ``teams[i]``; derived like the above
    team_members: tuple[tuple[int, ...], ...] = field(
        default=(), init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        if not isinstance(self.mode, Mode):
            raise ConfigError(f"unknown mode {self.mode!r}: use 'simple' or 'advanced'")
        if self.ruleset not in RULESETS:
            known = ", ".join(sorted(RULESETS))
            raise ConfigError(f"unknown ruleset {self.ruleset!r}: known rulesets are {known}")
        if len(self.teams) != 2:
            raise ConfigError("a match has exactly two teams")
        seats = sorted(s for team in self.teams for s in team)
        if seats != list(range(len(seats))) or not 2 <= len(seats) <= 4:
            raise ConfigError(f"the teams {self.teams} must share the seats 0..n-1, n = 2..4")
        for team in self.teams:
            if not 1 <= len(team) <= 2 or list(team) != sorted(team):
                raise ConfigError(f"team {team} must hold one or two seats in increasing order")
        if self.first_team not in (None, 0, 1):
            raise ConfigError(f"first_team must be 0 (A), 1 (B) or None, not {self.first_team}")
        object.__setattr__(self, "team_members", self.teams)
        limits = tuple(self.discard_limit(self.team_of(s)) for s in range(self.seats))
        object.__setattr__(self, "discard_limits", limits)

    @classmethod
    def for_seats(
        cls,
        seats: int = 2,
        mode: Mode | str = Mode.SIMPLE,
        *,
        first_team: int | None = None,
        ruleset: str = DEFAULT_RULESET,
    ) -> GameConfig:
        try:
            mode = Mode(mode)
        except ValueError:
            raise ConfigError(f"unknown mode {mode!r}: use 'simple' or 'advanced'") from None
        return cls(mode, default_teams(seats), first_team, ruleset)

    @property
    def seats(self) -> int:
        members = self.team_members
        return len(members[0]) + len(members[1])

    @property
    def rules(self) -> Ruleset:
        return RULESETS[self.ruleset]

    def team_of(self, seat: int) -> int:
        return 0 if seat in self.team_members[0] else 1

    def discard_limit(self, team: int) -> int:
        """4 for a player alone on a team, 2 for each member of a team of two."""
        return 4 if len(self.team_members[team]) == 1 else 2

    def to_json(self) -> dict[str, object]:
        return {
            "mode": self.mode.value,
            "teams": [list(t) for t in self.teams],
            "first_team": self.first_team,
            "ruleset": self.ruleset,
            "ruleset_version": self.rules.version,
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> GameConfig:
        try:
            teams_raw = data["teams"]
            assert isinstance(teams_raw, list) and len(teams_raw) == 2
            teams = (tuple(int(s) for s in teams_raw[0]), tuple(int(s) for s in teams_raw[1]))
            first = data.get("first_team")
            ruleset = str(data.get("ruleset", DEFAULT_RULESET))
            config = cls(
                Mode(data["mode"]),
                teams,
                None if first is None else int(str(first)),
                ruleset,
            )
        except (KeyError, ValueError, TypeError, AssertionError) as exc:
            raise ConfigError(f"malformed match configuration {data!r}: {exc}") from None
        version = data.get("ruleset_version", config.rules.version)
        if version != config.rules.version:
            raise ConfigError(
                f"ruleset {ruleset!r} version {version} is not this referee's version "
                f"{config.rules.version}"
            )
        return config

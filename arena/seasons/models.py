"""A league's season settings, its seasons and their frozen tables.

* ``SeasonSettings``: one row per league that runs in seasons (no row: the league is one
  endless table, as before).
* ``Season``: a numbered season with its start and its end (a time, a number of rounds,
  or both: whichever comes first); ``running`` until its end is applied, once
  (``arena.seasons.ending``), then ``ended``.
* ``Placement``: a newcomer placed into a division mid-season after its provisional
  games (``arena.seasons.placement``), once: the row's unique key says so.
* ``SeasonStanding``: a bot's line in a season's table: its division and place, the
  season's Elo (from the season's start rule), the league's live Elo and batch fit at the
  end, games / wins / losses / forfeits of the season, and where it went next. Written
  only by the season's end, in its transaction: frozen from then on.
"""

from __future__ import annotations

from django.db import models


class StartRule(models.TextChoices):
    """What a bot's season Elo starts from (the league's live Elo is never touched)."""

    #: everyone from 1500
    RESET = "reset", "reset to 1500"
    #: the bot's season Elo at the end of the last season (1500 for a newcomer)
    CARRY = "carry", "carry-over"
    #: toward the mean: mean + factor x (last - mean)
    SOFT = "soft", "soft reset toward the mean"


class PlacementRule(models.TextChoices):
    """Where a new bot (an entry with no division) plays in a league split in divisions."""

    #: in the lowest division until the season's end places it
    LOWEST = "lowest", "the lowest division"
    #: ``placement_games`` provisional games against bots of every division, then placed
    #: mid-season into the division its batch-fit rating falls in
    PROVISIONAL = "provisional", "provisional games"


class SeasonSettings(models.Model):
    league = models.OneToOneField(
        "arena.League", on_delete=models.CASCADE, related_name="season_settings"
    )
    #: a season ends after this many rounds (None: by time only)
    rounds_per_season = models.PositiveIntegerField(null=True, blank=True)
    #: ... or this many seconds after it started (None: by rounds only)
    seconds_per_season = models.PositiveIntegerField(null=True, blank=True)
    start_rule = models.CharField(max_length=8, choices=StartRule.choices, default=StartRule.CARRY)
    #: soft reset: the share of a bot's distance from the mean that it keeps (0..1)
    soft_factor = models.FloatField(default=0.5)
    #: 1: no divisions; else the league is split by rating into this many
    divisions = models.PositiveSmallIntegerField(default=1)
    #: entries per division (the lowest takes the rest)
    division_size = models.PositiveSmallIntegerField(default=8)
    #: the top K of a division move up and the bottom K move down at a season's end
    promote = models.PositiveSmallIntegerField(default=2)
    #: a new bot: the lowest division, or placed after provisional games
    placement = models.CharField(
        max_length=12, choices=PlacementRule.choices, default=PlacementRule.LOWEST
    )
    #: provisional placement: the games a newcomer plays before it is placed
    placement_games = models.PositiveSmallIntegerField(default=10)

    class Meta:
        verbose_name_plural = "season settings"

    def __str__(self) -> str:
        return f"seasons of {self.league_id}"


class SeasonStatus(models.TextChoices):
    RUNNING = "running", "running"
    ENDED = "ended", "ended"


class Season(models.Model):
    league = models.ForeignKey("arena.League", on_delete=models.CASCADE, related_name="seasons")
    number = models.PositiveIntegerField()
    status = models.CharField(
        max_length=8, choices=SeasonStatus.choices, default=SeasonStatus.RUNNING
    )
    started_at = models.DateTimeField()
    #: the season ends at this time ... (None: no time limit)
    ends_at = models.DateTimeField(null=True, blank=True)
    #: ... or once this many of its rounds are complete (None: no round limit)
    rounds = models.PositiveIntegerField(null=True, blank=True)
    #: the league's rounds numbered from this one on belong to the season
    first_round = models.PositiveIntegerField()
    #: its last round (set when it ends)
    last_round = models.PositiveIntegerField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    #: the rules it was played under, as shown on its page (settings may change later)
    start_rule = models.CharField(max_length=8, choices=StartRule.choices)
    soft_factor = models.FloatField(default=0.5)
    divisions = models.PositiveSmallIntegerField(default=1)
    promote = models.PositiveSmallIntegerField(default=0)
    #: a newcomer's provisional games before it is placed (0: it plays in the lowest
    #: division until the season's end)
    placement_games = models.PositiveSmallIntegerField(default=0)
    #: each bot's season Elo at the start, by the rule: {bot id: "1500.0000"} (a bot that
    #: enters later starts at 1500, or at the mean under a soft reset)
    start_ratings = models.JSONField(default=dict, blank=True)
    #: the season's crosstable, frozen at its end: {"bots": [id...], "cells": {"a:b": [w, n]}}
    crosstable = models.JSONField(default=dict, blank=True)
    #: finished matches of the league in the batch fit frozen with it
    fit_matches = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["league", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["league", "number"], name="season_unique_number"),
            # one running season per league
            models.UniqueConstraint(
                fields=["league"],
                condition=models.Q(status="running"),
                name="season_one_running",
            ),
        ]

    def __str__(self) -> str:
        return f"season {self.number} of {self.league_id}"


class Placement(models.Model):
    """A newcomer placed into a division during a season, after its provisional games:
    written once (unique per season and entry), with the entry's division, in one
    transaction (``arena.seasons.placement``)."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="placements")
    entry = models.ForeignKey("arena.Entry", on_delete=models.CASCADE, related_name="placements")
    division = models.PositiveSmallIntegerField()
    #: the batch fit's rating it was placed by (one fit over all the league's games)
    rating = models.FloatField()
    #: its finished games in the league then
    games = models.PositiveIntegerField()
    #: finished matches of the league in that fit
    fit_matches = models.PositiveIntegerField()
    placed_at = models.DateTimeField()

    class Meta:
        ordering = ["season", "placed_at", "id"]
        constraints = [models.UniqueConstraint(fields=["season", "entry"], name="placement_once")]

    def __str__(self) -> str:
        return f"entry {self.entry_id} placed in division {self.division}"


class Movement(models.TextChoices):
    UP = "up", "promoted"
    DOWN = "down", "relegated"
    STAY = "stay", "stays"
    LEFT = "left", "withdrawn"


class SeasonStanding(models.Model):
    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="standings")
    bot = models.ForeignKey("arena.Bot", on_delete=models.CASCADE, related_name="season_rows")
    #: None: the league was not split
    division = models.PositiveSmallIntegerField(null=True, blank=True)
    #: place within the division (within the league when not split), 1 = first
    place = models.PositiveIntegerField()
    #: the season's Elo: from ``start_rating`` by the season's rule, over its games
    start_rating = models.DecimalField(max_digits=12, decimal_places=4)
    rating = models.DecimalField(max_digits=12, decimal_places=4)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    forfeits = models.PositiveIntegerField(default=0)
    #: the league's live Elo at the end (all its games)
    live_rating = models.DecimalField(max_digits=12, decimal_places=4)
    #: the league's batch fit at the end (one fit over all its games: comparable across
    #: divisions); None when the bot had no fitted row
    fit_elo = models.FloatField(null=True, blank=True)
    fit_low = models.FloatField(null=True, blank=True)
    fit_high = models.FloatField(null=True, blank=True)
    fit_rank = models.PositiveIntegerField(null=True, blank=True)
    movement = models.CharField(max_length=8, choices=Movement.choices, default=Movement.STAY)
    #: its division in the next season (None: not split, or withdrawn)
    next_division = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["season", "division", "place"]
        constraints = [
            models.UniqueConstraint(fields=["season", "bot"], name="seasonstanding_unique_bot")
        ]
        indexes = [models.Index(fields=["bot", "season"], name="seasonstanding_bot")]

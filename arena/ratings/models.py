"""Ratings of bots in leagues.

* ``LiveRating``: the Elo after every rated match, one row per (league, bot); written only
  by ``arena.services.results`` (with the match's result, the row locked). Its ``shown_*``
  columns are the standings the site shows (``arena.ratings.standings``).
* ``RatedMatch``: the ledger of rating applications. One row per rated match (unique), so
  a match is rated at most once; its id orders the applications, which is the order
  ``recompute_ratings`` replays them in. The per-bot changes are on the match's
  ``arena.Participation`` rows (before / after / change).
* ``BatchRating``: the latest maximum-likelihood fit with 95% intervals (``arena.ratings.batch``).
* ``HeadToHead``: per (league, bot, opponent), the games and wins of the results that are
  out, kept with the shown standings (``arena.ratings.headtohead``): the crosstable and a
  bot page's results by opponent read these rows, not the matches.

Live ratings are decimals with 4 places: every change is rounded once, the same way, so the
league's total is conserved exactly and a recompute gives exactly the stored values.

The tables were created by the ``leaderboard`` app, which held these models before the
competition domain took them over; they keep their names (``db_table``) and their rows.
"""

from __future__ import annotations

from decimal import Decimal

from django.db import models

START_RATING = Decimal("1500.0000")


class LiveRating(models.Model):
    league = models.ForeignKey(
        "arena.League", on_delete=models.CASCADE, related_name="live_ratings"
    )
    bot = models.ForeignKey("arena.Bot", on_delete=models.CASCADE, related_name="live_ratings")
    rating = models.DecimalField(max_digits=12, decimal_places=4, default=START_RATING)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    #: games this bot lost by its own fault (timeout, crash, no-show, ...)
    forfeits = models.PositiveIntegerField(default=0)
    #: the standings as shown: the same over the results that are out, without a game of
    #: a mirrored pair whose other game is still being played (``arena.ratings.standings``)
    shown_rating = models.DecimalField(max_digits=12, decimal_places=4, default=START_RATING)
    shown_games = models.PositiveIntegerField(default=0)
    shown_wins = models.PositiveIntegerField(default=0)
    shown_losses = models.PositiveIntegerField(default=0)
    shown_forfeits = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "leaderboard_liverating"
        ordering = ["league", "-rating"]
        constraints = [
            models.UniqueConstraint(fields=["league", "bot"], name="liverating_unique_bot")
        ]
        indexes = [models.Index(fields=["league", "-rating"], name="liverating_standings")]

    def __str__(self) -> str:
        return f"{self.bot_id} in {self.league_id}: {self.rating}"


class RatedMatch(models.Model):
    """One application of a match's rating changes (the ledger; see the module doc)."""

    id = models.BigAutoField(primary_key=True)
    league = models.ForeignKey("arena.League", on_delete=models.CASCADE, related_name="+")
    match = models.OneToOneField("arena.Match", on_delete=models.CASCADE, related_name="rating")
    #: the K the changes were computed with (a league's K may change later)
    k_factor = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "leaderboard_ratedmatch"
        ordering = ["id"]
        indexes = [models.Index(fields=["league", "id"], name="ratedmatch_league_order")]


class BatchRating(models.Model):
    """A bot's rating in the league's latest batch fit (replaced as a whole by each fit)."""

    league = models.ForeignKey(
        "arena.League", on_delete=models.CASCADE, related_name="batch_ratings"
    )
    bot = models.ForeignKey("arena.Bot", on_delete=models.CASCADE, related_name="batch_ratings")
    elo = models.FloatField()
    low = models.FloatField()
    high = models.FloatField()
    rank = models.PositiveIntegerField()
    rank_low = models.PositiveIntegerField()
    rank_high = models.PositiveIntegerField()
    games = models.PositiveIntegerField()
    #: bootstrap replicates behind the intervals
    bootstrap = models.PositiveIntegerField()
    #: finished matches in the fit
    matches = models.PositiveIntegerField()
    computed_at = models.DateTimeField()

    class Meta:
        db_table = "leaderboard_batchrating"
        ordering = ["league", "rank"]
        constraints = [
            models.UniqueConstraint(fields=["league", "bot"], name="batchrating_unique_bot")
        ]
        indexes = [models.Index(fields=["league", "rank"], name="batchrating_standings")]


class HeadToHead(models.Model):
    """A bot's record against one opponent (a bot of another team in the same match) in a
    league, over the results that are out: added to in the result's own transaction
    wherever the shown standings are (``arena.ratings.headtohead``), rebuilt by
    ``league recompute-standings --fix``."""

    league = models.ForeignKey("arena.League", on_delete=models.CASCADE, related_name="+")
    bot = models.ForeignKey("arena.Bot", on_delete=models.CASCADE, related_name="+")
    opponent = models.ForeignKey("arena.Bot", on_delete=models.CASCADE, related_name="+")
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["league", "bot", "opponent"]
        constraints = [
            models.UniqueConstraint(
                fields=["league", "bot", "opponent"], name="headtohead_unique_pair"
            )
        ]

    def __str__(self) -> str:
        return f"{self.bot_id} v {self.opponent_id} in {self.league_id}: {self.wins}/{self.games}"


class VersionRating(models.Model):
    """The live rating of one version of a hosted bot in a league (``arena.ratings.versions``).

    Each version is its own player: a match's change goes to the version that played it.
    The bot's ``LiveRating`` row carries the rating of its **current** version (one per
    league and bot, ``current``), so standings, pages and the API read the bot's row as
    before; a switch of version (a new upload activated, or a switch back) makes another
    version current and copies its rating into the bot's row. A new version starts at its
    parent's rating (``start``), so the league's total moves by what versions brought in:
    ``sum(LiveRating) = 1500 x rows + sum(current: rating - 1500) - sum(all: rating - start)``
    (checked by ``tests/hosting/test_version_ratings.py``; a match's changes sum to zero, and
    ``league recompute-ratings`` checks every row against the ledger)."""

    league = models.ForeignKey("arena.League", on_delete=models.CASCADE, related_name="+")
    bot = models.ForeignKey("arena.Bot", on_delete=models.CASCADE, related_name="+")
    version = models.ForeignKey(
        "hosting.CodeVersion", on_delete=models.CASCADE, related_name="ratings"
    )
    rating = models.DecimalField(max_digits=12, decimal_places=4, default=START_RATING)
    #: the rating it started from: its parent's when it became current, else 1500
    start = models.DecimalField(max_digits=12, decimal_places=4, default=START_RATING)
    #: the bot's row (``LiveRating``) carries this version's rating
    current = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["league", "bot", "version"]
        constraints = [
            models.UniqueConstraint(
                fields=["league", "version"], name="versionrating_unique_version"
            ),
            models.UniqueConstraint(
                fields=["league", "bot"],
                condition=models.Q(current=True),
                name="versionrating_one_current",
            ),
        ]
        indexes = [models.Index(fields=["bot", "league"], name="versionrating_bot")]

    def __str__(self) -> str:
        return f"version {self.version_id} in {self.league_id}: {self.rating}"


class VersionFit(models.Model):
    """A hosted bot's version as its own player in the league's latest batch fit (replaced
    with ``BatchRating``, whose row for the bot is its current version's)."""

    league = models.ForeignKey("arena.League", on_delete=models.CASCADE, related_name="+")
    bot = models.ForeignKey("arena.Bot", on_delete=models.CASCADE, related_name="+")
    version = models.ForeignKey(
        "hosting.CodeVersion", on_delete=models.CASCADE, related_name="fits"
    )
    elo = models.FloatField()
    low = models.FloatField()
    high = models.FloatField()
    games = models.PositiveIntegerField()
    computed_at = models.DateTimeField()

    class Meta:
        ordering = ["league", "bot", "version"]
        constraints = [
            models.UniqueConstraint(fields=["league", "version"], name="versionfit_unique")
        ]

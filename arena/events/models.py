"""A tournament, its entrants (seeded at the start) and the byes it gave."""

from __future__ import annotations

from django.db import models

from arena.models import Bot, League


class TournamentFormat(models.TextChoices):
    #: seeded bracket (1 v N); winners advance; byes for the top seeds
    KNOCKOUT = "knockout", "knockout"
    #: N rounds paired by score without repeats (Dutch-style), Buchholz tie-break
    SWISS = "swiss", "Swiss"
    #: every pair once, a round per circle-method slot
    ROUND_ROBIN = "round_robin", "round robin"


class TournamentStatus(models.TextChoices):
    #: entrants may change; nothing is played
    DRAFT = "draft", "draft"
    #: its rounds are played one after the other
    RUNNING = "running", "running"
    #: its last round is over; the final table stands
    FINISHED = "finished", "finished"


class Tournament(models.Model):
    """A one-off event. Its games are played in ``league``, a league of its own (hidden
    from the league lists) whose rounds ``arena.events.advance`` writes one at a time,
    each when the one before is over."""

    name = models.CharField(max_length=60, unique=True)
    slug = models.SlugField(max_length=60, unique=True)
    description = models.TextField(blank=True)
    format = models.CharField(max_length=16, choices=TournamentFormat.choices)
    status = models.CharField(
        max_length=16, choices=TournamentStatus.choices, default=TournamentStatus.DRAFT
    )
    league = models.OneToOneField(League, on_delete=models.PROTECT, related_name="tournament")
    #: Swiss: how many rounds (knockout and round robin: as many as the format needs)
    rounds = models.PositiveSmallIntegerField(default=0)
    #: games per pairing (a knockout tie): teams swapped every other game; with mirrored
    #: deals each two games share a deal (so it must be even)
    games_per_pairing = models.PositiveSmallIntegerField(default=2)
    #: seeds (and the Swiss's rating order) come from the bots' live ratings in this
    #: league; none: the order the entrants were listed in
    seed_league = models.ForeignKey(
        League, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    winner = models.ForeignKey(
        Bot, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "name"]

    def __str__(self) -> str:
        return self.name


class Entrant(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entrants")
    bot = models.ForeignKey(Bot, on_delete=models.PROTECT, related_name="+")
    #: where it was listed (the seed order when there is no seed league)
    listed = models.PositiveSmallIntegerField(default=0)
    #: 1 = top seed; set when the tournament starts
    seed = models.PositiveSmallIntegerField(null=True, blank=True)
    #: its live rating in the seed league at the start (None: no seed league)
    seed_rating = models.DecimalField(max_digits=12, decimal_places=4, null=True, blank=True)

    class Meta:
        ordering = ["tournament", "seed", "listed"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "bot"], name="entrant_unique_bot"),
        ]

    def __str__(self) -> str:
        return f"{self.bot} in {self.tournament}"


class Bye(models.Model):
    """A round a bot did not play: Swiss (odd count: a point) or knockout (a top seed
    goes through round 1)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="byes")
    round_number = models.PositiveSmallIntegerField()
    bot = models.ForeignKey(Bot, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["tournament", "round_number", "bot"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "round_number", "bot"], name="bye_unique_round_bot"
            ),
        ]

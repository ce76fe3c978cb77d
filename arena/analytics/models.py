"""One row of counters per (league, bot, opponent), and one per (league, bot) over every
opponent (``opponent`` empty): a 4-seat match counts once overall but for each opposing
bot in its per-opponent rows. Every field adds up, so a match's counts are added in its
result's transaction and never recomputed."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

#: decision time buckets, upper bounds in ms (the last is everything slower)
LATENCY_BUCKETS_MS = (1, 10, 100, 1000, 5000)
LATENCY_LABELS = ("< 1 ms", "1–10 ms", "10–100 ms", "0.1–1 s", "1–5 s", "> 5 s")


class BotAnalytics(models.Model):
    league = models.ForeignKey("arena.League", on_delete=models.CASCADE, related_name="+")
    bot = models.ForeignKey("arena.Bot", on_delete=models.CASCADE, related_name="analytics")
    opponent = models.ForeignKey(
        "arena.Bot", on_delete=models.CASCADE, null=True, blank=True, related_name="+",
        help_text="empty: over every opponent",
    )  # fmt: skip
    games = models.PositiveIntegerField(default=0)
    #: offers whose face-down card this bot played, and how many of them were taken
    offers = models.PositiveIntegerField(default=0)
    face_down_taken = models.PositiveIntegerField(default=0)
    #: over those offers: the offering team's advantage (meeple distance) after the
    #: opponent's choice minus what the other choice would have left it, summed
    gain_total = models.FloatField(default=0.0)
    #: the opponent recruited its third copy from one of this bot's offers
    handed_third_daredevil = models.PositiveIntegerField(default=0)
    handed_third_codebreaker = models.PositiveIntegerField(default=0)
    #: {end reason: games} won and lost
    end_for = models.JSONField(default=dict)
    end_against = models.JSONField(default=dict)
    decisions = models.PositiveIntegerField(default=0)
    #: decisions per LATENCY_BUCKETS_MS bucket
    latency = models.JSONField(default=list)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["league", "bot", "opponent"], name="analytics_one_row_per_opponent"
            ),
            models.UniqueConstraint(
                fields=["league", "bot"], condition=Q(opponent__isnull=True),
                name="analytics_one_overall_row",
            ),
        ]  # fmt: skip

    def __str__(self) -> str:
        return f"{self.bot_id} vs {self.opponent_id or 'all'} in {self.league_id}"

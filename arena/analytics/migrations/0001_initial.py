"""The squashed initial schema of this app (written by makemigrations on 2026-12-04,
replacing the history before it; docs/changelog.md)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("arena", "0001_initial"),
    ]

    operations = [
        migrations.CreateModel(
            name="BotAnalytics",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("games", models.PositiveIntegerField(default=0)),
                ("offers", models.PositiveIntegerField(default=0)),
                ("face_down_taken", models.PositiveIntegerField(default=0)),
                ("gain_total", models.FloatField(default=0.0)),
                ("handed_third_daredevil", models.PositiveIntegerField(default=0)),
                ("handed_third_codebreaker", models.PositiveIntegerField(default=0)),
                ("end_for", models.JSONField(default=dict)),
                ("end_against", models.JSONField(default=dict)),
                ("decisions", models.PositiveIntegerField(default=0)),
                ("latency", models.JSONField(default=list)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "bot",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="analytics",
                        to="arena.bot",
                    ),
                ),
                (
                    "league",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="arena.league",
                    ),
                ),
                (
                    "opponent",
                    models.ForeignKey(
                        blank=True,
                        help_text="empty: over every opponent",
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="arena.bot",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("league", "bot", "opponent"), name="analytics_one_row_per_opponent"
                    ),
                    models.UniqueConstraint(
                        condition=models.Q(("opponent__isnull", True)),
                        fields=("league", "bot"),
                        name="analytics_one_overall_row",
                    ),
                ],
            },
        ),
    ]

"""The squashed initial schema of this app (written by makemigrations on 2026-12-04,
replacing the history before it; docs/changelog.md)."""

from decimal import Decimal

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("arena", "0001_initial"),
        ("hosting", "0001_initial"),
    ]

    operations = [
        migrations.CreateModel(
            name="BatchRating",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("elo", models.FloatField()),
                ("low", models.FloatField()),
                ("high", models.FloatField()),
                ("rank", models.PositiveIntegerField()),
                ("rank_low", models.PositiveIntegerField()),
                ("rank_high", models.PositiveIntegerField()),
                ("games", models.PositiveIntegerField()),
                ("bootstrap", models.PositiveIntegerField()),
                ("matches", models.PositiveIntegerField()),
                ("computed_at", models.DateTimeField()),
                (
                    "bot",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="batch_ratings",
                        to="arena.bot",
                    ),
                ),
                (
                    "league",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="batch_ratings",
                        to="arena.league",
                    ),
                ),
            ],
            options={
                "db_table": "leaderboard_batchrating",
                "ordering": ["league", "rank"],
                "indexes": [models.Index(fields=["league", "rank"], name="batchrating_standings")],
                "constraints": [
                    models.UniqueConstraint(fields=("league", "bot"), name="batchrating_unique_bot")
                ],
            },
        ),
        migrations.CreateModel(
            name="LiveRating",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "rating",
                    models.DecimalField(
                        decimal_places=4, default=Decimal("1500.0000"), max_digits=12
                    ),
                ),
                ("games", models.PositiveIntegerField(default=0)),
                ("wins", models.PositiveIntegerField(default=0)),
                ("losses", models.PositiveIntegerField(default=0)),
                ("forfeits", models.PositiveIntegerField(default=0)),
                (
                    "shown_rating",
                    models.DecimalField(
                        decimal_places=4, default=Decimal("1500.0000"), max_digits=12
                    ),
                ),
                ("shown_games", models.PositiveIntegerField(default=0)),
                ("shown_wins", models.PositiveIntegerField(default=0)),
                ("shown_losses", models.PositiveIntegerField(default=0)),
                ("shown_forfeits", models.PositiveIntegerField(default=0)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "bot",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="live_ratings",
                        to="arena.bot",
                    ),
                ),
                (
                    "league",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="live_ratings",
                        to="arena.league",
                    ),
                ),
            ],
            options={
                "db_table": "leaderboard_liverating",
                "ordering": ["league", "-rating"],
                "indexes": [
                    models.Index(fields=["league", "-rating"], name="liverating_standings")
                ],
                "constraints": [
                    models.UniqueConstraint(fields=("league", "bot"), name="liverating_unique_bot")
                ],
            },
        ),
        migrations.CreateModel(
            name="RatedMatch",
            fields=[
                ("id", models.BigAutoField(primary_key=True, serialize=False)),
                ("k_factor", models.FloatField()),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "league",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="arena.league",
                    ),
                ),
                (
                    "match",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="rating",
                        to="arena.match",
                    ),
                ),
            ],
            options={
                "db_table": "leaderboard_ratedmatch",
                "ordering": ["id"],
                "indexes": [models.Index(fields=["league", "id"], name="ratedmatch_league_order")],
            },
        ),
        migrations.CreateModel(
            name="VersionFit",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("elo", models.FloatField()),
                ("low", models.FloatField()),
                ("high", models.FloatField()),
                ("games", models.PositiveIntegerField()),
                ("computed_at", models.DateTimeField()),
                (
                    "bot",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
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
                    "version",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="fits",
                        to="hosting.codeversion",
                    ),
                ),
            ],
            options={
                "ordering": ["league", "bot", "version"],
                "constraints": [
                    models.UniqueConstraint(fields=("league", "version"), name="versionfit_unique")
                ],
            },
        ),
        migrations.CreateModel(
            name="VersionRating",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "rating",
                    models.DecimalField(
                        decimal_places=4, default=Decimal("1500.0000"), max_digits=12
                    ),
                ),
                (
                    "start",
                    models.DecimalField(
                        decimal_places=4, default=Decimal("1500.0000"), max_digits=12
                    ),
                ),
                ("current", models.BooleanField(default=False)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "bot",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
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
                    "version",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="ratings",
                        to="hosting.codeversion",
                    ),
                ),
            ],
            options={
                "ordering": ["league", "bot", "version"],
                "indexes": [models.Index(fields=["bot", "league"], name="versionrating_bot")],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("league", "version"), name="versionrating_unique_version"
                    ),
                    models.UniqueConstraint(
                        condition=models.Q(("current", True)),
                        fields=("league", "bot"),
                        name="versionrating_one_current",
                    ),
                ],
            },
        ),
    ]

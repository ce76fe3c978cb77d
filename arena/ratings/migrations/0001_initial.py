"""The rating models move from the leaderboard app to the competition domain's ratings app,
with their tables and rows (db_table keeps the leaderboard_* names)."""

from decimal import Decimal

import django.db.models.deletion
from django.db import migrations, models


def _relabel(old: str, new: str, models: tuple[str, ...]):
    """Move the content types (and so the permissions and admin log entries) with the
    models: the rows keep their ids, only their app label changes."""

    def run(apps, schema_editor):
        ContentType = apps.get_model("contenttypes", "ContentType")
        for model in models:
            if not ContentType.objects.filter(app_label=new, model=model).exists():
                ContentType.objects.filter(app_label=old, model=model).update(app_label=new)

    return run


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("arena", "0004_botversion"),
        ("leaderboard", "0002_web"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            # the tables exist already (made by the leaderboard app): state only
            state_operations=[
                migrations.CreateModel(
                    name="BatchRating",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
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
                        "indexes": [
                            models.Index(fields=["league", "rank"], name="batchrating_standings")
                        ],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("league", "bot"), name="batchrating_unique_bot"
                            )
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="LiveRating",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
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
                            models.UniqueConstraint(
                                fields=("league", "bot"), name="liverating_unique_bot"
                            )
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
                        "indexes": [
                            models.Index(fields=["league", "id"], name="ratedmatch_league_order")
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(
            _relabel("leaderboard", "ratings", ("liverating", "ratedmatch", "batchrating")),
            _relabel("ratings", "leaderboard", ("liverating", "ratedmatch", "batchrating")),
        ),
    ]

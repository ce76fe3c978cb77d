"""The head-to-head records of the results that are out (``arena.ratings.headtohead``),
counted from the matches there are: a finished match's seats, unless it is a game of a
mirrored pair whose other game is queued or running (withheld, as in the standings).
Written by makemigrations on 2026-12-07; the count added by hand. One statement on
PostgreSQL and SQLite; ``league recompute-standings NAME`` checks the rows afterwards."""

import django.db.models.deletion
from django.db import migrations, models


def count_from_matches(apps, schema_editor):  # noqa: ANN001, ANN201 - Django's signature
    head, part, match = (
        schema_editor.quote_name(apps.get_model(*m)._meta.db_table)
        for m in (("ratings", "HeadToHead"), ("arena", "Participation"), ("arena", "Match"))
    )
    sql = (
        f"INSERT INTO {head} (league_id, bot_id, opponent_id, games, wins)"
        " SELECT p.league_id, p.bot_id, o.bot_id, COUNT(*),"
        " SUM(CASE WHEN p.won THEN 1 ELSE 0 END)"
        f" FROM {part} p JOIN {part} o ON o.match_id = p.match_id"
        "   AND o.team <> p.team AND o.bot_id <> p.bot_id"
        f" JOIN {match} m ON m.id = p.match_id"
        " WHERE m.status = %s AND p.won IS NOT NULL AND NOT EXISTS ("
        f"   SELECT 1 FROM {match} x WHERE x.round_id = m.round_id"
        "   AND x.pairing_key = m.pairing_key AND x.pair_index = m.pair_index"
        "   AND x.deck_seed = m.deck_seed AND x.id <> m.id AND x.status IN (%s, %s))"
        " GROUP BY p.league_id, p.bot_id, o.bot_id"
    )
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(sql, ["finished", "queued", "running"])


class Migration(migrations.Migration):
    dependencies = [
        ("arena", "0002_participation_code_version"),
        ("ratings", "0001_initial"),
    ]

    operations = [
        migrations.CreateModel(
            name="HeadToHead",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("games", models.PositiveIntegerField(default=0)),
                ("wins", models.PositiveIntegerField(default=0)),
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
                    "opponent",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="arena.bot",
                    ),
                ),
            ],
            options={
                "ordering": ["league", "bot", "opponent"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("league", "bot", "opponent"), name="headtohead_unique_pair"
                    )
                ],
            },
        ),
        migrations.RunPython(count_from_matches, migrations.RunPython.noop, elidable=True),
    ]

"""The squashed initial schema of this app (written by makemigrations on 2026-12-04,
replacing the history before it; docs/changelog.md)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    # the history before the squash: a database that ran it needs nothing new
    replaces = [
        ("arena", "0011_participation_code_version"),
    ]

    initial = True

    dependencies = [
        ("arena", "0001_initial"),
        ("hosting", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="participation",
            name="code_version",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="participations",
                to="hosting.codeversion",
            ),
        ),
        migrations.AddField(
            model_name="participation",
            name="entry",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="participations",
                to="arena.entry",
            ),
        ),
        migrations.AddField(
            model_name="participation",
            name="league",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="participations",
                to="arena.league",
            ),
        ),
        migrations.AddField(
            model_name="participation",
            name="match",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="participations",
                to="arena.match",
            ),
        ),
        migrations.AddField(
            model_name="round",
            name="league",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="rounds",
                to="arena.league",
            ),
        ),
        migrations.AddField(
            model_name="match",
            name="round",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="matches",
                to="arena.round",
            ),
        ),
        migrations.AddConstraint(
            model_name="bot",
            constraint=models.CheckConstraint(
                condition=models.Q(("name__regex", "\\A[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}\\Z")),
                name="bot_name_rule",
            ),
        ),
        migrations.AddConstraint(
            model_name="botversion",
            constraint=models.UniqueConstraint(
                fields=("bot", "version", "protocol_version"), name="botversion_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="entry",
            constraint=models.UniqueConstraint(
                fields=("league", "bot"), name="entry_unique_league_bot"
            ),
        ),
        migrations.AddIndex(
            model_name="participation",
            index=models.Index(fields=["bot", "-match"], name="participation_bot_recent"),
        ),
        migrations.AddIndex(
            model_name="participation",
            index=models.Index(fields=["league", "bot", "-match"], name="participation_league_bot"),
        ),
        migrations.AddConstraint(
            model_name="participation",
            constraint=models.UniqueConstraint(
                fields=("match", "seat"), name="participation_unique_seat"
            ),
        ),
        migrations.AddConstraint(
            model_name="round",
            constraint=models.UniqueConstraint(
                fields=("league", "number"), name="round_unique_number"
            ),
        ),
        migrations.AddIndex(
            model_name="match",
            index=models.Index(
                fields=["league", "status", "-finished_at"], name="match_league_status"
            ),
        ),
        migrations.AddIndex(
            model_name="match",
            index=models.Index(fields=["league", "-finished_at"], name="match_league_finished"),
        ),
        migrations.AddIndex(
            model_name="match",
            index=models.Index(fields=["status", "lease_expires_at"], name="match_status_lease"),
        ),
        migrations.AddIndex(
            model_name="match",
            index=models.Index(fields=["-finished_at"], name="match_finished"),
        ),
        migrations.AddConstraint(
            model_name="match",
            constraint=models.UniqueConstraint(
                fields=("round", "pairing_key", "pair_index", "mirror"),
                name="match_unique_game_of_round",
            ),
        ),
        migrations.AddConstraint(
            model_name="match",
            constraint=models.CheckConstraint(
                condition=models.Q(("rated", False), ("status", "finished"), _connector="OR"),
                name="match_rated_only_when_finished",
            ),
        ),
        migrations.AddConstraint(
            model_name="match",
            constraint=models.CheckConstraint(
                condition=models.Q(("mirror__in", [0, 1])), name="match_mirror_0_or_1"
            ),
        ),
    ]

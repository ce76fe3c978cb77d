"""A counter of a round's matches not over yet, so that a result completes its round
without counting the round's matches. Rounds still playing get their count here; rounds
already complete keep NULL (nothing is pending)."""

from django.db import migrations, models

COUNT_PLAYING = """
UPDATE arena_round SET pending_matches = (
    SELECT COUNT(*) FROM arena_match m
     WHERE m.round_id = arena_round.id AND m.status IN ('queued', 'running')
) WHERE status = 'playing'
"""


class Migration(migrations.Migration):
    dependencies = [("arena", "0010_merge_0009_alter_bot_kind_0009_merge_20261201_1145")]

    operations = [
        migrations.AddField(
            model_name="round",
            name="pending_matches",
            field=models.IntegerField(blank=True, editable=False, null=True),
        ),
        migrations.RunSQL(COUNT_PLAYING, migrations.RunSQL.noop),
    ]

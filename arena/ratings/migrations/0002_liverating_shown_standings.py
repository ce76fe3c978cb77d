"""The standings as shown, kept on the rating rows. Existing rows start equal to the
live columns (exact unless a mirrored pair was half played at the upgrade:
``manage.py league recompute-standings NAME --fix`` then makes them exact)."""

from decimal import Decimal

from django.db import migrations, models

COPY = """
UPDATE leaderboard_liverating SET shown_rating = rating, shown_games = games,
       shown_wins = wins, shown_losses = losses, shown_forfeits = forfeits
"""


class Migration(migrations.Migration):
    dependencies = [("ratings", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="liverating",
            name="shown_rating",
            field=models.DecimalField(
                decimal_places=4, default=Decimal("1500.0000"), max_digits=12
            ),
        ),
        migrations.AddField(
            model_name="liverating",
            name="shown_games",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="liverating", name="shown_wins", field=models.PositiveIntegerField(default=0)
        ),
        migrations.AddField(
            model_name="liverating",
            name="shown_losses",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="liverating",
            name="shown_forfeits",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.RunSQL(COPY, migrations.RunSQL.noop),
    ]

"""The rating models and BotVersion now belong to the competition domain (arena, ratings):
the leaderboard app forgets them; their tables stay, owned by the new models."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0002_web"),
        ("arena", "0004_botversion"),
        ("ratings", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            # the tables exist already (made by the leaderboard app): state only
            state_operations=[
                migrations.RemoveField(
                    model_name="botversion",
                    name="bot",
                ),
                migrations.RemoveField(
                    model_name="liverating",
                    name="bot",
                ),
                migrations.RemoveField(
                    model_name="liverating",
                    name="league",
                ),
                migrations.RemoveField(
                    model_name="ratedmatch",
                    name="league",
                ),
                migrations.RemoveField(
                    model_name="ratedmatch",
                    name="match",
                ),
                migrations.DeleteModel(
                    name="BatchRating",
                ),
                migrations.DeleteModel(
                    name="BotVersion",
                ),
                migrations.DeleteModel(
                    name="LiveRating",
                ),
                migrations.DeleteModel(
                    name="RatedMatch",
                ),
            ],
            database_operations=[],
        ),
    ]

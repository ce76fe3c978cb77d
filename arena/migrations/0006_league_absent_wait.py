# A round played in one process waits this long for absent bots at its end (issue 11 §3).

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("arena", "0005_league_live_delay"),
    ]

    operations = [
        migrations.AddField(
            model_name="league",
            name="absent_wait_s",
            field=models.PositiveIntegerField(
                default=60,
                help_text=(
                    "seconds a round played by `league run` or the demo waits at its end for "
                    "absent bots; then their matches follow the no-show policy"
                ),
            ),
        ),
    ]

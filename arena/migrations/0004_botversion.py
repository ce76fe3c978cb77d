"""BotVersion moves from the leaderboard app to the competition domain, with its table and rows."""

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
    dependencies = [
        ("arena", "0003_match_duration_float"),
        ("leaderboard", "0002_web"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            # the tables exist already (made by the leaderboard app): state only
            state_operations=[
                migrations.CreateModel(
                    name="BotVersion",
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
                        ("version", models.CharField(blank=True, max_length=100)),
                        ("protocol_version", models.PositiveIntegerField()),
                        ("first_seen", models.DateTimeField()),
                        ("last_seen", models.DateTimeField()),
                        ("hellos", models.PositiveIntegerField(default=1)),
                        (
                            "bot",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="versions",
                                to="arena.bot",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "leaderboard_botversion",
                        "ordering": ["bot", "-last_seen"],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("bot", "version", "protocol_version"),
                                name="botversion_unique",
                            )
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(
            _relabel("leaderboard", "arena", ("botversion",)),
            _relabel("arena", "leaderboard", ("botversion",)),
        ),
    ]

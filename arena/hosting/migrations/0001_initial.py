"""The squashed initial schema of this app (written by makemigrations on 2026-12-04,
replacing the history before it; docs/changelog.md)."""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("arena", "0001_initial"),
    ]

    operations = [
        migrations.CreateModel(
            name="CodeVersion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.PositiveIntegerField()),
                ("archive", models.BinaryField(max_length=4194304)),
                ("sha256", models.CharField(max_length=64)),
                ("entry_point", models.CharField(max_length=200)),
                ("filename", models.CharField(max_length=200)),
                ("size", models.PositiveIntegerField()),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("checking", "checking"),
                            ("ready", "ready"),
                            ("rejected", "rejected"),
                        ],
                        default="checking",
                        max_length=16,
                    ),
                ),
                ("check_log", models.TextField(blank=True)),
                ("checker", models.CharField(blank=True, max_length=128)),
                ("check_lease_until", models.DateTimeField(blank=True, null=True)),
                ("check_attempts", models.PositiveSmallIntegerField(default=0)),
                ("active", models.BooleanField(default=False)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("checked_at", models.DateTimeField(blank=True, null=True)),
                (
                    "bot",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="code_versions",
                        to="arena.bot",
                    ),
                ),
                (
                    "parent",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="children",
                        to="hosting.codeversion",
                    ),
                ),
            ],
            options={
                "ordering": ["bot", "-number"],
            },
        ),
        migrations.CreateModel(
            name="SandboxFault",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("match_id", models.CharField(max_length=64)),
                (
                    "cause",
                    models.CharField(
                        choices=[
                            ("timeout", "timeout"),
                            ("disconnect", "disconnect"),
                            ("illegal_action", "illegal action"),
                            ("malformed_action", "malformed action"),
                            ("no_show", "no-show"),
                            ("crash", "crash"),
                            ("message_too_large", "message too large"),
                            ("memory", "memory"),
                            ("invalid_output", "invalid output"),
                            ("process_limit", "process limit"),
                        ],
                        max_length=32,
                    ),
                ),
                ("detail", models.TextField(blank=True)),
                ("stderr", models.TextField(blank=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "bot",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="sandbox_faults",
                        to="arena.bot",
                    ),
                ),
                (
                    "version",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        to="hosting.codeversion",
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at"],
            },
        ),
        migrations.CreateModel(
            name="VersionTest",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("elo0", models.FloatField(default=0.0)),
                ("elo1", models.FloatField(default=50.0)),
                ("alpha", models.FloatField(default=0.05)),
                ("beta", models.FloatField(default=0.05)),
                ("max_games", models.PositiveIntegerField(default=400)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("running", "running"),
                            ("h1", "H1 accepted"),
                            ("h0", "H0 accepted"),
                            ("budget", "budget exhausted"),
                            ("failed", "failed"),
                        ],
                        default="running",
                        max_length=16,
                    ),
                ),
                ("pairs", models.JSONField(default=list)),
                ("wins", models.PositiveIntegerField(default=0)),
                ("draws", models.PositiveIntegerField(default=0)),
                ("losses", models.PositiveIntegerField(default=0)),
                ("candidate_faults", models.PositiveIntegerField(default=0)),
                ("baseline_faults", models.PositiveIntegerField(default=0)),
                ("llr", models.FloatField(default=0.0)),
                ("errors", models.PositiveIntegerField(default=0)),
                ("error", models.TextField(blank=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                ("worker", models.CharField(blank=True, max_length=200)),
                ("lease_expires_at", models.DateTimeField(blank=True, null=True)),
                ("touched_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "baseline",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="hosting.codeversion",
                    ),
                ),
                (
                    "bot",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="version_tests",
                        to="arena.bot",
                    ),
                ),
                (
                    "candidate",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="hosting.codeversion",
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at"],
            },
        ),
        migrations.AddIndex(
            model_name="codeversion",
            index=models.Index(fields=["status", "created_at"], name="codeversion_status"),
        ),
        migrations.AddConstraint(
            model_name="codeversion",
            constraint=models.UniqueConstraint(
                fields=("bot", "number"), name="codeversion_unique_number"
            ),
        ),
        migrations.AddConstraint(
            model_name="codeversion",
            constraint=models.UniqueConstraint(
                condition=models.Q(("active", True)), fields=("bot",), name="codeversion_one_active"
            ),
        ),
        migrations.AddConstraint(
            model_name="codeversion",
            constraint=models.CheckConstraint(
                condition=models.Q(("active", False), ("status", "ready"), _connector="OR"),
                name="codeversion_active_only_when_ready",
            ),
        ),
        migrations.AddIndex(
            model_name="sandboxfault",
            index=models.Index(fields=["bot", "-created_at"], name="sandboxfault_bot_recent"),
        ),
        migrations.AddConstraint(
            model_name="versiontest",
            constraint=models.UniqueConstraint(
                condition=models.Q(("status", "running")),
                fields=("bot",),
                name="versiontest_one_running",
            ),
        ),
    ]

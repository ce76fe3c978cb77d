"""The squashed initial schema of this app (written by makemigrations on 2026-12-04,
replacing the history before it; docs/changelog.md). One generated file: long because the
models are many, not because it does several things."""

import django.core.validators
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import arena.models


class Migration(migrations.Migration):
    # the history before the squash: a database that ran it needs nothing new
    replaces = [
        ("arena", "0001_bot"),
        ("arena", "0002_leagues"),
        ("arena", "0003_match_duration_float"),
        ("arena", "0004_botversion"),
        ("arena", "0005_independent_deals"),
        ("arena", "0005_league_live_delay"),
        ("arena", "0005_league_reconnect_grace"),
        ("arena", "0005_valid_bot_names"),
        ("arena", "0006_bot_name_rule"),
        ("arena", "0006_league_absent_wait"),
        ("arena", "0006_merge_0005_independent_deals_0005_league_live_delay"),
        ("arena", "0007_fault_message_too_large"),
        ("arena", "0007_merge_20261201_1115"),
        ("arena", "0008_merge_20261201_1121"),
        ("arena", "0009_alter_bot_kind"),
        ("arena", "0009_merge_20261201_1145"),
        ("arena", "0010_merge_0009_alter_bot_kind_0009_merge_20261201_1145"),
        ("arena", "0011_fault_causes_of_hosted_bots"),
        ("arena", "0011_league_format_round_scheduling"),
        ("arena", "0011_round_pending_matches"),
        ("arena", "0012_merge_20261201_1425"),
        ("arena", "0013_merge_20261201_1425"),
        ("arena", "0014_merge_20261201_1432"),
        ("arena", "0015_games_per_bot_on_average"),
        ("arena", "0016_incidents"),
        ("arena", "0017_match_reruns"),
    ]

    initial = True

    dependencies = [
        ("django_celery_beat", "0019_alter_periodictasks_options"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Match",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("pairing_key", models.CharField(max_length=64)),
                ("slot", models.PositiveIntegerField(default=0)),
                ("pair_index", models.PositiveSmallIntegerField(default=0)),
                ("mirror", models.PositiveSmallIntegerField(default=0)),
                ("deck_seed", arena.models.SeedField(max_length=39)),
                ("first_team", models.PositiveSmallIntegerField(default=0)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("queued", "queued"),
                            ("running", "running"),
                            ("finished", "finished"),
                            ("void", "void"),
                        ],
                        default="queued",
                        max_length=16,
                    ),
                ),
                ("not_before", models.DateTimeField(blank=True, null=True)),
                ("enqueued_at", models.DateTimeField(blank=True, null=True)),
                ("lease_expires_at", models.DateTimeField(blank=True, null=True)),
                ("attempts", models.PositiveIntegerField(default=0)),
                ("no_show_retries", models.PositiveSmallIntegerField(default=0)),
                ("attempt_base", models.PositiveIntegerField(default=0)),
                ("reruns", models.PositiveSmallIntegerField(default=0)),
                ("worker_id", models.CharField(blank=True, max_length=128)),
                ("error", models.TextField(blank=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("started_at", models.DateTimeField(blank=True, null=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                ("duration_ms", models.FloatField(blank=True, null=True)),
                ("winner_team", models.PositiveSmallIntegerField(blank=True, null=True)),
                (
                    "end_reason",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("catch", "catch"),
                            ("three_codebreakers", "three Codebreakers"),
                            ("three_daredevils", "three Daredevils"),
                            ("leader_of_the_pack", "Leader of the Pack"),
                            ("masterplan", "Masterplan"),
                            ("security_system", "Security System"),
                            ("home_space", "home space"),
                            ("out_of_cards", "out of cards"),
                            ("forfeit", "forfeit"),
                            ("aborted", "aborted"),
                            ("infrastructure", "infrastructure failures"),
                        ],
                        max_length=32,
                    ),
                ),
                ("turns", models.PositiveIntegerField(blank=True, null=True)),
                ("decisions", models.PositiveIntegerField(blank=True, null=True)),
                ("rated", models.BooleanField(default=False)),
            ],
            options={
                "verbose_name_plural": "matches",
                "ordering": ["id"],
            },
        ),
        migrations.CreateModel(
            name="Round",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.PositiveIntegerField()),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("scheduling", "scheduling"),
                            ("playing", "playing"),
                            ("complete", "complete"),
                        ],
                        default="playing",
                        max_length=16,
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("completed_at", models.DateTimeField(blank=True, null=True)),
                ("scheduled_matches", models.PositiveIntegerField(default=0)),
                ("pending_matches", models.IntegerField(blank=True, editable=False, null=True)),
            ],
            options={
                "ordering": ["league", "number"],
            },
        ),
        migrations.CreateModel(
            name="Bot",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "name",
                    models.CharField(
                        max_length=64,
                        unique=True,
                        validators=[
                            django.core.validators.RegexValidator(
                                "\\A[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}\\Z",
                                "use 1-64 ASCII letters, digits, '-', '_' or '.', not starting with '.'",
                            )
                        ],
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[("house", "house"), ("remote", "remote"), ("hosted", "hosted")],
                        default="remote",
                        max_length=16,
                    ),
                ),
                (
                    "token_hash",
                    models.CharField(
                        blank=True, editable=False, max_length=64, null=True, unique=True
                    ),
                ),
                ("token_prefix", models.CharField(blank=True, editable=False, max_length=16)),
                ("active", models.BooleanField(default=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("last_seen_at", models.DateTimeField(blank=True, null=True)),
                ("protocol_version", models.PositiveIntegerField(blank=True, null=True)),
                ("bot_version", models.CharField(blank=True, max_length=100)),
                ("house_spec", models.CharField(blank=True, max_length=32)),
                (
                    "owner",
                    models.ForeignKey(
                        blank=True,
                        help_text="empty for house bots",
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="bots",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["name"],
            },
        ),
        migrations.CreateModel(
            name="BotVersion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
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
            },
        ),
        migrations.CreateModel(
            name="League",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("name", models.CharField(max_length=80, unique=True)),
                ("slug", models.SlugField(max_length=80, unique=True)),
                ("description", models.TextField(blank=True)),
                (
                    "mode",
                    models.CharField(
                        choices=[("simple", "simple"), ("advanced", "advanced")],
                        default="simple",
                        max_length=16,
                    ),
                ),
                (
                    "seats",
                    models.PositiveSmallIntegerField(
                        default=2, help_text="2, 3 or 4 (3 and 4: teams)"
                    ),
                ),
                ("ruleset", models.CharField(default="standard", max_length=32)),
                ("ruleset_version", models.PositiveIntegerField(default=1)),
                (
                    "deals",
                    models.CharField(
                        choices=[
                            ("independent", "independent deals"),
                            ("mirrored", "mirrored pairs"),
                        ],
                        default="independent",
                        max_length=16,
                    ),
                ),
                (
                    "format",
                    models.CharField(
                        choices=[
                            ("round_robin", "round robin"),
                            ("information", "information matchmaking"),
                        ],
                        default="round_robin",
                        help_text="round robin: every pairing every round, n(n-1)/2 pairings, for small leagues; information matchmaking: each bot games-per-bot single games a round on average against opponents close in rating (2 seats, independent deals), for large ones",
                        max_length=16,
                    ),
                ),
                (
                    "games_per_bot",
                    models.PositiveSmallIntegerField(
                        default=10,
                        help_text="information matchmaking: a bot's games a round on average (from half to twice this, more for a bot whose rank is less certain)",
                    ),
                ),
                ("pairs_per_pairing", models.PositiveSmallIntegerField(default=1)),
                ("decision_ms", models.PositiveIntegerField(default=5000)),
                ("bank_ms", models.PositiveIntegerField(default=60000)),
                ("fault_policy", models.JSONField(blank=True, default=dict)),
                ("connect_grace_ms", models.PositiveIntegerField(default=2000)),
                ("reconnect_grace_ms", models.PositiveIntegerField(default=30000)),
                ("no_show_retries", models.PositiveSmallIntegerField(default=3)),
                ("no_show_window_s", models.PositiveIntegerField(default=300)),
                (
                    "absent_wait_s",
                    models.PositiveIntegerField(
                        default=60,
                        help_text="seconds a round played by `league run` or the demo waits at its end for absent bots; then their matches follow the no-show policy",
                    ),
                ),
                ("live_delay_decisions", models.PositiveSmallIntegerField(default=3)),
                ("k_factor", models.FloatField(default=24.0)),
                ("rated", models.BooleanField(default=True)),
                ("open_for_entries", models.BooleanField(default=True)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("active", "active"),
                            ("paused", "paused"),
                            ("finished", "finished"),
                        ],
                        default="active",
                        max_length=16,
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "schedule",
                    models.OneToOneField(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="league",
                        to="django_celery_beat.periodictask",
                    ),
                ),
            ],
            options={
                "ordering": ["name"],
            },
        ),
        migrations.CreateModel(
            name="Entry",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("active", models.BooleanField(default=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "bot",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="entries",
                        to="arena.bot",
                    ),
                ),
                (
                    "league",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="entries",
                        to="arena.league",
                    ),
                ),
            ],
            options={
                "ordering": ["league", "id"],
            },
        ),
        migrations.CreateModel(
            name="MatchReplay",
            fields=[
                (
                    "match",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="replay",
                        serialize=False,
                        to="arena.match",
                    ),
                ),
                ("record", models.JSONField()),
                ("report", models.JSONField(default=dict)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
            ],
        ),
        migrations.AddField(
            model_name="match",
            name="league",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="matches",
                to="arena.league",
            ),
        ),
        migrations.CreateModel(
            name="Incident",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("gateway_drain", "gateway draining"),
                            ("attempt_void", "attempt voided"),
                            ("match_rerun", "match voided and re-run"),
                        ],
                        max_length=32,
                    ),
                ),
                ("at", models.DateTimeField(db_index=True)),
                ("source", models.CharField(blank=True, max_length=128)),
                ("detail", models.TextField(blank=True)),
                (
                    "match",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="incidents",
                        to="arena.match",
                    ),
                ),
            ],
            options={
                "ordering": ["at"],
            },
        ),
        migrations.CreateModel(
            name="Participation",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("seat", models.PositiveSmallIntegerField()),
                ("team", models.PositiveSmallIntegerField()),
                ("won", models.BooleanField(blank=True, null=True)),
                (
                    "rating_before",
                    models.DecimalField(blank=True, decimal_places=4, max_digits=12, null=True),
                ),
                (
                    "rating_after",
                    models.DecimalField(blank=True, decimal_places=4, max_digits=12, null=True),
                ),
                (
                    "rating_change",
                    models.DecimalField(blank=True, decimal_places=4, max_digits=12, null=True),
                ),
                ("decisions", models.PositiveIntegerField(default=0)),
                ("auto_decisions", models.PositiveIntegerField(default=0)),
                ("latency_mean_ms", models.FloatField(blank=True, null=True)),
                ("latency_p50_ms", models.FloatField(blank=True, null=True)),
                ("latency_p90_ms", models.FloatField(blank=True, null=True)),
                ("latency_max_ms", models.FloatField(blank=True, null=True)),
                ("bank_left_ms", models.PositiveIntegerField(blank=True, null=True)),
                (
                    "fault_cause",
                    models.CharField(
                        blank=True,
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
                ("fault_detail", models.TextField(blank=True)),
                (
                    "bot",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="participations",
                        to="arena.bot",
                    ),
                ),
            ],
            options={
                "ordering": ["match", "seat"],
            },
        ),
    ]

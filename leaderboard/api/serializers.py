"""Input validation and the documented shapes of the API's answers.

Answers are built as plain dicts by ``leaderboard.reads`` (a page of 50 matches costs a
fraction of a millisecond that way); the serializers below describe them for the OpenAPI
schema, and ``tests/web/test_api.py`` checks answers against that schema.
"""

from __future__ import annotations

from rest_framework import serializers

from arena import names
from arena.models import LeagueFormat, LeagueMode, LeagueStatus, MatchStatus


class ErrorSerializer(serializers.Serializer):
    error = serializers.CharField(help_text="what went wrong, for a person")
    code = serializers.CharField(help_text="a stable machine-readable code")
    fields = serializers.DictField(required=False, help_text="per-field messages")


class LeagueSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    mode = serializers.ChoiceField(choices=LeagueMode.choices)
    seats = serializers.IntegerField()
    ruleset = serializers.CharField()
    format = serializers.ChoiceField(
        choices=LeagueFormat.choices,
        help_text="round_robin: every pairing every round; information: each bot "
        "games_per_bot single games a round against opponents close in rating",
    )
    games_per_bot = serializers.IntegerField(
        allow_null=True, help_text="games a bot plays a round (information format; else null)"
    )
    status = serializers.ChoiceField(choices=LeagueStatus.choices)
    open_for_entries = serializers.BooleanField()
    rated = serializers.BooleanField()
    entries = serializers.IntegerField()
    matches_played = serializers.IntegerField()
    live_matches = serializers.IntegerField()
    next_round_at = serializers.DateTimeField(allow_null=True)
    schedule_note = serializers.CharField(help_text="'by hand', 'paused', ... or empty")


class BatchSerializer(serializers.Serializer):
    elo = serializers.FloatField()
    low = serializers.FloatField(help_text="95% interval, lower end")
    high = serializers.FloatField(help_text="95% interval, upper end")
    rank = serializers.IntegerField(help_text="the fit's point rank among all its bots")
    rank_low = serializers.IntegerField(help_text="95% rank interval (identical fits share it)")
    rank_high = serializers.IntegerField()
    games = serializers.IntegerField()
    computed_at = serializers.DateTimeField()


class StandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField(
        allow_null=True,
        help_text="the batch fit's order among established bots (identical fits share a "
        "rank; bots not in a fit yet follow by live Elo); null for a provisional bot",
    )
    bot = serializers.CharField()
    owner = serializers.CharField(allow_null=True)
    kind = serializers.CharField()
    rating = serializers.FloatField(help_text="live Elo")
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    losses = serializers.IntegerField()
    forfeits = serializers.IntegerField()
    provisional = serializers.BooleanField()
    entered = serializers.BooleanField()
    batch = BatchSerializer(allow_null=True)


class StandingsSerializer(serializers.Serializer):
    league = serializers.CharField()
    provisional_games = serializers.IntegerField()
    batch_computed_at = serializers.DateTimeField(allow_null=True)
    standings = StandingSerializer(many=True)


class SeatSummarySerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    team = serializers.IntegerField()
    bot = serializers.CharField()
    won = serializers.BooleanField(allow_null=True)
    rating_change = serializers.FloatField(allow_null=True)
    fault = serializers.CharField(allow_null=True)


class MatchSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    league = serializers.CharField()
    played_in = serializers.ChoiceField(
        choices=["league", "event", "challenge"],
        help_text="league: a listed league; event: a tournament's own league (its page is "
        "the event's); challenge: a requested game (a challenge or sparring run), unrated, "
        "whose league has no page",
    )
    round = serializers.IntegerField()
    status = serializers.ChoiceField(choices=MatchStatus.choices)
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    winner_team = serializers.IntegerField(allow_null=True)
    end_reason = serializers.CharField(allow_null=True)
    turns = serializers.IntegerField(allow_null=True)
    rated = serializers.BooleanField()
    withheld = serializers.BooleanField(
        help_text="a finished game of a mirrored pair whose other game (same deck) is still "
        "being played: its result, turns, decisions and rating changes are null until then"
    )
    seats = SeatSummarySerializer(many=True)


class MatchPageSerializer(serializers.Serializer):
    results = MatchSummarySerializer(many=True)
    next = serializers.CharField(allow_null=True, help_text="URL of the next (older) page")


class SeatSerializer(SeatSummarySerializer):
    rating_before = serializers.FloatField(allow_null=True)
    rating_after = serializers.FloatField(allow_null=True)
    decisions = serializers.IntegerField(allow_null=True)
    auto_decisions = serializers.IntegerField(allow_null=True)
    latency_mean_ms = serializers.FloatField(allow_null=True)
    latency_p50_ms = serializers.FloatField(allow_null=True)
    latency_p90_ms = serializers.FloatField(allow_null=True)
    latency_max_ms = serializers.FloatField(allow_null=True)
    bank_left_ms = serializers.IntegerField(allow_null=True)
    fault_detail = serializers.CharField(allow_null=True)


class DroppedSerializer(serializers.Serializer):
    stale = serializers.IntegerField(
        help_text="from the bot being asked, but answering another decision (too late)"
    )
    foreign = serializers.IntegerField(help_text="from a bot that was not being asked")


class ResumeSerializer(serializers.Serializer):
    seats = serializers.ListField(child=serializers.IntegerField(), help_text="the bot's seats")
    bot = serializers.CharField()
    away_s = serializers.FloatField(
        allow_null=True,
        help_text="seconds from the drop to its new stream (null: back before the runner "
        "saw the old stream end)",
    )
    arena = serializers.BooleanField(
        help_text="the arena's doing (its gateway drained or died), not the bot's"
    )
    why = serializers.CharField(help_text="what ended its stream, as the runner learnt it")


class MatchSerializer(MatchSummarySerializer):
    mirror = serializers.IntegerField()
    pair_index = serializers.IntegerField()
    first_team = serializers.IntegerField()
    duration_ms = serializers.FloatField(allow_null=True)
    decisions = serializers.IntegerField(allow_null=True)
    replay = serializers.ChoiceField(
        choices=["available", "live", "withheld", "none"],
        help_text="available: replay and every perspective; live: spectator only; withheld: "
        "until the other game of the mirrored pair (same deck) is over; none: void",
    )
    dropped = DroppedSerializer(
        allow_null=True,
        help_text="answers the runner ignored (null until the match has finished)",
    )
    resumes = ResumeSerializer(
        many=True,
        help_text="remote bots whose stream dropped mid-match and came back within the "
        "reconnect grace (not charged; empty until the match has finished)",
    )
    seats = SeatSerializer(many=True)  # type: ignore[assignment]


class BotSerializer(serializers.Serializer):
    name = serializers.CharField()
    kind = serializers.CharField()
    owner = serializers.CharField(allow_null=True)
    active = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    bot_version = serializers.CharField()
    protocol_version = serializers.IntegerField(allow_null=True)
    last_seen_at = serializers.DateTimeField(allow_null=True)
    connected = serializers.BooleanField(allow_null=True)
    leagues = serializers.ListField(child=serializers.DictField())
    token_prefix = serializers.CharField(
        required=False, help_text="only for the bot's owner: the token's first characters"
    )
    versions = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text="hosted bots, bot detail only: each version per league: its games, wins, "
        "draws, losses, live rating (start_rating: its parent's when it became current), "
        "whether the bot's rating is this version's (current), and its batch fit "
        "(elo with a 95% interval) when there is one",
    )


class BotPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.CharField(allow_null=True)
    previous = serializers.CharField(allow_null=True)
    results = BotSerializer(many=True)


class BotCreateSerializer(serializers.Serializer):
    name = serializers.RegexField(
        names.ANCHORED,
        max_length=names.MAX_LENGTH,
        error_messages={"invalid": f"not a valid bot name: use {names.RULE}"},
    )


class TokenSerializer(serializers.Serializer):
    bot = serializers.CharField()
    token = serializers.CharField(help_text="shown this once; only its hash is stored")
    token_prefix = serializers.CharField()


class EntrySerializer(serializers.Serializer):
    league = serializers.SlugField(max_length=80)


class EntryResultSerializer(serializers.Serializer):
    bot = serializers.CharField()
    league = serializers.CharField()
    entered = serializers.BooleanField()


class CredentialsSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=512, style={"input_type": "password"})


class ApiKeySerializer(serializers.Serializer):
    key = serializers.CharField(help_text="send as `Authorization: Token <key>`; shown once")
    prefix = serializers.CharField()


class MeSerializer(serializers.Serializer):
    username = serializers.CharField()
    api_key_prefix = serializers.CharField(allow_null=True)
    bots = BotSerializer(many=True)


class ViewerSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    live = serializers.BooleanField()
    status = serializers.CharField()
    note = serializers.CharField()
    perspective = serializers.CharField()
    perspectives = serializers.ListField(child=serializers.CharField())
    mode = serializers.CharField()
    ruleset = serializers.CharField()
    teams = serializers.ListField(child=serializers.ListField(child=serializers.IntegerField()))
    seat_names = serializers.ListField(child=serializers.CharField())
    agents = serializers.DictField(child=serializers.CharField())
    frames = serializers.ListField(
        child=serializers.DictField(),
        help_text="one per step; each frame's clocks holds every seat's bank_ms left, "
        "last_ms (its previous answer) and, for the seat deciding there, thinking_ms",
    )
    time_control = serializers.DictField(
        child=serializers.IntegerField(),
        allow_null=True,
        help_text="the match's decision_ms and bank_ms (the league's)",
    )
    decided = serializers.DictField(
        allow_null=True,
        help_text="the moment the game was decided (null while it is played): step, turn, "
        "winner, and by_gap (the winner stayed ahead on the gap from that step to the end; "
        "false: it did not finish ahead, the step is the last one)",
    )


# ------------------------------------------------------------------ query parameters (schema)

SORTS = ["rank", "bot", "owner", "rating", "batch", "games", "wins", "losses", "forfeits"]


class StandingsQuery(serializers.Serializer):
    sort = serializers.ChoiceField(
        choices=SORTS + [f"-{k}" for k in SORTS], required=False,
        help_text="a column, ascending; a leading '-' for descending (-rating: highest first)",
    )  # fmt: skip


class FramesQuery(serializers.Serializer):
    perspective = serializers.RegexField(
        r"^(spectator|omniscient|seat:[0-9])$", required=False,
        help_text="seat:N, spectator (default) or omniscient; a match being played offers "
        "the spectator only",
    )  # fmt: skip


class BotListQuery(serializers.Serializer):
    owner = serializers.RegexField(
        r"^[\w.@+-]{1,150}$", required=False, help_text="only this user's bots"
    )
    page = serializers.IntegerField(min_value=1, max_value=10**6, required=False)
    page_size = serializers.IntegerField(min_value=1, max_value=200, required=False)


class MatchQuery(serializers.Serializer):
    league = serializers.RegexField(
        r"^[-a-zA-Z0-9_]{1,80}$", required=False, help_text="league slug"
    )
    bot = serializers.RegexField(
        names.ANCHORED, required=False, help_text="bot name: the matches it played in"
    )
    status = serializers.ChoiceField(choices=MatchStatus.choices, required=False)
    round = serializers.IntegerField(
        min_value=1, max_value=10**9, required=False, help_text="round number"
    )
    finished_after = serializers.RegexField(
        r"^[1-9][0-9]{3}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])$",
        required=False,
        help_text="a date (inclusive); ISO date-times are accepted too",
    )
    finished_before = serializers.RegexField(
        r"^[1-9][0-9]{3}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])$",
        required=False,
        help_text="a date (inclusive); ISO date-times are accepted too",
    )
    before = serializers.IntegerField(
        min_value=1,
        max_value=2**63 - 1,
        required=False,
        help_text="continue below this match id (from `next`)",
    )
    limit = serializers.IntegerField(
        min_value=1, max_value=200, required=False, help_text="matches per page, default 50"
    )


class AnalyticsQuery(serializers.Serializer):
    league = serializers.RegexField(
        r"^[-a-zA-Z0-9_]{1,80}$",
        required=False,
        help_text="league slug (default: all the bot's leagues)",
        error_messages={"invalid": "league must be a league's slug (letters, digits, '-', '_')"},
    )


class AnalyticsSerializer(serializers.Serializer):
    opponent = serializers.CharField(allow_null=True, help_text="null: every opponent")
    games = serializers.IntegerField()
    offers = serializers.IntegerField(help_text="offers whose face-down card the bot chose")
    face_down_taken = serializers.IntegerField()
    face_down_taken_rate = serializers.FloatField(allow_null=True)
    mean_gain_per_offer = serializers.FloatField(
        allow_null=True,
        help_text="spaces the offering team came out ahead against the other choice",
    )
    handed_third_daredevil = serializers.IntegerField()
    handed_third_codebreaker = serializers.IntegerField()
    end_reasons_won = serializers.DictField(child=serializers.IntegerField())
    end_reasons_lost = serializers.DictField(child=serializers.IntegerField())
    decisions = serializers.IntegerField()
    decision_ms = serializers.DictField(
        child=serializers.IntegerField(), help_text="decisions per time bucket"
    )


class BotAnalyticsSerializer(serializers.Serializer):
    bot = serializers.CharField()
    league = serializers.CharField(allow_null=True)
    held = serializers.BooleanField(
        help_text="one of the bot's mirrored games is not out yet (its partner is still to be "
        "played): the counters of its league are as they were before it"
    )
    overall = AnalyticsSerializer()
    opponents = AnalyticsSerializer(many=True)

"""Who may see which replay, and the viewer's frames for it.

The rules (the hidden-information promise of the arena, applied to the web):

* A match still being played (queued or running) shows **only the spectator view**: its
  public moves as the runner records them (``arena.services.live``), the league's
  ``live_delay_decisions`` behind, once the other game of its mirrored pair is over
  (before that, the deal only: the games share a deck). Every other perspective, the
  replay JSON and the deck seed are refused.
* The two games of a mirrored pair share a deck (a league option for house bots only;
  independent deals, the default, share nothing). A finished game's replay (any
  perspective, even the spectator's, since revealed cards give away the deck order) is
  **withheld until the other game of its pair is over** too: a bot must not look up the
  deck of the game it is still playing. So are its result, turns, decisions and rating
  changes, wherever a page or the API shows them (``withhold`` / ``withhold_summary``):
  how a deal played out tells as much about it.
* A match that ended without a replay (void) has none to show.

Domain errors only (``ReplayUnavailable`` and subclasses carry the status a view should
answer with); frames are cached, since a released replay never changes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from django.core.cache import cache
from django.db import connection
from django.db.models import TextField
from django.db.models.functions import Cast

from arena.adapters.play.matches import game_config
from arena.models import Match, MatchReplay, MatchStatus, Participation
from arena.services import gamedb, live
from avenue_sdk.protocol.timing import TimeControl
from avenue_sdk.viewer.frames import SPECTATOR, Perspective, PerspectiveError, parse_perspective
from avenue_sdk.viewer.frames import viewer_payload as build_payload
from referee import new_game
from referee.actions import IllegalAction, action_from_json
from referee.replay import ReplayError, from_json, record_game

OVER = gamedb.OVER
LIVE = (MatchStatus.QUEUED, MatchStatus.RUNNING)
LIVE_NOTE = (
    "Live: this match is being played. Its public moves appear as a spectator sees them, "
    "{delay} decision{s} behind the game; the page follows on its own and plays the game "
    "out to its last step when it is over."
)
PAIR_NOTE = (
    "Live: this match is being played while match {partner}, the other game of its mirrored "
    "pair, is not over. Both use the same deck, so this game's moves appear only once that "
    "one has ended; until then the deal is shown, as a spectator sees it."
)


class ReplayUnavailable(Exception):
    """The request cannot be served; ``status`` is the HTTP status a view answers with."""

    status = 404
    code = "no_replay"


class NoSuchMatch(ReplayUnavailable):
    code = "not_found"


class LiveMatch(ReplayUnavailable):
    status = 403
    code = "live_match"


class ReplayWithheld(ReplayUnavailable):
    status = 403
    code = "replay_withheld"


class BadPerspective(ReplayUnavailable):
    status = 400
    code = "bad_perspective"


class CorruptReplay(ReplayUnavailable):
    status = 409
    code = "corrupt_replay"


def pair_partner_playing(match: Match) -> Match | None:
    """The other game of the match's mirrored pair if it is not over yet. Only a partner
    dealt from the same seed counts: independently dealt games share nothing."""
    return (
        match.same_deal().exclude(pk=match.pk).exclude(status__in=OVER).only("id", "status").first()
    )


def replay_state(match: Match) -> str:
    """``live``, ``withheld``, ``none`` (void or missing) or ``available``."""
    if match.status in LIVE:
        return "live"
    if match.status != MatchStatus.FINISHED:
        return "none"
    if pair_partner_playing(match) is not None:
        return "withheld"
    return "available"


def check_replay_released(match: Match) -> None:
    """Raise unless the full replay of ``match`` may be shown to anyone."""
    if match.status in LIVE:
        raise LiveMatch(
            f"match {match.pk} is still being played: only the spectator view is available "
            "until it ends"
        )
    if match.status != MatchStatus.FINISHED:
        raise ReplayUnavailable(f"match {match.pk} is {match.status}: it has no replay")
    partner = pair_partner_playing(match)
    if partner is not None:
        raise ReplayWithheld(
            f"the replay of match {match.pk} is withheld until match {partner.pk}, the other "
            "game of its mirrored pair (same deck), is over"
        )


# ------------------------------------------------------------------ results of a pair


#: SQL: whether the finished match aliased ``m`` is withheld (its mirrored partner is not
#: over), with ``EMBARGO_PARAMS``: a column for statements that read matches anyway
WITHHELD_SQL = (
    f"m.status = %s AND EXISTS (SELECT 1 FROM {Match._meta.db_table} x"
    " WHERE x.round_id = m.round_id AND x.pairing_key = m.pairing_key"
    " AND x.pair_index = m.pair_index AND x.deck_seed = m.deck_seed AND x.id <> m.id"
    " AND x.status IN (%s, %s))"
)
EMBARGO_PARAMS = [str(MatchStatus.FINISHED), str(MatchStatus.QUEUED), str(MatchStatus.RUNNING)]


def withheld_ids(ids: Iterable[int]) -> set[int]:
    """Of these matches, the finished ones whose mirrored partner (same round, pairing,
    pair and seed) is not over. Every match list asks, so it is one plain statement on the
    index ``match_unique_game_of_round`` (about 0.1 ms in PostgreSQL for a page of 50;
    the ORM's Exists/OuterRef form took longer to compile than to run)."""
    wanted = [int(i) for i in ids]
    if not wanted:
        return set()
    table = Match._meta.db_table
    marks = ", ".join(["%s"] * len(wanted))
    sql = (
        f"SELECT m.id FROM {table} m WHERE m.id IN ({marks}) AND m.status = %s AND EXISTS"
        f" (SELECT 1 FROM {table} p WHERE p.round_id = m.round_id"
        " AND p.pairing_key = m.pairing_key AND p.pair_index = m.pair_index"
        " AND p.deck_seed = m.deck_seed AND p.id <> m.id AND p.status IN (%s, %s))"
    )
    statuses = [str(MatchStatus.FINISHED), str(MatchStatus.QUEUED), str(MatchStatus.RUNNING)]
    params: list[int | str] = [*wanted, *statuses]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return {row[0] for row in cursor.fetchall()}


#: what a withheld match does not show, and what a withheld seat does not
_MATCH_WITHHELD = {"winner_team": None, "end_reason": "", "turns": None, "decisions": None,
                   "duration_ms": None}  # fmt: skip
_SEAT_WITHHELD = {
    "won": None, "rating_before": None, "rating_after": None, "rating_change": None,
    "decisions": None, "auto_decisions": None, "latency_mean_ms": None,
    "latency_p50_ms": None, "latency_p90_ms": None, "latency_max_ms": None,
    "bank_left_ms": None, "fault_cause": "", "fault_detail": "",
}  # fmt: skip


def withhold(matches: Iterable[Match]) -> None:
    """Blank, in these instances (never saved), what a finished game of a mirrored pair
    would tell about the deal while its partner is still being played: the result, turns,
    decisions, seats' statistics and rating changes. Their prefetched participations are
    blanked too; ``m.withheld`` says which were."""
    rows = list(matches)
    hidden = withheld_ids(m.pk for m in rows if m.status == MatchStatus.FINISHED)
    for m in rows:
        m.withheld = m.pk in hidden  # type: ignore[attr-defined]
        if not m.withheld:  # type: ignore[attr-defined]
            continue
        for key, value in _MATCH_WITHHELD.items():
            setattr(m, key, value)
        for p in m.participations.all():
            for key, value in _SEAT_WITHHELD.items():
                setattr(p, key, value)


def withhold_seats(parts: Iterable[Participation]) -> None:
    """``withhold`` for a bot's own seats (the bot page's recent matches): each seat and
    its match, whose participations are prefetched."""
    rows = list(parts)
    withhold(p.match for p in rows)
    for p in rows:
        if p.match.withheld:  # type: ignore[attr-defined]
            for key, value in _SEAT_WITHHELD.items():
                setattr(p, key, value)


#: the API's names of the seat fields ``withhold`` blanks
_API_SEAT_WITHHELD = (*(k for k in _SEAT_WITHHELD if not k.startswith("fault_")), "fault",
                      "fault_detail")  # fmt: skip


def withhold_summary(summary: dict[str, Any]) -> dict[str, Any]:
    """The API's summary or detail of a withheld match (a copy): what ``withhold`` blanks,
    as null, and ``"withheld": true``."""
    out = {**summary, "withheld": True}
    for key in _MATCH_WITHHELD:
        if key in out:
            out[key] = None
    out["seats"] = [
        {**seat, **{k: None for k in _API_SEAT_WITHHELD if k in seat}}
        for seat in summary.get("seats", [])
    ]
    return out


def replay_text(match: Match) -> str:
    """The stored replay as JSON text, as the database holds it (not decoded here)."""
    check_replay_released(match)
    text = (
        MatchReplay.objects.filter(match_id=match.pk)
        .annotate(text=Cast("record", TextField()))
        .values_list("text", flat=True)
        .first()
    )
    if text is None:
        raise ReplayUnavailable(f"match {match.pk} has no stored replay")
    return str(text)


def replay_text_of(match_id: int) -> str:
    """``replay_text`` by id in one query when the replay may be shown (the common case);
    otherwise a second look says why not (unknown, live, void, withheld)."""
    row = (
        MatchReplay.objects.filter(match_id=match_id, match__status=MatchStatus.FINISHED)
        .annotate(text=Cast("record", TextField()), busy=gamedb.partner_busy())
        .values_list("text", "busy")
        .first()
    )
    if row is not None and not row[1]:
        return str(row[0])
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        raise NoSuchMatch(f"no match {match_id}")
    return replay_text(match)


def _time_control(match: Match) -> TimeControl:
    """The match's clock: its league's (the runner plays every match of a league with it)."""
    return TimeControl(match.league.decision_ms, match.league.bank_ms)


def _seat_names(match: Match) -> list[str]:
    return [p.bot.name for p in match.participations.select_related("bot").order_by("seat")]


def _perspective(name: str, record: Any) -> Perspective:
    try:
        return parse_perspective(name, record)
    except PerspectiveError as exc:
        raise BadPerspective(str(exc)) from None


class LiveFeed:
    """The spectator's view of a match being played, for one request or one stream: what
    does not change while it is played (its seats, its deal, its clock) read once, the
    public moves so far given to ``payload``, the league's delay behind, once the other
    game of its mirrored pair is over; until then the deal only (the pair shares a deck:
    revealed cards here would tell the bots there what the deck holds)."""

    def __init__(self, match: Match) -> None:
        self.match = match
        parts = list(match.participations.select_related("bot").order_by("seat"))
        self.initial = new_game(game_config(match.league, match, parts), match.deck_seed)
        self.names = [p.bot.name for p in parts]
        self.delay = match.league.live_delay_decisions

    def partner(self) -> Match | None:
        """The other game of the pair, while it is played (one query)."""
        return pair_partner_playing(self.match)

    def payload(self, decisions: list[dict[str, Any]], partner: Match | None) -> dict[str, Any]:
        actions = []
        if partner is None:
            shown = decisions[: max(0, len(decisions) - self.delay)]
            try:
                actions = [action_from_json(d["action"]) for d in shown]
                record = record_game(self.initial, actions)
            except (ReplayError, IllegalAction, KeyError, TypeError, ValueError):
                actions, record = [], record_game(self.initial, [])
            # the latencies the runner measured, as in a replay
            record = replace(record, decisions=tuple(
                replace(rd, latency_ms=d.get("latency_ms"))
                for rd, d in zip(record.decisions, shown, strict=False)
            ))  # fmt: skip
            note = LIVE_NOTE.format(delay=self.delay, s="" if self.delay == 1 else "s")
        else:
            record = record_game(self.initial, [])
            note = PAIR_NOTE.format(partner=partner.pk)
        match = self.match
        payload = build_payload(record, Perspective(SPECTATOR), self.names, _time_control(match))
        payload["perspectives"] = [SPECTATOR]
        payload.update(match=match.pk, live=True, status=match.status, note=note)
        return payload


def live_payload(match: Match) -> dict[str, Any]:
    """The spectator's view of a match being played now (``LiveFeed``)."""
    feed = LiveFeed(match)
    return feed.payload(live.decisions_so_far(match.pk), feed.partner())


def viewer_json(match: Match, perspective: str) -> dict[str, Any]:
    """What the viewer gets for ``match`` seen from ``perspective`` (see the module doc)."""
    if len(perspective) > 32:
        raise BadPerspective("unknown perspective")
    if match.status in LIVE:
        if perspective != SPECTATOR:
            raise LiveMatch(
                f"match {match.pk} is still being played: only the spectator view is "
                "available until it ends"
            )
        return live_payload(match)
    check_replay_released(match)
    assert match.finished_at is not None
    key = f"viewer:v2:{match.pk}:{match.finished_at.timestamp()}:{perspective}"
    cached = cache.get(key)
    if cached is not None:
        return dict(cached)
    stored = MatchReplay.objects.filter(match_id=match.pk).values_list("record", flat=True)
    data = stored.first()
    if data is None:
        raise ReplayUnavailable(f"match {match.pk} has no stored replay")
    try:
        record = from_json(data)
    except ReplayError as exc:
        raise CorruptReplay(f"the replay of match {match.pk} cannot be read: {exc}") from None
    view = _perspective(perspective, record)
    try:
        payload = build_payload(record, view, _seat_names(match), _time_control(match))
    except ReplayError as exc:
        raise CorruptReplay(f"the replay of match {match.pk} does not re-simulate: {exc}") from None
    payload.update(match=match.pk, live=False, status=match.status, note="")
    cache.set(key, payload, timeout=24 * 3600)
    return payload

"""What an event says in words: an e-mail's subject and text, and the one line the
delivery log and a connected bot's notice show."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from arena.notify.models import Event, EventKind
from arena.terms.faults import FaultCause


def _cause(value: object) -> str:
    """A fault cause as the site says it (``no_show`` -> ``no-show``)."""
    try:
        return str(FaultCause(str(value)).label)
    except ValueError:
        return str(value)


def summary(kind: str, p: dict[str, Any]) -> str:
    """One line, e.g. ``match 12 charged a timeout`` (from the payload's own fields)."""
    bot = p.get("bot", "your bot")
    match kind:
        case EventKind.FAULT:
            return f"{bot}: match {p.get('match')} charged a fault ({_cause(p.get('cause'))})"
        case EventKind.FORFEIT:
            return f"{bot}: lost match {p.get('match')} by forfeit ({_cause(p.get('cause'))})"
        case EventKind.OFFLINE_WAITING:
            return f"{bot} is not connected; {p.get('matches_waiting')} of its matches wait"
        case EventKind.VERSION_CHECK:
            verdict = "passed" if p.get("passed") else "failed"
            return f"{bot}: version {p.get('version')} {verdict} its check"
        case EventKind.VERSION_TEST:
            return f"{bot}: version test {p.get('test')} ended: {p.get('verdict_label')}"
        case EventKind.SEASON_ENDED:
            return f"{bot}: {p.get('league')} season {p.get('season')} ended"
        case EventKind.CHALLENGE:
            return f"{bot}: challenged by {p.get('challenger', 'another bot')}"
    return f"{bot}: {kind}"


def mail_text(event: Event) -> tuple[str, str]:
    p = event.payload
    line = summary(event.kind, p)
    site = getattr(settings, "SITE_URL", "").rstrip("/")
    lines = [line, ""]
    for k in sorted(p):
        if k != "bot":
            lines.append(f"{k}: {p[k]}")
    if site and p.get("path"):
        lines += ["", f"{site}{p['path']}"]
    lines += [
        "",
        f"event {event.id} at {event.created_at:%Y-%m-%d %H:%M:%S} UTC",
        "You get this because you subscribed to these events on your bot's My bot page.",
    ]
    return f"[Agent Avenue] {line}"[:200], "\n".join(lines)

"""docs/protocol.md states the gateway's real defaults: its transcript's Welcome, its
limits table and the gateway's defaults (GatewayConfig; the settings' defaults are the
same numbers) must agree (the drift issue 12 found: a transcript with a 60 s
heartbeat, a text with 10 s, made-up match ids)."""

from __future__ import annotations

import re
from pathlib import Path

from arena.adapters.gateway import GatewayConfig

DOC = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"


def transcript() -> str:
    text = DOC.read_text()
    return text[text.index("## A complete game") :]


def field(block: str, name: str) -> int:
    found = re.search(rf"^\s*{name}: (\d+)$", block, re.MULTILINE)
    assert found is not None, f"{name} is missing from the transcript"
    return int(found.group(1))


def test_the_transcripts_welcome_shows_the_default_limits() -> None:
    text = transcript()
    welcome = text[text.index("welcome {") : text.index("match_started {")]
    config = GatewayConfig()
    assert field(welcome, "heartbeat_interval_ms") == config.heartbeat_s * 1000
    assert field(welcome, "heartbeat_timeout_ms") == config.heartbeat_timeout_s * 1000
    assert field(welcome, "max_message_bytes") == config.max_message_bytes
    assert field(welcome, "rate_limit_per_second") == config.rate_per_s
    assert field(welcome, "rate_limit_burst") == config.rate_burst


def test_the_text_states_the_same_defaults() -> None:
    text = DOC.read_text()
    config = GatewayConfig()
    assert f"a `Ping` every {config.heartbeat_s:g} s" in text
    assert f"{config.heartbeat_timeout_s:g} s without any message from the bot" in text
    assert f"({config.max_concurrent_matches} by default)" in text


def test_the_transcripts_ids_are_shaped_like_a_league_matchs() -> None:
    """match_id "<match>.<attempt>", replay_id "<match>" (arena.adapters.play.matches)."""
    text = transcript()
    ids = set(re.findall(r'match_id: "([^"]+)"', text))
    assert len(ids) == 1, ids
    (match_id,) = ids
    number, attempt = re.fullmatch(r"(\d+)\.(\d+)", match_id).groups()  # type: ignore[union-attr]
    assert attempt == "1"
    assert f'replay_id: "{number}"' in text

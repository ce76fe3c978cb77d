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


# --- the docs' claims about the .proto and the code (issue 28 §5) -------------------------

ROOT = DOC.parent.parent
#: the pages that tell bot authors about the wire
AUTHOR_DOCS = [
    DOC,
    ROOT / "starters/typescript/README.md",
    ROOT / "starters/go/README.md",
    ROOT / "sdk/README.md",
]


def _messages() -> dict[str, object]:
    from agent_avenue.v1 import arena_pb2 as pb

    return dict(pb.DESCRIPTOR.message_types_by_name)


def test_every_message_field_the_docs_name_is_in_the_proto() -> None:
    """`Message.field` in backticks, e.g. `Welcome.limits` or
    `MatchStarted.reconnect_grace_ms`: the message exists and has that field."""
    messages = _messages()
    named = 0
    for page in AUTHOR_DOCS:
        for message, name in re.findall(r"`([A-Z][A-Za-z]+)\.([a-z_]+)", page.read_text()):
            if message not in messages:
                continue  # e.g. `Error.code` is a message; `GameConfig.x` is not ours
            named += 1
            fields = messages[message].fields_by_name  # type: ignore[attr-defined]
            assert name in fields, f"{page.name} names {message}.{name}, not in the .proto"
    assert named >= 10, named  # the pattern still finds the docs' references


def test_the_field_numbers_the_docs_state() -> None:
    from agent_avenue.v1 import arena_pb2 as pb

    text = DOC.read_text()
    # the missing-zero pitfall: "field 3 present with value 0: the bytes `18 00`"
    index = pb.Action.DESCRIPTOR.fields_by_name["choice_index"]
    assert "field 3 present with value 0: the bytes\n> `18 00`" in text
    assert index.number == 3 and index.has_presence
    assert pb.Action(choice_index=0).SerializeToString() == bytes([3 << 3, 0]) == b"\x18\x00"
    # the grace on the wire: "`reconnect_grace_ms` (field 8"
    grace = pb.MatchStarted.DESCRIPTOR.fields_by_name["reconnect_grace_ms"]
    assert "states in `reconnect_grace_ms` (field 8;" in text and grace.number == 8


def test_the_fault_table_names_every_fault_cause_and_no_other() -> None:
    from agent_avenue.v1 import arena_pb2 as pb

    text = DOC.read_text()
    table = text[text.index("| the bot... | fault |") : text.index("A hosted bot's sandbox faults")]
    documented = set(re.findall(r"\| `([A-Z_]+)` \|$", table, re.MULTILINE))
    causes = {
        v.name.removeprefix("FAULT_CAUSE_")
        for v in pb.FaultCause.DESCRIPTOR.values
        if v.number != 0
    }
    assert documented == causes


def _gateway_error_codes() -> set[str]:
    """Every ``Error.code`` the gateway's source can send: the string constants passed to
    ``error_message``, ``Refused`` and ``Session.close`` (directly or scheduled)."""
    import ast

    codes = set()
    for path in (ROOT / "arena/adapters/gateway").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = getattr(func, "id", None) or getattr(func, "attr", "")
            if name not in {"error_message", "Refused", "close", "call_soon_threadsafe"}:
                continue
            for arg in node.args:
                value = getattr(arg, "value", None)
                if isinstance(value, str) and re.fullmatch(r"[a-z]+(_[a-z]+)*", value):
                    codes.add(value)
    return codes


def test_every_error_code_the_gateway_sends_is_documented() -> None:
    codes = _gateway_error_codes()
    assert {"superseded", "wrong_seq", "message_too_large", "invalid_token"} <= codes, codes
    text = DOC.read_text()
    missing = sorted(c for c in codes if f"`{c}`" not in text and f'"{c}"' not in text)
    assert not missing, f"docs/protocol.md does not list the error codes {missing}"


def test_the_grace_and_backoff_defaults_the_docs_state() -> None:
    from arena.models import League
    from avenue_sdk import client

    text = " ".join(DOC.read_text().split())  # sentences wrap
    grace = League._meta.get_field("reconnect_grace_ms").default
    connect = League._meta.get_field("connect_grace_ms").default
    assert f"`reconnect_grace_ms`, default {grace / 1000:g} s" in text
    assert f"`connect_grace_ms`, default {connect / 1000:g} s" in text
    assert "(30 s by default)" in text and grace == 30_000
    sdk = client.Client.__init__.__kwdefaults__ or {}
    assert client.RESUME_BACKOFF == 2.0
    assert f"waits {sdk['min_backoff']:g} s, doubling up to {sdk['max_backoff']:g} s" in text
    assert f"at most {client.RESUME_BACKOFF:g} s while it has matches in progress" in text

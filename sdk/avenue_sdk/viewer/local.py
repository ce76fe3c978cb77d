"""``python -m avenue_sdk view REPLAY.json``: the site's replay viewer on 127.0.0.1.

A tiny ``http.server`` serves one page, the viewer's own script and stylesheet (the files
the site serves) and the frames of the replay, built by ``avenue_sdk.viewer.frames``
through the local rules engine, for every perspective (the game is over: nothing is
secret any more). Standard library only.
"""

from __future__ import annotations

import html
import json
import mimetypes
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from avenue_sdk.viewer import STATIC_DIR

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · Agent Avenue replay</title>
<link rel="stylesheet" href="/static/viewer/viewer.css">
<style>
body {{ margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
  color: #1d2230; background: #fafaf8; }}
main {{ max-width: 76rem; margin: 0 auto; padding: .5rem 1rem 2rem; }}
h1 {{ font-size: 1.3rem; margin: .6rem 0 .2rem; }} .meta {{ color: #6b7280; margin: 0; }}
button, select {{ font: inherit; }}
</style>
</head>
<body>
<main>
<h1>{title}</h1>
<p class="meta">{meta}</p>
<div id="viewer" data-frames-url="/frames" data-perspective="spectator" data-live="false"></div>
</main>
<script src="/static/viewer/graph.js"></script>
<script src="/static/viewer/viewer.js"></script>
</body>
</html>
"""


class ReplayFileError(ValueError):
    """A file that is not a replay this engine can re-simulate."""


def load_record(path: Path) -> Any:
    """The replay in ``path`` (the arena's format: ``GET /api/matches/<id>/replay/``, or
    the local arena's ``--replay-dir``), re-simulated once to check it."""
    try:
        from referee.replay import ReplayError, from_json, validate
    except ImportError as exc:  # pragma: no cover - the SDK depends on the engine
        raise ReplayFileError(f"the rules engine (referee) is not installed: {exc}") from None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReplayFileError(f"{path}: not a JSON file ({exc})") from None
    try:
        record = from_json(data)
        validate(record)
    except (ReplayError, KeyError, TypeError, ValueError) as exc:
        raise ReplayFileError(f"{path}: not a replay this engine can play back: {exc}") from None
    return record


class ReplayServer:
    """Serves the viewer for one replay; ``url`` once started."""

    def __init__(
        self, record: Any, names: list[str] | None, title: str, host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:  # fmt: skip
        from avenue_sdk.viewer.frames import PerspectiveError, parse_perspective, viewer_payload

        seats = record.config.seats
        if names is not None and len(names) != seats:
            raise ValueError(f"--names: this game has {seats} seats, got {len(names)} names")
        self._payloads: dict[str, bytes] = {}
        self._lock = threading.Lock()

        def frames(perspective: str) -> tuple[int, bytes]:
            with self._lock:
                if perspective not in self._payloads:
                    try:
                        view = parse_perspective(perspective, record)
                    except PerspectiveError as exc:
                        return 400, json.dumps({"error": str(exc)}).encode()
                    payload = viewer_payload(record, view, names)
                    payload.update(live=False, note="")
                    self._payloads[perspective] = json.dumps(payload).encode()
                return 200, self._payloads[perspective]

        result = record.result
        meta = f"{record.config.mode.value} · {seats} seats · ruleset {record.config.ruleset}"
        if result is not None:
            meta += f" · team {'AB'[result.winner]} won ({result.reason.value.replace('_', ' ')})"
        page = PAGE.format(title=html.escape(title), meta=html.escape(meta)).encode()
        self.httpd = ThreadingHTTPServer((host, port), _handler(page, frames))
        self.httpd.daemon_threads = True
        self.url = f"http://{host}:{self.httpd.server_address[1]}/"

    def serve_forever(self) -> None:
        self.httpd.serve_forever(poll_interval=0.25)

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self.serve_forever, name="replay-viewer", daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _handler(page: bytes, frames: Callable[[str], tuple[int, bytes]]) -> type:
    static_root = STATIC_DIR.resolve()

    class Handler(BaseHTTPRequestHandler):
        server_version = "avenue-sdk-viewer"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
            pass  # a quiet terminal: the command prints its URL and nothing per request

        def _send(self, status: int, body: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            url = urlparse(self.path)
            if url.path in ("/", "/index.html"):
                return self._send(200, page, "text/html; charset=utf-8")
            if url.path == "/frames":
                perspective = parse_qs(url.query).get("perspective", ["spectator"])[0][:32]
                status, body = frames(perspective)
                return self._send(status, body, "application/json")
            if url.path.startswith("/static/"):
                target = (static_root / url.path[len("/static/") :]).resolve()
                if target.is_file() and target.is_relative_to(static_root):
                    kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
                    if kind.startswith("text/") or kind.endswith("javascript"):
                        kind += "; charset=utf-8"
                    return self._send(200, target.read_bytes(), kind)
            self._send(404, json.dumps({"error": f"nothing at {url.path[:100]}"}).encode(),
                       "application/json")  # fmt: skip

    return Handler


def view(path: Path, names: list[str] | None, port: int, open_browser: bool) -> int:
    """The ``view`` subcommand: serve until Ctrl-C."""
    import sys
    import webbrowser

    try:
        record = load_record(path)
        server = ReplayServer(record, names, path.name, port=port)
    except (ReplayFileError, ValueError, OSError) as exc:
        print(f"avenue_sdk view: {exc}", file=sys.stderr)
        return 2
    print(f"replay viewer for {path} at {server.url}  (Ctrl-C stops it)", flush=True)
    if open_browser:
        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.httpd.server_close()
    return 0

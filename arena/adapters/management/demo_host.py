"""The demo's bot host: where the sandbox works on this machine, ``make demo`` runs the
bot host's loop (``arena.adapters.bothost.service``) in a thread of its own process, so
uploads are checked and hosted bots play in the Demo league; where it does not, the demo
says why and the site tells owners plainly that this arena has no bot host."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

from arena.adapters.bothost.probe import check_available
from arena.adapters.bothost.sandbox import Limits, SandboxUnavailable
from arena.adapters.bothost.service import HostSettings, run


def start_bot_host(
    gateway: str, stop: threading.Event, say: Callable[[str], None]
) -> tuple[threading.Thread | None, str]:
    """The host's thread (None when no sandbox can be set up here) and the line for the
    demo's banner."""
    try:
        version = check_available()
    except SandboxUnavailable as exc:
        return None, (
            f"none ({exc}): uploads wait in 'checking' and hosted bots cannot play; "
            "dial-in bots play as usual"
        )
    settings = HostSettings(
        name=f"demo:{os.getpid()}", gateway=gateway, limits=Limits.from_settings(), poll_s=1.0
    )
    thread = threading.Thread(
        target=run, args=(settings, stop, say), name="demo-bothost", daemon=True
    )
    thread.start()
    return thread, f"in this process ({version}): uploads are checked, hosted bots play"

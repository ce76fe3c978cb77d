"""The replay viewer the site uses, shipped with the SDK so an author can open a replay
locally (``python -m avenue_sdk view REPLAY.json``).

``frames`` builds the viewer's frames from a replay through the referee (pure functions);
``static/viewer/`` holds the page's script and stylesheet (the site serves the same files,
``STATICFILES_DIRS`` points here); ``local`` serves them on 127.0.0.1.
"""

from __future__ import annotations

from pathlib import Path

#: the viewer's static files (``viewer/viewer.js``, ``viewer/graph.js``, ``viewer/viewer.css``)
#: live under here
STATIC_DIR = Path(__file__).resolve().parent / "static"

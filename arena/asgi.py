"""ASGI entry point, for an ASGI server (e.g. `uvicorn arena.asgi:application`)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

application = get_asgi_application()

"""The WSGI application of ``bench/web_http.py``'s gunicorn: the site's, with the trivial
views of ``bench/web_urls.py`` beside it, and the cache ``BENCH_CACHE`` says (``redis``:
the site's own, at REDIS_URL under CACHE_PREFIX; ``none``: Django's dummy cache, so that
every request builds every part of its page from the database)."""

from __future__ import annotations

import os

import django
from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup(set_prefix=False)
settings.ROOT_URLCONF = "bench.web_urls"
if os.environ.get("BENCH_CACHE") == "none":
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}

application = get_wsgi_application()

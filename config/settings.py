"""Django settings for Agent Avenue Arena.

Every value that differs between a laptop and production comes from an
environment variable read through arena.env (documented in .env.example and
docs/configuration.md). With nothing set, the project runs in *embedded mode*:
DEBUG on, SQLite under var/, no Redis, Celery tasks executed in-process.

docs/configuration.md is written from this file by scripts/settings_reference.py: each
read's comment (the lines directly above the call, else above its statement) is the
variable's meaning there, and the "# ---- name" headers are its sections. Change a
variable here, then run the script; tests/foundation/test_configuration_doc.py fails
until the page matches.

Why one file of this length: Django reads its settings from one module, and the
reference page is written from this one file, each variable documented where it is read.
"""

from __future__ import annotations

from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from arena.env import env_bool, env_int, env_list, env_str
from avenue_sdk.viewer import STATIC_DIR as VIEWER_STATIC_DIR

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

# ---------------------------------------------------------------- core

#: development mode (Django's DEBUG); set 0 in production, where SECRET_KEY is then required
DEBUG = env_bool("DEBUG", default=True)

if DEBUG:
    #: Django's signing key (sessions, CSRF, the relay's direct lanes). With DEBUG on and
    #: unset: a fixed, insecure development key; with DEBUG off it is required, and the
    #: process refuses to start without it (make one with
    #: `python -c 'import secrets; print(secrets.token_urlsafe(50))'`)
    SECRET_KEY = env_str(
        "SECRET_KEY", default="django-insecure-dev-only-agent-avenue-arena-do-not-deploy"
    )
else:
    SECRET_KEY = env_str("SECRET_KEY", default=None) or ""
    if not SECRET_KEY:
        raise ImproperlyConfigured(
            "SECRET_KEY is required when DEBUG is off. Set it to a long random string, e.g. "
            "SECRET_KEY=$(python -c 'import secrets; print(secrets.token_urlsafe(50))')"
        )

#: the host names this site answers to
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
#: origins trusted for CSRF on unsafe requests behind a proxy, with their scheme (e.g.
#: `https://arena.example.org`)
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", default=[])

# ---------------------------------------------------------------- HTTPS

#: the site is served only over HTTPS (by itself or behind a proxy that terminates TLS):
#: plain-HTTP requests are redirected, cookies are sent over HTTPS only, HSTS is on. On by
#: default in production (DEBUG=0); a stack served over plain HTTP turns it off explicitly
#: (docker-compose.yml does). See docs/operations.md, "HTTPS and rate limits".
HTTPS_ONLY = env_bool("HTTPS_ONLY", default=not DEBUG)
SECURE_SSL_REDIRECT = HTTPS_ONLY
# container and load-balancer health probes speak plain HTTP to the process itself
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SESSION_COOKIE_SECURE = HTTPS_ONLY
CSRF_COOKIE_SECURE = HTTPS_ONLY
#: HSTS max-age in seconds: a year with HTTPS_ONLY, else 0 (no HSTS). Browsers that saw it
#: cannot be told otherwise for that long: start lower if the domain is new to HTTPS
SECURE_HSTS_SECONDS = env_int(
    "SECURE_HSTS_SECONDS", default=365 * 24 * 3600 if HTTPS_ONLY else 0, minimum=0
)
#: HSTS for every subdomain of this host too
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
#: "preload" in the HSTS header consents to the browsers' preload list, a commitment for
#: the whole registrable domain that takes months to undo: only on request (while off,
#: Django's deploy check security.W021 is silenced, on purpose)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", default=False)
SILENCED_SYSTEM_CHECKS = [] if SECURE_HSTS_PRELOAD else ["security.W021"]
#: behind a TLS-terminating proxy that sets X-Forwarded-Proto (and strips it from clients),
#: so that Django knows which requests came in over HTTPS (else HTTPS_ONLY redirects loop)
if env_bool("TRUST_X_FORWARDED_PROTO", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "arena.apps.ArenaConfig",
    "arena.ratings.apps.RatingsConfig",
    "arena.analytics.apps.AnalyticsConfig",
    "arena.hosting.apps.HostingConfig",
    "arena.seasons.apps.SeasonsConfig",
    "arena.challenges.apps.ChallengesConfig",
    "arena.notify.apps.NotifyConfig",
    "arena.events.apps.EventsConfig",
    # the adapters' management commands and signal receivers
    "arena.adapters.apps.AdaptersConfig",
    "leaderboard.apps.LeaderboardConfig",
    "workers.apps.WorkersConfig",
]

MIDDLEWARE = [
    # outermost: a page whose database was unreachable is played again (arena.dbretry)
    "arena.dbretry.DatabaseRetryMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Serves collected static files under gunicorn, where runserver's helper is absent.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "leaderboard.csp.ContentSecurityPolicyMiddleware",
]

#: a page (GET, HEAD) that failed because the database could not be reached is tried
#: again for up to this long (a restart), then answers 503 (``arena.dbretry``)
DATABASE_RETRY_SECONDS = env_int("DATABASE_RETRY_SECONDS", default=10, minimum=0, maximum=60)

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# ---------------------------------------------------------------- database

# var/ holds runtime data (default SQLite file, collected static files) and is git-ignored;
# made here because SQLite cannot create the folder of its file.
VAR_DIR.mkdir(exist_ok=True)

_DEFAULT_SQLITE = VAR_DIR / "arena.sqlite3"
#: the database, in dj-database-url syntax (PostgreSQL: postgres://USER:PASSWORD@HOST:5432/DB);
#: default: the SQLite file var/arena.sqlite3 of the checkout
DATABASE_URL = env_str("DATABASE_URL", default=f"sqlite:///{_DEFAULT_SQLITE}")
try:
    DATABASES = {
        "default": dj_database_url.parse(
            DATABASE_URL,
            conn_health_checks=True,
            # seconds a process keeps its connection between requests or Celery tasks (a
            # new PostgreSQL connection costs ~5 ms, a match's whole orchestration less);
            # 0 closes it after each, as the tests and a development server want (compose
            # sets 600 for its workers, which honour it through workers/fixup.py)
            conn_max_age=env_int("DATABASE_CONN_MAX_AGE", default=0, minimum=0),
        )
    }
except ValueError as exc:
    raise ImproperlyConfigured(f"Environment variable DATABASE_URL is invalid: {exc}") from None

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Embedded mode serves the site while matches are written from other threads
    # (`manage.py demo`): WAL lets pages read while a result is written, and IMMEDIATE
    # transactions take the write lock at BEGIN, so a writer waits (up to `timeout` s)
    # instead of failing with "database is locked" when it upgrades a read.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        transaction_mode="IMMEDIATE",
        timeout=20,
        init_command="PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
    )

#: seconds a new PostgreSQL connection may take before it fails (psycopg's
#: ``connect_timeout``). Without it, a connect to a server that took the TCP connection but
#: does not answer (a stopped server, a half-open network path) waits for ever, and with
#: it whatever the thread was doing: a match's lease, a result
DATABASE_CONNECT_TIMEOUT = env_int("DATABASE_CONNECT_TIMEOUT", default=10, minimum=1)
#: seconds PostgreSQL lets one of our sessions sit idle inside a transaction before it ends
#: the session (``idle_in_transaction_session_timeout``) and so frees its row locks: a
#: client gone mid-transaction without the server seeing it (a network cut, a crashed
#: thread) must not hold matches and ratings locked for every worker. 0: no limit. The
#: rating recompute, which holds its transaction on purpose, lifts it for itself
DATABASE_IDLE_TRANSACTION_SECONDS = env_int(
    "DATABASE_IDLE_TRANSACTION_SECONDS", default=60, minimum=0
)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    _pg = DATABASES["default"].setdefault("OPTIONS", {})
    _pg.setdefault("connect_timeout", DATABASE_CONNECT_TIMEOUT)
    # the client notices a server that vanished without a word within about a minute
    _pg.update(keepalives=1, keepalives_idle=30, keepalives_interval=10, keepalives_count=3)
    _idle_ms = DATABASE_IDLE_TRANSACTION_SECONDS * 1000
    _pg["options"] = f"{_pg.get('options', '')} -c idle_in_transaction_session_timeout={_idle_ms}"
    _pg["options"] = _pg["options"].strip()

#: A bounded pool of PostgreSQL connections shared by the process's threads (Django's
#: psycopg pool): what a worker playing hundreds of matches at once (``--pool threads``)
#: needs, since every match claims, beats its lease and writes its result through it and
#: none opens a connection of its own. 0 (the default): a connection per thread, opened
#: when needed. A thread waits up to DATABASE_POOL_TIMEOUT seconds for a free one.
DATABASE_POOL_SIZE = env_int("DATABASE_POOL_SIZE", default=0, minimum=0)
#: seconds a thread waits for a pooled connection before its query fails (a match's claim
#: skips, its result voids the attempt and the match is played again)
DATABASE_POOL_TIMEOUT = env_int("DATABASE_POOL_TIMEOUT", default=60, minimum=1)
if DATABASE_POOL_SIZE:
    if DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        raise ImproperlyConfigured("DATABASE_POOL_SIZE needs a PostgreSQL DATABASE_URL")
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # the pool keeps them; Django must not
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": min(2, DATABASE_POOL_SIZE),
        "max_size": DATABASE_POOL_SIZE,
        "timeout": DATABASE_POOL_TIMEOUT,
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# ---------------------------------------------------------------- Redis, Celery, embedded mode

#: redis://, rediss:// or unix://: distributed mode, Redis the Celery broker and result
#: backend, the relay between match runners and gateways, and the cache. Unset: embedded
#: mode (one process, the relay in-process, Celery tasks run eagerly)
REDIS_URL = env_str("REDIS_URL", default=None)
if REDIS_URL is not None and not REDIS_URL.startswith(("redis://", "rediss://", "unix://")):
    raise ImproperlyConfigured(
        f"Environment variable REDIS_URL={REDIS_URL!r} must start with redis://, rediss:// "
        "or unix:// (or be unset for embedded mode)"
    )

#: No Redis means one process does everything: in-process relay, eager Celery tasks.
ARENA_EMBEDDED = REDIS_URL is None

# Celery reads every CELERY_* setting here (workers/celery.py, namespace "CELERY").
CELERY_BROKER_URL = REDIS_URL or "memory://"
#: kombu's Redis transport, mended so that a worker outlives a broker that dies with
#: messages delivered to it (workers/broker.py); a unix:// broker keeps kombu's own
CELERY_BROKER_TRANSPORT = (
    "workers.broker:Transport"
    if REDIS_URL is not None and REDIS_URL.startswith(("redis://", "rediss://"))
    else None
)
CELERY_RESULT_BACKEND = REDIS_URL
CELERY_TASK_ALWAYS_EAGER = ARENA_EMBEDDED
#: who runs the work the domain hands over (``arena.dispatch``): Celery's workers, or this
#: process in embedded mode
ARENA_DISPATCHER = (
    "arena.adapters.embedded.InProcessDispatcher"
    if ARENA_EMBEDDED
    else "workers.dispatch.CeleryDispatcher"
)
CELERY_TASK_EAGER_PROPAGATES = ARENA_EMBEDDED
# JSON only: pickle would let anyone who can write to the broker run code on workers.
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_TIMEZONE = "UTC"
#: the queue tasks are sent to and workers read (`celery -A workers worker -Q ...`); a
#: deployment (or a test run) sharing a Redis with another uses a name of its own
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_QUEUE", default="celery")
#: the queue of hosted bots' version tests (``arena.run_version_test``), whose worker must be
#: able to build sandboxes like a bot host (docs/operations.md, "Hosted bots"); empty: the
#: default queue
ARENA_VERSION_TEST_QUEUE = env_str("ARENA_VERSION_TEST_QUEUE", default="")
# A worker takes one match at a time: a long match must not hold others back in its buffer.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
#: a thread of a worker's ``--pool threads`` (``workers.pool``) that waited this long with
#: no task exits; once a burst's threads have, the worker gives its free memory back
ARENA_POOL_IDLE_S = env_int("ARENA_POOL_IDLE_S", default=30, minimum=1)
#: a ``--pool threads`` worker whose resident size, once its pool is idle after a burst,
#: stays more than this many percent above its warm-idle size restarts itself in place
#: (a warm shutdown, then ``exec`` of its command line: ``workers.restart``), when it holds
#: no task. Python's arenas keep what a burst fragmented. 0: never
ARENA_POOL_RESTART_GROWTH_PCT = env_int("ARENA_POOL_RESTART_GROWTH_PCT", default=20, minimum=0)

# ---------------------------------------------------------------- leagues

#: a worker's claim on a match lasts this long and is extended every third of it while the
#: match runs; a worker that died leaves a lease that expires, and the match is re-run
ARENA_LEASE_SECONDS = env_int("ARENA_LEASE_SECONDS", default=60, minimum=2)
#: match threads of one process that run Python at once; the others wait for a slot while
#: their answers are in (``arena.adapters.runner.slots``). 0: no bound. For workers playing hundreds
#: of matches with ``--pool threads`` (docker-compose.yml sets 8; docs/operations.md,
#: "Many matches per worker").
ARENA_RUNNER_SLOTS = env_int("ARENA_RUNNER_SLOTS", default=0, minimum=0)
#: attempts (claims) after which a match whose infrastructure keeps failing is void
ARENA_MAX_ATTEMPTS = env_int("ARENA_MAX_ATTEMPTS", default=5, minimum=1)
#: a queued match whose message the broker does not hold (neither in the queue nor with a
#: worker), sent at least this long ago, is lost: the reaper sends it again
ARENA_LOST_AFTER_SECONDS = env_int("ARENA_LOST_AFTER_SECONDS", default=10, minimum=1)
#: ... at two looks of the reaper at least this far apart: a message a worker is taking is
#: off the queue and not yet in the unacked hash for a moment (0: any two looks)
ARENA_LOST_CONFIRM_SECONDS = env_int("ARENA_LOST_CONFIRM_SECONDS", default=2, minimum=0)
#: when the broker cannot be inspected, a queued match sent this long ago and never played
#: is sent again; and a message delivered to a worker this long ago and not started is
#: taken as lost with that worker
ARENA_REQUEUE_AFTER_SECONDS = env_int("ARENA_REQUEUE_AFTER_SECONDS", default=600, minimum=1)
#: a match whose dial-in or hosted bot already plays as many matches as its Hello asked
#: for (``max_concurrent_matches``) goes back to the queue for this long, its clock not
#: started and no attempt spent (``arena.adapters.play.seatcaps``)
ARENA_SEAT_WAIT_SECONDS = env_int("ARENA_SEAT_WAIT_SECONDS", default=2, minimum=1, maximum=60)
#: where the game database's monthly archives are written (``manage.py games export``,
#: one ``<league>/<league>-<YYYY-MM>.ndjson.gz`` per league and month, with its
#: ``.sha256``) and served from the league page
ARENA_ARCHIVE_DIR = Path(env_str("ARENA_ARCHIVE_DIR", default=str(VAR_DIR / "archives")))
#: threads a round played in one process (`manage.py league run`, the demo) plays on at
#: once: a slow bot's matches do not hold the others back; house-bot matches go to them in
#: chunks (at most ``ARENA_MATCH_CHUNK``), remote and hosted ones one at a time
ARENA_ROUND_CONCURRENCY = env_int("ARENA_ROUND_CONCURRENCY", default=4, minimum=1, maximum=64)
#: matches an information-format round writes per transaction (with their participations:
#: three rows each); a round of 1,000 bots x 10 games is 5 such transactions
ARENA_SCHEDULE_BATCH = env_int("ARENA_SCHEDULE_BATCH", default=1000, minimum=1, maximum=50_000)
#: a round of house bots only is sent as chunks of at most this many matches (the
#: `arena.run_matches` task: claimed, read and their results written together, one batch
#: per chunk); 1 sends every match on its own (`arena.run_match`), as rounds with other bots
ARENA_MATCH_CHUNK = env_int("ARENA_MATCH_CHUNK", default=16, minimum=1, maximum=256)
#: the `arena.run_match` task's soft time limit (its hard limit is 60 s more)
ARENA_MATCH_TIME_LIMIT_SECONDS = env_int("ARENA_MATCH_TIME_LIMIT_SECONDS", default=3600, minimum=10)

#: challenges (and sparring games against the house bots) one owner may ask for in 24 h
#: (docs/challenges.md); more are refused with HTTP 429 and the time until the next
CHALLENGES_PER_DAY = env_int("CHALLENGES_PER_DAY", default=20, minimum=0)
#: the largest N of a best-of-N challenge (N odd)
CHALLENGE_MAX_GAMES = env_int("CHALLENGE_MAX_GAMES", default=7, minimum=1, maximum=99)

# ---------------------------------------------------------------- gRPC gateway

#: host:port the gateway listens on (`manage.py rungateway`) and bots connect to.
GATEWAY_ADDRESS = env_str("GATEWAY_ADDRESS", default="127.0.0.1:50051")
#: host:port bots are told to dial on the site (the token page, the home page) when the
#: gateway listens elsewhere than it is reached (a wildcard, a proxy); empty: GATEWAY_ADDRESS
#: with 0.0.0.0 shown as 127.0.0.1 (arena.public_facts)
GATEWAY_PUBLIC_ADDRESS = env_str("GATEWAY_PUBLIC_ADDRESS", default="")
#: Prefix of the relay's Redis keys, so that several deployments (or test runs) can share
#: one Redis; every gateway and worker of one deployment must use the same.
RELAY_PREFIX = env_str("RELAY_PREFIX", default="relay")
#: host:port a Redis-relay gateway listens on for runners' direct lanes
#: (arena.adapters.relay.direct: a decision then skips Redis); port 0 picks a free one;
#: "off" opens none. Runners find the address in the bots' presence entries and prove they
#: hold SECRET_KEY.
RELAY_DIRECT_BIND = env_str("RELAY_DIRECT_BIND", default="127.0.0.1:0")
#: the host runners dial for that lane when it is not the bound one (a wildcard bind, a
#: container's service name); empty: the bound host, or this machine's name for 0.0.0.0
RELAY_DIRECT_HOST = env_str("RELAY_DIRECT_HOST", default="")
#: The gateway pings each bot this often, and closes a stream silent for the timeout.
GATEWAY_HEARTBEAT_SECONDS = env_int("GATEWAY_HEARTBEAT_SECONDS", default=10, minimum=1)
#: a stream silent this long (while its bot owes no answer) is closed
GATEWAY_HEARTBEAT_TIMEOUT_SECONDS = env_int(
    "GATEWAY_HEARTBEAT_TIMEOUT_SECONDS", default=30, minimum=2
)
#: Largest message accepted from a bot (answers are a few dozen bytes).
GATEWAY_MAX_MESSAGE_BYTES = env_int(
    "GATEWAY_MAX_MESSAGE_BYTES", default=64 * 1024, minimum=1024, maximum=4 * 1024 * 1024
)
#: Messages per second (and burst) a bot may send besides its answers to requests.
GATEWAY_RATE_LIMIT_PER_SECOND = env_int("GATEWAY_RATE_LIMIT_PER_SECOND", default=20, minimum=1)
#: ... and the burst
GATEWAY_RATE_LIMIT_BURST = env_int("GATEWAY_RATE_LIMIT_BURST", default=40, minimum=1)
#: Cap on the matches a bot may ask to play at once (Hello.max_concurrent_matches, where 0
#: counts as 1); Welcome.limits tells the bot the value in force.
GATEWAY_MAX_CONCURRENT_MATCHES = env_int("GATEWAY_MAX_CONCURRENT_MATCHES", default=16, minimum=1)
#: Failed token attempts a peer address may make at the gateway: a burst, then this many a
#: minute; beyond, its streams are refused (RESOURCE_EXHAUSTED) before any token is looked at.
GATEWAY_AUTH_FAILURE_BURST = env_int("GATEWAY_AUTH_FAILURE_BURST", default=20, minimum=1)
#: ... and the attempts a minute after the burst
GATEWAY_AUTH_FAILURES_PER_MINUTE = env_int(
    "GATEWAY_AUTH_FAILURES_PER_MINUTE", default=20, minimum=1
)
#: Open streams' tokens are checked again this often, and those rotated or revoked are
#: ended (a backstop to the relay's notice, lost if Redis was unreachable at that moment).
GATEWAY_TOKEN_RECHECK_SECONDS = env_int("GATEWAY_TOKEN_RECHECK_SECONDS", default=60, minimum=1)
#: PEM certificate (chain): the gateway serves TLS when it and the key are set (as with
#: `rungateway --tls-cert/--tls-key`); set both on any network but loopback, for bot
#: tokens are bearer secrets.
GATEWAY_TLS_CERT = env_str("GATEWAY_TLS_CERT", default="")
#: ... and its PEM key
GATEWAY_TLS_KEY = env_str("GATEWAY_TLS_KEY", default="")

# ---------------------------------------------------------------- health checks

#: Upper bound for each dependency probe of /healthz, in seconds.
HEALTHCHECK_TIMEOUT_SECONDS = 2.0

# ---------------------------------------------------------------- auth, i18n, static

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# The replay viewer's script and stylesheet ship with the SDK (``avenue_sdk.viewer``), so
# ``python -m avenue_sdk view`` and the site show replays with the same files.
STATICFILES_DIRS = [VIEWER_STATIC_DIR]
# Filled by `manage.py collectstatic` (the Docker image does it at build time) and served
# by WhiteNoise; made here so WhiteNoise does not warn before the first collectstatic.
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)

# ---------------------------------------------------------------- REST API

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "leaderboard.api.schema.ArenaSchema",
    # `Authorization: Token <key>` (DRF's scheme; the key is stored hashed, see
    # leaderboard.models.ApiToken) and the site's session (with CSRF) for the browser.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "leaderboard.api.auth.HashedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # JSON with a nesting limit (a 1,000-deep body ran Python's parser out of stack)
    "DEFAULT_PARSER_CLASSES": ["leaderboard.api.parsers.BoundedJSONParser"],
    "EXCEPTION_HANDLER": "leaderboard.api.errors.exception_handler",
    # throttles count by the peer address, never by a client's X-Forwarded-For (DRF's
    # default trusts that header, and a made-up address per request escaped every limit)
    "NUM_PROXIES": 0,
    "DEFAULT_THROTTLE_RATES": {
        # API token requests (`POST /api/auth/token/`, they check a password) per address,
        # in DRF's rates (N/second, N/min, N/hour, N/day)
        "auth": env_str("THROTTLE_AUTH", default="10/min"),
        # bot tokens made, rotated or revoked through the API, per user
        "bot_tokens": env_str("THROTTLE_BOT_TOKENS", default="30/hour"),
    },
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Agent Avenue Arena API",
    "DESCRIPTION": (
        "Bots, leagues, matches, ratings and replays of Agent Avenue Arena. Read endpoints "
        "are public; a user's bots are managed with `Authorization: Token <key>` (from "
        "`POST /api/auth/token/`) or the site's session. Errors are JSON: "
        '`{"error": message, "code": code, "fields": {...}}`.'
    ),
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI and Redoc from drf-spectacular-sidecar: served by us, nothing from a CDN
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    # the sidecar's Redoc without the one address it fetches from a CDN (docs_assets.py)
    "REDOC_DIST": "/api/redoc-dist",
    # Redoc's own template asks Google for fonts: ours (arena/templates/arena/redoc.html)
    # does not, and the theme names system fonts
    "REDOC_UI_SETTINGS": {
        "theme": {
            "typography": {
                "fontFamily": "system-ui, -apple-system, 'Segoe UI', sans-serif",
                "headings": {"fontFamily": "system-ui, -apple-system, 'Segoe UI', sans-serif"},
                "code": {"fontFamily": "ui-monospace, Menlo, monospace"},
            }
        }
    },
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "MatchStatusEnum": "arena.models.MatchStatus",
        "LeagueStatusEnum": "arena.models.LeagueStatus",
        "TournamentFormatEnum": "arena.events.models.TournamentFormat",
        "SeasonStatusEnum": "arena.seasons.models.SeasonStatus",
    },
}

# ---------------------------------------------------------------- web site

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "leaderboard:my-bots"
LOGOUT_REDIRECT_URL = "leaderboard:home"
#: log-in (site and admin), sign-up and site bot-token attempts per client address per
#: window (then HTTP 429)
LOGIN_RATE_LIMIT = env_int("LOGIN_RATE_LIMIT", default=10, minimum=1)
#: ... and that window, in seconds
LOGIN_RATE_WINDOW_SECONDS = env_int("LOGIN_RATE_WINDOW_SECONDS", default=60, minimum=1)
#: live matches pushed to their watchers (server-sent events, leaderboard.live_stream):
#: streams one web process keeps open at once (each holds a thread of the server while it
#: waits for news); past them a page asks every 2 s instead. 0: no stream, every page polls
LIVE_STREAMS_MAX = env_int("LIVE_STREAMS_MAX", default=32, minimum=0)
#: ... and how long one stream lasts before the browser opens the next (a proxy's idle
#: limits and a deploy's restart never cut more than that short)
LIVE_STREAM_SECONDS = env_int("LIVE_STREAM_SECONDS", default=300, minimum=5)

# The cache holds rate-limit counters and immutable replay frames. With Redis (distributed
# mode) every web process shares it, so limits hold across gunicorn workers; embedded mode
# keeps it in the process. While Redis is down the cache misses (arena/cache.py): pages
# are built from the database, never 500; short timeouts keep them quick meanwhile.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "arena.cache.ResilientRedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 2.0},
            # prefix of the cache's Redis keys (distributed mode only): deployments (and
            # test runs) sharing a Redis keep apart by database name
            "KEY_PREFIX": env_str(
                "CACHE_PREFIX", default=f"cache:{DATABASES['default'].get('NAME', '')}"
            ),
            "TIMEOUT": 3600,
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "TIMEOUT": 3600,
            "OPTIONS": {"MAX_ENTRIES": 2000},
        }
    }

# ---------------------------------------------------------------- hosted bots
# What one sandbox (one match) may use: arena.adapters.bothost.sandbox.Limits; docs/operations.md,
# "Hosted bots".
HOSTED_SANDBOX_LIMITS = {
    # CPU seconds of the whole sandbox per match (past them: timeout)
    "cpu_seconds": env_int("HOSTED_CPU_SECONDS", default=120, minimum=1),
    # memory of the whole sandbox, in MiB (past it: memory)
    "address_space": env_int("HOSTED_MEMORY_MB", default=1024, minimum=256) << 20,
    # processes and threads of the whole sandbox (past them: process_limit)
    "processes": env_int("HOSTED_PROCESSES", default=32, minimum=4),
    # open files per process
    "open_files": env_int("HOSTED_OPEN_FILES", default=64, minimum=16),
    # the sandbox's private /tmp, in MiB
    "tmp_bytes": env_int("HOSTED_TMP_MB", default=64, minimum=1) << 20,
    # cores the whole sandbox may keep busy at once, in hundredths (100: one core)
    "cpu_cores": env_int("HOSTED_CPU_PERCENT", default=100, minimum=10) / 100,
    # the upload check's time to load the bot (in a match, the first decision's allowance)
    "load_seconds": float(env_int("HOSTED_LOAD_SECONDS", default=30, minimum=1)),
}
# How the limits above hold for a sandbox as a whole (arena.adapters.bothost.cgroups): "auto" (a
# delegated cgroup v2 subtree, else cgroup v1, else the host's own measure), "v2" or "v1"
# (the bot host refuses to start without it), or "measure".
HOSTED_SANDBOX_CGROUP = env_str("HOSTED_SANDBOX_CGROUP", default="auto")
# Host uids the sandboxes run as (one per sandbox at a time; no account needed): a range
# no real user or service of the machine has.
HOSTED_SANDBOX_UIDS = (
    # the first uid of that range
    env_int("HOSTED_UID_FIRST", default=61000, minimum=1000),
    # the last uid of that range (a bot host runs at most as many sandboxes at once)
    env_int("HOSTED_UID_LAST", default=61999, minimum=1000),
)
# A version whose check raised (no verdict) is tried again this long after, by any bot host;
# the second such failure rejects it (arena.hosting.services.MAX_CHECK_ATTEMPTS).
HOSTED_CHECK_RETRY_SECONDS = env_int("HOSTED_CHECK_RETRY_SECONDS", default=60, minimum=0)
# Uploads: arena.hosting.archives.UploadLimits.
HOSTED_UPLOAD_LIMITS = {
    # an upload (a .py file or a .zip), in KiB
    "upload_bytes": env_int("HOSTED_UPLOAD_KB", default=1024, minimum=1) << 10,
    # what a .zip unpacks to, in KiB
    "unpacked_bytes": env_int("HOSTED_UNPACKED_KB", default=8192, minimum=1) << 10,
}

# ---------------------------------------------------------------- notifications

# Owners told of their bots' events by webhook and e-mail (arena.notify, docs/notifications.md).
#: Django's mail backend for the owners' e-mails: the console (printed by the process that
#: sends) with DEBUG on, SMTP (EMAIL_HOST, EMAIL_PORT, ...) otherwise
EMAIL_BACKEND = env_str(
    "EMAIL_BACKEND",
    default="django.core.mail.backends.console.EmailBackend"
    if DEBUG
    else "django.core.mail.backends.smtp.EmailBackend",
)
#: the SMTP server of the SMTP backend
EMAIL_HOST = env_str("EMAIL_HOST", default="localhost")
#: its port
EMAIL_PORT = env_int("EMAIL_PORT", default=25, minimum=1, maximum=65535)
#: the SMTP user name (empty: no log-in)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", default="")
#: its password
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", default="")
#: STARTTLS to the SMTP server
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=False)
#: the sender of the owners' e-mails
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", default="arena@localhost")
#: the site's address for links in e-mails (e.g. `https://arena.example.org`; empty: none)
SITE_URL = env_str("SITE_URL", default="")
#: webhooks may go to loopback and private addresses (the demo and the tests); off in
#: production, where an owner's URL must not reach the arena's own network
NOTIFY_ALLOW_PRIVATE_HOSTS = env_bool("NOTIFY_ALLOW_PRIVATE_HOSTS", default=DEBUG)
#: attempts of a delivery before it is given up (shown as failed in the delivery log)
NOTIFY_MAX_ATTEMPTS = env_int("NOTIFY_MAX_ATTEMPTS", default=8, minimum=1, maximum=30)
#: the wait after the first failed attempt, in seconds; it doubles after each one (30 s,
#: 1 min, 2 min, ... about an hour in all with 8 attempts)
NOTIFY_BACKOFF_BASE_S = env_int("NOTIFY_BACKOFF_BASE_S", default=30, minimum=1)
#: a webhook's connect and each read of its answer time out after this many seconds
NOTIFY_TIMEOUT_S = env_int("NOTIFY_TIMEOUT_S", default=10, minimum=1, maximum=60)
#: beat's sweeper sends the deliveries due (a lost task, a worker that died mid-attempt)
#: this often, in seconds
NOTIFY_SWEEP_EVERY_S = env_int("NOTIFY_SWEEP_EVERY_S", default=30, minimum=1)
#: a bot is told it is offline with matches waiting at most once per this many seconds
NOTIFY_OFFLINE_QUIET_S = env_int("NOTIFY_OFFLINE_QUIET_S", default=3600, minimum=1)
#: events (with their deliveries and delivery logs) are kept this many days, then beat's
#: hourly cleanup deletes those whose deliveries are over (delivered or failed)
NOTIFY_RETENTION_DAYS = env_int("NOTIFY_RETENTION_DAYS", default=30, minimum=1)
# who sends the deliveries once an event's transaction commits (workers/notify.py)
NOTIFY_SENDER = "workers.notify.send"

# ---------------------------------------------------------------- logging

#: the root log level: DEBUG, INFO, WARNING, ERROR or CRITICAL (any case)
LOG_LEVEL = env_str("LOG_LEVEL", default="INFO").upper()
if LOG_LEVEL not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
    raise ImproperlyConfigured(
        f"Environment variable LOG_LEVEL={LOG_LEVEL!r} is not one of "
        "DEBUG, INFO, WARNING, ERROR, CRITICAL"
    )

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain"},
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    # Django's default config gives "django" its own console handler and lets it
    # propagate too, which printed every line twice; the root handler is enough.
    "loggers": {"django": {"handlers": [], "propagate": True}},
}

"""Security checks (docs/reliability.md, "Security checks"):

* ``manage.py check --deploy --fail-level WARNING`` is clean with production settings, in
  a subprocess with that environment, and a real gunicorn with those settings redirects
  plain HTTP, sends HSTS and marks its cookies Secure;
* bot tokens and API keys are stored hashed only: made through every path there is
  (services, the command line, the API, the site), none of them appears in any column of
  any table, in any session, or in any log line;
* every POST form of the site is refused (403) without its CSRF token, and accepted with it;
* what tests/web/test_permissions.py does not already cover of the rate limits: sign-up,
  the admin's log-in, making bot tokens on the site and through the API, and the message a
  person or a program gets.

Why one file of this length: the attacks share one site and API under their real
rate limits; each test is short.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from html.parser import HTMLParser
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
import requests
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test import Client

from arena.services import owned_bots
from arena.services.bots import create_bot, rotate_token
from tests.web.helpers import make_league

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "a-long-pass-phrase"


# ---------------------------------------------------------------- production settings


def database_url() -> str:
    """The test database, for processes started by the tests."""
    s = connection.settings_dict
    password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
    host, port = s.get("HOST") or "127.0.0.1", s.get("PORT") or 5432
    return f"postgres://{s.get('USER') or 'postgres'}{password}@{host}:{port}/{s['NAME']}"


def production_env(**extra: str) -> dict[str, str]:
    """This process's environment less every arena setting (the names in .env.example and
    the HTTPS ones), plus a production configuration."""
    names = set(re.findall(r"^([A-Z][A-Z0-9_]*)=", (ROOT / ".env.example").read_text(), re.M))
    env = {k: v for k, v in os.environ.items() if k not in names}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        PYTHONPATH=str(ROOT),
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="arena.example.org,127.0.0.1",
        DATABASE_URL=database_url(),
        LOG_LEVEL="WARNING",
    )
    env.update(extra)
    return env


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip


@pytest.mark.processes
@pytest.mark.django_db
def test_check_deploy_is_clean_with_production_settings() -> None:
    proc = manage(production_env(), "check", "--deploy", "--fail-level", "WARNING")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # the one check silenced: HSTS preload is an operator's explicit commitment
    assert "System check identified no issues (1 silenced)." in proc.stdout

    # the check is not toothless: plain HTTP, or a weak key, fails it
    plain = manage(production_env(HTTPS_ONLY="0"), "check", "--deploy", "--fail-level", "WARNING")
    assert plain.returncode != 0
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in plain.stderr, plain.stderr
    weak = production_env(SECRET_KEY="short-and-simple")
    assert "security.W009" in manage(weak, "check", "--deploy").stderr
    preload = production_env(SECURE_HSTS_PRELOAD="1")
    assert "no issues (0 silenced)" in manage(preload, "check", "--deploy").stdout


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def gunicorn(transactional_db: None, tmp_path: Path) -> Iterator[str]:
    """The site under gunicorn with production settings behind a TLS-terminating proxy
    (X-Forwarded-Proto trusted); its base URL over plain HTTP."""
    port = free_port()
    env = production_env(
        TRUST_X_FORWARDED_PROTO="1", CACHE_PREFIX=f"security-{secrets.token_hex(4)}"
    )
    log = (tmp_path / "gunicorn.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{port}",
         "--workers", "1"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        # the first request imports Django in the worker: slow on a busy machine
        deadline = time.monotonic() + 90
        while True:
            try:
                requests.get(f"{url}/healthz", timeout=30)
                break
            except requests.RequestException:
                assert proc.poll() is None, (tmp_path / "gunicorn.log").read_text()
                assert time.monotonic() < deadline, "gunicorn did not start"
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(20)
        log.close()


@pytest.mark.processes
def test_production_server_redirects_plain_http_and_secures_cookies(gunicorn: str) -> None:
    User.objects.create_user("secure-sam", password=PASSWORD)
    host = {"Host": "arena.example.org"}
    https = {**host, "X-Forwarded-Proto": "https"}

    plain = requests.get(f"{gunicorn}/leagues/x/", headers=host, allow_redirects=False)
    assert plain.status_code == 301
    assert plain.headers["Location"] == "https://arena.example.org/leagues/x/"
    # health probes speak plain HTTP to the process: not redirected
    assert requests.get(f"{gunicorn}/healthz", headers=host).status_code == 200

    page = requests.get(f"{gunicorn}/accounts/login/", headers=https, allow_redirects=False)
    assert page.status_code == 200
    assert page.headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"
    assert page.headers["X-Content-Type-Options"] == "nosniff"
    assert page.headers["X-Frame-Options"] == "DENY"
    csrf_cookie = page.headers["Set-Cookie"]
    assert csrf_cookie.startswith("csrftoken=") and "Secure" in csrf_cookie
    csrf = page.cookies["csrftoken"]
    form_token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    assert form_token is not None

    login = requests.post(
        f"{gunicorn}/accounts/login/",
        headers={**https, "Referer": "https://arena.example.org/accounts/login/",
                 "Cookie": f"csrftoken={csrf}"},
        data={"username": "secure-sam", "password": PASSWORD,
              "csrfmiddlewaretoken": form_token.group(1)},
        allow_redirects=False,
    )  # fmt: skip
    assert login.status_code == 302, login.text[:500]
    session = [c for c in login.raw.headers.getlist("Set-Cookie") if c.startswith("sessionid=")]
    assert session and "Secure" in session[0] and "HttpOnly" in session[0], session


# ---------------------------------------------------------------- tokens stored hashed


class Forms(HTMLParser):
    """The POST forms of a page: (action, {field: value})."""

    def __init__(self, page_url: str) -> None:
        super().__init__()
        self.page_url = page_url
        self.forms: list[tuple[str, dict[str, str]]] = []
        self._open: dict[str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and a.get("method", "get").lower() == "post":
            self._open = {}
            self.forms.append((a.get("action") or self.page_url, self._open))
        elif tag in ("input", "select", "button", "textarea") and self._open is not None:
            if a.get("name") and a.get("type") != "submit":
                self._open.setdefault(a["name"], a.get("value", ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._open = None


def post_forms(client: Client, url: str) -> list[tuple[str, dict[str, str]]]:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    parser = Forms(url)
    parser.feed(response.content.decode())
    return parser.forms


@pytest.fixture
def private_cache(settings: Any) -> Iterator[None]:  # pytest-django's settings fixture
    """Rate-limit counters start at zero and stay out of the shared Redis."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    cache.clear()
    yield
    cache.clear()


def every_row_containing(needle: str) -> list[str]:
    """Tables with a row whose text (every column, JSON included) contains ``needle``."""
    found = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            quoted = connection.ops.quote_name(table)
            cursor.execute(
                f"SELECT count(*) FROM {quoted} AS t WHERE strpos(t::text, %s) > 0",  # noqa: S608
                [needle],
            )
            if cursor.fetchone()[0]:
                found.append(table)
    return found


@pytest.mark.django_db
def test_tokens_and_api_keys_are_stored_hashed_only(
    private_cache: None, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    league = make_league("Token League", ["random", "greedy"], rounds=0, fit=False)
    shown: list[str] = []

    # services and the command line
    bot, token = create_bot("svc-bot")
    shown += [str(token), rotate_token(bot)]
    out = StringIO()
    call_command("bot", "create", "cli-bot", stdout=out)
    shown.append(out.getvalue().strip().splitlines()[-1])
    out = StringIO()
    call_command("bot", "rotate", "cli-bot", stdout=out)
    shown.append(out.getvalue().strip().splitlines()[-1])

    # the API: a key, a bot, a rotation, a new key
    User.objects.create_user("hasher", password=PASSWORD)
    api = Client()
    key = api.post("/api/auth/token/", {"username": "hasher", "password": PASSWORD},
                   content_type="application/json").json()["key"]  # fmt: skip
    auth = Client(HTTP_AUTHORIZATION=f"Token {key}")
    made = auth.post("/api/bots/", {"name": "api-bot"}, content_type="application/json").json()
    shown += [key, made["token"], auth.post("/api/bots/api-bot/token/").json()["token"]]
    auth.post("/api/bots/api-bot/entries/", {"league": league.slug},
              content_type="application/json")  # fmt: skip

    # the site: a bot, a rotation, an API key, all shown once in the page
    site = Client()
    site.login(username="hasher", password=PASSWORD)
    shown.append(site.post("/my/bots/", {"name": "web-bot"}).context["token"])
    shown.append(site.post("/my/bots/web-bot/rotate/").context["token"])
    shown.append(site.post("/my/api-key/").context["token"])
    mine, token = owned_bots.do_create_bot(User.objects.get(username="hasher"), "svc-owned")
    shown.append(token)

    assert len(set(shown)) == len(shown) == 11
    assert all(t.startswith(("aat_", "aak_")) and len(t) > 40 for t in shown), shown
    # the scan finds what is stored: the prefix kept for display, the hash
    assert every_row_containing(shown[-1][:10]) == ["arena_bot"]
    assert every_row_containing(hashlib.sha256(shown[-1].encode()).hexdigest()) == ["arena_bot"]
    sessions = [s.get_decoded() for s in Session.objects.all()]
    assert sessions
    logged = "\n".join(r.getMessage() for r in caplog.records)
    for secret in shown:
        # the whole token, its secret part, and a stretch of it past the stored prefix
        for needle in (secret, secret[4:], secret[12:28]):
            assert not every_row_containing(needle), f"{secret[:10]}... stored in plain text"
            assert not any(needle in str(s) for s in sessions)
            assert needle not in logged


# ---------------------------------------------------------------- CSRF on every form


@pytest.mark.django_db
def test_every_post_form_needs_its_csrf_token(private_cache: None) -> None:
    league = make_league("Csrf League", ["random", "greedy"], rounds=0, fit=False)
    make_league("Other League", ["random", "greedy"], rounds=0, fit=False)  # to enter
    user = User.objects.create_user("forms", password=PASSWORD, is_staff=True)
    owned_bots.do_create_bot(user, "form-bot")
    owned_bots.do_enter_league(user, owned_bots.find_bot("form-bot"), league)
    pages = {
        "anonymous": ["/accounts/login/", "/accounts/signup/", "/admin/login/"],
        "user": ["/", "/my/bots/", "/my/bots/form-bot/"],
    }
    checked: set[str] = set()
    for who, urls in pages.items():
        strict = Client(enforce_csrf_checks=True)
        if who == "user":
            strict.force_login(user)
        for url in urls:
            for action, fields in post_forms(strict, url):
                if action in checked:
                    continue
                checked.add(action)
                assert fields.get("csrfmiddlewaretoken"), f"the form of {url} -> {action}"
                data = {k: v for k, v in fields.items() if k != "csrfmiddlewaretoken"}
                refused = strict.post(action, data)
                assert refused.status_code == 403, (action, refused.status_code)
                assert b"CSRF" in refused.content
                accepted = strict.post(action, fields)
                assert accepted.status_code != 403, (action, accepted.content[:300])
                if who == "user" and action.endswith("/logout/"):
                    strict.force_login(user)
    expected = {"/accounts/login/", "/accounts/signup/", "/admin/login/", "/accounts/logout/",
                "/my/bots/", "/my/api-key/", "/my/bots/form-bot/rotate/",
                "/my/bots/form-bot/revoke/", "/my/bots/form-bot/leave/",
                "/my/bots/form-bot/enter/"}  # fmt: skip
    assert expected <= {a.split("?")[0] for a in checked}, sorted(checked)
    print("forms checked:", sorted(checked))


# ---------------------------------------------------------------- rate limits not yet covered


def attempts(n: int, call: Callable[[], Any]) -> list[Any]:
    return [call() for _ in range(n)]


@pytest.mark.django_db
def test_sign_up_and_admin_log_in_are_rate_limited(private_cache: None, settings: Any) -> None:
    settings.LOGIN_RATE_LIMIT = 3
    signup = Client()
    answers = attempts(4, lambda: signup.post(
        "/accounts/signup/", {"username": "x", "password1": "a", "password2": "b"}))  # fmt: skip
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert "Too many attempts" in answers[-1].content.decode()

    User.objects.create_superuser("root", password=PASSWORD)
    admin = Client()
    answers = attempts(4, lambda: admin.post(
        "/admin/login/", {"username": "root", "password": "wrong"}))  # fmt: skip
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert "Too many attempts" in answers[-1].content.decode()
    # the right password is refused too until the window passes: no oracle
    right = admin.post("/admin/login/", {"username": "root", "password": PASSWORD})
    assert right.status_code == 429
    login = Client()
    answers = attempts(4, lambda: login.post(
        "/accounts/login/", {"username": "root", "password": "wrong"}))  # fmt: skip
    assert "Too many attempts" in answers[-1].content.decode()


@pytest.mark.django_db
def test_making_bot_tokens_is_rate_limited(private_cache: None, settings: Any) -> None:
    """On the site (new bot, rotation: LOGIN_RATE_LIMIT per window) and through the API
    (THROTTLE_BOT_TOKENS, 30/hour: new bots, rotations and revocations together)."""
    settings.LOGIN_RATE_LIMIT = 3
    user = User.objects.create_user("tokens", password=PASSWORD)
    site = Client()
    site.force_login(user)
    made = [site.post("/my/bots/", {"name": f"site-bot-{i}"}).status_code for i in range(2)]
    rotated = [site.post("/my/bots/site-bot-0/rotate/").status_code for _ in range(2)]
    assert made + rotated == [200, 200, 200, 429]
    late = site.post("/my/bots/", {"name": "site-bot-late"})
    assert late.status_code == 429 and "Too many attempts" in late.content.decode()
    assert not owned_bots.my_bots(user) or "site-bot-late" not in {
        b.name for b in owned_bots.my_bots(user)
    }

    cache.clear()
    api = Client()
    api.force_login(user)  # the session, as the site's own scripts would (no CSRF in tests)
    answers = [api.post("/api/bots/", {"name": f"api-bot-{i}"}, content_type="application/json")
               for i in range(10)]  # fmt: skip
    answers += attempts(10, lambda: api.post("/api/bots/api-bot-0/token/"))
    answers += attempts(10, lambda: api.delete("/api/bots/api-bot-1/token/"))
    assert [a.status_code for a in answers] == [201] * 10 + [200] * 10 + [204] * 10
    over = api.post("/api/bots/api-bot-0/token/")
    assert over.status_code == 429
    assert over.json()["code"] == "throttled" and "throttled" in over.json()["error"]
    assert api.post("/api/bots/", {"name": "one-more"}, content_type="application/json"
                    ).status_code == 429  # fmt: skip


@pytest.mark.django_db
def test_regression_a_forged_forwarded_for_does_not_reset_the_api_limit(
    private_cache: None,
) -> None:
    """Found here: DRF's throttles identify an anonymous client by its X-Forwarded-For
    header when there is one (NUM_PROXIES unset), so a client sending a new made-up
    address on every request was never throttled: unlimited password guesses through
    POST /api/auth/token/. The API now counts by the peer address, as the site does."""
    User.objects.create_user("victim", password=PASSWORD)
    api = Client()
    answers = [
        api.post("/api/auth/token/", {"username": "victim", "password": f"guess-{i}"},
                 content_type="application/json", HTTP_X_FORWARDED_FOR=f"10.0.{i}.1")
        for i in range(11)
    ]  # fmt: skip
    assert [a.status_code for a in answers] == [400] * 10 + [429]
    assert answers[-1].json()["code"] == "throttled"

"""Check that the PostgreSQL and Redis the test suite needs are reachable.

    python scripts/check_services.py [--create-database]

Reads DATABASE_URL and REDIS_URL (defaults: the local services `make test` uses).
Says plainly which service is missing and the command that starts it, and exits
non-zero if any is. With --create-database, creates the PostgreSQL database named
in DATABASE_URL when the server is up but the database does not exist yet.
Uses only the drivers (psycopg, redis), not Django.
"""

from __future__ import annotations

import argparse
import os
import sys

import psycopg
import redis
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/agent_avenue"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
TIMEOUT_SECONDS = 3

START_POSTGRES = (
    "  Debian/Ubuntu: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start\n"
    "  Docker:        docker compose up -d postgres   "
    "(then DATABASE_URL=postgres://arena:arena@127.0.0.1:5432/agent_avenue)"
)
START_REDIS = (
    "  Debian/Ubuntu: redis-server --daemonize yes --bind 127.0.0.1 --port 6379 "
    "--save '' --appendonly no\n"
    "  Docker:        docker compose up -d redis"
)


def _postgres_conninfo(url: str) -> str:
    # psycopg accepts postgres:// and postgresql:// URLs; dj-database-url also knows
    # aliases such as "pgsql://", which psycopg does not.
    scheme = url.split("://", 1)[0]
    if scheme not in ("postgres", "postgresql"):
        raise SystemExit(
            f"DATABASE_URL={url!r} is not a PostgreSQL URL; the test suite runs against "
            f"PostgreSQL, e.g. DATABASE_URL={DEFAULT_DATABASE_URL}"
        )
    return url


def check_postgres(url: str, create: bool) -> bool:
    conninfo = _postgres_conninfo(url)
    params = conninfo_to_dict(conninfo)
    target = str(params.get("dbname") or "postgres")
    where = f"{params.get('host', 'localhost')}:{params.get('port', 5432)}"
    try:
        with psycopg.connect(conninfo, connect_timeout=TIMEOUT_SECONDS):
            pass
        print(f"ok       PostgreSQL at {where}, database {target!r}")
        return True
    except psycopg.OperationalError as exc:
        message = str(exc).strip()
        missing_db = f'database "{target}" does not exist' in message
        if not missing_db:
            print(f"MISSING  PostgreSQL at {where} is not reachable: {message}")
            print(f"Start it with:\n{START_POSTGRES}")
            return False
    if not create:
        print(f"MISSING  PostgreSQL database {target!r} does not exist at {where}")
        print(
            f"  Create it: createdb -h {params.get('host', '127.0.0.1')} -U "
            f"{params.get('user', 'postgres')} {target}   (or pass --create-database)"
        )
        return False
    maintenance = make_conninfo(conninfo, dbname="postgres")
    with psycopg.connect(maintenance, connect_timeout=TIMEOUT_SECONDS, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(target)))
    print(f"ok       PostgreSQL at {where}, database {target!r} created")
    return True


def check_redis(url: str) -> bool:
    client = redis.Redis.from_url(
        url, socket_connect_timeout=TIMEOUT_SECONDS, socket_timeout=TIMEOUT_SECONDS
    )
    try:
        client.ping()
    except redis.RedisError as exc:
        print(f"MISSING  Redis at {url} is not reachable: {exc}")
        print(f"Start it with:\n{START_REDIS}")
        return False
    finally:
        client.close()
    print(f"ok       Redis at {url}")
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description="Check PostgreSQL and Redis for the tests.")
    parser.add_argument(
        "--create-database",
        action="store_true",
        help="create the database named in DATABASE_URL if the server has no such database",
    )
    args = parser.parse_args()
    database_url = os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL
    redis_url = os.environ.get("REDIS_URL") or DEFAULT_REDIS_URL
    results = [check_postgres(database_url, args.create_database), check_redis(redis_url)]
    if not all(results):
        print("The test suite needs both PostgreSQL and Redis; start the missing one(s) above.")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

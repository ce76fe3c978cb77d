"""The arena's PostgreSQL schema as plain data, to compare two migration histories.

``describe(connection)`` reads the catalogs for every table of the project's own apps:
each column (type, NOT NULL, default, identity), each constraint (its kind and
definition) and each index (its definition), with generated names left out (a
constraint's or an index's name holds a hash of the history that made it, not of what it
does). Two databases with equal descriptions answer every query alike.

``schema_before_squash.json`` is this description of a database built by the 34
migrations the apps had before they were squashed into one initial migration each
(commit ``afc6975``), written by::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/squash_old \\
        python -m tests.foundation.schema write tests/foundation/schema_before_squash.json

after ``manage.py migrate`` on that database.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

#: the project's own apps; their tables are what the migrations made
APP_LABELS = ("arena", "ratings", "analytics", "hosting", "leaderboard", "workers")
SNAPSHOT = Path(__file__).with_name("schema_before_squash.json")


def project_tables() -> list[str]:
    from django.apps import apps

    tables: set[str] = set()
    for label in APP_LABELS:
        try:
            config = apps.get_app_config(label)
        except LookupError:
            continue
        for model in config.get_models(include_auto_created=True):
            tables.add(model._meta.db_table)
    return sorted(tables)


def _unnamed(definition: str, name: str) -> str:
    return re.sub(rf'\b"?{re.escape(name)}"?\b', "<name>", definition)


def describe(connection: Any, tables: list[str] | None = None) -> dict[str, Any]:
    """Every table's columns, constraints and indexes (PostgreSQL only)."""
    if connection.vendor != "postgresql":
        raise RuntimeError(f"describe() reads PostgreSQL's catalogs, not {connection.vendor}'s")
    tables = project_tables() if tables is None else tables
    out: dict[str, Any] = {}
    with connection.cursor() as cur:
        for table in tables:
            cur.execute(
                "SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,"
                " pg_get_expr(d.adbin, d.adrelid), a.attidentity"
                " FROM pg_attribute a LEFT JOIN pg_attrdef d"
                "   ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
                " WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT a.attisdropped",
                [table],
            )
            columns = {
                name: {"type": type_, "not_null": notnull, "default": default, "identity": ident}
                for name, type_, notnull, default, ident in cur.fetchall()
            }
            cur.execute(
                "SELECT conname, contype, pg_get_constraintdef(oid) FROM pg_constraint"
                " WHERE conrelid = %s::regclass",
                [table],
            )
            constraints = sorted(
                f"{kind}: {_unnamed(definition, name)}" for name, kind, definition in cur.fetchall()
            )
            cur.execute(
                "SELECT indexname, indexdef FROM pg_indexes"
                " WHERE schemaname = current_schema() AND tablename = %s",
                [table],
            )
            indexes = sorted(_unnamed(definition, name) for name, definition in cur.fetchall())
            out[table] = {"columns": columns, "constraints": constraints, "indexes": indexes}
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "write":
        print("usage: python -m tests.foundation.schema write FILE.json", file=sys.stderr)
        return 2
    import os

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from django.db import connection

    Path(argv[1]).write_text(json.dumps(describe(connection), indent=1, sort_keys=True) + "\n")
    print(f"wrote {argv[1]}: {len(project_tables())} tables")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Writing several rows of one table in one statement (``update_rows``).

A result updates 2 to 4 participations, as many rating rows and a few analytics rows;
one ``UPDATE ... FROM (VALUES ...)`` per table instead of one statement per row. Django's
``bulk_update`` does it with a ``CASE`` per field and row, which costs more to build than
the round trips it saves; this builds the statement from the fields' own column types
and value preparation, and works on PostgreSQL and SQLite (3.33+) alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import connection
from django.db.models import Field, Model


def update_rows(rows: Sequence[Model], fields: Sequence[str]) -> int:
    """Write ``fields`` of each of ``rows`` (saved instances of one model, by primary key)
    in one statement; returns the number of rows updated. The caller holds whatever locks
    the rows' values were computed under."""
    if not rows:
        return 0
    model = type(rows[0])
    meta = model._meta
    pk = meta.pk
    assert pk is not None
    columns: list[Field[Any, Any]] = [pk]
    for name in fields:
        f = meta.get_field(name)
        assert isinstance(f, Field), f"{name} is not a concrete field"
        columns.append(f)
    quote = connection.ops.quote_name
    params: list[Any] = []
    for row in rows:
        assert type(row) is model, "update_rows takes rows of one model"
        for f in columns:
            params.append(f.get_db_prep_save(getattr(row, f.attname), connection))
    table = quote(meta.db_table)
    sets = ", ".join(f"{quote(f.column)} = v.column{i}" for i, f in enumerate(columns[1:], start=2))
    sql = (
        f"UPDATE {table} SET {sets} FROM {values_sql(columns, len(rows))}"
        f" WHERE {table}.{quote(pk.column)} = v.column1"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount


def values_sql(columns: Sequence[Field[Any, Any]], rows: int) -> str:
    """``(VALUES (...), ...) AS v``: ``rows`` rows of one parameter per column, typed as
    ``columns`` (its columns are ``v.column1``, ``v.column2``... on both databases).
    PostgreSQL types the columns of a VALUES list from its first row, and parameters
    arrive untyped: each is cast to its column's type. SQLite takes the values as bound."""
    cast = connection.vendor == "postgresql"
    row_sql = (
        "("
        + ", ".join(f"CAST(%s AS {f.db_type(connection)})" if cast else "%s" for f in columns)
        + ")"
    )
    return f"(VALUES {', '.join([row_sql] * rows)}) AS v"


def insert_rows(rows: Sequence[Model]) -> int:
    """Insert ``rows`` (new instances of one model; their primary key set, or made by the
    database) in one plain ``INSERT ... VALUES`` of one row per instance, with no
    ``RETURNING``: the ids made are not read back. Django's ``bulk_create`` sends each
    column as one array on PostgreSQL (``UNNEST``), whose text form escapes every quote of
    a replay's JSON in Python; here each value is bound as a literal of its own."""
    if not rows:
        return 0
    model = type(rows[0])
    meta = model._meta
    fields = [
        f
        for f in meta.concrete_fields
        if not (f.primary_key and getattr(rows[0], f.attname) is None)  # made by the database
    ]
    quote = connection.ops.quote_name
    params: list[Any] = []
    for row in rows:
        assert type(row) is model, "insert_rows takes rows of one model"
        for f in fields:
            params.append(f.get_db_prep_save(f.pre_save(row, add=True), connection))
    one = "(" + ", ".join(["%s"] * len(fields)) + ")"
    sql = (
        f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(f.column) for f in fields)})"
        f" VALUES {', '.join([one] * len(rows))}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount

"""Migration arena 0005 renames the bots whose names break the rule: deterministic,
unique, nothing else touched; 0006 then holds the rule as a check constraint."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from arena import names
from arena.models import Bot

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("arena", "0004_botversion")]


def _migrate(targets: list[tuple[str, str]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state(targets).apps


@pytest.fixture
def before_the_rule() -> Iterator[Any]:
    latest = list(MigrationExecutor(connection).loader.graph.leaf_nodes())
    try:
        yield _migrate(BEFORE)
    finally:
        _migrate(latest)


def test_invalid_names_are_renamed_deterministically_and_uniquely(
    before_the_rule: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    OldBot = before_the_rule.get_model("arena", "Bot")
    # "r1" is taken, so "ｒ１" (which folds to it) needs its id; "." and ".." both fold to
    # "bot" and must not collide with each other.
    olds = ["r1", "ｒ１", "г1", ".", "..", ".hidden", "fine-bot", "new\n"]
    ids = {name: OldBot.objects.create(name=name, kind="remote").pk for name in olds}
    _migrate(list(MigrationExecutor(connection).loader.graph.leaf_nodes()))

    now = dict(Bot.objects.values_list("pk", "name"))
    assert now[ids["r1"]] == "r1" and now[ids["fine-bot"]] == "fine-bot"
    assert now[ids["ｒ１"]] == f"r1-{ids['ｒ１']}"
    assert now[ids["г1"]] == "_1"
    assert now[ids["."]] == "bot"
    assert now[ids[".."]] == f"bot-{ids['..']}"
    assert now[ids[".hidden"]] == "hidden"
    assert now[ids["new\n"]] == "new_"
    assert all(names.is_valid(n) for n in now.values())
    assert len(set(now.values())) == len(now)
    printed = capsys.readouterr().out
    assert f"bot {ids['г1']}: renamed 'г1' to '_1'" in printed


def test_the_repair_is_a_pure_function_of_name_taken_and_salt() -> None:
    taken = {"r1", "bot"}
    assert names.repaired("ｒ１", taken, "7") == names.repaired("ｒ１", set(taken), "7") == "r1-7"
    assert names.repaired("a" * 70 + "é", set(), "9") == "a" * 64
    long = "ж" * 80
    got = names.repaired(long, {"_" * 64}, "12345")
    assert names.is_valid(got) and got.endswith("-12345") and len(got) == 64

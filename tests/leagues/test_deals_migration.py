"""The 64-bit seed column widens to 128-bit seeds keeping every stored value, and the
league seed goes (migration ``arena.0005_independent_deals``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from arena.models import League, Match

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("arena", "0004_botversion")]


def _migrate(targets: list[tuple[str, str]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state(targets).apps


@pytest.fixture
def back_to_latest() -> Iterator[None]:
    latest = list(MigrationExecutor(connection).loader.graph.leaf_nodes())
    try:
        yield
    finally:
        _migrate(latest)


def test_stored_64_bit_seeds_survive_the_widening(back_to_latest: None) -> None:
    old = _migrate(BEFORE)
    OldLeague, OldRound, OldMatch = (
        old.get_model("arena", name) for name in ("League", "Round", "Match")
    )
    league = OldLeague.objects.create(name="Old", slug="old", seed=2026)
    rnd = OldRound.objects.create(league=league, number=1)
    seeds = [0, 1, 2026, 2**48 - 1, 2**63 - 1]
    for i, seed in enumerate(seeds):
        OldMatch.objects.create(league=league, round=rnd, pairing_key=f"1_v_{i}",
                                deck_seed=seed, first_team=seed % 2)  # fmt: skip

    _migrate(list(MigrationExecutor(connection).loader.graph.leaf_nodes()))
    assert [m.deck_seed for m in Match.objects.order_by("id")] == seeds
    assert League.objects.get(slug="old").deals == "independent"
    # and the column takes what a 64-bit one could not
    m = Match.objects.order_by("id").first()
    assert m is not None
    Match.objects.filter(pk=m.pk).update(deck_seed=2**128 - 1)
    assert Match.objects.get(pk=m.pk).deck_seed == 2**128 - 1
    assert Match.objects.filter(deck_seed=2**128 - 1).count() == 1

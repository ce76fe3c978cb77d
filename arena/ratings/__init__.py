"""Ratings, part of the competition domain: live Elo (``elo``), its exact ledger
(``ledger``), the batch fit with uncertainty (``batch``), their models and the services
that recompute and fit them (``services``). The web layer only reads them.

A Django app of its own (label ``ratings``), so that ``arena.models`` and the rating models
do not import each other: these refer to leagues, bots and matches by name.
"""

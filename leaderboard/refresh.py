"""Right after a result commits, the pages it changed that someone is watching
(``leaderboard.watching``) are built into the cache, so their next visitor reads the
versions and finds every section ready instead of reading and rendering what the result
moved (issue 14 §6: the standings page right after a result within 3x the trivial page).

Registered with the domain's ``arena.services.result_hooks`` (the domain does not import
the web layer) by ``LeaderboardConfig.ready``; it runs on the result's thread (the worker's,
or the embedded mode's), after the commit, through the same code a visitor's request runs
(``leaderboard.sections``): what it caches is keyed by the versions it reads first, exactly
as a request's, so it can make a page faster, never older, and a withheld game stays as
hidden as the page's own build keeps it. What it builds: the league's standings page in
its default order with the latest round, and each watched bot's page for its default
league; a page is built here at most ``watching.BUILDS_PER_VIEW`` times between two
views (a burst of results nobody looks at costs a few builds, not one each). A page
nobody viewed in the last ``PAGE_WATCH_SECONDS`` costs the result one cache read.
"""

from __future__ import annotations

from arena.services.result_hooks import ResultCommitted
from leaderboard import sections, watching
from leaderboard.reads import bots as bot_reads
from leaderboard.reads import leagues as league_reads


def refresh_league(slug: str) -> None:
    found = league_reads.league_with_version(slug)
    if found is not None:
        sections.league_sections(*found)


def refresh_bot(bot_id: int) -> None:
    found = bot_reads.bot_with_version(pk=bot_id)
    if found is not None:
        sections.bot_body(*found)


def after_result(event: ResultCommitted) -> None:
    """The hook: one ``get_many`` for which of the league's page and the bots' pages are
    due (watched, and built fewer than ``BUILDS_PER_VIEW`` times since their last view),
    a build of each, and one write counting the builds."""
    league = watching.league_key(event.league.pk)
    bots = {watching.bot_key(b): b for b in event.bot_ids}
    due = watching.due([league, *bots])
    if league in due:
        refresh_league(event.league.slug)
    for key, bot_id in bots.items():
        if key in due:
            refresh_bot(bot_id)
    watching.built(due)

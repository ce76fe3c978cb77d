"""What keeps concurrent test runs apart: Redis databases and sandbox uids (docs/testing.md).

Used by tests/conftest.py (one slice per xdist worker) and scripts/test_phases.py (the
serial phase beside the parallel one); imports nothing of the project's.
"""

from __future__ import annotations

import urllib.parse

#: the sandbox uids of config/settings.py (HOSTED_SANDBOX_UIDS), split between the phases
#: and workers of a run
SANDBOX_UIDS = (61000, 61999)


def worker_redis_url(url: str, index: int) -> str:
    """``url`` moved on by ``index`` Redis databases: ``redis://h:6379/8`` for worker 2 is
    ``redis://h:6379/10`` (the database in the path, or in ``?db=`` as unix:// URLs and
    redis-py allow; none named is database 0)."""
    if index == 0:
        return url
    parts = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    if any(k == "db" for k, _ in query):
        query = [(k, str(int(v) + index) if k == "db" else v) for k, v in query]
        return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))
    if parts.scheme == "unix":
        query.append(("db", str(index)))
        return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))
    db = int(parts.path.strip("/") or 0)
    return urllib.parse.urlunsplit(parts._replace(path=f"/{db + index}"))

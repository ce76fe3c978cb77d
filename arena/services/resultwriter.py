"""Results of a process's match threads written together (``write_results``).

On a ``--pool threads`` worker (or a round's pool in one process) many matches end at
about the same time, each with a result to write. Written one by one, each result pays a
transaction's statements and its ``COMMIT``'s flush on its own. Here a thread with results
to write either becomes the process's writer, if no thread is writing, or leaves them to
the writer and waits: the writer writes what is waiting as one batch
(``do_finish_matches``), hands each thread its outcomes, and if more results arrived
meanwhile hands the writing to one of their threads, which writes them as the next batch.
So results that arrive while a batch is being written are written together, and a thread
never writes for long on the others' behalf (one batch at most). A thread alone (nothing
being written) writes at once, as before: no result waits for a timer.

Each result keeps its own claim's check, lease and fallback (``do_finish_matches``); a
thread waiting here keeps its leases extended (its ``LeaseHeartbeat`` is still open), and
an exception of the batch's writing (the database gone) is raised in every thread of that
batch, as it would have been in each alone.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.db import connection

from arena.services.claims import PlayOutcome
from arena.services.results import Finished, do_finish_matches


@dataclass
class _Ticket:
    """One thread's results waiting for the writer, and what it is told."""

    results: Sequence[Finished]
    done: threading.Event = field(default_factory=threading.Event)
    #: set when this thread is to write the next batch itself
    lead: bool = False
    ends: list[PlayOutcome] | None = None
    error: BaseException | None = None


class ResultWriter:
    """The process's writer of results (see the module doc). ``batches`` counts the
    batches written and their sizes in results (the last 1,000), for logs and tests."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: list[_Ticket] = []
        self._writing = False
        self.batches: list[int] = []

    def write(self, results: Sequence[Finished]) -> list[PlayOutcome]:
        """Write ``results`` (one thread's: a match, or a chunk's), together with whatever
        other threads have waiting; their outcomes in order."""
        if not results:
            return []
        ticket = _Ticket(results)
        with self._lock:
            self._waiting.append(ticket)
            lead = not self._writing
            self._writing = True
        if not lead:
            ticket.done.wait()
            if not ticket.lead:
                if ticket.error is not None:
                    raise ticket.error
                assert ticket.ends is not None
                return ticket.ends
        self._write_waiting()
        if ticket.error is not None:
            raise ticket.error
        assert ticket.ends is not None
        return ticket.ends

    def _write_waiting(self) -> None:
        """As the writer: one batch of everything waiting, then the writing handed on."""
        with self._lock:
            batch, self._waiting = self._waiting, []
        flat = [f for t in batch for f in t.results]
        try:
            ends = do_finish_matches(flat)
        except BaseException as exc:  # noqa: BLE001 - raised in each of the batch's threads
            for t in batch:
                t.error = exc
        else:
            at = 0
            for t in batch:
                t.ends, at = ends[at : at + len(t.results)], at + len(t.results)
        with self._lock:
            self.batches = [*self.batches[-999:], len(flat)]
            if self._waiting:
                self._waiting[0].lead = True  # its thread writes the next batch
                self._waiting[0].done.set()
            else:
                self._writing = False
        for t in batch:
            t.done.set()


_writer = ResultWriter()


def write_results(results: Sequence[Finished]) -> list[PlayOutcome]:
    """Write a thread's results: at once in a process's main thread (Celery's solo and
    prefork pools play one task at a time there: nothing to group with) or inside a
    transaction of the caller's (whose locks another thread's batch might wait for while
    this one waited for it), else through the process's ``ResultWriter``."""
    if threading.current_thread() is threading.main_thread() or connection.in_atomic_block:
        return do_finish_matches(results)
    return _writer.write(results)

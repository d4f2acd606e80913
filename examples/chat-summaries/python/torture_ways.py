"""The other ways to hold, for the torture worker (``--ways all``), as the
Rust worker's torture_ways.rs holds them: several chats at once
(``hold_all``, each saved through the fenced update with its own lease's
fence), read and write leases of a read-write lock, and weighted permits
of a semaphore, one in three of the last three capped by a ``max_hold``
shorter than the hold, so that it is renewed once and runs out there.
Only the server's audit log checks these (tests/torture/check.py)."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from typing import Callable

import tinystore

REPORTS = "reports"
POOL, POOL_KEY, POOL_LIMIT = "pool", "gpu", 3
MAX_HOLD = 0.150
CAPPED_PAUSE = 0.220

Save = Callable[[sqlite3.Connection, int, str, str], int]


@dataclass
class Hold:
    """What a hold of another way needs: the store, the chat database (for
    the saves of several chats), how to save, the worker's name, the TTL
    and the pause inside a hold, in seconds."""

    store: tinystore.Store
    conn: sqlite3.Connection
    save: Save
    worker: str
    ttl: float
    pause: float

    def run(self, roll: int, chat: int, other: int) -> None:
        """Runs the hold ``roll`` (0..99) picks: several chats (``chat`` and
        ``other``, one when they are the same), a read or a write of
        ``chat``, or a weighted permit; one in three capped by a max_hold
        (then it ends with :class:`tinystore.LeaseLost`)."""
        capped = roll % 3 == 0
        max_hold = MAX_HOLD if capped else None
        pause = CAPPED_PAUSE if capped else self.pause
        if roll < 40:
            self.several(chat, other)
        elif roll < 70:
            with self.store.rw_locks(REPORTS, ttl=self.ttl).hold_read(chat, max_hold=max_hold):
                time.sleep(pause)
        elif roll < 85:
            with self.store.rw_locks(REPORTS, ttl=self.ttl).hold_write(chat, max_hold=max_hold):
                time.sleep(pause)
        else:
            weight = roll % POOL_LIMIT + 1
            pool = self.store.semaphore(POOL, POOL_LIMIT, ttl=self.ttl)
            with pool.hold(POOL_KEY, weight=weight, max_hold=max_hold):
                time.sleep(pause)

    def several(self, chat: int, other: int) -> None:
        """Holds ``chat`` and ``other`` together and saves each with its
        own lease's fence."""
        chats = [chat] if chat == other else [chat, other]
        with self.store.locks("summaries", ttl=self.ttl).hold_all(chats) as leases:
            time.sleep(self.pause)
            for each, lease in zip(chats, leases):
                self.save(self.conn, each, f"{lease.fence:040d}", self.worker)

"""``torture``: a worker for the torture test. It holds random chats and
saves through the fenced update, logging each save in ``save_log`` in the
same transaction, and carries on through lost leases and server restarts."""

from __future__ import annotations

import os
import random
import sqlite3
import time
from dataclasses import dataclass

import chat_db
import tinystore
import torture_ways

LOG = """create table if not exists save_log (
    seq integer primary key autoincrement,
    chat integer not null, fence text not null, worker text not null,
    accepted integer not null, kept text not null)"""


@dataclass
class Tally:
    """What the worker saw."""

    saves: int = 0
    lost: int = 0
    errors: int = 0
    ways: int = 0


def save_logged(conn: sqlite3.Connection, chat: int, fence: str, worker: str) -> int:
    """The fenced update and its save_log row, in one ``begin immediate``
    transaction. Returns the rows the update changed."""
    conn.execute("begin immediate")
    try:
        changed = chat_db.save(conn, chat, f"summary by {worker}", fence)
        conn.execute(
            "insert into save_log (chat, fence, worker, accepted, kept)"
            " values (?, ?, ?, ?, (select summary_fence from chats where id = ?))",
            (chat, fence, worker, changed, chat),
        )
        conn.execute("commit")
        return changed
    except BaseException:
        if conn.in_transaction:
            conn.execute("rollback")
        raise


def run(
    store: tinystore.Store,
    db: str,
    worker: str,
    chats: int,
    seconds: float,
    ttl: float,
    longest_pause_ms: int,
    all_ways: bool = False,
) -> Tally:
    """Runs until ``seconds`` pass, pausing in each hold up to
    ``longest_pause_ms`` before its save. With ``all_ways``, half the holds
    are of the other ways to hold (torture_ways): several chats, reads,
    writes, weighted permits, some capped by a max_hold."""
    conn = chat_db.open_db(db)
    conn.execute(LOG)
    chat_db.seed(conn, chats)
    summaries = store.locks("summaries", ttl=ttl)
    deadline = time.monotonic() + seconds
    rng = random.Random(os.getpid())
    tally = Tally()
    while time.monotonic() < deadline:
        chat = rng.randint(1, chats)
        pause = rng.randint(0, longest_pause_ms) / 1000
        other_way = all_ways and rng.random() < 0.5
        try:
            if other_way:
                hold = torture_ways.Hold(store, conn, save_logged, worker, ttl, pause)
                hold.run(rng.randrange(100), chat, rng.randint(1, chats))
                tally.ways += 1
            else:
                with summaries.hold(chat) as lease:
                    time.sleep(pause)
                    save_logged(conn, chat, f"{lease.fence:040d}", worker)
                tally.saves += 1
        except tinystore.LeaseLost:
            if other_way:
                tally.ways += 1
            else:
                tally.saves += 1
            tally.lost += 1
        except (tinystore.Error, sqlite3.Error):
            tally.errors += 1
            time.sleep(0.05)
    return tally

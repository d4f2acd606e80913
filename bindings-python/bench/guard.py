"""What tinystore.guard costs per write in Python: a write transaction alone
(an update), the same with one more statement (an upsert into a side
table), and the same with the guard's check-and-record, on a SQLite file
(sqlite3, WAL) and on PostgreSQL (psycopg 3, at $TINYSTORE_PG_URL). The
three run in turn, sample by sample, so that a noisy machine weighs on
each alike. Prints the median µs per write of each, and the guard's cost
as µs and as a ratio to the write alone. Run by `make bench-guards-python`
(under tests/guards/with-postgres.sh)."""

from __future__ import annotations

import os
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tinystore.guard

SAMPLES = 7
SQLITE_WRITES = 2_000
POSTGRES_WRITES = 1_000
KINDS = ("the write alone", "the write and one more upsert", "the write and the guard")


def sample(conn: Any, mark: str, kind: int, writes: int, fence: list[int]) -> float:
    """µs per write of `writes` transactions of `kind` on a sqlite3 or
    psycopg connection (not in autocommit) whose placeholders are `mark`."""
    side = f"insert into side (k, v) values ('r', {mark}) on conflict (k) do update set v = excluded.v"
    start = time.perf_counter()
    for _ in range(writes):
        fence[0] += 1
        conn.execute("update items set v = v + 1 where id = 1")
        if kind == 1:
            conn.execute(side, (str(fence[0]),))
        elif kind == 2:
            tinystore.guard.check(conn, "items/1", fence[0])
        conn.commit()
    return (time.perf_counter() - start) * 1e6 / writes


def run(db: str, connect: Callable[[], Any], mark: str, writes: int) -> list[str]:
    conn = connect()
    fence = [0]
    samples: list[list[float]] = [[] for _ in KINDS]
    sample(conn, mark, 2, writes // 10, fence)  # warm up (psycopg prepares after 5 runs)
    for _ in range(SAMPLES):
        for kind in range(len(KINDS)):
            samples[kind].append(sample(conn, mark, kind, writes, fence))
    conn.close()
    m = [statistics.median(s) for s in samples]
    rows = [f"| {db} | {what} | {us:.1f} |" for what, us in zip(KINDS, m)]
    rows.append(f"| {db} | the guard's cost | {m[2] - m[0]:.1f} ({m[2] / m[0]:.2f}x the write alone; one more upsert: {m[1] - m[0]:.1f}) |")
    return rows


def prepare(conn: Any) -> None:
    """The bench's tables and the guard's register, on either database."""
    conn.execute("create table items (id integer primary key, v bigint not null)")
    conn.execute("insert into items values (1, 0)")
    conn.execute("create table side (k text primary key, v text not null)")
    tinystore.guard.ensure(conn)
    conn.commit()


def sqlite_connect(path: Path) -> Callable[[], Any]:
    def connect() -> sqlite3.Connection:
        conn = sqlite3.connect(path)
        conn.execute("pragma journal_mode = wal")
        conn.execute("pragma synchronous = normal")
        prepare(conn)
        return conn

    return connect


def postgres_connect(url: str) -> Callable[[], Any]:
    def connect() -> Any:
        import psycopg

        conn = psycopg.connect(url)
        conn.execute("drop table if exists items, side, tinystore_fences")
        prepare(conn)
        return conn

    return connect


def main() -> None:
    rows = ["| database | each write | µs per write (median of 7) |", "| --- | --- | ---: |"]
    with tempfile.TemporaryDirectory() as tmp:
        rows += run("SQLite (file, WAL)", sqlite_connect(Path(tmp) / "bench.db"), "?", SQLITE_WRITES)
    url = os.environ.get("TINYSTORE_PG_URL")
    if url:
        rows += run("PostgreSQL (psycopg)", postgres_connect(url), "%s", POSTGRES_WRITES)
    else:
        print("no TINYSTORE_PG_URL: PostgreSQL skipped (run under tests/guards/with-postgres.sh)", file=sys.stderr)
    print("\n".join(rows))


if __name__ == "__main__":
    main()

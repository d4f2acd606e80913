"""What tinystore.guard costs per write on MySQL or MariaDB in Python
(PyMySQL, at $TINYSTORE_MYSQL_URL): a write transaction alone (an update),
the same with one more statement (an upsert into a side table), and the
same with the guard's check-and-record, each fence larger than the last.
The three run in turn, sample by sample, so that a noisy machine weighs on
each alike. Prints the median µs per write of each and the ratio to the
write alone. Run by `make bench-guards-mysql-python` (under
tests/guards/with-mariadb.sh)."""

from __future__ import annotations

import os
import statistics
import sys
import time
from typing import Any
from urllib.parse import urlparse

import pymysql  # type: ignore[import-untyped]

import tinystore.guard

SAMPLES = 7
WRITES = 1_000
KINDS = ("the write alone", "the write and one more upsert", "the write and the guard")
SIDE = "insert into side (k, v) values ('r', %s) on duplicate key update v = if(v <= %s, %s, v)"


def sample(conn: Any, kind: int, fence: list[int]) -> float:
    """µs per write of `WRITES` transactions of `kind`."""
    start = time.perf_counter()
    for _ in range(WRITES):
        fence[0] += 1
        conn.begin()
        with conn.cursor() as cur:
            cur.execute("update items set v = v + 1 where id = 1")
            if kind == 1:
                text = str(fence[0])
                cur.execute(SIDE, (text, text, text))
        if kind == 2:
            tinystore.guard.check(conn, "items/1", fence[0])
        conn.commit()
    return (time.perf_counter() - start) * 1e6 / WRITES


def main() -> int:
    url = os.environ.get("TINYSTORE_MYSQL_URL")
    if not url:
        print("TINYSTORE_MYSQL_URL is unset: run under tests/guards/with-mariadb.sh", file=sys.stderr)
        return 2
    server = urlparse(url)
    conn = pymysql.connect(host=server.hostname, port=server.port, user=server.username, database=server.path[1:])
    with conn.cursor() as cur:
        for statement in (
            "drop table if exists items, side, tinystore_fences",
            "create table items (id integer primary key, v integer not null) engine=InnoDB",
            "insert into items values (1, 0)",
            "create table side (k varchar(64) primary key, v varchar(64) not null) engine=InnoDB",
        ):
            cur.execute(statement)
        cur.execute("select version()")
        version = cur.fetchone()[0]
    conn.commit()
    tinystore.guard.ensure(conn)
    fence = [0]
    samples: list[list[float]] = [[], [], []]
    for _ in range(SAMPLES):
        for kind in range(3):
            samples[kind].append(sample(conn, kind, fence))
    medians = [statistics.median(s) for s in samples]
    print(f"PyMySQL {pymysql.VERSION_STRING} on {version}, {WRITES} writes per sample, median of {SAMPLES}")
    print("| each write | µs per write | over the write alone |")
    print("| --- | ---: | ---: |")
    for what, us in zip(KINDS, medians):
        print(f"| {what} | {us:.0f} | {us / medians[0]:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

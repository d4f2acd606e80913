"""The Python rows of `make bench-languages` (bench/languages/run.py).

Usage: python runner.py SOCKET REDIS_URL SECONDS

tinystore through `tinystore serve` beside redis-py's ``Lock`` (SET NX PX,
a Lua compare-and-delete), sync from threads and asyncio from tasks, each
at 1 and 64 concurrent holders on 1,000 random keys for SECONDS. One client
per process, shared by its holders, as a program would: one
``tinystore.connect`` store; one ``redis.Redis`` (a pool, a connection per
busy thread or task). Prints one JSON line per row.

For profiling one row: BENCH_ONLY=asyncio:tinystore:64 (or sync:redis:1...)
runs only that row.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
import threading
import time
from collections.abc import Awaitable, Callable

import redis
import redis.asyncio
import tinystore

HOLDERS = (1, 64)
KEYS = 1000
TTL = 15.0
# How often a waiting redis-py Lock retries SET NX: 1 ms, as the other
# languages' Redis locks here (redis-py's default is 100 ms).
RETRY = 0.001
ONLY = os.environ.get("BENCH_ONLY")


def wanted(kind: str, system: str, holders: int) -> bool:
    return ONLY is None or ONLY == f"{kind}:{system}:{holders}"


def row(variant: str, system: str, lock: str, holders: int, lat: list[float], secs: float) -> None:
    lat.sort()

    def at(p: float) -> float:
        return lat[round((len(lat) - 1) * p)] * 1e6 if lat else 0.0

    print(
        json.dumps(
            {
                "language": "Python",
                "variant": variant,
                "system": system,
                "lock": lock,
                "holders": holders,
                "pairs": len(lat),
                "pairs_per_sec": len(lat) / secs,
                "p50_us": at(0.5),
                "p99_us": at(0.99),
            }
        ),
        flush=True,
    )


def threads(pair: Callable[[str], None], holders: int, secs: float) -> tuple[list[float], float]:
    """Runs `holders` threads calling `pair(key)` for `secs`; the latencies of every pair."""
    lat: list[float] = []
    start = time.perf_counter()
    deadline = start + secs

    def holder(seed: int) -> None:
        rng = random.Random(seed)
        mine = []
        clock = time.perf_counter
        while (t0 := clock()) < deadline:
            pair(f"k{rng.randrange(KEYS)}")
            mine.append(clock() - t0)
        lat.extend(mine)

    running = [threading.Thread(target=holder, args=(i,)) for i in range(holders)]
    for t in running:
        t.start()
    for t in running:
        t.join()
    return lat, time.perf_counter() - start


async def tasks(pair: Callable[[str], Awaitable[None]], holders: int, secs: float) -> tuple[list[float], float]:
    """Runs `holders` tasks awaiting `pair(key)` for `secs`; the latencies of every pair."""
    lat: list[float] = []
    start = time.perf_counter()
    deadline = start + secs

    async def holder(seed: int) -> None:
        rng = random.Random(seed)
        clock = time.perf_counter
        while (t0 := clock()) < deadline:
            await pair(f"k{rng.randrange(KEYS)}")
            lat.append(clock() - t0)

    await asyncio.gather(*(holder(i) for i in range(holders)))
    return lat, time.perf_counter() - start


def sync_rows(socket: str, url: str, secs: float) -> None:
    store = tinystore.connect(socket)
    locks = store.locks("bench", ttl=TTL)
    r = redis.Redis.from_url(url)

    def ts_pair(key: str) -> None:
        with locks.hold(key):
            pass

    def redis_pair(key: str) -> None:
        with r.lock(key, timeout=TTL, sleep=RETRY):
            pass

    for holders in HOLDERS:
        if wanted("sync", "tinystore", holders):
            row("sync, threads", "tinystore", "with locks.hold(key)", holders, *threads(ts_pair, holders, secs))
        if wanted("sync", "redis", holders):
            row("sync, threads", "redis", "redis-py Lock", holders, *threads(redis_pair, holders, secs))
    r.close()
    store.close()


async def async_rows(socket: str, url: str, secs: float) -> None:
    store = tinystore.connect(socket)
    locks = store.locks("bench", ttl=TTL)
    r = redis.asyncio.Redis.from_url(url)

    async def ts_pair(key: str) -> None:
        async with locks.hold(key):
            pass

    async def redis_pair(key: str) -> None:
        async with r.lock(key, timeout=TTL, sleep=RETRY):
            pass

    for holders in HOLDERS:
        if wanted("asyncio", "tinystore", holders):
            row("asyncio, tasks", "tinystore", "async with locks.hold(key)", holders, *await tasks(ts_pair, holders, secs))
        if wanted("asyncio", "redis", holders):
            row("asyncio, tasks", "redis", "redis.asyncio Lock", holders, *await tasks(redis_pair, holders, secs))
    await r.aclose()
    store.close()


def main() -> None:
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    socket, url, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
    sync_rows(socket, url, secs)
    asyncio.run(async_rows(socket, url, secs))


if __name__ == "__main__":
    main()

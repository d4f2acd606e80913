"""Round trips per second of `async with locks.hold(key)`, embedded and
through a `tinystore serve` process; also plain `with`. Prints the median
of five runs per case. Run by `make bench-python` (release build)."""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import tinystore

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from conftest import start_server, stop_server  # noqa: E402

RUNS = 5


def async_holds(locks: tinystore.Locks, n: int, awaits: bool) -> float:
    async def main() -> float:
        start = time.perf_counter()
        for _ in range(n):
            async with locks.hold("bench"):
                if awaits:
                    await asyncio.sleep(0)
        return n / (time.perf_counter() - start)

    return asyncio.run(main())


def sync_holds(locks: tinystore.Locks, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        with locks.hold("bench"):
            pass
    return n / (time.perf_counter() - start)


def median(case: Callable[[], float]) -> float:
    case()  # warm up
    return statistics.median(case() for _ in range(RUNS))


def cases(store: tinystore.Store, n: int) -> dict[str, float]:
    locks = store.locks("bench")
    return {
        "async with hold, empty body": median(lambda: async_holds(locks, n, False)),
        "async with hold, body awaits sleep(0)": median(lambda: async_holds(locks, n // 4, True)),
        "with hold (sync)": median(lambda: sync_holds(locks, n)),
    }


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        with tinystore.open(Path(tmp) / "embedded") as store:
            embedded = cases(store, 40_000)
        server = start_server(Path(tmp) / "served")
        try:
            with tinystore.connect(server.socket) as store:
                served = cases(store, 4_000)
        finally:
            stop_server(server)
    print(f"python bench: {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, median of {RUNS} runs")
    print("| case | embedded /s | through the server (unix socket) /s |")
    print("| --- | ---: | ---: |")
    for name, rate in embedded.items():
        print(f"| {name} | {rate:,.0f} | {served[name]:,.0f} |")


if __name__ == "__main__":
    main()

"""What tinystore.guard.redis costs per write in Python: a plain SET
against a guarded set (one EVALSHA of the guard's script: the check, the
write, the record) and against your own script behind the check (the same
SET in a body of yours), of the same small value, on one redis-py client
to the redis-server at $TINYSTORE_REDIS_URL (loopback). The three run in
turn, sample by sample, so that a noisy machine weighs on each alike.
Prints the median µs per write of each and the ratios. Run by
`make bench-guards-redis-python` (under tests/guards/with-redis.sh)."""

from __future__ import annotations

import os
import statistics
import sys
import time
from typing import Any

import redis

from tinystore.guard import redis as guard

SAMPLES = 9
WRITES = 2000
BODY = "return redis.call('SET', KEYS[1], ARGV[1])"


def sample(r: Any, kind: str, state: list[int]) -> float:
    """µs per write of `WRITES` writes, each with a new fence and value."""
    start = time.perf_counter()
    for _ in range(WRITES):
        state[0] += 1
        value = f"summary {state[0]}"
        if kind == "plain":
            r.set("bench:plain", value)
        elif kind == "guarded":
            guard.set(r, "bench:guarded", value, state[0])
        else:
            guard.script(r, "bench:script", BODY, state[0], args=[value])
    return (time.perf_counter() - start) * 1e6 / WRITES


def main() -> int:
    url = os.environ.get("TINYSTORE_REDIS_URL")
    if not url:
        print("TINYSTORE_REDIS_URL is unset: run under tests/guards/with-redis.sh", file=sys.stderr)
        return 2
    r = redis.Redis.from_url(url)
    r.delete("bench:plain", "bench:guarded", "bench:script")
    kinds = ["plain", "guarded", "script"]
    state = [0]
    for kind in kinds:  # warm up: the scripts are loaded
        sample(r, kind, state)
    samples: dict[str, list[float]] = {k: [] for k in kinds}
    for _ in range(SAMPLES):
        for kind in kinds:
            samples[kind].append(sample(r, kind, state))
    p, g, s = (statistics.median(samples[k]) for k in kinds)
    print(f"redis-py {redis.__version__}, one client, median of {SAMPLES} samples of {WRITES} writes")
    print("| each write | µs per write | over a plain SET |")
    print("| --- | ---: | ---: |")
    print(f"| plain `set` | {p:.1f} | 1.00x |")
    print(f"| `guard.set` | {g:.1f} | {g / p:.2f}x |")
    print(f"| `guard.script` (a `SET` in your body) | {s:.1f} | {s / p:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

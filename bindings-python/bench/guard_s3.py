"""What tinystore.guard.s3 costs per put in Python: a plain put_object
against a guarded put (a listing of the key's fences, the put of its
fence's object, a listing again, and the delete of the previous fence's
object) of the same key,
on moto's S3 server at $TINYSTORE_S3_URL (loopback), through one boto3
client. The two run in turn, sample by sample, so that a noisy machine
weighs on each alike. Prints the median µs per put of each and the ratio.
Run by `make bench-guards-s3-python` (under tests/guards/with-s3.sh)."""

from __future__ import annotations

import os
import statistics
import sys
import time
import uuid
from typing import Any

import boto3  # type: ignore[import-untyped]

import tinystore.guard.s3

SAMPLES = 7
PUTS = 100


def sample(s3: Any, bucket: str, guarded: bool, state: list[int]) -> float:
    """µs per put of `PUTS` puts, each with a new fence and body."""
    start = time.perf_counter()
    for _ in range(PUTS):
        state[0] += 1
        body = f"summary {state[0]}".encode()
        if guarded:
            tinystore.guard.s3.put(s3, bucket, "guarded", body, state[0])
        else:
            s3.put_object(Bucket=bucket, Key="plain", Body=body)
    return (time.perf_counter() - start) * 1e6 / PUTS


def main() -> int:
    url = os.environ.get("TINYSTORE_S3_URL")
    if not url:
        print("TINYSTORE_S3_URL is unset: run under tests/guards/with-s3.sh", file=sys.stderr)
        return 2
    s3 = boto3.client("s3", endpoint_url=url)
    bucket = f"bench-{uuid.uuid4().hex[:16]}"
    s3.create_bucket(Bucket=bucket)
    state = [0]
    sample(s3, bucket, True, state)  # warm up both
    sample(s3, bucket, False, state)
    plain: list[float] = []
    guarded: list[float] = []
    for _ in range(SAMPLES):
        plain.append(sample(s3, bucket, False, state))
        guarded.append(sample(s3, bucket, True, state))
    p, g = statistics.median(plain), statistics.median(guarded)
    print(f"median of {SAMPLES} samples of {PUTS} puts, boto3 {boto3.__version__}, moto's server on loopback")
    print("| each put | µs per put |")
    print("| --- | ---: |")
    print(f"| plain `put_object` | {p:.0f} |")
    print(f"| `tinystore.guard.s3.put` (list, put, list, delete the previous fence's object) | {g:.0f} |")
    print(f"guarded / plain: {g / p:.2f}x (+{g - p:.0f} µs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

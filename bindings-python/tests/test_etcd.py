"""tinystore on etcd through the Python binding: a real single-member etcd
on loopback in a temp dir, reached with `connect("etcd://...")`, the same
core as every other address (docs/etcd.md)."""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

import tinystore
import test_behaviour_more_ways as more_ways
from elections import leaders_in_turn


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def etcd(tmp_path: Path) -> Iterator[str]:
    """A running single-member etcd; yields its client address HOST:PORT."""
    binary = shutil.which("etcd")
    if binary is None:
        pytest.fail("etcd not found: apt-get install etcd-server (make test-python installs it)")
    client, peer = free_port(), free_port()
    c, p = f"http://127.0.0.1:{client}", f"http://127.0.0.1:{peer}"
    log = (tmp_path / "etcd.log").open("wb")
    process = subprocess.Popen(
        [binary, "--name", "t", "--data-dir", str(tmp_path / "etcd"),
         "--listen-client-urls", c, "--advertise-client-urls", c,
         "--listen-peer-urls", p, "--initial-advertise-peer-urls", p,
         "--initial-cluster", f"t={p}"],
        stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            assert process.poll() is None, (tmp_path / "etcd.log").read_text()
            try:
                with urllib.request.urlopen(f"{c}/health", timeout=1) as answer:
                    if b'"health":"true"' in answer.read():
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, "etcd did not become healthy in 20 s"
            time.sleep(0.05)
        yield f"127.0.0.1:{client}"
    finally:
        process.terminate()
        process.wait(10)
        log.close()


def test_locks_and_semaphore_on_etcd(etcd: str) -> None:
    with tinystore.connect(f"etcd://{etcd}/test-python") as store:
        locks = store.locks("jobs")

        first = locks.acquire_sync("k")
        assert first.held and isinstance(first.fence, int)
        assert locks.try_acquire_sync("k") is None  # held: no second holder
        first.release_sync()
        assert not first.held

        second = locks.acquire_sync("k", wait=5.0)  # released: free again
        assert second.fence > first.fence
        second.release_sync()
        third = locks.try_acquire_sync("k")
        assert third is not None and third.fence > second.fence
        third.release_sync()

        exports = store.semaphore("exports", 1)
        permit = exports.acquire_sync("daily")
        assert permit.held and isinstance(permit, tinystore.Permit)
        assert exports.try_acquire_sync("daily") is None
        permit.release_sync()
        again = exports.try_acquire_sync("daily")
        assert again is not None and again.held
        again.release_sync()


def test_an_election_on_etcd(etcd: str) -> None:
    with tinystore.connect(f"etcd://{etcd}/test-python") as store:
        election = store.election("scheduler", wait=20.0)
        asyncio.run(asyncio.wait_for(leaders_in_turn(store, election), 60))


@pytest.mark.parametrize("number", range(len(more_ways.SECTION["cases"])))
def test_every_more_ways_case_runs_on_etcd(etcd: str, number: int) -> None:
    """The more_ways vectors (read-write locks, weights, several keys,
    max_hold) on etcd, through two connections to one prefix."""
    case = more_ways.SECTION["cases"][number]
    address = f"etcd://{etcd}/more-ways-{number}"

    async def main() -> None:
        with tinystore.connect(address) as a, tinystore.connect(address) as b:
            await more_ways.Run(case, a, b).run()

    asyncio.run(main())

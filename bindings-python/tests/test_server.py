"""Through a real `tinystore serve` process: connect on the Unix socket and
on TCP with a token, the same API, the server's errors, a lease lost with
its connection, and the seed's scene with a worker process stopped by
SIGSTOP past its TTL."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import tinystore
from chat import Model, make_chat_db, summarize_chat
from conftest import Server, start_server, stop_server
from status_wait import until_waiting

HERE = Path(__file__).resolve().parent


def test_connect_and_hold(server: Server) -> None:
    with tinystore.connect(server.socket) as store:
        locks = store.locks("served")
        with locks.hold("k") as first:
            assert first.held and locks.try_acquire_sync("k") is None

        async def main() -> int:
            async with locks.hold("k") as lease:
                assert lease.held
                await asyncio.sleep(0.01)
                return lease.fence

        second = asyncio.run(main())
        assert second > first.fence and not first.held


def test_open_of_a_served_directory_connects(server: Server) -> None:
    with tinystore.open(server.dir) as store:
        with store.locks("served").hold(1) as lease:
            assert lease.key == "1"


def test_tcp_with_token(server: Server) -> None:
    assert server.tcp is not None
    with tinystore.connect(f"tcp://{server.tcp}", token=server.token) as store:
        with store.locks("served").hold("k") as lease:
            assert lease.fence > 0


def test_tcp_wrong_token_is_unauthorized(server: Server) -> None:
    with pytest.raises(tinystore.Unauthorized):
        store = tinystore.connect(f"tcp://{server.tcp}", token="not-the-token-not-the-token")
        store.locks("served").acquire_sync("k")


def test_two_connections_exclude_each_other(server: Server) -> None:
    with tinystore.connect(server.socket) as a, tinystore.connect(server.socket) as b:
        held = a.locks("served").acquire_sync("k")
        with pytest.raises(tinystore.Timeout):
            b.locks("served").acquire_sync("k", wait=0.05)
        held.release_sync()
        b.locks("served").acquire_sync("k", wait=5.0).release_sync()


def test_cancelled_waiter_over_the_server_leaks_nothing(server: Server) -> None:
    with tinystore.connect(server.socket) as a, tinystore.connect(server.socket) as b:
        locks = a.locks("served")

        async def main() -> None:
            holder = await locks.acquire("k")
            waiting = asyncio.create_task(locks.acquire("k"))
            await until_waiting(a, "served", "k", 1)
            assert not waiting.done()
            waiting.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiting
            await holder.release()

        asyncio.run(main())
        # Another connection gets the key: the cancelled wait left no lease.
        b.locks("served").acquire_sync("k", wait=5.0).release_sync()


def test_many_tasks_and_threads_over_the_server(server: Server) -> None:
    inside = most = count = 0
    guard = threading.Lock()

    def enter() -> None:
        nonlocal inside, most, count
        with guard:
            inside += 1
            count += 1
            most = max(most, inside)

    def leave() -> None:
        nonlocal inside
        with guard:
            inside -= 1

    with tinystore.connect(server.socket) as a, tinystore.connect(server.socket) as b:

        async def task_worker() -> None:
            for _ in range(10):
                async with a.locks("served").hold("shared"):
                    enter()
                    await asyncio.sleep(0)
                    leave()

        async def tasks() -> None:
            await asyncio.gather(*(task_worker() for _ in range(8)))

        def thread_worker() -> None:
            for _ in range(10):
                with b.locks("served").hold("shared"):
                    enter()
                    leave()

        threads = [threading.Thread(target=thread_worker) for _ in range(4)]
        for t in threads:
            t.start()
        asyncio.run(asyncio.wait_for(tasks(), 60))
        for t in threads:
            t.join(60)
    assert most == 1 and count == 8 * 10 + 4 * 10


def test_limit_of_leases_per_connection(server: Server) -> None:
    with tinystore.connect(server.socket) as store:
        locks = store.locks("served")
        held = []
        with pytest.raises(tinystore.Limit, match="at most"):
            for i in range(100_000):
                lease = locks.try_acquire_sync(i)
                assert lease is not None
                held.append(lease)
        assert len(held) >= 1
        for lease in held:
            lease.release_sync()


def test_semaphore_over_the_server(server: Server) -> None:
    with tinystore.connect(server.socket) as store:
        exports = store.semaphore("exports", 2)
        permits = [exports.acquire_sync("k"), exports.acquire_sync("k")]
        assert exports.try_acquire_sync("k") is None
        assert not hasattr(permits[0], "fence")
        for p in permits:
            p.release_sync()


def test_lease_lost_when_the_server_dies(tmp_path: Path) -> None:
    served = start_server(tmp_path / "dying")
    try:
        store = tinystore.connect(served.socket)

        async def main() -> None:
            async def kill() -> None:
                await asyncio.sleep(0.05)
                served.process.kill()

            killing = asyncio.create_task(kill())
            with pytest.raises(tinystore.LeaseLost):
                async with store.locks("served").hold("k"):
                    await asyncio.sleep(30)  # cancelled when the connection breaks
            await killing

        asyncio.run(asyncio.wait_for(main(), 20))
    finally:
        stop_server(served)


def test_sync_lease_lost_when_the_server_dies(tmp_path: Path) -> None:
    served = start_server(tmp_path / "dying")
    try:
        store = tinystore.connect(served.socket)
        with pytest.raises(tinystore.LeaseLost):
            with store.locks("served").hold("k") as lease:
                served.process.kill()
                deadline = time.monotonic() + 20
                while lease.held and time.monotonic() < deadline:
                    time.sleep(0.01)
                assert not lease.held
    finally:
        stop_server(served)


def test_seed_scene_worker_stopped_past_its_ttl(server: Server, tmp_path: Path) -> None:
    """Worker A (a process) holds the chat's key and is stopped with SIGSTOP;
    its lease runs out on the server; worker B holds the key with a larger
    fence and writes; A is continued, writes too, and is refused."""
    chat = 42
    db = make_chat_db(tmp_path / "chat.db", chat)
    worker = subprocess.Popen(
        [sys.executable, str(HERE / "seed_worker.py"), server.socket, str(db.path), str(chat), "0.5"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert worker.stdin is not None and worker.stdout is not None
    try:
        assert worker.stdout.readline().strip() == "holding"
        os.kill(worker.pid, signal.SIGSTOP)
        try:
            with tinystore.connect(server.socket) as store:
                summaries = store.locks("summaries", wait=20.0)
                asyncio.run(summarize_chat(summaries, chat, db, Model("B")))
        finally:
            os.kill(worker.pid, signal.SIGCONT)
        worker.stdin.write("go\n")
        worker.stdin.flush()
        report = json.loads(worker.stdout.readline())
        assert worker.wait(20) == 0
    finally:
        if worker.poll() is None:
            worker.kill()
    assert db.changes == [1], "B's write went in"
    assert report["changes"] == [0], "A's late write was refused"
    assert report["outcome"] == "lease_lost"
    (fence_a,), (fence_b,) = report["fences"], db.fences
    assert fence_a < fence_b
    assert db.row(chat) == ("summary of 3 messages by B", fence_b)

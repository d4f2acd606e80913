"""Watching a key or a group (``watch``, ``watch_all``) on an embedded
store, one served on a socket by the test kit, and a ``tinystore serve
--testing`` process: the events of a lock group in the store's order (a
grant with its fence and data, the queue's length, a release, a loss by
expiry), a key's watch seeing only its key, semaphores and read-write
locks, a watcher that never reads told it lagged while the holds go on,
closing ends a wait under way, and a bad key is ``Invalid``."""

from __future__ import annotations

import asyncio
import os
import socket
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

import tinystore
import tinystore.testing
from conftest import start_server, stop_server
from status_wait import until_waiting
from tinystore import WatchEvent
from tinystore.testing import TestStore

DEADLINE = 20.0
"""Seconds a read may wait for an event before the test fails."""

HOLDER = f"{socket.gethostname()}:{os.getpid()}"
"""The data a lease carries when its holder sets none."""

KINDS = ["embedded", "served", "process"]


@asynccontextmanager
async def a_store(kind: str, tmp_path: Path) -> AsyncIterator[tinystore.Store]:
    """A test store of ``kind``: embedded, served by the kit on a socket,
    or a ``tinystore serve --testing`` process."""
    if kind == "process":
        server = start_server(tmp_path / "served", extra=["--testing"])
        try:
            with tinystore.connect(server.socket) as store:
                yield store
        finally:
            stop_server(server)
        return
    async with TestStore.served() if kind == "served" else TestStore.open() as kit:
        yield kit.store


async def read(watcher: tinystore.Watcher, n: int) -> list[WatchEvent]:
    """The next ``n`` events of ``watcher``."""
    return [await asyncio.wait_for(anext(watcher), DEADLINE) for _ in range(n)]


def summary(events: list[WatchEvent]) -> list[tuple[object, ...]]:
    """Each event as the tuple of its fields that are set."""
    return [
        tuple(
            v
            for v in (e.kind, e.key, e.fence, e.data, e.cause, e.length, e.missed)
            if v is not None
        )
        for e in events
    ]


@pytest.mark.parametrize("kind", KINDS)
def test_a_group_watch_sees_grants_the_queue_releases_and_losses_in_order(kind: str, tmp_path: Path) -> None:
    async def main() -> None:
        async with a_store(kind, tmp_path) as store:
            jobs = store.locks("jobs")
            every = jobs.watch_all()
            only_b = jobs.watch("b")
            first = await jobs.acquire("a", data="web-1")
            waiting = asyncio.create_task(jobs.acquire("a"))
            await until_waiting(store, "jobs", "a")
            await first.release()
            second = await waiting
            other = await jobs.acquire("b")
            await tinystore.testing.expire(second)
            await other.release()
            assert second.fence > first.fence
            assert summary(await read(every, 8)) == [
                ("granted", "a", first.fence, "web-1"),
                ("queue", "a", 1),
                ("released", "a", first.fence),
                ("granted", "a", second.fence, HOLDER),
                ("queue", "a", 0),
                ("granted", "b", other.fence, HOLDER),
                ("lost", "a", second.fence, "expired"),
                ("released", "b", other.fence),
            ]
            # A key's watch sees its key only: the first event it reads is b's.
            assert summary(await read(only_b, 2)) == [
                ("granted", "b", other.fence, HOLDER),
                ("released", "b", other.fence),
            ]
            await every.aclose()
            await only_b.aclose()

    asyncio.run(main())


@pytest.mark.parametrize("kind", ["embedded", "served"])
def test_semaphores_and_read_write_locks_are_watched_too(kind: str, tmp_path: Path) -> None:
    async def main() -> None:
        async with a_store(kind, tmp_path) as store:
            slots = store.semaphore("slots", 2)
            rw = store.rw_locks("doc")
            with slots.watch("s") as permits, rw.watch_all() as docs:
                permit = await slots.acquire("s", weight=2, data="")
                await permit.release()
                read_ = await rw.acquire_read("d")
                await read_.release()
                write = await rw.acquire_write("d")
                await write.release()
                # A permit and a read lease have no fence; empty data is none.
                assert summary(await read(permits, 2)) == [("granted", "s"), ("released", "s")]
                assert summary(await read(docs, 4)) == [
                    ("granted", "d", HOLDER),
                    ("released", "d"),
                    ("granted", "d", write.fence, HOLDER),
                    ("released", "d", write.fence),
                ]

    asyncio.run(main())


@pytest.mark.parametrize("kind", ["embedded", "served"])
def test_a_watcher_that_never_reads_is_told_it_lagged_and_goes_on(kind: str, tmp_path: Path) -> None:
    async def main() -> None:
        async with a_store(kind, tmp_path) as store:
            busy = store.locks("busy")
            slow = busy.watch_all()
            for _ in range(3 * 1024):  # 6,144 events, none read: the holds go on
                lease = await busy.acquire("k")
                await lease.release()
            # It is told it lagged (where depends on the store: before the
            # newest events it kept, or after the oldest), then goes on.
            lagged: list[WatchEvent] = []
            kept = 0
            last = None
            # At most a buffer kept by the client, its lagged, a buffer
            # kept by the store (a served watch is paused while full), and
            # the grant after.
            for _ in range(2 * 1024 + 2):
                (event,) = await read(slow, 1)
                if event.kind == "lagged":
                    lagged.append(event)
                    if last is None:
                        last = await busy.acquire("k")
                elif last is not None and event.fence == last.fence and event.kind == "granted":
                    break
                else:
                    kept += 1
            else:
                raise AssertionError(f"never went on after lagging: {lagged}")
            assert lagged and all(e.key is None and e.missed for e in lagged)
            missed = sum(e.missed or 0 for e in lagged)
            assert 0 < kept <= 2 * 1024 and 0 < missed < 2 * 3 * 1024
            await last.release()
            await slow.aclose()

    asyncio.run(main())


@pytest.mark.parametrize("kind", ["embedded", "served"])
def test_closing_ends_a_read_under_way_and_every_later_one(kind: str, tmp_path: Path) -> None:
    async def main() -> None:
        async with a_store(kind, tmp_path) as store:
            quiet = store.locks("quiet")
            watcher = quiet.watch("k")
            reading = asyncio.create_task(anext(watcher))
            await asyncio.sleep(0)
            await watcher.aclose()
            with pytest.raises(StopAsyncIteration):
                await asyncio.wait_for(reading, DEADLINE)
            assert [e async for e in watcher] == []
            # `break` leaves the loop; a new watch still sees what follows.
            with quiet.watch_all() as again:
                lease = await quiet.acquire("k")
                async for event in again:
                    assert event.kind == "granted" and event.fence == lease.fence
                    break
                await lease.release()

    asyncio.run(main())


def test_the_blocking_form_in_sync_code(tmp_path: Path) -> None:
    with TestStore.served() as kit:
        locks = kit.store.locks("sync")
        with locks.watch("k") as events:
            lease = locks.acquire_sync("k", data="worker 3")
            lease.release_sync()
            got = [next(events), next(events)]
            assert summary(got) == [
                ("granted", "k", lease.fence, "worker 3"),
                ("released", "k", lease.fence),
            ]
            # close from another thread ends a blocked read.
            threading.Timer(0.05, events.close).start()
            assert list(events) == []


def test_watches_closed_by_the_thousand_leave_nothing_behind() -> None:
    """A connection may have 4,096 watches and observers at once: closed
    ones are cancelled on the server, or the last of these would be
    refused with ``Limit``. Each is closed once it read an event, when its
    request was long sent."""

    async def main() -> None:
        async with TestStore.served() as kit:
            locks = kit.store.locks("many")
            for _ in range(4097):
                watcher = locks.watch("k")
                lease = await locks.acquire("k")
                await lease.release()
                assert summary(await read(watcher, 1)) == [("granted", "k", lease.fence, HOLDER)]
                await watcher.aclose()
            watcher = locks.watch("k")
            lease = await locks.acquire("k")
            assert summary(await read(watcher, 1)) == [("granted", "k", lease.fence, HOLDER)]
            await watcher.aclose()

    asyncio.run(main())


@pytest.mark.parametrize("kind", ["embedded", "served"])
def test_a_bad_key_is_invalid(kind: str, tmp_path: Path) -> None:
    async def main() -> None:
        async with a_store(kind, tmp_path) as store:
            locks = store.locks("bad")
            with pytest.raises(tinystore.Invalid, match="key"):
                await anext(locks.watch(""))
            with pytest.raises(tinystore.Invalid, match="key"):
                await anext(locks.watch("x" * 1025))
            with pytest.raises(tinystore.Invalid, match="key must be str or int"):
                locks.watch(1.5)  # type: ignore[arg-type]
            with pytest.raises(tinystore.Invalid):
                next(iter(store.locks("").watch_all()))

    asyncio.run(main())


def test_events_compare_and_show_their_fields(tinystore_test_store: TestStore) -> None:
    locks = tinystore_test_store.store.locks("shown")
    with locks.watch("k") as events:
        lease = locks.acquire_sync("k")
        event = next(events)
        lease.release_sync()
        assert event == event and event != next(events)
    assert repr(event) == f'WatchEvent(kind="granted", key="k", fence={lease.fence}, data="{HOLDER}")'

"""Read-write locks: readers share a key with permits (no fence), a writer
holds it alone with a fence, and a waiting writer holds back the readers
that came after it."""

from __future__ import annotations

import asyncio

import pytest

import tinystore
from status_wait import until_waiting


def test_readers_share_and_writers_hold_alone_in_with_blocks(store: tinystore.Store) -> None:
    docs = store.rw_locks("docs")
    assert docs.name == "docs"
    with docs.hold_read("k") as first, docs.hold_read("k") as second:
        assert isinstance(first, tinystore.Permit) and not hasattr(first, "fence")
        assert first.held and second.held
        assert docs.try_acquire_write_sync("k") is None
        modes = sorted((h.kind, h.mode, h.weight) for h in store.status_sync().held if h.name == "docs")
        assert modes == [("rwlock", "read", 1), ("rwlock", "read", 1)]
    assert not first.held and not second.held
    with docs.hold_write("k") as writer:
        assert isinstance(writer, tinystore.Lease) and writer.fence > 0
        assert docs.try_acquire_read_sync("k") is None
        assert docs.try_acquire_write_sync("k") is None
        (held,) = [h for h in store.status_sync().held if h.name == "docs"]
        assert (held.mode, held.fence) == ("write", writer.fence)
    later = docs.acquire_write_sync("k")
    assert later.fence > writer.fence
    later.release_sync()


def test_a_waiting_writer_goes_before_later_readers(store: tinystore.Store) -> None:
    docs = store.rw_locks("docs")
    order: list[str] = []

    async def writer() -> None:
        async with docs.hold_write("k") as lease:
            order.append(f"writer {lease.fence > 0}")
            await asyncio.sleep(0)

    async def late_reader() -> None:
        async with docs.hold_read("k"):
            order.append("late reader")

    async def main() -> None:
        reader = await docs.acquire_read("k")
        writing = asyncio.ensure_future(writer())
        await until_waiting(store, "docs", "k", 1)
        assert await docs.try_acquire_read("k") is None, "a reader passed a waiting writer"
        reading = asyncio.ensure_future(late_reader())
        await until_waiting(store, "docs", "k", 2)
        await reader.release()
        await asyncio.wait_for(asyncio.gather(writing, reading), 10)

    asyncio.run(main())
    assert order == ["writer True", "late reader"]


def test_cancelled_write_wait_lets_readers_in(store: tinystore.Store) -> None:
    docs = store.rw_locks("docs")

    async def main() -> None:
        reader = await docs.acquire_read("k")
        writing = asyncio.ensure_future(docs.acquire_write("k"))
        await until_waiting(store, "docs", "k", 1)
        writing.cancel()
        with pytest.raises(asyncio.CancelledError):
            await writing
        # The writer left the queue: readers share the key again.
        second = await docs.try_acquire_read("k")
        assert second is not None
        await second.release()
        await reader.release()

    asyncio.run(main())


def test_read_write_locks_are_apart_from_locks_of_the_same_name(store: tinystore.Store) -> None:
    writer = store.rw_locks("shared").acquire_write_sync("k")
    lock = store.locks("shared").try_acquire_sync("k")
    assert lock is not None
    kinds = sorted(h.kind for h in store.status_sync().held if h.name == "shared")
    assert kinds == ["lock", "rwlock"]
    lock.release_sync()
    writer.release_sync()


def test_a_wait_option_times_out_a_writer(store: tinystore.Store) -> None:
    docs = store.rw_locks("docs", wait=0.05)
    reader = docs.acquire_read_sync("k")
    with pytest.raises(tinystore.Timeout):
        docs.acquire_write_sync("k")
    with pytest.raises(tinystore.Timeout):
        with docs.hold_write("k", wait=0.01):
            pass
    reader.release_sync()

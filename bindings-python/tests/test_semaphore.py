"""Semaphores: up to `limit` holders per key, permits without a fence."""

from __future__ import annotations

import asyncio

import pytest

import tinystore
from status_wait import until_waiting


def test_limit_holders_at_once(store: tinystore.Store) -> None:
    exports = store.semaphore("exports", 3)
    inside = most = 0

    async def worker() -> None:
        nonlocal inside, most
        async with exports.hold("daily") as permit:
            assert permit.held
            inside += 1
            most = max(most, inside)
            await asyncio.sleep(0.01)
            inside -= 1

    async def main() -> None:
        await asyncio.wait_for(asyncio.gather(*(worker() for _ in range(12))), 10)

    asyncio.run(main())
    assert 1 <= most <= 3


def test_try_acquire_and_permits_have_no_fence(store: tinystore.Store) -> None:
    exports = store.semaphore("exports", 3)
    permits = [exports.try_acquire_sync("k") for _ in range(3)]
    assert all(p is not None for p in permits)
    assert exports.try_acquire_sync("k") is None
    first = permits[0]
    assert first is not None
    assert isinstance(first, tinystore.Permit) and not hasattr(first, "fence")
    first.release_sync()
    again = exports.try_acquire_sync("k")
    assert again is not None
    for p in [again, *permits[1:]]:
        assert p is not None
        p.release_sync()


def test_async_acquire_waits_for_a_place(store: tinystore.Store) -> None:
    exports = store.semaphore("exports", 1)

    async def main() -> None:
        first = await exports.acquire("k")
        waiting = asyncio.create_task(exports.acquire("k", wait=5.0))
        await until_waiting(store, "exports", "k", 1)
        assert not waiting.done()
        await first.release()
        second = await waiting
        assert second.held
        await second.renew()
        await second.release()

    asyncio.run(main())


def test_other_limit_for_held_key_is_invalid(store: tinystore.Store) -> None:
    held = store.semaphore("exports", 3).acquire_sync("k")
    with pytest.raises(tinystore.Invalid):
        store.semaphore("exports", 2).acquire_sync("k")
    held.release_sync()


def test_limit_out_of_range_is_invalid(store: tinystore.Store) -> None:
    with pytest.raises(tinystore.Invalid):
        store.semaphore("exports", 0).acquire_sync("k")
    # The core checks the limit at the group's first use; an int no u32
    # holds is refused there too.
    for limit in (-1, 1_000_001, 1 << 40):
        with pytest.raises(tinystore.Invalid, match="semaphore exports has limit"):
            store.semaphore("exports", limit).acquire_sync("k")

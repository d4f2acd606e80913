"""Waiting: it never blocks the event loop or holds the GIL, and giving up
a wait (a cancelled task, a timeout) leaks no lease."""

from __future__ import annotations

import asyncio
import threading

import pytest

import tinystore
from status_wait import until_waiting


def test_other_tasks_run_while_one_waits(store: tinystore.Store) -> None:
    locks = store.locks("wait")

    async def main() -> None:
        holder = await locks.acquire("k")
        ticks = 0
        order: list[str] = []

        async def ticker() -> None:
            nonlocal ticks
            while ticks < 20:
                ticks += 1
                await asyncio.sleep(0.001)
            order.append("ticker done")
            await holder.release()

        async def waiter() -> None:
            lease = await locks.acquire("k")
            order.append(f"waiter got it after {ticks} ticks")
            await lease.release()

        await asyncio.wait_for(asyncio.gather(waiter(), ticker()), 10)
        assert order == ["ticker done", "waiter got it after 20 ticks"]

    asyncio.run(main())


def test_sync_wait_releases_the_gil(store: tinystore.Store) -> None:
    locks = store.locks("wait")
    holder = locks.acquire_sync("k")
    got = threading.Event()

    def waiter() -> None:
        locks.acquire_sync("k").release_sync()
        got.set()

    thread = threading.Thread(target=waiter)
    thread.start()
    # This thread keeps running Python while the other waits in the core.
    total = sum(range(200_000))
    assert total > 0 and not got.is_set()
    holder.release_sync()
    thread.join(10)
    assert got.is_set()


def test_cancelled_waiter_leaks_no_lease(store: tinystore.Store) -> None:
    locks = store.locks("wait")

    async def main() -> None:
        holder = await locks.acquire("k")
        waiting = asyncio.create_task(locks.acquire("k"))
        await until_waiting(store, "wait", "k", 1)
        assert not waiting.done()
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        await holder.release()
        # The key is free: the cancelled wait left nothing behind.
        after = await locks.try_acquire("k")
        assert after is not None
        await after.release()

    asyncio.run(main())


def test_cancel_crossing_the_grant_leaks_no_lease(store: tinystore.Store) -> None:
    """The holder releases and the waiter is cancelled in the same turn of
    the loop, so the grant and the give-up cross; the key ends up free."""
    locks = store.locks("wait")

    async def main() -> None:
        for _ in range(200):
            holder = await locks.acquire("k")
            waiting = asyncio.create_task(locks.acquire("k"))
            await asyncio.sleep(0)
            await holder.release()
            waiting.cancel()
            try:
                lease = await waiting
            except asyncio.CancelledError:
                pass
            else:
                await lease.release()  # it won the race: release it ourselves
            free = await locks.try_acquire("k")
            assert free is not None, "a cancelled wait leaked its lease"
            await free.release()

    asyncio.run(asyncio.wait_for(main(), 30))


def test_wait_option_times_out(store: tinystore.Store) -> None:
    locks = store.locks("wait", wait=0.02)

    async def main() -> None:
        holder = await locks.acquire("k")
        with pytest.raises(tinystore.Timeout) as caught:
            await locks.acquire("k")
        assert "wait/k" in str(caught.value) or "k" in str(caught.value)
        with pytest.raises(tinystore.Timeout):
            await locks.acquire("k", wait=0.01)
        with pytest.raises(tinystore.Timeout):
            async with locks.hold("k"):
                pass
        await holder.release()
        async with locks.hold("k", wait=1.0):
            pass

    asyncio.run(main())
    with pytest.raises(tinystore.Timeout):
        with locks.hold("k"), locks.hold("k"):
            pass


def test_a_grant_for_a_loop_that_is_gone_is_released(store: tinystore.Store) -> None:
    """A wait whose loop was closed (not cancelled) and collected: the grant
    that comes later has nobody to go to, and the key is released."""
    import gc

    locks = store.locks("gone")
    holder = locks.acquire_sync("k")
    event_loop = asyncio.new_event_loop()
    task = event_loop.create_task(locks.acquire("k"))
    for _ in range(3):
        event_loop.run_until_complete(asyncio.sleep(0))
    assert not task.done()
    event_loop.close()
    del task, event_loop
    gc.collect()
    holder.release_sync()
    # The grant to the gone waiter is given up, so the key comes free.
    again = locks.acquire_sync("k", wait=10.0)
    assert again.fence > holder.fence
    again.release_sync()


def test_many_grants_in_one_wakeup_each_reach_their_task(store: tinystore.Store) -> None:
    """Grants that arrive together are settled in one drain, each on its
    own future: every waiter gets its lease, in line order."""
    locks = store.locks("burst")

    async def main() -> None:
        holders = [await locks.acquire(f"k{n}") for n in range(50)]
        waits = [asyncio.ensure_future(locks.acquire(f"k{n}")) for n in range(50)]
        for n in range(50):
            await until_waiting(store, "burst", f"k{n}", 1)
        assert not any(w.done() for w in waits)
        for lease in holders:
            await lease.release()
        got = await asyncio.wait_for(asyncio.gather(*waits), 10)
        for n, lease in enumerate(got):
            assert lease.key == f"k{n}" and lease.fence > holders[n].fence
            await lease.release()

    asyncio.run(main())

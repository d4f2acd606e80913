"""`hold` with `async with` and with `with`: the lease while the block runs,
released however it ends, and a lost lease told to the block."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest

import tinystore
from status_wait import until_held


def test_sync_with(store: tinystore.Store) -> None:
    locks = store.locks("hold")
    with locks.hold("k") as lease:
        assert lease.held and lease.key == "k" and lease.name == "hold"
        assert locks.try_acquire_sync("k") is None
    assert not lease.held
    again = locks.try_acquire_sync("k")
    assert again is not None and again.fence > lease.fence
    again.release_sync()


def test_async_with(store: tinystore.Store) -> None:
    locks = store.locks("hold")

    async def main() -> None:
        async with locks.hold(7) as lease:
            assert lease.held and lease.key == "7"
            assert await locks.try_acquire("7") is None
            await asyncio.sleep(0.01)
        assert not lease.held
        again = await locks.try_acquire(7)
        assert again is not None and again.fence > lease.fence
        await again.release()

    asyncio.run(main())


def test_body_exception_propagates_and_releases(store: tinystore.Store) -> None:
    locks = store.locks("hold")
    with pytest.raises(KeyError):
        with locks.hold("k") as lease:
            raise KeyError("the body's own")
    assert not lease.held

    async def main() -> None:
        with pytest.raises(KeyError):
            async with locks.hold("k") as lease:
                await asyncio.sleep(0)
                raise KeyError("the body's own")
        assert not lease.held

    asyncio.run(main())
    with locks.hold("k"):
        pass


def test_lost_lease_cancels_async_body(store: tinystore.Store) -> None:
    locks = store.locks("hold", ttl=0.05, renew=False)
    reached_end = False

    async def main() -> tinystore.Lease:
        nonlocal reached_end
        with pytest.raises(tinystore.LeaseLost):
            async with locks.hold("k") as lease:
                await asyncio.sleep(30)  # cancelled when the lease runs out
                reached_end = True
        return lease

    lease = asyncio.run(asyncio.wait_for(main(), 10))
    assert not reached_end and not lease.held
    # The task was not left cancelled: it went on to return the lease.
    assert locks.try_acquire_sync("k") is not None


def test_lost_lease_after_task_keeps_running(store: tinystore.Store) -> None:
    """The task whose block was cancelled for a lost lease can go on
    awaiting: LeaseLost is an ordinary exception, not a cancellation."""
    locks = store.locks("hold", ttl=0.05, renew=False)

    async def main() -> str:
        try:
            async with locks.hold("k"):
                await asyncio.sleep(30)
        except tinystore.LeaseLost:
            await asyncio.sleep(0.01)
            return "went on"
        return "not lost"

    assert asyncio.run(asyncio.wait_for(main(), 10)) == "went on"


def test_lost_lease_in_sync_with(store: tinystore.Store) -> None:
    locks = store.locks("hold", ttl=0.05, renew=False)
    with pytest.raises(tinystore.LeaseLost):
        with locks.hold("k") as lease:
            deadline = time.monotonic() + 10
            while lease.held and time.monotonic() < deadline:
                time.sleep(0.01)
            assert not lease.held


def test_renewed_lease_outlives_its_ttl(store: tinystore.Store) -> None:
    locks = store.locks("hold", ttl=0.05)  # renew on: kept alive every ttl/3

    async def main() -> None:
        async with locks.hold("k") as lease:
            for _ in range(4):
                await asyncio.sleep(0.05)
                assert lease.held

    asyncio.run(main())


def test_closing_the_store_cancels_the_block_with_closed(tmp_path: Path) -> None:
    """A store closed during `async with hold`: the block is cancelled and
    its end raises `Closed` (not `LeaseLost`), as in every language."""
    store = tinystore.open(tmp_path / "store")
    locks = store.locks("hold")
    reached_end = False

    async def main() -> None:
        nonlocal reached_end

        async def closer() -> None:
            await until_held(store, "hold", "k")
            store.close()

        closing = asyncio.create_task(closer())
        with pytest.raises(tinystore.Closed) as caught:
            async with locks.hold("k"):
                await asyncio.sleep(30)
                reached_end = True
        assert caught.value.code == "closed"
        await closing

    asyncio.run(asyncio.wait_for(main(), 10))
    assert not reached_end
    with pytest.raises(tinystore.Closed):
        locks.acquire_sync("k")


def test_closing_the_store_in_sync_with_raises_closed(tmp_path: Path) -> None:
    store = tinystore.open(tmp_path / "store")
    with pytest.raises(tinystore.Closed, match="closed"):
        with store.locks("hold").hold("k") as lease:
            store.close()
            assert not lease.held


def test_the_blocks_own_exception_wins_over_a_closed_store(tmp_path: Path) -> None:
    store = tinystore.open(tmp_path / "store")
    with pytest.raises(KeyError):
        with store.locks("hold").hold("k"):
            store.close()
            raise KeyError("the body's own")

    async def main() -> None:
        again = tinystore.open(tmp_path / "store")
        with pytest.raises(KeyError):
            async with again.locks("hold").hold("k"):
                again.close()
                raise KeyError("the body's own")

    asyncio.run(asyncio.wait_for(main(), 10))


def test_manual_acquire_renew_release(store: tinystore.Store) -> None:
    locks = store.locks("manual", ttl=0.05, renew=False)

    async def main() -> None:
        lease = await locks.acquire("k", wait=5.0)
        await lease.renew()
        await lease.release()
        await lease.release()  # idempotent
        renewing = lease.renew()  # the error comes where it is awaited
        with pytest.raises(tinystore.LeaseLost):
            await renewing

    asyncio.run(main())
    lease = locks.acquire_sync("k", ttl=1.0)
    assert lease.ttl == 1.0
    lease.renew_sync()
    lease.release_sync()
    lease.release_sync()


def test_loss_before_the_block_first_awaits(store: tinystore.Store) -> None:
    """The block pauses without awaiting past its lease, then awaits: the
    watch starts at that await, sees the loss at once, and cancels it."""
    locks = store.locks("hold", ttl=0.02, renew=False)

    async def main() -> bool:
        reached_end = False
        with pytest.raises(tinystore.LeaseLost):
            async with locks.hold("k") as lease:
                while lease.held:  # a pause that never yields to the loop
                    time.sleep(0.005)
                await asyncio.sleep(30)
                reached_end = True
        return reached_end

    assert asyncio.run(asyncio.wait_for(main(), 10)) is False


@pytest.mark.skipif(sys.version_info < (3, 11), reason="Task.cancelling() is new in 3.11")
def test_a_callers_cancel_beside_a_loss_still_cancels(store: tinystore.Store) -> None:
    """A lease lost, then the caller cancels the task too (as asyncio.run
    does when it ends, or a timeout): the block ends with CancelledError,
    not LeaseLost, so the caller's cancel is never swallowed."""
    locks = store.locks("hold", ttl=0.05, renew=False)

    async def main() -> None:
        cancelled_for_loss = asyncio.Event()

        async def worker() -> None:
            async with locks.hold("k"):
                try:
                    await asyncio.sleep(30)
                finally:
                    cancelled_for_loss.set()
                    await asyncio.sleep(5)

        task = asyncio.create_task(worker())
        await cancelled_for_loss.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(asyncio.wait_for(main(), 10))

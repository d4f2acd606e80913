"""A lease's own methods: renew and release are coroutines."""

from __future__ import annotations

import asyncio

import pytest

import tinystore


def test_renew_and_release_are_coroutines_create_task_takes(store: tinystore.Store) -> None:
    locks = store.locks("coroutines")

    async def main() -> None:
        lease = await locks.acquire("k")
        renewing = lease.renew()
        assert asyncio.iscoroutine(renewing)
        await asyncio.create_task(renewing)
        await asyncio.gather(asyncio.create_task(lease.release()))
        assert not lease.held
        with pytest.raises(tinystore.LeaseLost):
            await asyncio.create_task(lease.renew())
        again = await locks.try_acquire("k")
        assert again is not None, "the released key is free"
        await again.release()

    asyncio.run(main())

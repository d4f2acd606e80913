"""``max_hold``: a renewed lease is kept past its TTL but not past its
``max_hold``; it then runs out as any lease does and its holder is told,
for every group and for elections."""

from __future__ import annotations

import asyncio
import time

import pytest

import tinystore
from status_wait import DEADLINE

TTL, MAX_HOLD = 0.1, 0.4


def until_lost(held: tinystore.Lease | tinystore.Permit | tinystore.Leadership) -> float:
    """Seconds until ``held`` is lost; fails after the deadline."""
    started = time.monotonic()
    while held.held:
        assert time.monotonic() - started < DEADLINE, f"{held!r} was never lost"
        time.sleep(0.005)
    return time.monotonic() - started


def test_a_renewed_lease_runs_out_at_its_max_hold(store: tinystore.Store) -> None:
    capped = store.locks("capped", ttl=TTL, max_hold=MAX_HOLD)
    lease = capped.acquire_sync("k")
    # Renewed past its TTL (four of them), then let go at its max_hold.
    assert until_lost(lease) >= MAX_HOLD - TTL
    with pytest.raises(tinystore.LeaseLost, match="max_hold"):
        lease.release_sync()
    after = capped.acquire_sync("k")
    assert after.fence > lease.fence
    after.release_sync()


def test_an_async_hold_is_cancelled_at_its_max_hold(store: tinystore.Store) -> None:
    docs = store.rw_locks("docs")
    cancelled = False

    async def main() -> None:
        nonlocal cancelled
        async with docs.hold_write("k", ttl=TTL, max_hold=MAX_HOLD):
            try:
                await asyncio.sleep(DEADLINE)
            except asyncio.CancelledError:
                cancelled = True
                raise

    with pytest.raises(tinystore.LeaseLost, match="max_hold"):
        asyncio.run(main())
    assert cancelled


def test_a_sync_semaphore_hold_raises_lease_lost_at_its_max_hold(store: tinystore.Store) -> None:
    pool = store.semaphore("pool", 3)
    with pytest.raises(tinystore.LeaseLost, match="max_hold"):
        with pool.hold("k", ttl=TTL, max_hold=MAX_HOLD, weight=2) as permit:
            until_lost(permit)


def test_a_leadership_ends_at_its_max_hold(store: tinystore.Store) -> None:
    election = store.election("capped", ttl=TTL)

    async def main() -> None:
        async with election.lead("me", max_hold=MAX_HOLD):
            await asyncio.sleep(DEADLINE)

    with pytest.raises(tinystore.LeaseLost):
        asyncio.run(main())
    leadership = store.election("capped", max_hold=MAX_HOLD).campaign_sync("me", ttl=TTL)
    until_lost(leadership)
    assert store.election("capped").leader_sync() is None


def test_a_max_hold_out_of_range_is_invalid(store: tinystore.Store) -> None:
    for max_hold in (0.005, 30 * 24 * 3600 + 1):
        with pytest.raises(tinystore.Invalid, match="max_hold"):
            store.locks("capped", max_hold=max_hold).acquire_sync("k")
    with pytest.raises(tinystore.Invalid, match="max_hold"):
        store.locks("capped").acquire_sync("k", max_hold=-1.0)

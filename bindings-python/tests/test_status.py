"""``Store.status()``: a holder with its fence, then a waiter, then nothing
after release; semaphore permits without a fence; an election's leader;
pages; the same over ``tinystore serve``."""

from __future__ import annotations

import asyncio
import threading

import tinystore
from conftest import Server
from status_wait import until_waiting, until_waiting_sync, waiters


def test_a_holder_then_a_waiter_then_nothing(store: tinystore.Store) -> None:
    locks = store.locks("jobs", ttl=30.0)

    async def main() -> None:
        before = await store.status()
        assert before.held == [] and before.waiting == [] and before.held_total == 0

        holder = await locks.acquire("k")
        status = await store.status()
        assert [(h.name, h.key, h.fence) for h in status.held] == [("jobs", "k", holder.fence)]
        held = status.held[0]
        assert held.ttl == 30.0 and 0 < held.left <= 30.0 and held.renewing and held.leader is None
        assert status.last_fence == holder.fence and status.fences_given >= 1
        assert status.epoch == holder.fence >> 64
        assert status.waiting == [] and not status.more

        waiting = asyncio.create_task(locks.acquire("k"))
        await until_waiting(store, "jobs", "k", 1)
        status = await store.status()
        assert [(w.name, w.key, w.waiters) for w in status.waiting] == [("jobs", "k", 1)]
        assert status.waiting_total == 1
        waited = status.waiting[0].waited
        assert waited is not None and 0 <= waited < 30
        longest = status.longest_waits
        assert [(w.key, w.waiters) for w in longest] == [("k", 1)]
        assert longest[0].waited is not None and longest[0].waited >= waited

        await holder.release()
        second = await waiting
        status = await store.status()
        assert [h.fence for h in status.held] == [second.fence] and status.waiting == []
        await second.release()

        after = await store.status()
        assert after.held == [] and after.waiting == [] and after.held_total == 0

    asyncio.run(asyncio.wait_for(main(), 30))


def test_sync_status_shows_a_thread_waiting(store: tinystore.Store) -> None:
    locks = store.locks("jobs")
    holder = locks.acquire_sync("k")
    got: list[tinystore.Lease] = []
    thread = threading.Thread(target=lambda: got.append(locks.acquire_sync("k", wait=10.0)))
    thread.start()
    until_waiting_sync(store, "jobs", "k", 1)
    assert not got, "the thread waits while the key is held"
    holder.release_sync()
    thread.join(10)
    assert got and got[0].fence > holder.fence
    got[0].release_sync()
    assert waiters(store.status_sync(), "jobs", "k") == 0 and store.status_sync().held == []


def test_permits_have_no_fence_and_a_leader_has_its_value(store: tinystore.Store) -> None:
    permit = store.semaphore("exports", 2).acquire_sync("k")
    with store.election("scheduler").lead("worker-7") as leadership:
        status = store.status_sync()
        shown = {(h.name, h.key): h for h in status.held}
        assert shown[("exports", "k")].fence is None
        assert shown[("scheduler", "")].fence == leadership.fence
        assert shown[("scheduler", "")].leader == "worker-7"
    permit.release_sync()


def test_a_page_of_held_leases_with_the_totals(store: tinystore.Store) -> None:
    locks = store.locks("many")
    leases = [locks.acquire_sync(f"k{n}") for n in range(5)]
    page = store.status_sync(offset=1, limit=2)
    assert [h.key for h in page.held] == ["k1", "k2"]
    assert page.held_total == 5 and page.more
    with_rest = store.status_sync(offset=3, limit=2)
    assert [h.key for h in with_rest.held] == ["k3", "k4"] and not with_rest.more
    try:
        store.status_sync(limit=0)
        raise AssertionError("a limit of 0 was taken")
    except tinystore.Invalid as err:
        assert "limit" in str(err)
    for lease in leases:
        lease.release_sync()


def test_status_over_the_server_shows_another_connections_waiter(server: Server) -> None:
    with tinystore.connect(server.socket) as a, tinystore.connect(server.socket) as b:

        async def main() -> None:
            holder = await a.locks("served").acquire("k")
            waiting = asyncio.create_task(b.locks("served").acquire("k"))
            await until_waiting(a, "served", "k", 1)
            shown = await a.status()
            assert [(h.key, h.fence) for h in shown.held] == [("k", holder.fence)]
            await holder.release()
            await (await waiting).release()
            after = await b.status()
            assert after.held == [] and after.waiting == []

        asyncio.run(asyncio.wait_for(main(), 30))

"""The test kit (``tinystore.testing``) on real stores: ``expire`` tells the
holder (``held`` false, the ``hold`` block ends with ``LeaseLost``) and the
next waiter gets a larger fence; ``advance`` runs out exactly the leases
whose TTL passed; ``expire_key`` counts; permits and leaderships expire; a
served kit reaches a lease of another connection; a store not made for
tests refuses every control, embedded and served, and keeps its lease.
No sleep: each test waits on the kit's own signals, or on ``status``."""

from __future__ import annotations

import asyncio
import threading
from datetime import timedelta
from pathlib import Path

import pytest

import tinystore
import tinystore.testing
from conftest import Server, start_server, stop_server
from status_wait import DEADLINE, until_waiting, until_waiting_sync
from tinystore.testing import TestStore

REFUSAL = (
    "this store is not a test store: advance and expire work only on a store made by "
    "tinystore's test kit, or served with `tinystore serve --testing`"
)
EXPIRED = "the test kit expired it, as if its holder paused past its ttl"


def watched(held: tinystore.testing.Held) -> threading.Event:
    """An event set when ``held`` is lost (its ``watch_lost`` callback)."""
    lost = threading.Event()
    held.watch_lost(lost.set)
    return lost


def until_lost(lost: threading.Event) -> None:
    assert lost.wait(DEADLINE), "the loss was never signalled"


def held_keys(store: tinystore.Store) -> list[tuple[str, str]]:
    return [(h.name, h.key) for h in store.status_sync().held]


def test_expire_tells_the_holder_and_grants_the_waiter_a_larger_fence(tinystore_test_store: TestStore) -> None:
    kit = tinystore_test_store
    jobs = kit.store.locks("jobs")
    a = jobs.acquire_sync("report")
    lost = watched(a)
    got: list[tinystore.Lease] = []
    waiter = threading.Thread(target=lambda: got.append(jobs.acquire_sync("report", wait=DEADLINE)))
    waiter.start()
    until_waiting_sync(kit.store, "jobs", "report", 1)

    kit.expire_sync(a)
    assert not a.held, "expire returns once the holder was told"
    until_lost(lost)
    waiter.join(DEADLINE)
    assert got and got[0].fence > a.fence, (got, a.fence)
    with pytest.raises(tinystore.LeaseLost, match=EXPIRED) as raised:
        a.renew_sync()
    assert raised.value.code == "lease_lost"
    with pytest.raises(tinystore.LeaseLost):
        kit.expire_sync(a)  # no longer held
    assert held_keys(kit.store) == [("jobs", "report")]


def test_expire_ends_a_with_block_with_lease_lost(tinystore_test_store: TestStore) -> None:
    kit = tinystore_test_store
    with pytest.raises(tinystore.LeaseLost, match=EXPIRED):
        with kit.store.locks("jobs").hold("report") as lease:
            kit.expire_sync(lease)
            assert not lease.held


def test_expire_cancels_an_async_with_block_and_the_waiter_goes_on() -> None:
    async def main() -> None:
        async with TestStore.open() as kit:
            jobs = kit.store.locks("jobs")
            reached_end = False
            with pytest.raises(tinystore.LeaseLost, match=EXPIRED):
                async with jobs.hold("report") as a:
                    waiting = asyncio.create_task(jobs.acquire("report"))
                    await until_waiting(kit.store, "jobs", "report", 1)
                    await kit.expire(a)
                    assert not a.held
                    # Until the loss cancels the block (a TimeoutError, the
                    # block's own, would win over LeaseLost).
                    await asyncio.wait_for(asyncio.Event().wait(), DEADLINE)
                    reached_end = True
            assert not reached_end
            b = await waiting
            assert b.fence > a.fence
        assert not kit.dir.exists()
        assert not b.held, "closing the kit ended B's lease"

    asyncio.run(main())


def test_advance_runs_out_exactly_the_leases_whose_ttl_passed(tinystore_test_store: TestStore) -> None:
    kit = tinystore_test_store
    jobs = kit.store.locks("jobs")
    short = jobs.acquire_sync("short", ttl=10.0, renew=False)
    long = jobs.acquire_sync("long", ttl=60.0, renew=False)
    renewing = jobs.acquire_sync("renewing", ttl=30.0)
    short_lost, renewing_lost, long_lost = watched(short), watched(renewing), watched(long)

    kit.advance_sync(9)
    assert short.held and long.held and renewing.held
    assert sorted(held_keys(kit.store)) == [("jobs", "long"), ("jobs", "renewing"), ("jobs", "short")]

    kit.advance_sync(timedelta(seconds=2))
    until_lost(short_lost)
    assert not short.held and long.held and renewing.held
    assert sorted(held_keys(kit.store)) == [("jobs", "long"), ("jobs", "renewing")]

    kit.advance_sync(30.0)  # a renewing lease's TTL passes at once: nothing renewed it
    until_lost(renewing_lost)
    assert not renewing.held and long.held, "41 s of its 60 s have passed"

    asyncio.run(kit.advance(20))
    until_lost(long_lost)
    assert held_keys(kit.store) == []
    with pytest.raises(tinystore.LeaseLost, match="ran out"):
        long.renew_sync()
    after = jobs.try_acquire_sync("short")
    assert after is not None and after.fence > long.fence


def test_advance_takes_seconds_or_a_timedelta_and_nothing_less_than_zero(tinystore_test_store: TestStore) -> None:
    kit = tinystore_test_store
    lease = kit.store.locks("jobs").acquire_sync("k", ttl=5.0)
    kit.advance_sync(0)
    kit.advance_sync(timedelta(milliseconds=4999))
    assert lease.held
    with pytest.raises(tinystore.Invalid, match="0 or more"):
        kit.advance_sync(-1.0)
    with pytest.raises(tinystore.Invalid, match="finite"):
        kit.advance_sync(float("nan"))
    with pytest.raises(tinystore.Invalid):
        kit.advance_sync(timedelta(seconds=-1))
    for wrong in ("5", True, None):
        with pytest.raises(TypeError, match="seconds"):
            kit.advance_sync(wrong)  # type: ignore[arg-type]
    assert lease.held


def test_expire_key_ends_every_holder_of_a_key_and_says_how_many(tinystore_test_store: TestStore) -> None:
    kit = tinystore_test_store
    slots = kit.store.semaphore("slots", 3)
    p1, p2 = slots.acquire_sync("gpu"), slots.acquire_sync("gpu")
    other = slots.acquire_sync("cpu")
    lost = [watched(p1), watched(p2)]
    assert kit.expire_key_sync("slots", "gpu") == 2
    for each in lost:
        until_lost(each)
    assert not p1.held and not p2.held and other.held
    assert kit.expire_key_sync("slots", "gpu") == 0

    lease = kit.store.locks("orders").acquire_sync(42)
    lease_lost = watched(lease)
    assert asyncio.run(kit.expire_key("orders", "42")) == 1  # 42 and "42" are one key
    until_lost(lease_lost)
    assert asyncio.run(kit.expire_key("orders", 42)) == 0
    with pytest.raises(tinystore.Invalid) as bad:
        kit.expire_key_sync("no spaces", "gpu")
    assert bad.value.code == "invalid"
    with pytest.raises(tinystore.Invalid, match="key"):
        kit.expire_key_sync("slots", 4.5)  # type: ignore[arg-type]


def test_a_permit_and_a_leadership_expire_too(tinystore_test_store: TestStore) -> None:
    kit = tinystore_test_store
    read = kit.store.rw_locks("docs").acquire_read_sync("a")
    tinystore.testing.expire_sync(read)
    assert not read.held
    with pytest.raises(tinystore.LeaseLost, match=EXPIRED):
        read.release_sync()
    writer = kit.store.rw_locks("docs").try_acquire_write_sync("a")
    assert writer is not None, "the expired reader left the key"

    election = kit.store.election("primary")
    with pytest.raises(tinystore.LeaseLost, match=EXPIRED):
        with election.lead("node-1") as first:
            kit.expire_sync(first)
    assert election.leader_sync() is None
    second = election.campaign_sync("node-2")
    assert second.fence > first.fence, "a new term is larger"
    assert election.leader_sync() == ("node-2", second.fence)

    with pytest.raises(tinystore.Invalid, match="Lease, a Permit or a Leadership, not str"):
        kit.expire_sync("a")  # type: ignore[arg-type]


def test_a_served_kit_expires_a_lease_of_another_connection(tinystore_served_test_store: TestStore) -> None:
    kit = tinystore_served_test_store
    assert kit.address is not None and kit.address == f"unix:{kit.dir / 'tinystore.sock'}"
    with tinystore.connect(kit.address) as other:
        a = other.locks("jobs").acquire_sync("report")
        kit.expire_sync(a)
        assert not a.held, "expire returns once the holder was told, over the wire"
        b = kit.store.locks("jobs").acquire_sync("report")
        assert b.fence > a.fence
        with pytest.raises(tinystore.LeaseLost, match=EXPIRED):
            a.release_sync()

        timed = other.locks("jobs").acquire_sync("timed", ttl=5.0)
        timed_lost = watched(timed)
        kept = other.locks("jobs").acquire_sync("kept")
        kept_lost = watched(kept)
        kit.advance_sync(6)
        until_lost(timed_lost)
        assert kept.held, "a 15 s lease outlives 6 s"
        assert kit.expire_key_sync("jobs", "kept") == 1
        until_lost(kept_lost)  # told over the wire, maybe just after expire_key returned
        assert not kept.held
        assert other.status_sync().testing
    assert kit.store.status_sync().testing


def test_the_free_functions_on_tinystore_serve_testing(tmp_path: Path) -> None:
    served = start_server(tmp_path / "served", extra=["--testing"])
    try:
        with tinystore.connect(served.socket) as store:
            assert store.status_sync().testing
            jobs = store.locks("jobs")
            a = jobs.acquire_sync("report")
            tinystore.testing.expire_sync(a)
            assert not a.held
            b = jobs.acquire_sync("report", ttl=5.0)
            assert b.fence > a.fence
            b_lost = watched(b)
            tinystore.testing.advance_sync(store, 6.0)
            until_lost(b_lost)
            c = jobs.acquire_sync("report")
            c_lost = watched(c)
            assert tinystore.testing.expire_key_sync(store, "jobs", "report") == 1
            until_lost(c_lost)  # expire_key does not wait for the holders to be told
            assert not c.held

            async def main() -> None:
                d = await jobs.acquire("report")
                await tinystore.testing.expire(d)
                assert not d.held
                await tinystore.testing.advance(store, timedelta(minutes=1))
                assert await tinystore.testing.expire_key(store, "jobs", "report") == 0

            asyncio.run(main())
    finally:
        stop_server(served)


def refuses_everything(store: tinystore.Store) -> None:
    """Every control, sync and async, is refused with `invalid` and the
    core's message, and the lease stays held."""
    lease = store.locks("jobs").acquire_sync("report")

    async def tries() -> tuple[object, ...]:
        return await asyncio.gather(
            tinystore.testing.advance(store, 60),
            tinystore.testing.expire(lease),
            tinystore.testing.expire_key(store, "jobs", "report"),
            return_exceptions=True,
        )

    errors: list[object] = list(asyncio.run(tries()))
    for call in (
        lambda: tinystore.testing.advance_sync(store, 60),
        lambda: tinystore.testing.expire_sync(lease),
        lambda: tinystore.testing.expire_key_sync(store, "jobs", "report"),
    ):
        with pytest.raises(tinystore.Error) as raised:
            call()
        errors.append(raised.value)
    assert len(errors) == 6
    for err in errors:
        assert isinstance(err, tinystore.Invalid), repr(err)
        assert err.code == "invalid" and str(err) == REFUSAL, str(err)
    assert lease.held
    assert held_keys(store) == [("jobs", "report")]
    assert not store.status_sync().testing
    lease.release_sync()


def test_an_embedded_store_refuses_the_controls(tmp_path: Path) -> None:
    with tinystore.open(tmp_path / "store") as store:
        refuses_everything(store)


def test_a_store_served_in_process_refuses_them(tmp_path: Path) -> None:
    with tinystore.serve(tmp_path / "served"), tinystore.connect(f"unix:{tmp_path / 'served' / 'tinystore.sock'}") as store:
        refuses_everything(store)


def test_tinystore_serve_without_testing_refuses_them(server: Server) -> None:
    with tinystore.connect(server.socket) as store:
        refuses_everything(store)


def test_close_removes_the_directory_and_ends_what_was_held() -> None:
    kit = TestStore.served()
    dir = kit.dir
    assert (dir / "kv.db").exists() and repr(kit) == f"TestStore(dir={str(dir)!r}, address={kit.address!r})"
    lease = kit.store.locks("jobs").acquire_sync("report")
    lost = watched(lease)
    kit.close()
    until_lost(lost)
    assert not dir.exists() and not lease.held
    kit.close()  # idempotent
    with pytest.raises(tinystore.Error):
        kit.store.locks("jobs").acquire_sync("report")

    with TestStore.open() as embedded:
        assert embedded.address is None and embedded.store.status_sync().testing
    assert not embedded.dir.exists()

    async def main() -> None:
        kit = TestStore.open()
        await kit.aclose()
        assert not kit.dir.exists()
        await kit.aclose()  # idempotent

    asyncio.run(main())


def test_two_kits_are_apart(tinystore_test_store: TestStore, tinystore_served_test_store: TestStore) -> None:
    one, two = tinystore_test_store, tinystore_served_test_store
    assert one.dir != two.dir
    held = one.store.locks("jobs").acquire_sync("report")
    other = two.store.locks("jobs").try_acquire_sync("report")
    assert other is not None, "each kit is a store of its own"
    two.advance_sync(3600)
    assert held.held

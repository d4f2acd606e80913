"""Several keys of a lock group at once: every key or none, leases in the
caller's order, no deadlock whatever order callers name them in, and
nothing left held after a give-up (a cancelled task, a timeout) or after a
block stopped by a loss."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

import pytest

import tinystore
from conftest import Server
from status_wait import DEADLINE, until_held, until_waiting


def held_keys(store: tinystore.Store, name: str) -> set[str]:
    return {h.key for h in store.status_sync().held if h.name == name}


def test_leases_come_in_the_callers_order(store: tinystore.Store) -> None:
    accounts = store.locks("accounts")
    with accounts.hold_all(["z", 7, "a"]) as leases:
        assert [lease.key for lease in leases] == ["z", "7", "a"]
        assert len({lease.fence for lease in leases}) == 3
        assert held_keys(store, "accounts") == {"z", "7", "a"}
    assert held_keys(store, "accounts") == set()
    assert all(not lease.held for lease in leases)


def test_bad_key_lists_are_invalid(store: tinystore.Store) -> None:
    accounts = store.locks("accounts")
    for keys, says in (([], "0 keys"), (["x", "y", "x"], 'key "x" twice'), ("xy", "not a str")):
        with pytest.raises(tinystore.Invalid, match=says):
            accounts.acquire_all_sync(keys)
    too_many = [str(n) for n in range(tinystore.MAX_KEYS_AT_ONCE + 1)]
    with pytest.raises(tinystore.Invalid, match="1 to 1024"):
        accounts.acquire_all_sync(too_many)


def test_a_timed_out_sync_acquire_all_leaves_none_held(store: tinystore.Store) -> None:
    accounts = store.locks("accounts")
    other = accounts.acquire_sync("b")
    with pytest.raises(tinystore.Timeout, match="all of 3 keys"):
        accounts.acquire_all_sync(["c", "b", "a"], wait=0.1)
    # "a", taken before "b" in key order, was given back before the error.
    assert held_keys(store, "accounts") == {"b"}
    other.release_sync()


async def until_free(store: tinystore.Store, name: str, keys: set[str]) -> None:
    """Returns once none of ``keys`` of ``name`` is held (a connection gives
    back a cancelled acquire's leases in the background)."""
    deadline = time.monotonic() + DEADLINE
    while (left := {h.key for h in (await store.status()).held if h.name == name} & keys) != set():
        assert time.monotonic() < deadline, f"{left} of {name} still held"
        await asyncio.sleep(0.001)


def store_of(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> tinystore.Store:
    """An embedded store, or a connection to a real `tinystore serve`."""
    if kind == "embedded":
        return tinystore.open(tmp_path / "own")
    server: Server = request.getfixturevalue("server")
    return tinystore.connect(server.socket)


@pytest.mark.parametrize("kind", ["embedded", "served"])
def test_cancelling_acquire_all_gives_back_what_it_took(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    opened = store_of(kind, tmp_path, request)

    async def main(store: tinystore.Store) -> None:
        accounts = store.locks("accounts")
        other = await accounts.acquire("b")
        taking = asyncio.ensure_future(accounts.acquire_all(["c", "b", "a"]))
        await until_waiting(store, "accounts", "b", 1)
        await until_held(store, "accounts", "a")  # taken on the way, in key order
        taking.cancel()
        with pytest.raises(asyncio.CancelledError):
            await taking
        await until_free(store, "accounts", {"a", "c"})
        await other.release()
        again = await accounts.acquire_all(["a", "b", "c"], wait=DEADLINE)
        for lease in again:
            await lease.release()

    with opened as store:
        asyncio.run(main(store))


def test_cancelling_a_waiting_hold_all_runs_no_block(store: tinystore.Store) -> None:
    accounts = store.locks("accounts")
    ran = False

    async def block() -> None:
        nonlocal ran
        async with accounts.hold_all(["a", "b"]):
            ran = True

    async def main() -> None:
        other = await accounts.acquire("b")
        holding = asyncio.ensure_future(block())
        await until_waiting(store, "accounts", "b", 1)
        holding.cancel()
        with pytest.raises(asyncio.CancelledError):
            await holding
        await until_free(store, "accounts", {"a"})
        await other.release()

    asyncio.run(main())
    assert not ran


@pytest.mark.parametrize("kind", ["embedded", "served"])
def test_losing_one_lease_stops_the_async_block_and_releases_all(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Lease "a" is kept alive by hand, "b" is left to run out: the block
    is cancelled at its await, the hold raises LeaseLost, and "a" is
    released too."""
    store = store_of(kind, tmp_path, request)
    accounts = store.locks("accounts", ttl=0.3, renew=False)
    stopped = False

    async def main() -> None:
        nonlocal stopped
        async with accounts.hold_all(["a", "b"]) as (kept, _):
            try:
                for _ in range(int(DEADLINE / 0.03)):
                    await kept.renew()
                    await asyncio.sleep(0.03)
            except asyncio.CancelledError:
                stopped = True
                raise

    with store:
        with pytest.raises(tinystore.LeaseLost):
            asyncio.run(main())
        assert stopped
        assert held_keys(store, "accounts") == set()


def test_a_lost_lease_ends_a_sync_block_with_lease_lost(store: tinystore.Store) -> None:
    accounts = store.locks("accounts", ttl=0.1, renew=False)
    with pytest.raises(tinystore.LeaseLost):
        with accounts.hold_all(["a", "b"]) as leases:
            deadline = time.monotonic() + DEADLINE
            while all(lease.held for lease in leases):
                assert time.monotonic() < deadline
                time.sleep(0.01)
    assert held_keys(store, "accounts") == set()


def test_the_blocks_own_error_wins(store: tinystore.Store) -> None:
    accounts = store.locks("accounts")
    with pytest.raises(KeyError):
        with accounts.hold_all(["a", "b"]):
            raise KeyError("mine")
    assert held_keys(store, "accounts") == set()


def test_overlapping_sets_in_random_orders_never_deadlock(store: tinystore.Store) -> None:
    ring = store.locks("ring")
    keys = [f"k{n}" for n in range(6)]
    holders: dict[str, int] = {key: 0 for key in keys}
    rounds = 0

    async def caller(seed: int) -> None:
        nonlocal rounds
        chance = random.Random(seed)
        for _ in range(10):
            mine = chance.sample(keys, chance.randint(2, 4))
            async with ring.hold_all(mine):
                for key in mine:
                    assert holders[key] == 0, f"{key} held twice"
                    holders[key] += 1
                await asyncio.sleep(0.001)
                for key in mine:
                    holders[key] -= 1
            rounds += 1

    async def main() -> None:
        await asyncio.wait_for(asyncio.gather(*(caller(seed) for seed in range(8))), 60)

    asyncio.run(main())
    assert rounds == 80

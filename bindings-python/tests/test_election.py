"""Elections: ``campaign`` and ``lead`` on an embedded store, the next
campaigner leading with a larger term, ``leader()``, ``observe()`` seeing
every change in order, the lost signal when the store closes during
``lead``, and two processes campaigning through ``tinystore serve``."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import tinystore
from conftest import Server, start_server, stop_server
from elections import leaders_in_turn
from status_wait import until_waiting


def test_lead_gives_a_leadership_with_its_term(store: tinystore.Store) -> None:
    election = store.election("scheduler")

    async def main() -> int:
        assert await election.leader() is None
        async with election.lead("worker-7") as leadership:
            assert leadership.held and leadership.value == "worker-7" and leadership.name == "scheduler"
            assert isinstance(leadership.fence, int) and leadership.fence > 0
            assert await election.leader() == tinystore.Leader("worker-7", leadership.fence)
            # An election and a lock group of one name are apart.
            lease = await store.locks("scheduler").acquire("k")
            assert lease.fence > leadership.fence
            await lease.release()
        assert not leadership.held
        assert await election.leader() is None
        return leadership.fence

    assert asyncio.run(main()) > 0


def test_sync_forms(store: tinystore.Store) -> None:
    election = store.election("sync", ttl=5.0)
    with election.lead("a") as first:
        assert election.leader_sync() == ("a", first.fence)
        assert first.ttl == 5.0
    assert not first.held and election.leader_sync() is None
    second = election.campaign_sync("b")
    assert second.fence > first.fence
    leader = election.leader_sync()
    assert leader is not None and leader.value == "b" and leader.fence == second.fence
    second.resign_sync()
    second.resign_sync()  # idempotent
    assert election.leader_sync() is None


def test_second_campaigner_waits_then_leads_with_a_larger_term(store: tinystore.Store) -> None:
    asyncio.run(asyncio.wait_for(leaders_in_turn(store, store.election("line")), 30))


def test_a_cancelled_campaign_leaves_nothing(store: tinystore.Store) -> None:
    election = store.election("cancel")

    async def main() -> None:
        first = await election.campaign("a")
        waiting = asyncio.create_task(election.campaign("b"))
        await until_waiting(store, "cancel", "", 1)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        await first.resign()
        assert await election.leader() is None, "the campaign given up never led"

    asyncio.run(main())


def test_observe_sees_every_change_in_order(store: tinystore.Store) -> None:
    election = store.election("watched")

    async def main() -> list[tinystore.Leader | None]:
        seen: list[tinystore.Leader | None] = []
        observer = election.observe()
        a = await election.campaign("a")
        b_waiting = asyncio.create_task(election.campaign("b"))
        await until_waiting(store, "watched", "", 1)
        await a.resign()
        b = await b_waiting
        await b.resign()
        async for change in observer:
            seen.append(change)
            if len(seen) == 4:
                break
        assert seen == [None, ("a", a.fence), ("b", b.fence), None]
        return seen

    asyncio.run(main())

    # The same with `for`, in sync code, from another thread's changes.
    with election.observe() as changes:
        assert next(changes) is None

        def lead_twice() -> None:
            for value in ("c", "d"):
                with election.lead(value):
                    pass

        worker = threading.Thread(target=lead_twice)
        worker.start()
        got = [next(changes) for _ in range(4)]
        worker.join()
    assert [c.value if c else None for c in got] == ["c", None, "d", None]
    terms = [c.fence for c in got if c]
    assert terms == sorted(terms) and len(set(terms)) == 2
    assert list(changes) == [], "a closed observer ends"


def test_lost_when_the_store_closes_during_lead(store: tinystore.Store) -> None:
    election = store.election("closing")
    reached_end = False

    async def main() -> tinystore.Leadership:
        nonlocal reached_end
        observer = election.observe()
        assert await anext(observer) is None
        with pytest.raises(tinystore.Closed):
            async with election.lead("a") as leadership:
                assert await anext(observer) == ("a", leadership.fence)
                asyncio.get_running_loop().call_later(0.05, store.close)
                await asyncio.sleep(30)  # cancelled when the store closes
                reached_end = True
        with pytest.raises(tinystore.Closed):
            await anext(observer)
        return leadership

    leadership = asyncio.run(asyncio.wait_for(main(), 20))
    assert not reached_end and not leadership.held
    with pytest.raises(tinystore.Closed):
        election.campaign_sync("b")


def test_sync_lead_raises_closed_when_the_store_closes_during_it(store: tinystore.Store) -> None:
    election = store.election("closing-sync")
    with pytest.raises(tinystore.Closed):
        with election.lead("a") as leadership:
            threading.Timer(0.02, store.close).start()
            deadline = time.monotonic() + 10
            while leadership.held and time.monotonic() < deadline:
                time.sleep(0.01)
            assert not leadership.held, "the leadership is lost with its store"


def test_a_campaign_whose_wait_runs_out_is_timeout(store: tinystore.Store) -> None:
    election = store.election("busy")
    with election.lead("a"):
        with pytest.raises(tinystore.Timeout):
            election.campaign_sync("b", wait=0.02)
        leader = election.leader_sync()
        assert leader is not None and leader.value == "a", "a still leads"


def test_bad_value_and_name_are_invalid(store: tinystore.Store) -> None:
    with pytest.raises(tinystore.Invalid, match="1025"):
        store.election("e").campaign_sync("x" * 1025)
    with pytest.raises(tinystore.Invalid):
        store.election("no spaces").leader_sync()
    with pytest.raises(tinystore.Invalid):
        store.election("e", ttl=-1.0)


# A leader in another process: leads "jobs" with a short TTL through the
# server at argv[1], prints its term, then (after it was stopped and
# continued) reports how its lead ended.
LEADER = """
import asyncio, json, sys, tinystore

async def main() -> None:
    with tinystore.connect(sys.argv[1]) as store:
        outcome = "ended"
        try:
            async with store.election("jobs", ttl=0.5).lead("p1") as leadership:
                print(leadership.fence, flush=True)
                await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
                await asyncio.sleep(5)
        except tinystore.Error as err:
            outcome = err.code
        print(json.dumps({"outcome": outcome}), flush=True)

asyncio.run(main())
"""


def test_two_processes_campaign_through_the_server(server: Server) -> None:
    """The leader (another process) is stopped past its TTL; this process,
    waiting in line, leads with a larger term; an observer here sees both
    leaders in order; the stopped one, continued, is told it lost."""
    leader = subprocess.Popen(
        [sys.executable, "-c", LEADER, server.socket], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert leader.stdin is not None and leader.stdout is not None
    try:
        first = int(leader.stdout.readline())
        with tinystore.connect(server.socket) as store:
            election = store.election("jobs", wait=20.0)
            changes = election.observe()
            assert next(changes) == ("p1", first)
            os.kill(leader.pid, signal.SIGSTOP)
            try:
                with election.lead("p2") as mine:
                    assert mine.fence > first
                    assert next(changes) == ("p2", mine.fence)
            finally:
                os.kill(leader.pid, signal.SIGCONT)
            assert next(changes) is None
        leader.stdin.write("go\n")
        leader.stdin.flush()
        report = json.loads(leader.stdout.readline())
        assert leader.wait(20) == 0
    finally:
        if leader.poll() is None:
            leader.kill()
    assert report["outcome"] == "lease_lost"


def test_a_leader_whose_server_is_killed_is_told(tmp_path: Path) -> None:
    """The connection breaks: the lead's body is cancelled, the lead raises
    LeaseLost, and an observer on that connection ends with Unavailable."""
    served = start_server(tmp_path / "dying")
    try:
        store = tinystore.connect(served.socket)
        election = store.election("jobs")

        async def main() -> None:
            observer = election.observe()
            assert await anext(observer) is None
            with pytest.raises(tinystore.LeaseLost):
                async with election.lead("a") as leadership:
                    assert await anext(observer) == ("a", leadership.fence)
                    served.process.kill()
                    await asyncio.sleep(30)  # cancelled when the connection breaks
            with pytest.raises(tinystore.Unavailable):
                await anext(observer)

        asyncio.run(asyncio.wait_for(main(), 20))
    finally:
        stop_server(served)

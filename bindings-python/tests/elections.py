"""What the election tests share (embedded and on etcd)."""

from __future__ import annotations

import asyncio

import tinystore
from status_wait import until_waiting


async def leaders_in_turn(store: tinystore.Store, election: tinystore.Election) -> None:
    """a leads; b waits in line until a resigns, then leads with a larger
    term; an observer sees nobody, a, b, nobody; resigning twice is fine."""
    observer = election.observe()
    assert await anext(observer) is None
    a = await election.campaign("a")
    assert await anext(observer) == ("a", a.fence)
    waiting = asyncio.create_task(election.campaign("b"))
    await until_waiting(store, election.name, "", 1)
    assert not waiting.done(), "b waits while a leads"
    await a.resign()
    await a.resign()  # idempotent
    b = await asyncio.wait_for(waiting, 20)
    assert b.value == "b" and not a.held and b.fence > a.fence
    assert await election.leader() == ("b", b.fence)
    assert await anext(observer) == ("b", b.fence)
    await b.resign()
    assert await anext(observer) is None
    observer.close()

"""The descriptor each event loop is woken through: an eventfd on Linux, a
pipe on other Unix systems. ``TINYSTORE_WAKEUP=pipe`` gives the pipe on
Linux too, so that its path runs here as well: replies through a served
store (every call waits for one), many at once, and a cancelled waiter."""

from __future__ import annotations

import asyncio
import os
import stat
import sys

import pytest

import tinystore
from conftest import Server
from tinystore import _loops


@pytest.mark.parametrize("wakeup", ["platform", "pipe"])
def test_replies_wake_the_loop_through_its_descriptor(
    server: Server, wakeup: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Read when a loop's waker is made, which asyncio.run's new loop does.
    if wakeup == "pipe":
        monkeypatch.setenv("TINYSTORE_WAKEUP", "pipe")
    else:
        monkeypatch.delenv("TINYSTORE_WAKEUP", raising=False)
    with tinystore.connect(server.socket) as store:
        locks = store.locks("wakeup")

        async def main() -> tuple[bool, list[int]]:
            fences: list[int] = []

            async def holder(n: int) -> None:
                for i in range(25):
                    async with locks.hold(f"k{(n + i) % 3}") as lease:
                        fences.append(lease.fence)

            await asyncio.wait_for(asyncio.gather(*(holder(n) for n in range(8))), 30)
            # A waiter cancelled while its key is held leaves its line.
            blocker = await locks.acquire("busy")
            waiter = asyncio.ensure_future(locks.acquire("busy"))
            await asyncio.sleep(0.05)
            assert not waiter.done()
            waiter.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiter
            await blocker.release()
            lease = await asyncio.wait_for(locks.acquire("busy"), 10)
            await lease.release()
            fd = _loops.waker(asyncio.get_running_loop()).fileno()
            return stat.S_ISFIFO(os.fstat(fd).st_mode), fences

        is_pipe, fences = asyncio.run(main())
    assert len(fences) == 200 and len(set(fences)) == 200
    assert is_pipe == (wakeup == "pipe" or sys.platform != "linux")

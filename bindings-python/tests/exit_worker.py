"""A program that holds through a served store and exits with work in
flight, for test_exit.py: tasks taking turns on a few keys with
``async with hold``, holds that lose their lease, and acquires still waiting
when it ends. The interpreter then exits while the binding's
threads are still settling awaitables and reporting losses.

Usage: python exit_worker.py ADDRESS SECONDS"""

from __future__ import annotations

import asyncio
import sys

import tinystore


async def main(address: str, seconds: float) -> None:
    store = tinystore.connect(address)
    locks = store.locks("exit", ttl=5.0)

    async def take_turns(i: int) -> None:
        while True:
            async with locks.hold(f"turns{i % 3}"):
                await asyncio.sleep(0)

    async def lose(i: int) -> None:
        await asyncio.sleep(i * seconds / 8)
        try:
            async with locks.hold(f"lost{i}", ttl=0.05, renew=False):
                await asyncio.sleep(seconds)
        except tinystore.LeaseLost:
            pass

    turns = [asyncio.create_task(take_turns(i)) for i in range(8)]
    losing = [asyncio.create_task(lose(i)) for i in range(8)]
    await asyncio.sleep(seconds)
    for task in turns:
        task.cancel()
    await asyncio.gather(*turns, return_exceptions=True)
    # Acquires left waiting at exit, behind a hold that is never released.
    held = await locks.acquire("last")
    waiting = [asyncio.create_task(locks.acquire("last")) for _ in range(4)]
    # Holds one after another up to the exit: through a server each grant
    # reaches the loop from a runtime thread, the last one still returning
    # from the loop's wakeup as the interpreter exits.
    for _ in range(100):
        async with locks.hold("one"):
            pass
    del held, waiting, losing


if __name__ == "__main__":
    # The loop is left as it is, not closed: its waiting tasks are still
    # waiting when the interpreter exits.
    asyncio.new_event_loop().run_until_complete(main(sys.argv[1], float(sys.argv[2])))

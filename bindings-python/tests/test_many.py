"""Many holders at once, from tasks and threads together: never two
holders of one key, and fences grow in the order the key was held."""

from __future__ import annotations

import asyncio
import threading

import tinystore


class Witness:
    """Counts the holders inside the block and keeps the fences seen."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.inside = 0
        self.most = 0
        self.fences: list[int] = []

    def enter(self, fence: int) -> None:
        with self.lock:
            self.inside += 1
            self.most = max(self.most, self.inside)
            self.fences.append(fence)

    def leave(self) -> None:
        with self.lock:
            self.inside -= 1


def test_tasks_and_threads_never_two_holders(store: tinystore.Store) -> None:
    locks = store.locks("many")
    witness = Witness()
    rounds = 30

    async def task_worker() -> None:
        for _ in range(rounds):
            async with locks.hold("shared") as lease:
                witness.enter(lease.fence)
                await asyncio.sleep(0)
                witness.leave()

    async def tasks() -> None:
        await asyncio.gather(*(task_worker() for _ in range(20)))

    def thread_worker() -> None:
        for _ in range(rounds):
            with locks.hold("shared") as lease:
                witness.enter(lease.fence)
                witness.leave()

    def loop_thread() -> None:
        asyncio.run(tasks())

    threads = [threading.Thread(target=thread_worker) for _ in range(6)]
    threads += [threading.Thread(target=loop_thread) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads)
    assert witness.most == 1
    assert len(witness.fences) == rounds * (6 + 2 * 20)
    assert witness.fences == sorted(witness.fences)
    assert len(set(witness.fences)) == len(witness.fences)

"""One wakeup channel per event loop: outcomes reached in tinystore's
runtime are queued for their loop, which waits on a descriptor (an eventfd
on Linux, a pipe on other Unix systems) with ``add_reader`` and settles
them all on its own thread."""

from __future__ import annotations

import asyncio
import weakref

from ._native import LoopWaker

_wakers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LoopWaker] = (
    weakref.WeakKeyDictionary()
)


def waker(loop: asyncio.AbstractEventLoop) -> LoopWaker:
    """The waker of ``loop``, made and registered with it at first use; it
    gives up what is still queued once the loop is collected."""
    found = _wakers.get(loop)
    if found is not None:
        return found
    made = LoopWaker()
    loop.add_reader(made.fileno(), made.drain)
    _wakers[loop] = made
    weakref.finalize(loop, made.close)
    return made

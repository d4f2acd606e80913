"""``Locks`` and ``Semaphore``: named groups of keys. Each call takes the
keyword options ``ttl`` and ``wait`` (seconds) and ``renew``; ``None`` keeps
the group's value."""

from __future__ import annotations

import functools
from typing import Generic

from . import _native
from ._hold import H, Group, Hold
from ._native import Lease, Permit

Key = str | int
"""A key: a ``str``, or an ``int``, which is its decimal text (``42`` and
``"42"`` are the same key)."""


class _Keys(Generic[H]):
    """What locks and semaphores share; ``H`` is what holding a key gives."""

    def __init__(self, native: Group[H]) -> None:
        self._native = native

    @property
    def name(self) -> str:
        """The group's name."""
        return self._native.name

    def hold(
        self, key: Key, *, ttl: float | None = None, wait: float | None = None, renew: bool | None = None
    ) -> Hold[H]:
        """Holds ``key`` for an ``async with`` or ``with`` block and releases
        it however the block ends."""
        native = self._native
        return Hold(
            functools.partial(native.acquire, key, ttl, wait, renew),
            functools.partial(native.acquire_sync, key, ttl, wait, renew),
        )

    async def acquire(
        self, key: Key, *, ttl: float | None = None, wait: float | None = None, renew: bool | None = None
    ) -> H:
        """Waits first come first served for ``key`` and holds it; raises
        :class:`Timeout` when ``wait`` runs out. Cancelling the waiting task
        gives up the wait and leaks nothing."""
        return await self._native.acquire(key, ttl, wait, renew)

    async def try_acquire(
        self, key: Key, *, ttl: float | None = None, wait: float | None = None, renew: bool | None = None
    ) -> H | None:
        """Holds ``key`` if it is free now; else returns ``None``."""
        return await self._native.try_acquire(key, ttl, wait, renew)

    def acquire_sync(
        self, key: Key, *, ttl: float | None = None, wait: float | None = None, renew: bool | None = None
    ) -> H:
        """:meth:`acquire` for sync code: blocks this thread only (the GIL is
        released while it waits)."""
        return self._native.acquire_sync(key, ttl, wait, renew)

    def try_acquire_sync(
        self, key: Key, *, ttl: float | None = None, wait: float | None = None, renew: bool | None = None
    ) -> H | None:
        """:meth:`try_acquire` for sync code."""
        return self._native.try_acquire_sync(key, ttl, wait, renew)


class Locks(_Keys[Lease]):
    """A group of exclusive locks, one per key. Holding a key gives a
    :class:`Lease` whose ``fence`` is larger than every earlier lease's."""

    def __init__(self, native: _native.Locks) -> None:
        super().__init__(native)


class Semaphore(_Keys[Permit]):
    """A group of semaphores: up to ``limit`` holders per key at once, each
    with a :class:`Permit`, which has no fence."""

    def __init__(self, native: _native.Semaphore) -> None:
        super().__init__(native)

"""``Locks`` and ``Semaphore``: named groups of keys. Each call takes the
keyword options of :class:`Options` (``ttl``, ``wait``, ``renew``,
``max_hold``); ``None`` keeps the group's value. A semaphore's calls also
take ``weight``."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import TYPE_CHECKING, Generic

from . import _native, _otel
from ._hold import H, Group, Hold, HoldAll
from ._native import Lease, Permit
from ._options import Options, WeightedOptions
from ._watch import Watcher

if TYPE_CHECKING:
    from typing_extensions import Unpack

Key = str | int
"""A key: a ``str``, or an ``int``, which is its decimal text (``42`` and
``"42"`` are the same key)."""


class _Keys(Generic[H]):
    """What locks and semaphores share; ``H`` is what holding a key gives."""

    _kind = "lock"
    """The group's kind, as ``status`` names it (OpenTelemetry's spans)."""

    def __init__(self, native: Group[H]) -> None:
        self._native = native

    @property
    def name(self) -> str:
        """The group's name."""
        return self._native.name

    def hold(self, key: Key, **options: Unpack[Options]) -> Hold[H]:
        """Holds ``key`` for an ``async with`` or ``with`` block and releases
        it however the block ends."""
        native = self._native
        return Hold(
            functools.partial(native.acquire, key, **options),
            functools.partial(native.acquire_sync, key, **options),
            (self._kind, native.name, key),
        )

    async def acquire(self, key: Key, **options: Unpack[Options]) -> H:
        """Waits first come first served for ``key`` and holds it; raises
        :class:`Timeout` when ``wait`` runs out. Cancelling the waiting task
        gives up the wait and leaks nothing."""
        wait = _otel.wait(self._kind, self._native.name, key)
        if wait is None:
            return await self._native.acquire(key, **options)
        try:
            held = await self._native.acquire(key, **options)
        except BaseException as err:
            wait.failed(err)
            raise
        wait.granted(held)
        return held

    async def try_acquire(self, key: Key, **options: Unpack[Options]) -> H | None:
        """Holds ``key`` if it is free now; else returns ``None``."""
        return await self._native.try_acquire(key, **options)

    def acquire_sync(self, key: Key, **options: Unpack[Options]) -> H:
        """:meth:`acquire` for sync code: blocks this thread only (the GIL is
        released while it waits)."""
        wait = _otel.wait(self._kind, self._native.name, key)
        if wait is None:
            return self._native.acquire_sync(key, **options)
        try:
            held = self._native.acquire_sync(key, **options)
        except BaseException as err:
            wait.failed(err)
            raise
        wait.granted(held)
        return held

    def try_acquire_sync(self, key: Key, **options: Unpack[Options]) -> H | None:
        """:meth:`try_acquire` for sync code."""
        return self._native.try_acquire_sync(key, **options)

    def watch(self, key: Key) -> Watcher:
        """The events of ``key`` from now on, in the store's order (see
        :class:`Watcher`), for ``async for`` (or ``for`` in sync code);
        :class:`Invalid` for a bad key, raised by the first read."""
        return Watcher(self._native.watch(key))

    def watch_all(self) -> Watcher:
        """The events of every key of the group from now on, as
        :meth:`watch` gives one key's."""
        return Watcher(self._native.watch_all())


class Locks(_Keys[Lease]):
    """A group of exclusive locks, one per key. Holding a key gives a
    :class:`Lease` whose ``fence`` is larger than every earlier lease's."""

    def __init__(self, native: _native.Locks) -> None:
        super().__init__(native)
        self._locks = native

    def hold_all(self, keys: Iterable[Key], **options: Unpack[Options]) -> HoldAll[Lease]:
        """Holds every key of ``keys`` for an ``async with`` or ``with``
        block, as :meth:`acquire_all` takes them, and releases them all
        however the block ends. Losing any lease ends the block as losing
        the lease of :meth:`hold` does."""
        if not isinstance(keys, str):
            keys = list(keys)  # an iterator is read once, by the acquire
        native = self._locks
        return HoldAll(
            functools.partial(native.acquire_all, keys, **options),
            functools.partial(native.acquire_all_sync, keys, **options),
        )

    async def acquire_all(self, keys: Iterable[Key], **options: Unpack[Options]) -> list[Lease]:
        """Holds every key of ``keys`` or none: a lease each, each with its
        own fence, in the order of ``keys``. Keys are taken in one order
        for every caller, so callers naming overlapping keys in any order
        never deadlock. ``wait`` covers all the keys together (then
        :class:`Timeout`); a timeout, an error or cancelling the waiting
        task leaves none held. :class:`Invalid` for no key, more than
        :data:`MAX_KEYS_AT_ONCE`, or a key named twice."""
        return await self._locks.acquire_all(keys, **options)

    def acquire_all_sync(self, keys: Iterable[Key], **options: Unpack[Options]) -> list[Lease]:
        """:meth:`acquire_all` for sync code: blocks this thread only."""
        return self._locks.acquire_all_sync(keys, **options)


class Semaphore(_Keys[Permit]):
    """A group of semaphores: ``limit`` places per key, each
    :class:`Permit` taking ``weight`` of them (1 unless told), all or
    nothing, first come first served: a heavy waiter holds back lighter
    callers that came after it. A permit has no fence."""

    _kind = "semaphore"

    def __init__(self, native: _native.Semaphore) -> None:
        super().__init__(native)

    def hold(self, key: Key, **options: Unpack[WeightedOptions]) -> Hold[Permit]:
        """Holds ``weight`` places of ``key`` for an ``async with`` or
        ``with`` block and releases them however the block ends."""
        native = self._native
        return Hold(
            functools.partial(native.acquire, key, **options),
            functools.partial(native.acquire_sync, key, **options),
            (self._kind, native.name, key),
        )

    async def acquire(self, key: Key, **options: Unpack[WeightedOptions]) -> Permit:
        """Waits first come first served until ``weight`` places of ``key``
        are free and takes them all at once."""
        return await _otel.waited(self._kind, self._native.name, key, self._native.acquire(key, **options))

    async def try_acquire(self, key: Key, **options: Unpack[WeightedOptions]) -> Permit | None:
        """Takes ``weight`` places of ``key`` if they are free now and nobody
        waits; else returns ``None``."""
        return await self._native.try_acquire(key, **options)

    def acquire_sync(self, key: Key, **options: Unpack[WeightedOptions]) -> Permit:
        """:meth:`acquire` for sync code."""
        native = self._native
        return _otel.waited_sync(self._kind, native.name, key, lambda: native.acquire_sync(key, **options))

    def try_acquire_sync(self, key: Key, **options: Unpack[WeightedOptions]) -> Permit | None:
        """:meth:`try_acquire` for sync code."""
        return self._native.try_acquire_sync(key, **options)

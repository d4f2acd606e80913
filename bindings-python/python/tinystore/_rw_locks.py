"""``RwLocks``: a named group of read-write locks. Each call takes the
keyword options of :class:`Options` (``ttl``, ``wait``, ``renew``,
``max_hold``); ``None`` keeps the group's value."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from . import _native, _otel
from ._groups import Key
from ._hold import Hold
from ._native import Lease, Permit
from ._options import Options
from ._watch import Watcher

if TYPE_CHECKING:
    from typing_extensions import Unpack


class RwLocks:
    """A group of read-write locks, one per key. Readers share a key, each
    with a :class:`Permit` (no fence); a writer holds it alone, with a
    :class:`Lease` whose ``fence`` is larger than every earlier one. First
    come first served: a waiting writer holds back the readers that came
    after it, so writers never starve."""

    def __init__(self, native: _native.RwLocks) -> None:
        self._native = native

    @property
    def name(self) -> str:
        """The group's name."""
        return self._native.name

    def watch(self, key: Key) -> Watcher:
        """The events of ``key`` from now on, in the store's order (see
        :class:`Watcher`), for ``async for`` (or ``for`` in sync code);
        :class:`Invalid` for a bad key, raised by the first read."""
        return Watcher(self._native.watch(key))

    def watch_all(self) -> Watcher:
        """The events of every key of the group from now on, as
        :meth:`watch` gives one key's."""
        return Watcher(self._native.watch_all())

    def hold_read(self, key: Key, **options: Unpack[Options]) -> Hold[Permit]:
        """Reads ``key`` for an ``async with`` or ``with`` block and releases
        it however the block ends, as :meth:`Locks.hold` does."""
        native = self._native
        return Hold(
            functools.partial(native.acquire_read, key, **options),
            functools.partial(native.acquire_read_sync, key, **options),
            ("rwlock", native.name, key),
        )

    def hold_write(self, key: Key, **options: Unpack[Options]) -> Hold[Lease]:
        """Writes ``key`` for an ``async with`` or ``with`` block and
        releases it however the block ends, as :meth:`Locks.hold` does."""
        native = self._native
        return Hold(
            functools.partial(native.acquire_write, key, **options),
            functools.partial(native.acquire_write_sync, key, **options),
            ("rwlock", native.name, key),
        )

    async def acquire_read(self, key: Key, **options: Unpack[Options]) -> Permit:
        """Waits first come first served to read ``key``: shared with other
        readers, after every writer that came first. Raises
        :class:`Timeout` when ``wait`` runs out; cancelling the waiting task
        gives up the wait and leaks nothing."""
        return await _otel.waited("rwlock", self._native.name, key, self._native.acquire_read(key, **options))

    async def acquire_write(self, key: Key, **options: Unpack[Options]) -> Lease:
        """Waits first come first served to write ``key``: alone, with a
        fence. Raises :class:`Timeout` when ``wait`` runs out; cancelling
        the waiting task gives up the wait and leaks nothing."""
        return await _otel.waited("rwlock", self._native.name, key, self._native.acquire_write(key, **options))

    async def try_acquire_read(self, key: Key, **options: Unpack[Options]) -> Permit | None:
        """Reads ``key`` if no writer holds it or waits for it now; else
        returns ``None``."""
        return await self._native.try_acquire_read(key, **options)

    async def try_acquire_write(self, key: Key, **options: Unpack[Options]) -> Lease | None:
        """Writes ``key`` if nobody holds it or waits for it now; else
        returns ``None``."""
        return await self._native.try_acquire_write(key, **options)

    def acquire_read_sync(self, key: Key, **options: Unpack[Options]) -> Permit:
        """:meth:`acquire_read` for sync code: blocks this thread only."""
        native = self._native
        return _otel.waited_sync("rwlock", native.name, key, lambda: native.acquire_read_sync(key, **options))

    def acquire_write_sync(self, key: Key, **options: Unpack[Options]) -> Lease:
        """:meth:`acquire_write` for sync code: blocks this thread only."""
        native = self._native
        return _otel.waited_sync("rwlock", native.name, key, lambda: native.acquire_write_sync(key, **options))

    def try_acquire_read_sync(self, key: Key, **options: Unpack[Options]) -> Permit | None:
        """:meth:`try_acquire_read` for sync code."""
        return self._native.try_acquire_read_sync(key, **options)

    def try_acquire_write_sync(self, key: Key, **options: Unpack[Options]) -> Lease | None:
        """:meth:`try_acquire_write` for sync code."""
        return self._native.try_acquire_write_sync(key, **options)

"""``Store``: an open store, and the functions that open one."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from . import _native
from ._closes import Closes
from ._election import Election
from ._groups import Locks, Semaphore
from ._native import Status
from ._options import Options
from ._rw_locks import RwLocks

if TYPE_CHECKING:
    from typing_extensions import Unpack


class Store(Closes):
    """An open store: embedded (this process owns its directory) or reached
    over a connection. Use it with ``with`` to close it at the end."""

    def __init__(self, native: _native.Store) -> None:
        self._native = native

    def locks(self, name: str, **options: Unpack[Options]) -> Locks:
        """The group of exclusive locks called ``name``. ``ttl``: seconds a
        lease lives after its grant or last renewal; ``wait``: seconds
        ``acquire`` may wait (unset: until the caller gives up); ``renew``:
        keep held leases alive every ttl/3; ``max_hold``: seconds after its
        grant past which a lease is renewed no more and runs out, its holder
        told as for any lost lease (10 ms to 30 days; unset: no cap). An
        option left ``None`` takes the core's default
        (:data:`DEFAULT_TTL`, :data:`DEFAULT_WAIT`, :data:`DEFAULT_RENEW`,
        no ``max_hold``)."""
        return Locks(self._native.locks(name, **options))

    def semaphore(self, name: str, limit: int, **options: Unpack[Options]) -> Semaphore:
        """The group of semaphores called ``name``, ``limit`` places per key
        (from 1 to 1,000,000, checked when the group is first used); options
        as for :meth:`locks`."""
        return Semaphore(self._native.semaphore(name, limit, **options))

    def rw_locks(self, name: str, **options: Unpack[Options]) -> RwLocks:
        """The group of read-write locks called ``name`` (apart from the lock
        group and semaphore of that name): readers share a key, a writer
        holds it alone with a fence, first come first served; options as
        for :meth:`locks`."""
        return RwLocks(self._native.rw_locks(name, **options))

    def election(self, name: str, **options: Unpack[Options]) -> Election:
        """The election called ``name`` (a lock whose holder is named; apart
        from the lock group and semaphore of that name). ``ttl``: seconds a
        leadership lives after it began or was last renewed; ``wait``:
        seconds ``campaign`` may wait; ``renew``: keep a leadership alive
        every ttl/3; ``max_hold``: seconds after which a leadership is
        renewed no more and ends, its leader told. ``None`` takes the
        core's default, as for locks."""
        return Election(self._native.election(name, **options))

    async def status(self, *, offset: int = 0, limit: int = _native.DEFAULT_STATUS_LIMIT) -> Status:
        """The store's state: its epoch, the fences given, each held lease
        (name, key, fence, TTL and time left) and each key with callers
        waiting, the ``limit`` of each (1 to 10,000) after the first
        ``offset``, by name then key, each with the ``kind`` of its group
        (and a read-write lock's ``mode``, a permit's ``weight``);
        ``held_total``, ``waiting_total`` and
        ``more`` tell what the page leaves out."""
        return await _native.store_status(self._native, offset, limit)

    def status_sync(self, *, offset: int = 0, limit: int = _native.DEFAULT_STATUS_LIMIT) -> Status:
        """:meth:`status` for sync code."""
        return _native.store_status_sync(self._native, offset, limit)

    def close(self) -> None:
        """Releases every lease (their holders learn they lost them) and
        fails every waiter with :class:`Closed`. Idempotent."""
        self._native.close()


def open(dir: str | os.PathLike[str]) -> Store:
    """Opens the store directory ``dir``, making it if missing. Raises
    :class:`InUse`, naming the owner's pid, when another process owns it."""
    return Store(_native.open(dir))


def connect(address: str, *, token: str | None = None) -> Store:
    """Connects to a store served by ``tinystore serve``: ``unix:PATH``,
    ``tcp://HOST:PORT`` (with the server's ``token``), a socket's path, or a
    served store directory. Raises :class:`Unavailable` when it cannot be
    reached and :class:`Unauthorized` for a wrong token."""
    return Store(_native.connect(address, token))

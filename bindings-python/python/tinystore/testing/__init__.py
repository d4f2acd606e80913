"""``tinystore.testing``: the test kit. A test store's time is the test's:
``expire`` ends a lease now, as if its holder had paused past its TTL, and
``advance`` moves the store's clock forward, so a test of a late writer
needs no sleep.

>>> from tinystore.testing import TestStore
>>> with TestStore.open() as kit:                             # doctest: +SKIP
...     jobs = kit.store.locks("jobs")
...     a = jobs.acquire_sync("report")
...     kit.expire_sync(a)                 # as if A paused past its TTL
...     b = jobs.acquire_sync("report")    # B's fence is larger than A's

The controls work only on a test store: one this module made, or one
served with ``tinystore serve --testing``; every other store refuses them
with :class:`tinystore.Invalid`. What they do is the core's
(``tinystore::testing``).

For pytest, the fixtures ``tinystore_test_store`` and
``tinystore_served_test_store`` (:mod:`tinystore.testing.pytest`, a plugin
pytest loads by itself); for unittest, :mod:`tinystore.testing.unittest`.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from .. import _native
from .._closes import Closes
from .._groups import Key
from .._native import Leadership, Lease, Permit
from .._store import Store

if TYPE_CHECKING:
    from types import TracebackType

    from typing_extensions import Self

__all__ = [
    "Held",
    "TestStore",
    "advance",
    "advance_sync",
    "expire",
    "expire_key",
    "expire_key_sync",
    "expire_sync",
]

Held = Lease | Permit | Leadership
"""What ``expire`` ends: a lease, a permit or a leadership."""


class TestStore(Closes):
    """A test store: a new store in a temporary directory whose time the
    test controls, embedded (:meth:`open`) or served by this process on its
    Unix socket (:meth:`served`). :meth:`close`, or the end of a ``with``
    or ``async with`` block, closes it (holders learn they lost their
    leases), stops its server and removes its directory.

    Each control has an async form and a sync one ending in ``_sync``, as
    every call of the package has."""

    __test__ = False  # a class pytest is not to collect as tests

    def __init__(self, native: _native.TestStore) -> None:
        self._native = native
        self._store = Store(native.store)

    @classmethod
    def open(cls) -> TestStore:
        """An embedded test store: this process owns it."""
        return cls(_native.test_store_open())

    @classmethod
    def served(cls) -> TestStore:
        """A test store served by this process, as ``tinystore serve
        --testing`` would serve it: :attr:`store` is connected to it over
        its socket (so a loss travels the wire as in production), and other
        connections and processes reach it at :attr:`address`."""
        return cls(_native.test_store_served())

    @property
    def store(self) -> Store:
        """The store: its groups, elections and status, as any store's."""
        return self._store

    @property
    def address(self) -> str | None:
        """``unix:PATH`` when served (for :func:`tinystore.connect`), else ``None``."""
        return self._native.address

    @property
    def dir(self) -> Path:
        """The store's directory, removed when the kit is closed."""
        return Path(self._native.dir)

    async def advance(self, by: float | timedelta) -> None:
        """Moves the store's time forward ``by`` (seconds, or a
        ``timedelta``) at once; see :func:`advance`."""
        await advance(self._store, by)

    def advance_sync(self, by: float | timedelta) -> None:
        """:meth:`advance` for sync code."""
        advance_sync(self._store, by)

    async def expire(self, held: Held) -> None:
        """Ends ``held`` as if its holder had paused past its TTL; see
        :func:`expire`."""
        await expire(held)

    def expire_sync(self, held: Held) -> None:
        """:meth:`expire` for sync code."""
        expire_sync(held)

    async def expire_key(self, name: str, key: Key) -> int:
        """Ends every lease on ``key`` of the groups called ``name``; gives
        how many. See :func:`expire_key`."""
        return await expire_key(self._store, name, key)

    def expire_key_sync(self, name: str, key: Key) -> int:
        """:meth:`expire_key` for sync code."""
        return expire_key_sync(self._store, name, key)

    def close(self) -> None:
        """Closes the store (holders learn they lost their leases, waiters
        fail with :class:`tinystore.Closed`), stops its server when served,
        and removes its directory. Idempotent."""
        self._native.close()

    async def aclose(self) -> None:
        """:meth:`close` for async code."""
        await self._native.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"TestStore(dir={str(self.dir)!r}, address={self.address!r})"


def _native_store(store: Store | TestStore) -> _native.Store:
    if isinstance(store, TestStore):
        store = store.store
    if not isinstance(store, Store):
        raise TypeError(f"expected a tinystore.Store or a TestStore, not {type(store).__name__}")
    return store._native


def _seconds(by: float | timedelta) -> float:
    if isinstance(by, timedelta):
        return by.total_seconds()
    if isinstance(by, bool) or not isinstance(by, (int, float)):
        raise TypeError(f"advance takes seconds (a float) or a timedelta, not {type(by).__name__}")
    return float(by)


async def advance(store: Store | TestStore, by: float | timedelta) -> None:
    """Moves the time of ``store`` forward ``by`` (seconds, or a
    ``timedelta``) at once: every lease whose TTL runs out within ends as a
    lease that ran out does (its holder learns it lost it, the next waiter
    is granted with a larger fence), renewing ones too, since nothing
    renewed them meanwhile. A wait (``wait=``) keeps the caller's own time.
    Raises :class:`tinystore.Invalid` unless ``store`` is a test store."""
    await _native.testing_advance(_native_store(store), _seconds(by))


def advance_sync(store: Store | TestStore, by: float | timedelta) -> None:
    """:func:`advance` for sync code."""
    _native.testing_advance_sync(_native_store(store), _seconds(by))


async def expire(held: Held) -> None:
    """Ends ``held`` (a :class:`~tinystore.Lease`, :class:`~tinystore.Permit`
    or :class:`~tinystore.Leadership`) as if its holder had paused past its
    TTL. When it returns, the loss has been signalled: ``held.held`` is
    false, a ``hold`` block around it ends with :class:`tinystore.LeaseLost`
    (an ``async with`` one is cancelled), and the next waiter is granted
    with a larger fence. Raises :class:`tinystore.LeaseLost` when it was no
    longer held, and :class:`tinystore.Invalid` unless its store is a test
    store."""
    await _native.testing_expire(held)


def expire_sync(held: Held) -> None:
    """:func:`expire` for sync code."""
    _native.testing_expire_sync(held)


async def expire_key(store: Store | TestStore, name: str, key: Key) -> int:
    """Ends, as :func:`expire` does, every lease held on ``key`` of the
    groups called ``name`` of ``store`` (its lock group, semaphore and
    read-write locks; not an election's); gives how many. Raises
    :class:`tinystore.Invalid` for a bad name or key, or unless ``store``
    is a test store."""
    return await _native.testing_expire_key(_native_store(store), name, key)


def expire_key_sync(store: Store | TestStore, name: str, key: Key) -> int:
    """:func:`expire_key` for sync code."""
    return _native.testing_expire_key_sync(_native_store(store), name, key)

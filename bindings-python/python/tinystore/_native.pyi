"""The native module: the tinystore core through pyo3. Use the package
``tinystore``, which wraps it; these are its exact types."""

import os
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeAlias

_Secs: TypeAlias = float | None
_On: TypeAlias = bool | None

def open(dir: str | os.PathLike[str]) -> Store: ...
def connect(address: str, token: str | None = None) -> Store: ...
def parse_fence(text: str) -> int: ...
def fence_text(value: int) -> str: ...

class Store:
    def locks(self, name: str, ttl: _Secs = None, wait: _Secs = None, renew: _On = None) -> Locks: ...
    def semaphore(
        self,
        name: str,
        limit: int,
        ttl: _Secs = None,
        wait: _Secs = None,
        renew: _On = None,
    ) -> Semaphore: ...
    def close(self) -> None: ...

class Locks:
    """A group of exclusive locks; what ``tinystore.Locks`` wraps."""

    @property
    def name(self) -> str: ...
    def acquire(self, key: str | int, ttl: _Secs = None, wait: _Secs = None, renew: _On = None) -> Awaitable[Lease]: ...
    def try_acquire(
        self, key: str | int, ttl: _Secs = None, wait: _Secs = None, renew: _On = None
    ) -> Awaitable[Lease | None]: ...
    def acquire_sync(self, key: str | int, ttl: _Secs = None, wait: _Secs = None, renew: _On = None) -> Lease: ...
    def try_acquire_sync(
        self, key: str | int, ttl: _Secs = None, wait: _Secs = None, renew: _On = None
    ) -> Lease | None: ...

class Semaphore:
    """A group of semaphores; what ``tinystore.Semaphore`` wraps."""

    @property
    def name(self) -> str: ...
    def acquire(self, key: str | int, ttl: _Secs = None, wait: _Secs = None, renew: _On = None) -> Awaitable[Permit]: ...
    def try_acquire(
        self, key: str | int, ttl: _Secs = None, wait: _Secs = None, renew: _On = None
    ) -> Awaitable[Permit | None]: ...
    def acquire_sync(self, key: str | int, ttl: _Secs = None, wait: _Secs = None, renew: _On = None) -> Permit: ...
    def try_acquire_sync(
        self, key: str | int, ttl: _Secs = None, wait: _Secs = None, renew: _On = None
    ) -> Permit | None: ...

class _Held:
    """What a lease and a permit share (a stub-only base)."""

    @property
    def name(self) -> str:
        """The group's name."""
    @property
    def key(self) -> str:
        """The key held, as text."""
    @property
    def ttl(self) -> float:
        """Seconds it lives after its grant or last renewal."""
    @property
    def held(self) -> bool:
        """Whether it is still held: false once released, run out, or lost
        with its store or connection."""
    def renew(self) -> Coroutine[Any, Any, None]:
        """Extends it by its TTL from now; raises ``LeaseLost``, changing
        nothing, when it already ran out or was released."""
    def release(self) -> Coroutine[Any, Any, None]:
        """Releases it. Idempotent; raises ``LeaseLost`` when it ran out
        before this first release."""
    def renew_sync(self) -> None:
        """``renew`` for sync code."""
    def release_sync(self) -> None:
        """``release`` for sync code."""
    def watch_lost(self, callback: Callable[[], object]) -> None:
        """Calls ``callback()`` from another thread once it is lost, unless
        it is released first (used by ``hold``)."""

class Permit(_Held):
    """One of a semaphore key's places. It has no fence."""

class Lease(_Held):
    """An exclusive hold on one key of a ``Locks`` group, with its fence."""

    @property
    def fence(self) -> int:
        """The fence: larger than every fence the store gave before."""

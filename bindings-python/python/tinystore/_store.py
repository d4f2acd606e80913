"""``Store``: an open store, and the functions that open one."""

from __future__ import annotations

import os
from types import TracebackType

from . import _native
from ._groups import Locks, Semaphore


class Store:
    """An open store: embedded (this process owns its directory) or reached
    over a connection. Use it with ``with`` to close it at the end."""

    def __init__(self, native: _native.Store) -> None:
        self._native = native

    def locks(self, name: str, ttl: float = 15.0, wait: float | None = None, renew: bool = True) -> Locks:
        """The group of exclusive locks called ``name``. ``ttl``: seconds a
        lease lives after its grant or last renewal; ``wait``: seconds
        ``acquire`` may wait (``None``: until the caller gives up);
        ``renew``: keep held leases alive every ttl/3."""
        return Locks(self._native.locks(name, ttl, wait, renew))

    def semaphore(
        self, name: str, limit: int, ttl: float = 15.0, wait: float | None = None, renew: bool = True
    ) -> Semaphore:
        """The group of semaphores called ``name``, ``limit`` holders per key."""
        return Semaphore(self._native.semaphore(name, limit, ttl, wait, renew))

    def close(self) -> None:
        """Releases every lease (their holders learn they lost them) and
        fails every waiter with :class:`Closed`. Idempotent."""
        self._native.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


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

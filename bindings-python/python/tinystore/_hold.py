"""``hold``: holding a key for the length of a ``with`` or ``async with``
block, released however the block ends."""

from __future__ import annotations

import asyncio
import functools
import sys
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Generic, NoReturn, Protocol, TypeVar

from ._errors import Error, LeaseLost


class Held(Protocol):
    """What a hold gives: a :class:`Lease` or a :class:`Permit`."""

    @property
    def name(self) -> str: ...
    @property
    def key(self) -> str: ...
    @property
    def held(self) -> bool: ...
    def release(self) -> Awaitable[None]: ...
    def release_sync(self) -> None: ...
    def watch_lost(self, callback: Callable[[], object]) -> None: ...


H = TypeVar("H", bound=Held)
H_co = TypeVar("H_co", bound=Held, covariant=True)


class Group(Protocol[H_co]):
    """A native ``Locks`` or ``Semaphore``, giving ``H_co`` for a key."""

    @property
    def name(self) -> str: ...
    def acquire(
        self, key: str | int, ttl: float | None = None, wait: float | None = None, renew: bool | None = None
    ) -> Awaitable[H_co]: ...
    def try_acquire(
        self, key: str | int, ttl: float | None = None, wait: float | None = None, renew: bool | None = None
    ) -> Awaitable[H_co | None]: ...
    def acquire_sync(
        self, key: str | int, ttl: float | None = None, wait: float | None = None, renew: bool | None = None
    ) -> H_co: ...
    def try_acquire_sync(
        self, key: str | int, ttl: float | None = None, wait: float | None = None, renew: bool | None = None
    ) -> H_co | None: ...


class Hold(Generic[H]):
    """Holds a key while a block runs; use it once, with ``async with`` or
    ``with``.

    With ``async with``, losing the lease (it ran out, the store closed, the
    connection broke) cancels the block, and :class:`LeaseLost` is raised at
    its end. With ``with``, ``lease.held`` turns false and the end of the
    block raises :class:`LeaseLost`. An error in releasing never hides the
    block's own exception.
    """

    __slots__ = (
        "_group",
        "_args",
        "_held",
        "_task",
        "_in_body",
        "_cancelled_for_loss",
        "_loop",
        "_watch_start",
    )

    def __init__(
        self, group: Group[H], key: str | int, ttl: float | None, wait: float | None, renew: bool | None
    ) -> None:
        self._group = group
        self._args = (key, ttl, wait, renew)
        self._held: H | None = None
        self._task: asyncio.Task[object] | None = None
        self._in_body = False
        self._cancelled_for_loss = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._watch_start: asyncio.Handle | None = None

    def _taken(self) -> H:
        if self._held is None:
            raise RuntimeError("this hold was not entered")
        held, self._held = self._held, None
        return held

    def __enter__(self) -> H:
        self._held = self._group.acquire_sync(*self._args)
        return self._held

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        held = self._taken()
        try:
            held.release_sync()
        except Error as err:
            if exc is None:
                _raise_as_lost(held, err)

    async def __aenter__(self) -> H:
        held = await self._group.acquire(*self._args)
        self._held = held
        self._task = asyncio.current_task()
        self._in_body = True
        # The watch starts once the block first yields to the event loop:
        # a block that never awaits cannot be cancelled anyway, and a loss
        # before the watch starts is reported by the watch at once.
        self._loop = asyncio.get_running_loop()
        self._watch_start = self._loop.call_soon(self._watch, held)
        return held

    def _watch(self, held: H) -> None:
        if self._in_body and self._loop is not None:
            held.watch_lost(functools.partial(self._loop.call_soon_threadsafe, self._on_lost))

    def _on_lost(self) -> None:
        # Runs on the event loop, so the task is suspended, not running: a
        # cancel lands in the block at its current await.
        if self._in_body and self._task is not None and not self._task.done():
            self._cancelled_for_loss = True
            self._task.cancel("tinystore: the lease was lost")

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._in_body = False
        if self._watch_start is not None:
            self._watch_start.cancel()
        held = self._taken()
        lost = self._cancelled_for_loss
        if lost and self._task is not None and sys.version_info >= (3, 11):
            self._task.uncancel()
        try:
            await held.release()
        except Error as err:
            if exc is None or lost:
                _raise_as_lost(held, err)
            return
        if lost:
            raise LeaseLost(f"the lease on {held.name}/{held.key} was lost while the block ran")


def _raise_as_lost(held: Held, err: Error) -> NoReturn:
    """Raises a release's error as the block sees it: a lease that is no
    longer held (it ran out, its store closed, its connection broke) was
    lost, whatever the release said."""
    if isinstance(err, LeaseLost) or held.held:
        raise err
    raise LeaseLost(f"the lease on {held.name}/{held.key} was lost: {err}") from err

"""``hold``: holding a key for the length of a ``with`` or ``async with``
block, released however the block ends."""

from __future__ import annotations

import asyncio
import functools
import sys
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Generic, Protocol, TypeVar


class Held(Protocol):
    """What a hold gives: a :class:`Lease`, a :class:`Permit` or a
    :class:`Leadership`; what ends it is the core's rule."""

    @property
    def held(self) -> bool: ...
    def _end_hold(self, body_ok: bool, cancelled_by_loss: bool) -> Awaitable[None]: ...
    def _end_hold_sync(self, body_ok: bool, cancelled_by_loss: bool) -> None: ...
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
    """Holds a key (or leads an election) while a block runs; use it once,
    with ``async with`` or ``with``.

    With ``async with``, losing the lease cancels the block, and the end of
    the block raises why: :class:`Closed` when its store was closed,
    :class:`LeaseLost` when it ran out or its connection broke. With
    ``with``, ``lease.held`` turns false and the end of the block raises the
    same. The block's own exception always wins. The rule is the core's
    (``end_hold``); this class is only its asyncio and ``with`` glue.
    """

    __slots__ = (
        "_acquire",
        "_acquire_sync",
        "_held",
        "_task",
        "_in_body",
        "_cancelled_for_loss",
        "_cancelling",
        "_loop",
        "_watch_start",
    )

    def __init__(self, acquire: Callable[[], Awaitable[H]], acquire_sync: Callable[[], H]) -> None:
        """``acquire`` and ``acquire_sync`` start the wait for what the
        block holds: a key's lease or permit, or a leadership."""
        self._acquire = acquire
        self._acquire_sync = acquire_sync
        self._held: H | None = None
        self._task: asyncio.Task[object] | None = None
        self._in_body = False
        self._cancelled_for_loss = False
        self._cancelling = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._watch_start: asyncio.Handle | None = None

    def _taken(self) -> H:
        if self._held is None:
            raise RuntimeError("this hold was not entered")
        held, self._held = self._held, None
        return held

    def __enter__(self) -> H:
        self._held = self._acquire_sync()
        return self._held

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # Nothing cancels a plain `with` block: its exception is its own.
        self._taken()._end_hold_sync(exc is None, False)

    async def __aenter__(self) -> H:
        held = await self._acquire()
        self._held = held
        self._task = asyncio.current_task()
        if self._task is not None and sys.version_info >= (3, 11):
            # Cancellations already asked of the task before the block: a
            # loss's own is told apart from a caller's by counting past these.
            self._cancelling = self._task.cancelling()
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
        # Only asyncio knows whose a CancelledError is; that is all this
        # says. A caller's cancel that landed beside the loss's own
        # (asyncio.run ending, a timeout) still cancels: the error is the
        # loss's only when the loss alone asked for it.
        cancelled_by_caller = False
        if lost and self._task is not None and sys.version_info >= (3, 11):
            cancelled_by_caller = self._task.uncancel() > self._cancelling
        cancelled_by_loss = lost and isinstance(exc, asyncio.CancelledError) and not cancelled_by_caller
        # The core decides what the hold gives: for the loss's own
        # cancellation, why the lease was lost.
        await held._end_hold(exc is None, cancelled_by_loss)

"""``hold``: holding a key (or several) for the length of a ``with`` or
``async with`` block, released however the block ends."""

from __future__ import annotations

import asyncio
import functools
import sys
from collections.abc import Awaitable, Callable, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from . import _native, _otel
from ._errors import LeaseLost
from ._options import WeightedOptions

if TYPE_CHECKING:
    from typing_extensions import Unpack


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
G = TypeVar("G")
"""What a block gets: one held thing, or a list of them."""


class Group(Protocol[H_co]):
    """A native ``Locks`` or ``Semaphore``, giving ``H_co`` for a key; the
    core refuses a ``weight`` on any group but a semaphore."""

    @property
    def name(self) -> str: ...
    def acquire(self, key: str | int, **options: Unpack[WeightedOptions]) -> Awaitable[H_co]: ...
    def try_acquire(self, key: str | int, **options: Unpack[WeightedOptions]) -> Awaitable[H_co | None]: ...
    def acquire_sync(self, key: str | int, **options: Unpack[WeightedOptions]) -> H_co: ...
    def try_acquire_sync(self, key: str | int, **options: Unpack[WeightedOptions]) -> H_co | None: ...
    def watch(self, key: str | int) -> _native.Watcher: ...
    def watch_all(self) -> _native.Watcher: ...


class _Block(Generic[G]):
    """Holds what ``G`` is (a key's lease, several keys' leases, a
    leadership) while a block runs; use it once, with ``async with`` or
    ``with``. :meth:`_parts` says which held things ``G`` is made of.

    With ``async with``, losing the lease cancels the block, and the end of
    the block raises why: :class:`Closed` when its store was closed,
    :class:`LeaseLost` when it ran out or its connection broke. With
    ``with``, ``lease.held`` turns false and the end of the block raises the
    same. With several, losing any of them does, and all are released
    first. The block's own exception always wins. The rule is the core's
    (``end_hold``, for each held thing); this class is only its asyncio and
    ``with`` glue.
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
        "_about",
        "_spans",
        "_current",
    )

    def __init__(
        self,
        acquire: Callable[[], Awaitable[G]],
        acquire_sync: Callable[[], G],
        about: tuple[str, str, object] | None = None,
    ) -> None:
        """``acquire`` and ``acquire_sync`` start the wait for what the
        block holds; ``about``, the group's kind, its name and the key,
        names OpenTelemetry's wait and hold spans (``_otel``), when a
        provider is set."""
        self._acquire = acquire
        self._acquire_sync = acquire_sync
        self._held: G | None = None
        self._task: asyncio.Task[object] | None = None
        self._in_body = False
        self._cancelled_for_loss = False
        self._cancelling = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._watch_start: asyncio.Handle | None = None
        self._about = about
        self._spans: list[_otel.Holding] | None = None
        # The token of the hold span made current for the block (one key).
        self._current: object = None

    def _parts(self, got: G) -> Sequence[Held]:
        """The held things ``got`` is made of."""
        raise NotImplementedError

    def _taken(self) -> G:
        if self._held is None:
            raise RuntimeError("this hold was not entered")
        held, self._held = self._held, None
        return held

    def __enter__(self) -> G:
        wait = None if self._about is None else _otel.wait(*self._about)
        if wait is None:
            self._held = self._acquire_sync()
            return self._held
        try:
            self._held = self._acquire_sync()
        except BaseException as err:
            wait.failed(err)
            raise
        wait.granted(self._held)
        self._hold_spans(self._held)
        return self._held

    def _hold_spans(self, held: G) -> None:
        about = self._about
        if about is not None:
            spans = [_otel.holding(about[0], about[1], about[2], part) for part in self._parts(held)]
            self._spans = [span for span in spans if span is not None]
            if len(self._spans) == 1:
                self._current = self._spans[0].current()

    def _uncurrent(self) -> None:
        token, self._current = self._current, None
        if token is not None:
            _otel.uncurrent(token)

    def _end_spans(self, index: int, part: Held, err: BaseException | None, was_held: bool) -> None:
        if self._spans is not None and index < len(self._spans):
            lost = err if err is not None else (None if was_held else LeaseLost("the lease was lost before its release"))
            self._spans[index].ended(lost)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # Nothing cancels a plain `with` block: its exception is its own.
        self._uncurrent()
        first: Exception | None = None
        for index, part in enumerate(self._parts(self._taken())):
            was_held = self._spans is None or part.held  # asked only for a span
            try:
                part._end_hold_sync(exc is None, False)
            except Exception as err:
                self._end_spans(index, part, err, was_held)
                if first is None:
                    first = err
            else:
                self._end_spans(index, part, None, was_held)
        if first is not None:
            raise first

    async def __aenter__(self) -> G:
        wait = None if self._about is None else _otel.wait(*self._about)
        if wait is None:
            held = await self._acquire()
        else:
            try:
                held = await self._acquire()
            except BaseException as err:
                wait.failed(err)
                raise
            wait.granted(held)
            self._hold_spans(held)
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

    def _watch(self, held: G) -> None:
        if self._in_body and self._loop is not None:
            for part in self._parts(held):
                part.watch_lost(functools.partial(self._loop.call_soon_threadsafe, self._on_lost))

    def _on_lost(self) -> None:
        # Runs on the event loop, so the task is suspended, not running: a
        # cancel lands in the block at its current await. The first loss
        # of several cancels it, once.
        if self._cancelled_for_loss:
            return
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
        self._uncurrent()
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
        # cancellation, why the lease was lost. Every part is released; the
        # first thing the core says a part adds is raised.
        first: Exception | None = None
        for index, part in enumerate(self._parts(held)):
            was_held = self._spans is None or part.held  # asked only for a span
            try:
                await part._end_hold(exc is None, cancelled_by_loss)
            except Exception as err:
                self._end_spans(index, part, err, was_held)
                if first is None:
                    first = err
            else:
                self._end_spans(index, part, None, was_held)
        if first is not None:
            raise first


class Hold(_Block[H]):
    """Holds a key (or leads an election) while a block runs; use it once,
    with ``async with`` or ``with``.

    With ``async with``, losing the lease cancels the block, and the end of
    the block raises why: :class:`Closed` when its store was closed,
    :class:`LeaseLost` when it ran out or its connection broke. With
    ``with``, ``lease.held`` turns false and the end of the block raises the
    same. The block's own exception always wins.
    """

    __slots__ = ()

    def _parts(self, got: H) -> Sequence[Held]:
        return (got,)


class HoldAll(_Block[list[H]]):
    """Holds several keys of a lock group while a block runs, which gets
    their leases as a list in the order the keys were named; use it once,
    with ``async with`` or ``with``.

    All are taken or none. Losing any lease ends the block as losing the
    one lease of :class:`Hold` does (with ``async with`` it is cancelled);
    every lease is released however the block ends.
    """

    __slots__ = ()

    def _parts(self, got: list[H]) -> Sequence[Held]:
        return got

"""``Following``: what an election's :class:`Observer` and a group's
:class:`Watcher` share: a stream of items pushed as they happen, read with
``async for`` (or ``for`` in sync code) and stopped by leaving the loop,
:meth:`~Following.close` or the end of a ``with`` block. The items and the
one error that ends it are the core's; this is their iterator glue."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Generic, Protocol, TypeVar

from ._closes import Closes

T = TypeVar("T")
N = TypeVar("N")
N_co = TypeVar("N_co", covariant=True)


class Native(Protocol[N_co]):
    """A native ``Observer`` or ``Watcher``: ``next`` gives ``(True,
    item)``, and ``(False, None)`` once it ended (so ``N_co`` includes
    ``None``)."""

    def next(self) -> Awaitable[tuple[bool, N_co]]: ...
    def next_sync(self) -> tuple[bool, N_co]: ...
    def close(self) -> None: ...


class Following(Closes, AsyncIterator[T], Iterator[T], Generic[T, N]):
    """Items ``T``, each made by ``convert`` from what the native side
    gives (``N``)."""

    def __init__(self, native: Native[N], convert: Callable[[N], T]) -> None:
        self._native = native
        self._convert = convert

    def __aiter__(self) -> Following[T, N]:
        return self

    async def __anext__(self) -> T:
        more, item = await self._native.next()
        if not more:
            raise StopAsyncIteration
        return self._convert(item)

    def __iter__(self) -> Following[T, N]:
        return self

    def __next__(self) -> T:
        more, item = self._native.next_sync()
        if not more:
            raise StopIteration
        return self._convert(item)

    def close(self) -> None:
        """Stops it; a wait for the next item under way ends the loop.
        Idempotent."""
        self._native.close()

    async def aclose(self) -> None:
        """:meth:`close`, as async generators have it."""
        self.close()

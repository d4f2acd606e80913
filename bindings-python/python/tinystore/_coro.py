"""The native module's awaitables as coroutines, so that everything async
in tinystore is a coroutine, as asyncio users expect: ``create_task`` and
``TaskGroup.create_task`` take only coroutines."""

from __future__ import annotations

from typing import Awaitable, TypeVar

T = TypeVar("T")


async def as_coroutine(awaitable: Awaitable[T]) -> T:
    """Awaits ``awaitable``: a coroutine that does just that."""
    return await awaitable

"""``Election``: a lock whose holder is named, the leader. Its fence is the
leader's **term**, larger for every later leader. Campaigning, the term,
the lost signal and what ``lead`` raises are the core's; this is their
asyncio and ``with`` glue."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, NamedTuple

from . import _native
from ._following import Following
from ._hold import Hold
from ._native import Leadership
from ._options import Options

if TYPE_CHECKING:
    from typing_extensions import Unpack


class Leader(NamedTuple):
    """An election's leader as everyone sees it."""

    value: str
    """What the leader said it is when it campaigned."""
    fence: int
    """Its term: larger than every earlier leader's."""


def _leader(pair: tuple[str, int] | None) -> Leader | None:
    return None if pair is None else Leader(*pair)


class Election:
    """The election called ``name`` of a store. Each call takes the keyword
    options of :class:`Options` (``ttl``, ``wait``, ``renew``,
    ``max_hold``); ``None`` keeps the election's value."""

    def __init__(self, native: _native.Election) -> None:
        self._native = native

    @property
    def name(self) -> str:
        """The election's name."""
        return self._native.name

    async def campaign(self, value: str, **options: Unpack[Options]) -> Leadership:
        """Waits, first come first served, until this caller leads with
        ``value`` (text of at most 1,024 bytes); raises :class:`Timeout`
        when ``wait`` runs out. Cancelling the waiting task gives up the
        campaign and never leaves a leadership behind."""
        return await self._native.campaign(value, **options)

    def campaign_sync(self, value: str, **options: Unpack[Options]) -> Leadership:
        """:meth:`campaign` for sync code: blocks this thread only."""
        return self._native.campaign_sync(value, **options)

    def lead(self, value: str, **options: Unpack[Options]) -> Hold[Leadership]:
        """Leads for an ``async with`` or ``with`` block and resigns however
        the block ends. As with ``hold``: with ``async with``, losing the
        leadership cancels the block, and the end of the block raises why
        (:class:`Closed`, :class:`LeaseLost`); the block's own exception
        always wins."""
        native = self._native
        return Hold(
            functools.partial(native.campaign, value, **options),
            functools.partial(native.campaign_sync, value, **options),
        )

    async def leader(self) -> Leader | None:
        """The leader now, or ``None`` when nobody leads."""
        return _leader(await self._native.leader())

    def leader_sync(self) -> Leader | None:
        """:meth:`leader` for sync code."""
        return _leader(self._native.leader_sync())

    def observe(self) -> Observer:
        """Every change of leader from now on, in order: the leader now (or
        ``None``) first, then each change, ``None`` when nobody leads. Use
        it with ``async for`` (or ``for`` in sync code)."""
        return Observer(self._native.observe())


class Observer(Following["Leader | None", "tuple[str, int] | None"]):
    """The changes of an election's leader, pushed as they happen, with no
    gap and no repeat. It ends with :class:`Closed` when the store closes
    and :class:`Limit` when it fell more than 1,024 changes behind (observe
    again then). Leaving the loop (``break``), :meth:`close` or the end of
    a ``with`` block stops it."""

    def __init__(self, native: _native.Observer) -> None:
        super().__init__(native, _leader)

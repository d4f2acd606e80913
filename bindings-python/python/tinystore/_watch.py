"""``Watcher``: the events of a watched key or group (``watch`` and
``watch_all`` on :class:`Locks`, :class:`Semaphore` and :class:`RwLocks`).
What an event means, when it comes and how a watcher that falls behind is
told are the core's; this is their iterator glue."""

from __future__ import annotations

from . import _native
from ._following import Following
from ._native import WatchEvent


def _event(event: WatchEvent | None) -> WatchEvent:
    assert event is not None, "a watch gives an event with every item"
    return event


class Watcher(Following[WatchEvent, "WatchEvent | None"]):
    """The events of a watched key or group, in the store's order, from
    the moment it was made (``status`` tells what is held then): a
    :class:`WatchEvent` each, ``kind`` ``"granted"`` (with the ``fence``,
    ``None`` for a permit or a read lease, and the holder's ``data``),
    ``"released"``, ``"lost"`` (with its ``cause``: ``"expired"``,
    ``"disconnected"`` or ``"closed"``), ``"queue"`` (the ``length`` of the
    key's queue now) or ``"lagged"``. A watcher that falls 1,024 events
    behind never slows the store or anyone else: the events it had no room
    for are dropped and it reads one ``"lagged"`` event (``missed`` says
    how many) where they were, then goes on. It ends with :class:`Closed`
    when the store closes and :class:`Unavailable` when its connection
    broke. Leaving the loop (``break``), :meth:`close` (or ``aclose``) or
    the end of a ``with`` block stops it."""

    def __init__(self, native: _native.Watcher) -> None:
        super().__init__(native, _event)

"""What a guarded write is made under: a fence (an int), or the lease
itself. Given the lease, a guard takes its fence and, when it refuses the
write as stale, tells the lease's store (``Lease.report_refused``, core's),
which counts the late writes refused per group; that never blocks nor
fails, and the refusal is raised as ever."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING

from .. import _otel
from .._errors import Stale
from .._native import Lease

if TYPE_CHECKING:
    from typing import TypeAlias

    Under: TypeAlias = "int | Lease"


def told(under: int | Lease, resource: str, handle: object = None) -> AbstractContextManager[int]:
    """Gives the fence of ``under``; a :class:`tinystore.Stale` raised
    within is told to the lease's store first, when ``under`` is a lease.
    The check within is OpenTelemetry's ``tinystore.guard.check`` span on
    ``handle``'s backend when a provider is set (``_otel``): the driver's
    connection names it, or ``handle`` is its name (``"s3"``). An int
    fence while nothing records takes a plain context (a generator's would
    cost a check about 1.5 µs)."""
    fence = under.fence if isinstance(under, Lease) else under
    checked = _otel.guard_check(resource, fence, handle)
    if checked is _otel.OFF and not isinstance(under, Lease):
        return _Given(fence)
    return _told(under, fence, resource, checked)


class _Given:
    """The context of a check under an int fence while nothing records:
    gives the fence, does nothing else."""

    __slots__ = ("fence",)

    def __init__(self, fence: int) -> None:
        self.fence = fence

    def __enter__(self) -> int:
        return self.fence

    def __exit__(self, *exc: object) -> None:
        return None


@contextmanager
def _told(under: int | Lease, fence: int, resource: str, checked: AbstractContextManager[None]) -> Iterator[int]:
    with checked:
        if not isinstance(under, Lease):
            yield fence
            return
        try:
            yield fence
        except Stale:
            under.report_refused(resource)
            raise

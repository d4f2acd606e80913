"""What a guarded write is made under: a fence (an int), or the lease
itself. Given the lease, a guard takes its fence and, when it refuses the
write as stale, tells the lease's store (``Lease.report_refused``, core's),
which counts the late writes refused per group; that never blocks nor
fails, and the refusal is raised as ever."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from .. import _otel
from .._errors import Stale
from .._native import Lease

if TYPE_CHECKING:
    from typing import TypeAlias

    Under: TypeAlias = "int | Lease"


@contextmanager
def told(under: int | Lease, resource: str, handle: object = None) -> Iterator[int]:
    """Gives the fence of ``under``; a :class:`tinystore.Stale` raised
    within is told to the lease's store first, when ``under`` is a lease.
    The check within is OpenTelemetry's ``tinystore.guard.check`` span on
    ``handle``'s backend when a provider is set (``_otel``): the driver's
    connection names it, or ``handle`` is its name (``"s3"``)."""
    with _otel.guard_check(resource, under.fence if isinstance(under, Lease) else under, handle):
        if not isinstance(under, Lease):
            yield under
            return
        try:
            yield under.fence
        except Stale:
            under.report_refused(resource)
            raise

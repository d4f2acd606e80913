"""tinystore: locks whose every exclusive lease carries a fence, a number
larger than every earlier lease's, so that a holder that paused past its
lease can do no harm.

>>> import tinystore
>>> with tinystore.open("data") as store:                    # doctest: +SKIP
...     summaries = store.locks("summaries", ttl=15.0)
...     with summaries.hold(42) as lease:
...         print(f"{lease.fence:040d}")
"""

from ._errors import (
    Closed,
    Corrupt,
    Error,
    InUse,
    Internal,
    Invalid,
    Io,
    LeaseLost,
    Limit,
    Timeout,
    Unauthorized,
    Unavailable,
)
from ._groups import Key, Locks, Semaphore
from ._hold import Hold
from ._native import Lease, Permit, fence_text, parse_fence
from ._store import Store, connect, open

__all__ = [
    "Closed",
    "Corrupt",
    "Error",
    "Hold",
    "InUse",
    "Internal",
    "Invalid",
    "Io",
    "Key",
    "Lease",
    "LeaseLost",
    "Limit",
    "Locks",
    "Permit",
    "Semaphore",
    "Store",
    "Timeout",
    "Unauthorized",
    "Unavailable",
    "connect",
    "fence_text",
    "open",
    "parse_fence",
]

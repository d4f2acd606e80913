"""tinystore: locks whose every exclusive lease carries a fence, a number
larger than every earlier lease's, so that a holder that paused past its
lease can do no harm.

>>> import tinystore
>>> with tinystore.open("data") as store:                    # doctest: +SKIP
...     summaries = store.locks("summaries", ttl=15.0)
...     with summaries.hold(42) as lease:
...         print(f"{lease.fence:040d}")

An election is a lock whose holder is named; the leader's fence is its term:

>>> async with store.election("scheduler").lead("worker-7") as leadership:  # doctest: +SKIP
...     print(leadership.fence)
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
    Stale,
    Timeout,
    Unauthorized,
    Unavailable,
)
from ._election import Election, Leader, Observer
from ._groups import Key, Locks, Semaphore
from ._hold import Hold, HoldAll
from ._native import (
    DEFAULT_RENEW,
    DEFAULT_STATUS_LIMIT,
    DEFAULT_TTL,
    DEFAULT_WAIT,
    MAX_KEYS_AT_ONCE,
    Leadership,
    HeldStatus,
    Lease,
    Permit,
    RefusedStatus,
    Status,
    WaitingStatus,
    WatchEvent,
    fence_text,
    parse_fence,
)
from ._options import Options, WeightedOptions
from ._rw_locks import RwLocks
from ._serve import Server, serve
from ._store import Store, connect, open
from ._watch import Watcher
from . import guard, http, testing

__all__ = [
    "Closed",
    "Corrupt",
    "DEFAULT_RENEW",
    "DEFAULT_STATUS_LIMIT",
    "DEFAULT_TTL",
    "DEFAULT_WAIT",
    "Election",
    "Error",
    "HeldStatus",
    "Hold",
    "HoldAll",
    "InUse",
    "Internal",
    "Invalid",
    "Io",
    "Key",
    "Leader",
    "Leadership",
    "Lease",
    "LeaseLost",
    "Limit",
    "Locks",
    "MAX_KEYS_AT_ONCE",
    "Observer",
    "Options",
    "Permit",
    "RefusedStatus",
    "RwLocks",
    "Semaphore",
    "Server",
    "Stale",
    "Status",
    "Store",
    "Timeout",
    "Unauthorized",
    "Unavailable",
    "WaitingStatus",
    "WatchEvent",
    "Watcher",
    "WeightedOptions",
    "connect",
    "fence_text",
    "guard",
    "http",
    "open",
    "parse_fence",
    "serve",
    "testing",
]

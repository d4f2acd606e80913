"""The exceptions of tinystore: one class per error code of the design, all
under :class:`Error`. The native module raises them by code."""

from typing import Any, ClassVar

__all__ = [
    "Error",
    "Timeout",
    "LeaseLost",
    "InUse",
    "Closed",
    "Invalid",
    "Limit",
    "Unauthorized",
    "Corrupt",
    "Io",
    "Unavailable",
    "Internal",
    "Stale",
]


class Error(Exception):
    """A tinystore error. ``code`` is its code, the same on the wire and in
    every language; the message names what it is about."""

    code: ClassVar[str] = "internal"


class Timeout(Error):
    """A wait ran out before the key was free."""

    code = "timeout"


class LeaseLost(Error):
    """The lease ran out, was released, or its store or connection went away."""

    code = "lease_lost"


class InUse(Error):
    """The store directory is owned by another process that does not serve it."""

    code = "in_use"


class Closed(Error):
    """The store or connection was closed."""

    code = "closed"


class Invalid(Error):
    """A bad name, key, TTL, fence text or argument."""

    code = "invalid"


class Limit(Error):
    """A documented limit was passed."""

    code = "limit"


class Unauthorized(Error):
    """A TCP client did not authenticate, or gave a wrong token."""

    code = "unauthorized"


class Corrupt(Error):
    """``kv.db`` could not be read as a tinystore database."""

    code = "corrupt"


class Io(Error):
    """An operating-system I/O error."""

    code = "io"


class Unavailable(Error):
    """The server could not be reached."""

    code = "unavailable"


class Internal(Error):
    """A bug or an unexpected state; never the caller's fault."""

    code = "internal"


class Stale(Error):
    """A guard refused a write: its fence is below the largest one recorded
    for that resource (see :mod:`tinystore.guard`). ``resource`` is the
    resource, ``fence`` the refused write's fence and ``largest`` the
    fence recorded for it, both ints as every fence of this package."""

    code = "stale"

    def __init__(self, message: str, resource: str, fence: int, largest: int) -> None:
        super().__init__(message)
        self.resource = resource
        self.fence = fence
        self.largest = largest

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (str(self), self.resource, self.fence, self.largest))

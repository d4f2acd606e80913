"""``Closes``: what a ``with`` block closes at its end (a store, a server)."""

from __future__ import annotations

from types import TracebackType
from typing import TypeVar

_C = TypeVar("_C", bound="Closes")


class Closes:
    """A thing with ``close()`` that a ``with`` block closes however it ends."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self: _C) -> _C:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

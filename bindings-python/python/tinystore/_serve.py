"""``serve``: a store served to other processes from inside this one, as
``tinystore serve DIR`` does."""

from __future__ import annotations

import os
from pathlib import Path

from . import _native
from ._closes import Closes


class Server(Closes):
    """A store this process serves on its Unix socket until :meth:`close`
    (or the end of a ``with`` block)."""

    def __init__(self, native: _native.Server) -> None:
        self._native = native

    @property
    def socket(self) -> Path:
        """The path of the socket it serves on."""
        return Path(self._native.socket)

    def close(self) -> None:
        """Stops serving cleanly: every lease is released (holders learn they
        lost it), every waiter fails with :class:`Closed`, the socket is
        removed. Idempotent."""
        self._native.close()


def serve(dir: str | os.PathLike[str]) -> Server:
    """Serves the store directory ``dir`` (made if missing) on
    ``DIR/tinystore.sock``, so that :func:`open` in other processes reaches
    it. Raises :class:`InUse` when another process owns it."""
    return Server(_native.serve(dir))

"""The keyword options every acquire, hold and campaign takes (and a
group or election sets for all its calls); a value left ``None``, or not
given, keeps the group's, else the core's default."""

from __future__ import annotations

from typing import TypedDict


class Options(TypedDict, total=False):
    """The options of a call: ``ttl``, ``wait``, ``renew``, ``max_hold``
    (times in seconds) and ``data``."""

    ttl: float | None
    """Seconds a lease lives after its grant or last renewal (10 ms to 24 h)."""
    wait: float | None
    """Seconds an acquire may wait before :class:`Timeout`; unset: until
    the caller gives up."""
    renew: bool | None
    """Whether a held lease is renewed every ttl/3 until it is released."""
    max_hold: float | None
    """Seconds after its grant past which a lease is renewed no more and
    runs out, its holder told as for any lost lease (10 ms to 30 days;
    unset: no cap)."""
    data: str | None
    """What the holder says about itself, kept with the lease: shown by
    ``status()`` (``HeldStatus.data``) and given to watchers. At most 1024
    bytes of UTF-8 (longer is :class:`Invalid`, nothing granted); unset:
    this process's ``"HOST:PID"``; ``""``: nothing. An election refuses it
    (a leader is known by its value)."""


class WeightedOptions(Options, total=False):
    """A semaphore call's options: :class:`Options` and ``weight``."""

    weight: int | None
    """How many of the key's places the permit takes, all or nothing (1 to
    the semaphore's limit; default 1)."""

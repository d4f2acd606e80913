"""What a store counts of the late writes its guards refused."""

from __future__ import annotations

import time

import tinystore


def counts(store: tinystore.Store) -> list[tuple[str, str, int]]:
    """Each group's count of late writes refused, as (name, kind, refused)."""
    return [(r.name, r.kind, r.refused) for r in store.status_sync().late_writes_refused]


def until_counts(store: tinystore.Store, want: list[tuple[str, str, int]]) -> None:
    """Waits (10 s at most) until ``store`` counts ``want``: a served store
    counts a message that comes after the guard's answer."""
    for _ in range(1000):
        if counts(store) == want:
            return
        time.sleep(0.01)
    assert counts(store) == want

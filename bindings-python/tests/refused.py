"""What a store counts of the late writes its guards refused."""

from __future__ import annotations

import tinystore


def counts(store: tinystore.Store) -> list[tuple[str, str, int]]:
    """Each group's count of late writes refused, as (name, kind, refused)."""
    return [(r.name, r.kind, r.refused) for r in store.status_sync().late_writes_refused]

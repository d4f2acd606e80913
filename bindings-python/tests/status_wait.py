"""Waiting on a store's state instead of on time: until ``status()`` shows
the callers a test lines up (its tests: test_status.py)."""

from __future__ import annotations

import asyncio
import time

import tinystore

DEADLINE = 10.0
"""Seconds a test waits for a state before it fails: generous, as a slow
machine may need."""


def waiters(status: tinystore.Status, name: str, key: str) -> int:
    """How many callers the status shows waiting for ``name``/``key``."""
    return sum(w.waiters for w in status.waiting if w.name == name and w.key == key)


async def until_waiting(store: tinystore.Store, name: str, key: str, count: int = 1) -> None:
    """Returns once ``count`` callers wait for ``name``/``key``; fails after
    :data:`DEADLINE` seconds, naming what the status showed."""
    deadline = time.monotonic() + DEADLINE
    while True:
        status = await store.status()
        if waiters(status, name, key) == count:
            return
        assert time.monotonic() < deadline, f"{count} waiting for {name}/{key} never shown: {status.waiting}"
        await asyncio.sleep(0.001)


def until_waiting_sync(store: tinystore.Store, name: str, key: str, count: int = 1) -> None:
    """:func:`until_waiting` for sync code (another thread does the waiting)."""
    deadline = time.monotonic() + DEADLINE
    while True:
        status = store.status_sync()
        if waiters(status, name, key) == count:
            return
        assert time.monotonic() < deadline, f"{count} waiting for {name}/{key} never shown: {status.waiting}"
        time.sleep(0.001)


async def until_held(store: tinystore.Store, name: str, key: str) -> tinystore.HeldStatus:
    """The status of the lease held on ``name``/``key``, once one is held."""
    deadline = time.monotonic() + DEADLINE
    while True:
        status = await store.status()
        for held in status.held:
            if held.name == name and held.key == key:
                return held
        assert time.monotonic() < deadline, f"{name}/{key} never shown held: {status.held}"
        await asyncio.sleep(0.001)

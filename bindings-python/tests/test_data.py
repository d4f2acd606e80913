"""Data on a lease through the Python binding: ``data=`` on a group and
per call (async and sync, ``acquire`` and ``hold``), seen in
``status().held[i].data`` on an embedded store, a served one and etcd; the
default ``"HOST:PID"`` of this process; more than 1024 bytes is
:class:`tinystore.Invalid` and grants nothing."""

from __future__ import annotations

import asyncio
import os
import socket

import pytest

import tinystore
from conftest import Server
from test_etcd import etcd  # noqa: F401  (the fixture)


def data_of(store: tinystore.Store) -> dict[str, str | None]:
    """Each held key's data, by ``name/key``."""
    return {f"{h.name}/{h.key}": h.data for h in store.status_sync().held}


def kept_defaulted_and_refused(store: tinystore.Store) -> None:
    jobs = store.locks("jobs", data="worker 3")

    async def main() -> None:
        a = await jobs.acquire("a")
        b = await jobs.acquire("b", data="é on call")
        async with store.locks("plain").hold("c"):
            seen = data_of(store)
            assert seen["jobs/a"] == "worker 3"
            assert seen["jobs/b"] == "é on call"
            assert seen["plain/c"] == f"{socket.gethostname()}:{os.getpid()}"
        await a.release()
        await b.release()

    asyncio.run(asyncio.wait_for(main(), 30))

    d = jobs.acquire_sync("d", data="")
    p = store.semaphore("pool", 3).try_acquire_sync("p", data="permit 1", weight=2)
    assert p is not None
    with store.rw_locks("docs").hold_read("r", data="reader"):
        seen = data_of(store)
        assert seen["jobs/d"] is None, "an empty text attaches nothing"
        assert seen["pool/p"] == "permit 1"
        assert seen["docs/r"] == "reader"
    d.release_sync()
    p.release_sync()

    with pytest.raises(tinystore.Invalid, match="data must be at most 1024 bytes, not 1025"):
        jobs.acquire_sync("e", data="x" * 1025)
    with pytest.raises(tinystore.Invalid, match="at most 1024 bytes"):
        with store.locks("long", data="é" * 513).hold("e"):
            pass
    with pytest.raises(tinystore.Invalid, match="lone surrogate"):
        jobs.acquire_sync("e", data="\udc80")
    with pytest.raises(TypeError, match="data must be a number, a bool or a str, not bytes"):
        jobs.acquire_sync("e", data=b"bytes")  # type: ignore[arg-type]
    assert "jobs/e" not in data_of(store) and "long/e" not in data_of(store)
    free = jobs.try_acquire_sync("e", data="é" * 512)
    assert free is not None, "the refused acquires left the key free"
    assert data_of(store)["jobs/e"] == "é" * 512
    free.release_sync()


def test_an_embedded_store_keeps_each_holders_data(store: tinystore.Store) -> None:
    kept_defaulted_and_refused(store)


def test_a_served_store_keeps_the_clients_data(server: Server) -> None:
    with tinystore.connect(server.socket) as store:
        kept_defaulted_and_refused(store)


def test_etcd_keeps_each_holders_data(etcd: str) -> None:  # noqa: F811
    with tinystore.connect(f"etcd://{etcd}/test-python-data") as store:
        kept_defaulted_and_refused(store)

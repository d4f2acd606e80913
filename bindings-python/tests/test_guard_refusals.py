"""Late writes refused by guards, told to the store: the SQLite guard given
the lease itself refuses a stale write and tells the lease's store, whose
status (and a served store's metrics, scraped) count it per group; given
only the fence it tells nobody; a server stopped (SIGSTOP) or gone never
blocks nor fails the refusal."""

from __future__ import annotations

import os
import signal
import sqlite3
import threading
import urllib.request
from pathlib import Path

import pytest

import tinystore
from conftest import free_port, start_server, stop_server
from refused import counts, until_counts


def overtaken(store: tinystore.Store, db: sqlite3.Connection, name: str = "orders", key: str = "42") -> tinystore.Lease:
    """A lease overtaken by a newer one that wrote first: it now writes late."""
    locks = store.locks(name)
    old = locks.acquire_sync(key)
    old.release_sync()
    new = locks.acquire_sync(key)
    with db:
        tinystore.guard.check(db, f"{name}/{key}", new)
    return old


def late_write(db: sqlite3.Connection, under: int | tinystore.Lease, resource: str = "orders/42") -> tinystore.Stale:
    with pytest.raises(tinystore.Stale) as refused, db:
        tinystore.guard.check(db, resource, under)
    return refused.value


def refusals_are_counted_per_group(store: tinystore.Store, tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "app.db")
    tinystore.guard.ensure(db)
    assert counts(store) == []
    old = overtaken(store, db)
    err = late_write(db, old)
    assert err.resource == "orders/42"
    until_counts(store, [("orders", "lock", 1)])
    late_write(db, old.fence)  # the fence alone: told to nobody
    old_invoice = overtaken(store, db, "invoices", "7")
    late_write(db, old_invoice, "invoices/7")
    until_counts(store, [("invoices", "lock", 1), ("orders", "lock", 1)])


def test_an_embedded_store_counts_late_writes(tmp_path: Path) -> None:
    with tinystore.open(tmp_path / "store") as store:
        refusals_are_counted_per_group(store, tmp_path)


def scrape(address: str) -> str:
    with urllib.request.urlopen(f"http://{address}/metrics", timeout=10) as reply:
        return str(reply.read().decode())


def refused_total(text: str, name: str) -> float:
    series = f'tinystore_late_writes_refused_total{{kind="lock",name="{name}"}}'
    values = [line.split()[-1] for line in text.splitlines() if line.startswith(series + " ")]
    return float(values[0]) if values else 0.0


def test_a_served_store_counts_late_writes_and_a_stopped_one_never_blocks_them(tmp_path: Path) -> None:
    metrics = f"127.0.0.1:{free_port()}"
    server = start_server(tmp_path / "served", extra=["--metrics", metrics])
    try:
        with tinystore.connect(server.socket) as store:
            refusals_are_counted_per_group(store, tmp_path)
            assert refused_total(scrape(metrics), "orders") == 1
            assert refused_total(scrape(metrics), "invoices") == 1

            db = sqlite3.connect(tmp_path / "app.db")
            old = overtaken(store, db, "stopped", "1")
            os.kill(server.process.pid, signal.SIGSTOP)
            try:
                refused: list[BaseException] = []

                def write() -> None:
                    conn = sqlite3.connect(tmp_path / "app.db")
                    try:
                        with conn:  # rolls back on the refusal
                            tinystore.guard.check(conn, "stopped/1", old)
                    except BaseException as err:  # noqa: BLE001 (kept for the assertion)
                        refused.append(err)
                    finally:
                        conn.close()

                writer = threading.Thread(target=write)
                writer.start()
                writer.join(30)  # a bound on a hang, not a measure
                assert not writer.is_alive(), "the refusal waited for a stopped server"
                assert isinstance(refused[0], tinystore.Stale)
            finally:
                os.kill(server.process.pid, signal.SIGCONT)
            until_counts(store, [("invoices", "lock", 1), ("orders", "lock", 1), ("stopped", "lock", 1)])
            assert refused_total(scrape(metrics), "stopped") == 1

            stop_server(server)
            late_write(db, old, "stopped/1")  # the server is gone: still refused
    finally:
        stop_server(server)

"""OpenTelemetry's spans and counter (tinystore._otel), read back from the
SDK's in-memory exporter and reader, on real stores (embedded and served)
and a real SQLite file; and tinystore without OpenTelemetry, or with no
provider set, in a child process."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import tinystore
from tinystore.testing import TestStore

EXPORTER = InMemorySpanExporter()
READER = InMemoryMetricReader()


def _providers() -> None:
    """The process's providers: set once, as OpenTelemetry allows."""
    if not isinstance(trace.get_tracer_provider(), TracerProvider):
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(EXPORTER))
        trace.set_tracer_provider(provider)
        metrics.set_meter_provider(MeterProvider(metric_readers=[READER]))


@pytest.fixture(params=["open", "served"])
def kit(request: pytest.FixtureRequest) -> Iterator[TestStore]:
    _providers()
    EXPORTER.clear()
    with TestStore.open() if request.param == "open" else TestStore.served() as made:
        yield made


def spans(name: str, key: str | None = None) -> list[ReadableSpan]:
    return [
        s
        for s in EXPORTER.get_finished_spans()
        if s.name == name and (key is None or (s.attributes or {}).get("tinystore.key") == key)
    ]


def attrs(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


def refused_count() -> int:
    data = READER.get_metrics_data()
    total = 0
    for resource in data.resource_metrics if data is not None else []:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                if metric.name == "tinystore.guard.refused":
                    assert metric.unit == "{write}"
                    for point in metric.data.data_points:
                        if dict(point.attributes or {}) == {"tinystore.backend": "sqlite"}:
                            total += int(getattr(point, "value"))
    return total


def test_a_wait_behind_a_holder_and_its_hold(kit: TestStore) -> None:
    locks = kit.store.locks("otel")
    first = locks.acquire_sync("42")
    got: list[tinystore.Lease] = []

    def waiter() -> None:
        with locks.hold("42") as lease:
            got.append(lease)

    thread = threading.Thread(target=waiter)
    thread.start()
    while kit.store.status_sync().waiting_total == 0:
        thread.join(0.01)
    first.release_sync()
    thread.join()

    waits = spans("tinystore.wait", "42")
    assert len(waits) == 2  # the first acquire's, then the hold's
    waited = attrs(waits[1])
    assert waited["tinystore.group"] == "otel"
    assert waited["tinystore.kind"] == "lock"
    assert waited["tinystore.fence"] == tinystore.fence_text(got[0].fence)
    assert len(waited["tinystore.fence"]) == 40
    assert got[0].fence > first.fence
    assert isinstance(waited["tinystore.waited_ms"], float)
    [held] = spans("tinystore.hold", "42")
    assert attrs(held)["tinystore.ended"] == "released"
    assert attrs(held)["tinystore.fence"] == waited["tinystore.fence"]
    assert held.status.status_code == trace.StatusCode.UNSET


def test_a_wait_that_times_out(kit: TestStore) -> None:
    locks = kit.store.locks("otel")
    first = locks.acquire_sync("9")
    with pytest.raises(tinystore.Timeout):
        locks.acquire_sync("9", wait=0)
    first.release_sync()
    failed = spans("tinystore.wait", "9")[-1]
    assert attrs(failed)["tinystore.error.code"] == "timeout"
    assert failed.status.status_code == trace.StatusCode.ERROR


def test_a_lost_lease_ends_its_hold_span_lost(kit: TestStore) -> None:
    with pytest.raises(tinystore.LeaseLost):
        with kit.store.locks("otel").hold("7") as lease:
            kit.expire_sync(lease)
    [held] = spans("tinystore.hold", "7")
    assert attrs(held)["tinystore.ended"] == "lost"
    assert attrs(held)["tinystore.error.code"] == "lease_lost"
    assert held.status.status_code == trace.StatusCode.ERROR


def test_an_async_hold_lost(kit: TestStore) -> None:
    async def block() -> None:
        async with kit.store.locks("otel").hold("8") as lease:
            await kit.expire(lease)
            await asyncio.sleep(3600)  # cancelled by the loss

    with pytest.raises(tinystore.LeaseLost):
        asyncio.run(block())
    [held] = spans("tinystore.hold", "8")
    assert attrs(held)["tinystore.ended"] == "lost"


def test_a_guard_check_accepted_then_refused(kit: TestStore, tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "app.db")
    tinystore.guard.ensure(db)
    locks = kit.store.locks("otel")
    old = locks.acquire_sync("g")
    old.release_sync()
    new = locks.acquire_sync("g")
    before = refused_count()
    with db:
        tinystore.guard.check(db, "orders/g", new)
    with pytest.raises(tinystore.Stale), db:
        tinystore.guard.check(db, "orders/g", old)
    accepted, stale = spans("tinystore.guard.check")
    assert attrs(accepted) == {
        "tinystore.resource": "orders/g",
        "tinystore.fence": tinystore.fence_text(new.fence),
        "tinystore.backend": "sqlite",
        "tinystore.outcome": "accepted",
    }
    assert attrs(stale)["tinystore.outcome"] == "stale"
    assert attrs(stale)["tinystore.fence"] == tinystore.fence_text(old.fence)
    assert attrs(stale)["tinystore.largest"] == tinystore.fence_text(new.fence)
    assert refused_count() == before + 1
    new.release_sync()
    db.close()


CHILD = """
import sqlite3, sys, tempfile
{block}
import tinystore
from tinystore import _otel
with tempfile.TemporaryDirectory() as dir, tinystore.open(dir + "/store") as store:
    with store.locks("a").hold("1") as lease:
        db = sqlite3.connect(dir + "/app.db")
        tinystore.guard.ensure(db)
        with db:
            tinystore.guard.check(db, "r", lease)
    try:
        with db:
            tinystore.guard.check(db, "r", lease.fence - 1)
    except tinystore.Stale:
        pass
    else:
        sys.exit("not refused")
assert _otel._tracer is None and _otel._counter is None, "a tracer was made"
print("otel" if "opentelemetry.trace" in sys.modules else "no otel")
"""


@pytest.mark.parametrize(
    ("block", "said"),
    [
        # opentelemetry's import fails, as when it is not installed
        ("sys.modules['opentelemetry'] = None  # type: ignore", "no otel"),
        ("", "otel"),  # installed, no provider set
    ],
)
def test_without_opentelemetry_or_a_provider(block: str, said: str) -> None:
    child = subprocess.run(
        [sys.executable, "-c", CHILD.format(block=block)], capture_output=True, text=True, timeout=120
    )
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == said


def test_a_read_write_hold_and_a_semaphore_hold(kit: TestStore) -> None:
    with kit.store.rw_locks("rw").hold_write("w") as lease:
        pass
    with kit.store.semaphore("sem", 2).hold("s"):
        pass
    [write] = spans("tinystore.hold", "w")
    assert attrs(write)["tinystore.kind"] == "rwlock"
    assert attrs(write)["tinystore.fence"] == tinystore.fence_text(lease.fence)
    [permit] = spans("tinystore.hold", "s")
    assert attrs(permit)["tinystore.kind"] == "semaphore"
    assert "tinystore.fence" not in attrs(permit)
    assert attrs(permit)["tinystore.ended"] == "released"


def test_a_bare_acquire_of_a_semaphore_and_a_read_write_lock_waits_in_a_span(kit: TestStore) -> None:
    rw = kit.store.rw_locks("rw-bare")
    sem = kit.store.semaphore("sem-bare", 1)
    write = rw.acquire_write_sync("w")
    write.release_sync()
    read = rw.acquire_read_sync("r")
    read.release_sync()
    permit = sem.acquire_sync("s")
    with pytest.raises(tinystore.Timeout):
        sem.acquire_sync("s", wait=0.02)
    permit.release_sync()

    async def bare() -> int:
        lease = await rw.acquire_write("aw")
        await lease.release()
        await (await rw.acquire_read("ar")).release()
        await (await sem.acquire("as")).release()
        return lease.fence

    fence = asyncio.run(bare())
    [w] = spans("tinystore.wait", "w")
    assert attrs(w)["tinystore.kind"] == "rwlock"
    assert attrs(w)["tinystore.fence"] == tinystore.fence_text(write.fence)
    [r] = spans("tinystore.wait", "r")
    assert "tinystore.fence" not in attrs(r)
    granted, timed_out = spans("tinystore.wait", "s")
    assert attrs(granted)["tinystore.kind"] == "semaphore"
    assert attrs(timed_out)["tinystore.error.code"] == "timeout"
    [aw] = spans("tinystore.wait", "aw")
    assert attrs(aw)["tinystore.fence"] == tinystore.fence_text(fence)
    assert len(spans("tinystore.wait", "ar")) == len(spans("tinystore.wait", "as")) == 1


def test_the_hold_span_is_the_current_one_while_the_block_runs(kit: TestStore) -> None:
    tracer = trace.get_tracer("test")
    locks = kit.store.locks("current")
    with locks.hold("sync"):
        with tracer.start_as_current_span("inside sync"):
            pass
    assert not trace.get_current_span().get_span_context().is_valid

    async def held() -> None:
        async with locks.hold("async"):
            with tracer.start_as_current_span("inside async"):
                await asyncio.sleep(0)
        assert not trace.get_current_span().get_span_context().is_valid

    asyncio.run(held())
    for key, inner in (("sync", "inside sync"), ("async", "inside async")):
        [hold] = spans("tinystore.hold", key)
        [child] = spans(inner)
        assert child.parent is not None and hold.context is not None
        assert child.parent.span_id == hold.context.span_id, key

"""The ``more_ways`` section of vectors/behaviour.json (read-write locks,
weighted permits, several keys at once, ``max_hold``) against the real
library, on an embedded store and over a real ``tinystore serve``: each
case's steps run on two handles of one store, ``a`` and ``b``, with
asyncio tasks for the acquires that wait in the background. A step this
runner cannot express fails."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

import tinystore
from conftest import start_server, stop_server
from status_wait import until_waiting
from test_behaviour import VECTORS

SECTION: dict[str, Any] = VECTORS["more_ways"]
WITHIN = 20.0  # seconds; only a bound for a broken test, never a measure

Group = tinystore.Locks | tinystore.Semaphore | tinystore.RwLocks
Held = tinystore.Lease | tinystore.Permit | list[tinystore.Lease]

# A step's `do` and the group method it calls.
METHODS = {
    "try_acquire": "try_acquire",
    "try_read": "try_acquire_read",
    "try_write": "try_acquire_write",
    "acquire": "acquire",
    "acquire_read": "acquire_read",
    "acquire_write": "acquire_write",
}


@asynccontextmanager
async def handles(kind: str, dir: Path) -> AsyncIterator[tuple[tinystore.Store, tinystore.Store]]:
    """Two handles of one store: the same open store twice (embedded), or
    two connections to one `tinystore serve` (served)."""
    if kind == "embedded":
        with tinystore.open(dir) as store:
            yield store, store
        return
    assert kind == "served", f"unknown store {kind!r}"
    server = start_server(dir)
    try:
        with tinystore.connect(server.socket) as a, tinystore.connect(server.socket) as b:
            yield a, b
    finally:
        stop_server(server)


def group_of(case: dict[str, Any], store: tinystore.Store) -> Group:
    name = case["name"]
    if case["group"] == "locks":
        return store.locks(name)
    if case["group"] == "semaphore":
        return store.semaphore(name, case["limit"])
    if case["group"] == "rw_locks":
        return store.rw_locks(name)
    raise AssertionError(f"{case['id']}: unknown group {case['group']!r}")


def options(step: dict[str, Any]) -> dict[str, Any]:
    """A step's options as the keywords of a call (seconds for times)."""
    found: dict[str, Any] = {}
    for field, keyword in (("ttl_ms", "ttl"), ("wait_ms", "wait"), ("max_hold_ms", "max_hold")):
        if field in step:
            found[keyword] = step[field] / 1000
    if "weight" in step:
        found["weight"] = step["weight"]
    return found


def call(group: Group, do: str, key: str, step: dict[str, Any]) -> Any:
    """The awaitable of the group's method for ``do`` with the step's
    options. Python's ``Locks`` and ``RwLocks`` are typed without
    ``weight=`` (mypy refuses it); given at run time anyway, it reaches the
    core, whose answer the step checks."""
    return getattr(group, METHODS[do])(key, **options(step))


def parts(held: Held) -> Sequence[tinystore.Lease | tinystore.Permit]:
    """The leases or permits a label holds: one, or an acquire_all's."""
    return held if isinstance(held, list) else [held]


class Run:
    """One case's steps on its two handles."""

    def __init__(self, case: dict[str, Any], a: tinystore.Store, b: tinystore.Store) -> None:
        self.case, self.id = case, case["id"]
        self.stores = {"a": a, "b": b}
        self.groups = {"a": group_of(case, a), "b": group_of(case, b)}
        self.labels: dict[str, Held] = {}
        self.waiting: dict[str, asyncio.Task[Any]] = {}

    def outcome(self, step: dict[str, Any], got: Any, err: tinystore.Error | None) -> None:
        """Checks a try or acquire_all step's ``expect``."""
        where = f"{self.id}: {step}"
        expect = step["expect"]
        if err is not None:
            assert err.code == expect, f"{where}: {err!r}"
            assert step["message_has"] in str(err), f"{where}: {err!r}"
        elif expect == "granted":
            assert got is not None and got != [], f"{where}: refused"
            if "as" in step:
                self.labels[step["as"]] = got
        else:
            assert expect == "refused", f"{where}: granted {got!r}"
            assert got is None, f"{where}: granted {got!r}"

    async def step(self, step: dict[str, Any]) -> None:
        do = step["do"]
        group = self.groups.get(step.get("who", "a"))
        if do in ("try_acquire", "try_read", "try_write"):
            assert group is not None
            try:
                got, err = await call(group, do, step["key"], step), None
            except tinystore.Error as raised:
                got, err = None, raised
            self.outcome(step, got, err)
        elif do in ("acquire", "acquire_read", "acquire_write"):
            assert group is not None
            self.waiting[step["as"]] = asyncio.ensure_future(call(group, do, step["key"], step))
            if "waiters" in step:
                await until_waiting(self.stores["a"], self.case["name"], step["key"], step["waiters"])
        elif do == "acquire_all":
            assert isinstance(group, tinystore.Locks), f"{self.id}: acquire_all on {group!r}"
            try:
                leases, err = await group.acquire_all(step["keys"], **options(step)), None
            except tinystore.Error as raised:
                leases, err = [], raised
            if err is None:
                assert [lease.key for lease in leases] == step["keys"], f"{self.id}: {leases}"
                assert len({lease.fence for lease in leases}) == len(leases), f"{self.id}: {leases}"
            self.outcome(step, leases, err)
        elif do == "granted":
            self.labels[step["as"]] = await asyncio.wait_for(self.waiting.pop(step["as"]), WITHIN)
        elif do == "release":
            for part in parts(self.labels[step["as"]]):
                await part.release()
        elif do == "lost":
            await self.lost(step)
        elif do == "no_fence":
            held = self.labels[step["as"]]
            assert isinstance(held, tinystore.Permit) and not hasattr(held, "fence"), f"{self.id}: {held!r}"
        elif do == "fence_above":
            above, below = self.labels[step["as"]], self.labels[step["than"]]
            assert isinstance(above, tinystore.Lease) and isinstance(below, tinystore.Lease), self.id
            assert above.fence > below.fence, f"{self.id}: {above!r} not above {below!r}"
        elif do == "status":
            await self.status(step)
        else:
            raise AssertionError(f"{self.id}: unknown step {do!r}")

    async def lost(self, step: dict[str, Any]) -> None:
        """Waits until what the label holds is lost, then checks why: its
        first release raises the reason."""
        held = self.labels[step["as"]]
        deadline = time.monotonic() + WITHIN
        while any(part.held for part in parts(held)):
            assert time.monotonic() < deadline, f"{self.id}: {held!r} was never lost"
            await asyncio.sleep(0.01)
        for part in parts(held):
            with pytest.raises(tinystore.Error) as why:
                await part.release()
            assert why.value.code == step["expect"], f"{self.id}: {why.value!r}"
            assert step["message_has"] in str(why.value), f"{self.id}: {why.value!r}"

    async def status(self, step: dict[str, Any]) -> None:
        status = await self.stores["a"].status()
        shown = sorted(
            (h.kind, h.mode or "", h.weight)
            for h in status.held
            if h.name == self.case["name"] and h.key == step["key"]
        )
        expected = sorted((h["kind"], h.get("mode", ""), h["weight"]) for h in step["held"])
        assert shown == expected, f"{self.id}: (kind, mode, weight) held: {shown}, not {expected}"

    async def run(self) -> None:
        try:
            for step in self.case["steps"]:
                await self.step(step)
            assert not self.waiting, f"{self.id}: acquires never checked: {list(self.waiting)}"
        finally:
            for task in self.waiting.values():
                task.cancel()


def runs() -> list[Any]:
    return [
        pytest.param(case, kind, id=f"{case['id']}@{kind}") for case in SECTION["cases"] for kind in case["stores"]
    ]


@pytest.mark.parametrize(("case", "kind"), runs())
def test_more_ways(case: dict[str, Any], kind: str, tmp_path: Path) -> None:
    async def main() -> None:
        async with handles(kind, tmp_path / "store") as (a, b):
            await Run(case, a, b).run()

    asyncio.run(main())

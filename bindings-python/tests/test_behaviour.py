"""Every case of vectors/behaviour.json against the real library: what a
hold gives for each way its block and its lease can end (with ``async with``
and with plain ``with``; on an embedded store and over a real ``tinystore
serve``, killed or stopped), and which error each bad input gets. A case this
runner cannot express fails, unless the file marks it not applicable to
Python. The ``more_ways`` section runs in test_behaviour_more_ways.py."""

from __future__ import annotations

import asyncio
import json
import math
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import tinystore
from conftest import REPO, Server, start_server, stop_server

VECTORS: dict[str, Any] = json.loads((REPO / "vectors" / "behaviour.json").read_text())
VALUE = "the body's value"
LOST_WITHIN = 20.0  # seconds; only a bound for a broken test, never a measure


class OwnError(Exception):
    """The body's own error: not a tinystore one."""


@contextmanager
def store_of(kind: str, dir: Path) -> Iterator[tuple[tinystore.Store, Server | None]]:
    """A store of the kind a case names, with the server behind it if served."""
    if kind == "embedded":
        with tinystore.open(dir) as store:
            yield store, None
    elif kind == "served":
        server = start_server(dir)
        try:
            with tinystore.connect(server.socket) as store:
                yield store, server
        finally:
            stop_server(server)
    else:
        raise AssertionError(f"unknown store {kind!r}")


def signal_server(server: Server | None, during: str) -> None:
    assert server is not None, f"{during} needs a served store"
    server.process.send_signal(signal.SIGKILL if during == "server_killed" else signal.SIGTERM)


def result_of(run: Any) -> str:
    """What a hold gave: 'value', 'body_error' or a tinystore error code."""
    try:
        value = run()
    except OwnError:
        return "body_error"
    except tinystore.Error as err:
        return err.code
    assert value == VALUE
    return "value"


def hold_async(case: dict[str, Any], store: tinystore.Store, server: Server | None) -> str:
    locks = store.locks("behaviour", ttl=case.get("ttl_ms", 15000) / 1000, renew=case.get("renew", True))
    during = case["during"]

    async def wait_lost(lease: tinystore.Lease) -> None:
        deadline = time.monotonic() + LOST_WITHIN
        while lease.held:  # the block is cancelled here when the lease is lost
            assert time.monotonic() < deadline, f"{case['id']}: the lease was never lost"
            await asyncio.sleep(0.01)

    async def main() -> str:
        async with locks.hold("k") as lease:
            try:
                if during == "released":
                    await lease.release()
                elif during == "runs_out":
                    await wait_lost(lease)
                elif during == "store_closes":
                    store.close()
                    await wait_lost(lease)
                elif during in ("server_killed", "server_stopped"):
                    signal_server(server, during)
                    await wait_lost(lease)
                elif during != "nothing":
                    raise AssertionError(f"{case['id']}: unknown event {during!r}")
                if case["body"] == "cancelled":
                    # The loss cancels the block here, and the CancelledError
                    # it injected goes out of the block as it is.
                    await asyncio.sleep(LOST_WITHIN)
                    raise AssertionError(f"{case['id']}: the block was never cancelled")
            finally:
                if case["body"] == "error":
                    raise OwnError(case["id"])
            return VALUE
        raise AssertionError("unreachable: a hold that swallowed its block's end")

    return result_of(lambda: asyncio.run(main()))


def hold_sync(case: dict[str, Any], store: tinystore.Store, server: Server | None) -> str:
    locks = store.locks("behaviour", ttl=case.get("ttl_ms", 15000) / 1000, renew=case.get("renew", True))
    during = case["during"]

    def wait_lost(lease: tinystore.Lease) -> None:
        deadline = time.monotonic() + LOST_WITHIN
        while lease.held:
            assert time.monotonic() < deadline, f"{case['id']}: the lease was never lost"
            time.sleep(0.01)

    def main() -> str:
        with locks.hold("k") as lease:
            if during == "released":
                lease.release_sync()
            elif during == "runs_out":
                wait_lost(lease)
            elif during == "store_closes":
                store.close()
                wait_lost(lease)
            elif during in ("server_killed", "server_stopped"):
                signal_server(server, during)
                wait_lost(lease)
            elif during != "nothing":
                raise AssertionError(f"{case['id']}: unknown event {during!r}")
            if case["body"] == "error":
                raise OwnError(case["id"])
            return VALUE
        raise AssertionError("unreachable: a hold that swallowed its block's end")

    return result_of(main)


@pytest.mark.parametrize("mode", ["async with", "with"])
@pytest.mark.parametrize("case", VECTORS["hold"]["cases"], ids=lambda c: c["id"])
def test_hold(case: dict[str, Any], mode: str, tmp_path: Path) -> None:
    with store_of(case["store"], tmp_path / "store") as (store, server):
        run = hold_async if mode == "async with" else hold_sync
        assert run(case, store, server) == case["expect"]


@pytest.mark.parametrize("case", VECTORS["hold_end"]["cases"], ids=lambda c: c["id"])
def test_hold_end(case: dict[str, Any], tmp_path: Path) -> None:
    """A block ended by the cancellation its lease's loss injected is the
    loss. Only ``async with`` is cancelled; a plain ``with`` block runs the
    cases whose block ends by itself."""
    with store_of(case["store"], tmp_path / "store") as (store, server):
        assert hold_async(case, store, server) == case["expect"]
    if case["body"] != "cancelled":
        with store_of(case["store"], tmp_path / "again") as (store, server):
            assert hold_sync(case, store, server) == case["expect"]


def text(value: Any, id: str) -> str:
    """A name or key: a string, or ``{"repeat": s, "times": n}``."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and "repeat" in value:
        return str(value["repeat"]) * int(value["times"])
    raise AssertionError(f"{id}: no text for {value!r}")


def key_of(value: Any, id: str) -> Any:
    if isinstance(value, dict) and "float" in value:
        return float(value["float"])
    return text(value, id)


def seconds(value: Any, id: str) -> float | None:
    if value is None:
        return None
    if value == "infinity":
        return math.inf
    if isinstance(value, int):
        return value / 1000
    raise AssertionError(f"{id}: no duration for {value!r}")


def bad_input_runs() -> list[Any]:
    runs = []
    for case in VECTORS["bad_input"]["cases"]:
        reason = case.get("not_applicable", {}).get("python")
        for kind in case["stores"]:
            marks = [pytest.mark.skip(reason=f"not applicable to Python: {reason}")] if reason else []
            runs.append(pytest.param(case, kind, marks=marks, id=f"{case['id']}@{kind}"))
    return runs


@pytest.mark.parametrize(("case", "kind"), bad_input_runs())
def test_bad_input(case: dict[str, Any], kind: str, tmp_path: Path) -> None:
    id = case["id"]
    ran = False
    with store_of(kind, tmp_path / "store") as (store, _):
        name, key = text(case["name"], id), key_of(case["key"], id)
        ttl, wait = seconds(case.get("ttl_ms"), id), seconds(case.get("wait_ms"), id)
        with pytest.raises(tinystore.Error) as raised:
            first = None
            if "held_first" in case:
                first = store.semaphore(name, case["held_first"]).acquire_sync(key)
            group: tinystore.Locks | tinystore.Semaphore
            if case["group"] == "locks":
                group = store.locks(name)
            elif case["group"] == "semaphore":
                group = store.semaphore(name, case["limit"])
            else:
                raise AssertionError(f"{id}: unknown group {case['group']!r}")
            with group.hold(key, ttl=ttl, wait=wait):
                ran = True
            del first
    assert not ran, f"{id}: the body ran"
    assert raised.value.code == case["expect"], raised.value
    assert case["message_has"] in str(raised.value), raised.value


def test_every_case_is_run_or_marked() -> None:
    """Each bad input names only known languages, with a reason."""
    for case in VECTORS["bad_input"]["cases"]:
        for language, reason in case.get("not_applicable", {}).items():
            assert language in {"rust", "python", "typescript", "go"} and reason, case["id"]
